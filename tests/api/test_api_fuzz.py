"""Generated hostile requests through real HTTP: no 5xx, every refusal a GraphQL error, no stall.

Why generated as well as the fixed cases of ``test_api_abuse.py``: those list the bodies that
once broke the server; a fuzzer finds the next ones. Four classes, each drawn by Hypothesis
(derandomised, so CI sees the same cases every run):

* **mutated documents**: the API's own queries (the five of ``bench/api_latency.py``, the
  contract's listings) with slices cut out, duplicated or replaced by GraphQL punctuation;
* **hostile variables**: valid documents with variables of any JSON shape (huge and negative
  integers, floats, deep lists, objects, strings with control characters);
* **hostile JSON**: arbitrary JSON values and objects with wrong field types as the body;
* **raw bytes**: arbitrary bytes under every content type, including truncated UTF-8.

For each: the status is below 500; a 4xx carries a JSON body with a non-empty ``errors`` list
of objects with a ``message``; a 200 is a JSON body with ``data`` or ``errors``; the answer
comes within the request timeout. The server's ``/healthz`` is checked after each class.
``FUZZ_CASES`` counts the cases per class (printed with ``-s``): 60 per class and backend.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

FUZZ_CASES: Counter[str] = Counter()
_FUZZ = settings(
    max_examples=60,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
TIMEOUT_S = 15.0  # the app's request timeout is 10 s; anything slower counts as a stall

DOCUMENTS = (
    "query($n: String!) { concept(name: $n) { name paperCount papers(first: 20) { totalCount "
    "nodes { title authors { name } venue { name } } } } }",
    "query($a: String!) { author(name: $a) { name coauthors(first: 20) { author { name } papers } } }",
    "query($a: String!, $d: Int) { coauthorNetwork(author: $a, depth: $d, maxNodes: 150) { rows } }",
    "query($c: String, $w: Int) { conceptGraph(concept: $c, minWeight: $w, maxNodes: 120) { rows } }",
    "query($t: String!, $k: Int) { search(text: $t, first: $k) { score paper { title } concept { name } } }",
    "{ stats { nodes { label count } relationships { type count } } }",
    "query($f: Int, $x: String) { papers(first: $f, after: $x) { totalCount pageInfo { endCursor } } }",
)
VARIABLES = {"n": "multi-armed bandits", "a": "Sanjeev Arora", "d": 2, "c": "equivariance", "w": 2}
PUNCTUATION = list("{}()[]:$!@.,=|&\"'\\#\n") + ["...", "on", "fragment", "query", "__typename", "\x00"]

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**40), max_value=10**40)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=40),
    lambda children: (
        st.lists(children, max_size=5) | st.dictionaries(st.text(max_size=8), children, max_size=5)
    ),
    max_leaves=30,
)


@st.composite
def mutated_documents(draw: st.DrawFn) -> str:
    doc = draw(st.sampled_from(DOCUMENTS))
    for _ in range(draw(st.integers(1, 4))):
        i = draw(st.integers(0, len(doc)))
        j = draw(st.integers(i, min(len(doc), i + 30)))
        op = draw(st.sampled_from(["cut", "dup", "punct", "text"]))
        if op == "cut":
            doc = doc[:i] + doc[j:]
        elif op == "dup":
            doc = doc[:j] + doc[i:j] * draw(st.integers(2, 50)) + doc[j:]
        elif op == "punct":
            doc = (
                doc[:i]
                + "".join(draw(st.lists(st.sampled_from(PUNCTUATION), min_size=1, max_size=6)))
                + doc[j:]
            )
        else:
            doc = doc[:i] + draw(st.text(max_size=12)) + doc[j:]
    return doc


def check(c: httpx.Client, content: bytes, content_type: str = "application/json") -> None:
    t0 = time.perf_counter()
    r = c.post("/graphql", content=content, headers={"content-type": content_type}, timeout=TIMEOUT_S + 5)
    took = time.perf_counter() - t0
    shown = content[:120]
    assert r.status_code < 500, (shown, r.status_code, r.text[:300])
    assert took < TIMEOUT_S, (shown, f"{took:.1f} s")
    body = r.json()  # every answer, refusals included, is JSON
    if r.status_code >= 400:
        errors = body.get("errors")
        assert errors and all(isinstance(e, dict) and e.get("message") for e in errors), (shown, r.text[:300])
    else:
        assert "data" in body or body.get("errors"), (shown, r.text[:300])


@pytest.fixture(scope="module")
def client(server: Any) -> Any:
    with httpx.Client(base_url=server.url) as c:
        yield c
        assert c.get("/healthz").status_code == 200
    print("\nAPI fuzz cases per class:", dict(sorted(FUZZ_CASES.items())), "total", sum(FUZZ_CASES.values()))


@_FUZZ
@given(doc=mutated_documents())
def test_mutated_documents(client: httpx.Client, doc: str) -> None:
    FUZZ_CASES["mutated documents"] += 1
    check(client, json.dumps({"query": doc, "variables": VARIABLES}).encode())


@_FUZZ
@given(doc=st.sampled_from(DOCUMENTS), variables=st.dictionaries(st.sampled_from("nadcwtkfx"), json_values))
def test_hostile_variables(client: httpx.Client, doc: str, variables: dict[str, Any]) -> None:
    FUZZ_CASES["hostile variables"] += 1
    check(client, json.dumps({"query": doc, "variables": variables}).encode())


@_FUZZ
@given(
    body=json_values
    | st.fixed_dictionaries(
        {"query": json_values | st.sampled_from(DOCUMENTS)},
        optional={"variables": json_values, "operationName": json_values, "extensions": json_values},
    )
)
def test_hostile_json(client: httpx.Client, body: Any) -> None:
    FUZZ_CASES["hostile JSON"] += 1
    check(client, json.dumps(body).encode())


@_FUZZ
@given(
    raw=st.binary(max_size=300)
    | st.sampled_from(DOCUMENTS).map(lambda d: json.dumps({"query": d}).encode()[:-3]),
    content_type=st.sampled_from(["application/json", "text/plain", "application/graphql", ""]),
)
def test_raw_bytes(client: httpx.Client, raw: bytes, content_type: str) -> None:
    FUZZ_CASES["raw bytes"] += 1
    check(client, raw, content_type)
