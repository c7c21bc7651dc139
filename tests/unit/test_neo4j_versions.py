"""The Neo4j version is pinned once (scripts/neo4j/versions.env); the compose file must agree."""

from __future__ import annotations

import re

import yaml

from tests.conftest import ROOT


def _pins() -> dict[str, str]:
    text = (ROOT / "scripts" / "neo4j" / "versions.env").read_text(encoding="utf-8")
    return dict(re.findall(r"^([A-Z0-9_]+)=(\S+)$", text, flags=re.M))


def test_compose_image_matches_the_pinned_version() -> None:
    pins = _pins()
    assert pins["NEO4J_VERSION"] == pins["APOC_VERSION"]
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text(encoding="utf-8"))
    # The neo4j service is the official image plus the paperkg Browser extension
    # (docker/neo4j.Dockerfile), built FROM neo4j:<version>-community.
    build = compose["services"]["neo4j"]["build"]
    assert build["args"]["NEO4J_VERSION"] == f"${{NEO4J_VERSION:-{pins['NEO4J_VERSION']}}}"
    dockerfile = (ROOT / build["dockerfile"]).read_text(encoding="utf-8")
    assert f"ARG NEO4J_VERSION={pins['NEO4J_VERSION']}\n" in dockerfile
    assert "FROM neo4j:${NEO4J_VERSION}-community AS neo4j" in dockerfile
    health = compose["services"]["neo4j"]["healthcheck"]["test"]
    assert "RETURN 1" in " ".join(health)  # a real query, not an open port
    assert compose["services"]["api"]["depends_on"]["neo4j"]["condition"] == "service_healthy"
