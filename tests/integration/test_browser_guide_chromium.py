"""Neo4j Browser in headless Chromium: connecting loads the paperkg style and generated guide,
and a guide picture draws exactly the relationships its query returns, offline (requests
off 127.0.0.1 are aborted).

Needs the server that ``scripts/test`` starts (``scripts/neo4j/start``: the paperkg extension at
``/paperkg/``, ``browser.post_connect_cmd``), Playwright and a Chromium. Defaults follow
``scripts/neo4j/start``'s; override with ``KG_TEST_NEO4J_HTTP_URI`` (http://127.0.0.1:7474),
``KG_TEST_NEO4J_BROWSER_DIR`` (<repo>/.neo4j/paperkg-browser, where the guide is written) and
``KG_TEST_CHROMIUM`` (/usr/bin/chromium).
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any
from urllib.parse import urlparse

import neo4j
import pytest

from kg.browser.guide import generate, read_picks
from kg.core.models import PaperRecord
from kg.stores.neo4j.store import Neo4jStore

ROOT = Path(__file__).resolve().parents[2]
QUERIES_FILE = ROOT / "neo4j-browser" / "browser-queries.cypher"
HTTP_URI = os.environ.get("KG_TEST_NEO4J_HTTP_URI", "http://127.0.0.1:7474")
BROWSER_DIR = Path(os.environ.get("KG_TEST_NEO4J_BROWSER_DIR", str(ROOT / ".neo4j" / "paperkg-browser")))
CHROMIUM = os.environ.get("KG_TEST_CHROMIUM", "/usr/bin/chromium")


def _driver_module() -> ModuleType:
    """scripts/browser_screenshots.py: the one place that knows how to drive Browser."""
    spec = importlib.util.spec_from_file_location(
        "browser_screenshots", ROOT / "scripts" / "browser_screenshots.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def guide_on_server(neo4j_driver: neo4j.Driver, seed_records: list[PaperRecord]) -> Iterator[neo4j.Driver]:
    """The examples in the database and their guide where the server's extension serves it."""
    assert BROWSER_DIR.is_dir(), (
        f"{BROWSER_DIR} does not exist: start the server with scripts/neo4j/start "
        "(or set KG_TEST_NEO4J_BROWSER_DIR to its PAPERKG_BROWSER_DIR)"
    )
    store = Neo4jStore(neo4j_driver)
    store.clear()
    store.upsert(seed_records)
    (BROWSER_DIR / "guide.html").write_text(generate(neo4j_driver, QUERIES_FILE), encoding="utf-8")
    yield neo4j_driver
    store.close()


@pytest.fixture(scope="module")
def browser_page(guide_on_server: neo4j.Driver) -> Iterator[tuple[Any, list[str]]]:
    """A connected Browser page; requests off 127.0.0.1 are blocked and recorded."""
    playwright = pytest.importorskip("playwright.sync_api")
    assert Path(CHROMIUM).exists(), f"no Chromium at {CHROMIUM} (apt-get install chromium)"
    bolt_port = urlparse(os.environ.get("KG_TEST_NEO4J_URI", "bolt://127.0.0.1:7687")).port or 7687
    http_port = urlparse(HTTP_URI).port or 7474
    blocked: list[str] = []

    def offline(route: Any) -> None:
        if urlparse(route.request.url).hostname in ("127.0.0.1", "localhost"):
            route.continue_()
        else:
            blocked.append(route.request.url)
            route.abort()

    with playwright.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 1440, "height": 1000})
        page.route("**/*", offline)
        _driver_module().connect(page, http_port, bolt_port, os.environ.get("KG_TEST_NEO4J_PASSWORD") or None)
        yield page, blocked
        browser.close()


@pytest.mark.slow
def test_connecting_loads_the_style_and_the_generated_guide(browser_page: tuple[Any, list[str]]) -> None:
    page, _ = browser_page
    drawer = page.locator("[data-testid=guidesDrawer]")
    assert drawer.locator("text=paperkg: the graph in this database").is_visible()
    assert "papers" in drawer.inner_text()
    style_frame = page.locator("[data-testid=frame]", has_text=":style http")
    assert style_frame.count() == 1
    assert "node.Method" in style_frame.inner_text()  # the paperkg grass, parsed by Browser


@pytest.mark.slow
def test_co_occurrence_picture_draws_exactly_what_the_query_returns(
    browser_page: tuple[Any, list[str]], guide_on_server: neo4j.Driver
) -> None:
    page, blocked = browser_page
    driver_module = _driver_module()
    with guide_on_server.session() as session:
        min_weight = read_picks(session).min_weight  # the value the guide wrote into the block
    expected = guide_on_server.execute_query(
        "MATCH (:Concept)-[r:CO_OCCURS]->(:Concept) WHERE r.papers >= $w RETURN count(r) AS n",
        {"w": min_weight},
    ).records[0]["n"]
    frame = driver_module.run_block(page, driver_module.guide_block(page, "2"))
    page.wait_for_timeout(1500)
    drawn = frame.locator("svg g.relationship").count()
    assert drawn == expected > 0  # "Connect result nodes" added nothing
    overview = frame.inner_text()
    assert "__KGNode__" not in overview
    # Everything above ran with requests off 127.0.0.1 aborted; what Browser itself tried to
    # fetch (web fonts, its telemetry) was refused and nothing of paperkg's was among it.
    assert not [url for url in blocked if "paperkg" in url], blocked
