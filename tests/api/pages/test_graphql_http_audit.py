"""GraphQL over HTTP: the ``graphql-http`` audit suite against a running ``kg serve``, plus the
negotiation cases the audit does not cover.

The audit is the npm package ``graphql-http`` (``serverAudits``), run by
``tools/graphql-http-audit/audit.mjs``; ``.ci/run`` installs it with ``npm ci``. Every audit
(MUST, SHOULD and MAY) has to be ``ok``: a warning fails the test.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Mapping
from pathlib import Path

import httpx
import pytest

# The kg serve fixture ingests the examples with the real spaCy model before serving.
pytestmark = pytest.mark.slow

AUDIT_DIR = Path(__file__).resolve().parents[3] / "tools" / "graphql-http-audit"
GRAPHQL_RESPONSE = "application/graphql-response+json"


def test_graphql_http_audit_all_ok(kg_serve: str) -> None:
    node = shutil.which("node")
    assert node, "node is needed for the graphql-http audit"
    assert (AUDIT_DIR / "node_modules" / "graphql-http").is_dir(), (
        f"graphql-http is not installed: run `npm ci --prefix {AUDIT_DIR.relative_to(AUDIT_DIR.parents[1])}`"
    )
    run = subprocess.run(
        [node, "audit.mjs", f"{kg_serve}/graphql", "--json"],
        cwd=AUDIT_DIR,
        capture_output=True,
        text=True,
        timeout=300,
    )
    report = json.loads(run.stdout)
    not_ok = [r for r in report["results"] if r["status"] != "ok"]
    assert not_ok == [], json.dumps(not_ok, indent=2)
    assert report["summary"]["ok"] == report["summary"]["total"] >= 60
    assert run.returncode == 0, run.stderr


def post(base: str, body: Mapping[str, object], accept: str | None) -> httpx.Response:
    headers = {"content-type": "application/json"}
    if accept is not None:
        headers["accept"] = accept
    return httpx.post(f"{base}/graphql", json=body, headers=headers, timeout=60)


def test_field_error_keeps_data_and_2xx_with_graphql_response_json(kg_serve: str) -> None:
    # A resolver's error (maxNodes over the cap) is a field error: data is there (null), 200.
    r = post(kg_serve, {"query": "{ conceptGraph(maxNodes: 5000) { truncated } }"}, GRAPHQL_RESPONSE)
    assert r.status_code == 200
    assert r.headers["content-type"].startswith(GRAPHQL_RESPONSE)
    body = r.json()
    assert "data" in body and body["errors"][0]["path"] == ["conceptGraph"]


def test_request_errors_by_media_type(kg_serve: str) -> None:
    bad = {"query": "{ concept(name: 1) { name } }"}  # a validation error
    legacy = post(kg_serve, bad, "application/json")
    assert legacy.status_code == 200 and legacy.json()["data"] is None
    assert legacy.headers["content-type"].startswith("application/json")
    new = post(kg_serve, bad, f"{GRAPHQL_RESPONSE}, application/json;q=0.9")
    assert new.status_code == 400 and "data" not in new.json()
    assert new.json()["errors"][0]["extensions"]["code"] == "GRAPHQL_VALIDATION_FAILED"
    # Quality values decide: application/json preferred over the new type.
    preferred = post(kg_serve, bad, f"{GRAPHQL_RESPONSE};q=0.5, application/json")
    assert preferred.status_code == 200 and preferred.headers["content-type"].startswith("application/json")


def test_not_acceptable_and_vary(kg_serve: str) -> None:
    r = post(kg_serve, {"query": "{ __typename }"}, "text/html")
    assert r.status_code == 406
    ok = post(kg_serve, {"query": "{ __typename }"}, None)
    assert ok.status_code == 200 and ok.json() == {"data": {"__typename": "Query"}}
    assert "accept" in ok.headers["vary"].lower()
    # The IDE is still served to a browser's GET (no query parameter).
    page = httpx.get(f"{kg_serve}/graphql", headers={"accept": "text/html"}, timeout=60)
    assert page.status_code == 200 and "/static/vendor/graphiql/graphiql.min.js" in page.text
    assert "unpkg" not in page.text and "https://" not in page.text
