"""Each distinct GraphQL document is lexed, parsed, checked and validated once per process.

Why: clients send the same few documents with other variables, and before these caches the
request gate parsed every document again (about 1 ms for the benchmark's documents on a loaded
machine) besides strawberry's own parse, and validation hashed the whole parsed tree on every
request to find its cached result. The counters are those of the caches the server uses.
"""

from __future__ import annotations

import uuid
from typing import Any

from api.guard import remembered_verdict
from api.schema import parse_document, validations_by_text

QUERY = "query($name: String!) {{ concept(name: $name) {{ name }} }} # {tag}"


def counts() -> dict[str, tuple[int, int]]:
    parsed, checked = parse_document.cache_info(), remembered_verdict.cache_info()
    return {
        "parse": (parsed.hits, parsed.misses),
        "gate": (checked.hits, checked.misses),
        "validate": (validations_by_text.hits, validations_by_text.misses),
    }


def grown(before: dict[str, tuple[int, int]], after: dict[str, tuple[int, int]]) -> dict[str, Any]:
    return {k: (after[k][0] - before[k][0], after[k][1] - before[k][1]) for k in before}


def test_a_document_sent_twice_is_parsed_checked_and_validated_once(gql: Any) -> None:
    query = QUERY.format(tag=uuid.uuid4().hex)  # a text no earlier request sent
    before = counts()
    first = gql(query, name="multi-armed bandits")
    middle = counts()
    second = gql(query, name="no such concept, surely")
    after = counts()
    assert first["_status"] == 200 and "errors" not in first, first
    assert second == {"data": {"concept": None}, "_status": 200}
    # (hits, misses): the first request parses and validates (the gate checks, then the
    # schema's own check finds the gate's verdict); the second only finds.
    assert grown(before, middle) == {"parse": (0, 1), "gate": (1, 1), "validate": (0, 1)}
    assert grown(middle, after) == {"parse": (1, 0), "gate": (2, 0), "validate": (1, 0)}


def test_remembered_refusals_and_errors_answer_like_the_first_time(gql: Any) -> None:
    tag = uuid.uuid4().hex
    refused = f"query A {{ stats {{ nodes {{ label }} }} }} query B {{ venues {{ name }} }} # {tag}"
    invalid = f'{{ concept(name: "x") {{ noSuchField }} }} # {tag}'
    broken = f'{{ concept(name: "x") {{ name }} # {tag}'
    expected = {refused: "BAD_REQUEST", invalid: "GRAPHQL_VALIDATION_FAILED", broken: "GRAPHQL_PARSE_FAILED"}
    for query, code in expected.items():
        answers = [gql(query) for _ in range(2)]
        assert answers[0] == answers[1], query
        assert [e["extensions"]["code"] for e in answers[0]["errors"]] == [code], answers
