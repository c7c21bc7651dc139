"""The served pages in headless Chromium (Debian's, at /usr/bin/chromium) with the network cut.

Every request the page makes goes through a Playwright route: those to 127.0.0.1 continue,
anything else is aborted and recorded, and each test ends by asserting none was made. So the
pages are shown to work offline, not merely to avoid a CDN we know of.

GraphiQL (``/graphql``): the editor renders, the explorer plugin and the doc explorer show the
schema from introspection, and a query runs. The explorer (``/explore``): sigma has drawn nodes
(pixels read back from its WebGL node layer), a click on a node lists that node's papers as the
API gives them (with the evidence sentence for concepts), search finds concepts, authors and
papers, the co-author year range filters the network, and every read is a bounded POST
/graphql.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import quote, urlsplit

import httpx
import pytest
from playwright.sync_api import Page

from tests.api.pages.conftest import Traffic

# slow: the fixture ingests the examples with the real spaCy model before serving.
pytestmark = [pytest.mark.browser, pytest.mark.slow]


def api(base: str, query: str, **variables: Any) -> dict[str, Any]:
    response = httpx.post(f"{base}/graphql", json={"query": query, "variables": variables}, timeout=60)
    body: dict[str, Any] = response.json()
    assert "errors" not in body, body
    data: dict[str, Any] = body["data"]
    return data


# ------------------------------------------------------------------------------------ GraphiQL


def test_graphiql_renders_offline_with_the_schema_explorer(kg_serve: str, page: tuple[Page, Traffic]) -> None:
    p, traffic = page
    p.goto(f"{kg_serve}/graphql")
    p.wait_for_selector(".graphiql-query-editor .CodeMirror")
    # The explorer plugin is open on start and lists Query's fields from introspection.
    p.wait_for_selector(".graphiql-explorer-root")
    p.wait_for_function(
        "() => document.querySelector('.graphiql-explorer-root').innerText.includes('coauthorNetwork')"
    )
    assert "conceptGraph" in p.inner_text(".graphiql-explorer-root")
    # The doc explorer shows the schema's types.
    p.click("button[aria-label='Show Documentation Explorer']")
    p.wait_for_selector(".graphiql-doc-explorer")
    p.wait_for_function("() => document.querySelector('.graphiql-doc-explorer').innerText.includes('Query')")
    assert "Query" in p.inner_text(".graphiql-doc-explorer")
    # Running the default query reaches the API on 127.0.0.1 and shows its answer.
    p.click(".graphiql-execute-button")
    p.wait_for_function("() => document.querySelector('.result-window').innerText.includes('paperCount')")
    assert traffic.graphql_posts(), "GraphiQL sent no POST /graphql"
    served = {urlsplit(r.url).path for r in traffic.local}
    assert "/static/vendor/graphiql/graphiql.min.js" in served


# ------------------------------------------------------------------------------------ explorer

NODE_PIXELS = """() => {
  const r = window.kgExplorer.renderer;
  r.refresh();  // draws synchronously, so the WebGL buffer can still be read in this task
  const canvas = r.getCanvases().nodes;
  const gl = canvas.getContext('webgl2') || canvas.getContext('webgl');
  const w = gl.drawingBufferWidth, h = gl.drawingBufferHeight;
  const px = new Uint8Array(w * h * 4);
  gl.readPixels(0, 0, w, h, gl.RGBA, gl.UNSIGNED_BYTE, px);
  let drawn = 0;
  for (let i = 3; i < px.length; i += 4) if (px[i] > 0) drawn++;
  return drawn;
}"""

NODE_POSITION = """(node) => {
  const r = window.kgExplorer.renderer;
  const v = r.framedGraphToViewport(r.getNodeDisplayData(node));
  const box = document.querySelector('#graph').getBoundingClientRect();
  return [box.left + v.x, box.top + v.y];
}"""


def wait_ready(p: Page) -> None:
    p.wait_for_function("() => document.body.dataset.state === 'ready'")


def submit(p: Page, button: str) -> None:
    """Click ``button`` and wait until the explorer has sent a request and finished drawing."""
    before = p.evaluate("() => window.kgExplorer.requests")
    p.click(button)
    p.wait_for_function(
        "(n) => window.kgExplorer.requests > n && document.body.dataset.state === 'ready'", arg=before
    )


def click_node(p: Page, node: str) -> None:
    x, y = p.evaluate(NODE_POSITION, node)
    p.mouse.click(x, y)


def assert_bounded(traffic: Traffic) -> None:
    """Every read was a POST /graphql within the API's caps; nothing else but the page's files."""
    posts = traffic.graphql_posts()
    assert posts
    for body in posts:
        variables = body.get("variables") or {}
        assert variables.get("maxNodes", 0) <= 1000, body
        for first in re.findall(r"first:\s*(\d+)", body["query"]):
            assert int(first) <= 100, body["query"]
        assert len(re.findall(r"\bk\d+:", body["query"])) <= 25, body["query"]
    for r in traffic.local:
        path = urlsplit(r.url).path
        assert path in ("/explore", "/graphql") or path.startswith(
            ("/static/explore/", "/static/vendor/explore/")
        ), r.url


def test_explorer_draws_the_concept_graph_and_a_click_lists_papers(
    kg_serve: str, page: tuple[Page, Traffic]
) -> None:
    p, traffic = page
    p.goto(f"{kg_serve}/explore")
    wait_ready(p)
    order = p.evaluate("() => window.kgExplorer.graph.order")
    assert order > 0
    assert p.evaluate(NODE_PIXELS) > 100, "sigma drew no nodes"
    # Node size follows the paper count (weight), colour the concept kind.
    nodes = p.evaluate(
        "() => window.kgExplorer.graph.mapNodes((n, a) => [n, a.name, a.weight, a.size, a.color])"
    )
    heaviest = max(nodes, key=lambda n: n[2])
    lightest = min(nodes, key=lambda n: n[2])
    assert heaviest[3] > lightest[3]
    assert len({n[4] for n in nodes}) > 1, "every concept kind has the same colour"
    edge_labels = p.evaluate("() => window.kgExplorer.graph.mapEdges((e, a) => [a.label, a.weight])")
    assert edge_labels and all(label == str(weight) for label, weight in edge_labels)

    node, name = heaviest[0], heaviest[1]
    click_node(p, node)
    p.wait_for_function(
        "(name) => document.querySelector('#details h2')?.textContent === name && "
        "document.querySelectorAll('#paper-list li').length > 0",
        arg=name,
    )
    shown = p.eval_on_selector_all("#paper-list .paper-title", "els => els.map(e => e.textContent)")
    data = api(
        kg_serve, "query($n: String!) { concept(name: $n) { papers(first: 20) { nodes { title } } } }", n=name
    )
    assert shown == [n["title"] for n in data["concept"]["papers"]["nodes"]]
    evidence = p.eval_on_selector_all("#paper-list .evidence", "els => els.map(e => e.textContent)")
    assert evidence, "no evidence sentence shown for the concept's papers"
    assert_bounded(traffic)


# Screen boxes of each node's circle plus its label (drawn to its right, in the label font), and
# the pairs of boxes that overlap: labels written over each other are unreadable.
LABEL_CLASHES = """() => {
  const r = window.kgExplorer.renderer, g = window.kgExplorer.graph;
  const ctx = document.createElement('canvas').getContext('2d');
  ctx.font = '500 13px system-ui, sans-serif';
  const boxes = [];
  g.forEachNode((n, a) => {
    const d = r.getNodeDisplayData(n), v = r.framedGraphToViewport(d), s = d.size;
    const w = ctx.measureText(a.label || '').width, h = Math.max(s, 8);
    boxes.push([a.label, v.x - s, v.x + s + 3 + w, v.y - h, v.y + h]);
  });
  const clashes = [];
  for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) {
    const a = boxes[i], b = boxes[j];
    if (a[1] < b[2] && b[1] < a[2] && a[3] < b[4] && b[3] < a[4]) clashes.push(a[0] + ' / ' + b[0]);
  }
  return clashes;
}"""


# Nodes whose circle lies outside the graph's container.
LABELS_OFF_SCREEN = """() => {
  const r = window.kgExplorer.renderer, g = window.kgExplorer.graph;
  const { width, height } = r.getDimensions();
  const out = [];
  g.forEachNode((n, a) => {
    const d = r.getNodeDisplayData(n), v = r.framedGraphToViewport(d);
    if (v.x < 0 || v.y < 0 || v.x > width || v.y > height) out.push(a.label);
  });
  return out;
}"""


def test_explorer_labels_seldom_overlap(kg_serve: str, page: tuple[Page, Traffic]) -> None:
    """The layout pushes apart nodes whose labels would cross: 26 overlapping pairs among 39
    nodes on the examples before, 9 among 40 when the drawing was kept to a square, 6 when it
    used the container's width and height, where the drawing is dense. Since a phrase a paper is
    about and names in its title earns its node from the first paper (kg.core.provisional.earns_node),
    the strongest part of the examples' concept graph is denser ("sequence length", "test-time
    scaling" beside "large language models"): 11 among 40, with the same layout code."""
    p, _ = page
    p.goto(f"{kg_serve}/explore")
    wait_ready(p)
    order = p.evaluate("() => window.kgExplorer.graph.order")
    clashes = p.evaluate(LABEL_CLASHES)
    assert order > 20
    assert len(clashes) <= order // 3, clashes
    # Spread over the container's width and height, and still all on screen.
    assert p.evaluate(LABELS_OFF_SCREEN) == []


def test_explorer_caps_max_nodes_at_the_api_limit(kg_serve: str, page: tuple[Page, Traffic]) -> None:
    p, traffic = page
    p.goto(f"{kg_serve}/explore")
    wait_ready(p)
    p.fill("#concept-form input[name=maxNodes]", "5000")
    p.fill("#concept-form input[name=minWeight]", "1")
    submit(p, "#concept-form button[type=submit]")
    assert p.input_value("#concept-form input[name=maxNodes]") == "1000"
    asked = [
        b["variables"]["maxNodes"] for b in traffic.graphql_posts() if "maxNodes" in b.get("variables", {})
    ]
    assert asked[-1] == 1000
    assert p.evaluate("() => window.kgExplorer.graph.order") > 0
    assert_bounded(traffic)


def test_explorer_search_then_concept_graph_around_the_hit(kg_serve: str, page: tuple[Page, Traffic]) -> None:
    p, traffic = page
    p.goto(f"{kg_serve}/explore")
    wait_ready(p)
    p.fill("#search-input", "gradient descent")
    p.press("#search-input", "Enter")
    p.wait_for_selector("#results .group")
    groups = p.eval_on_selector_all("#results h3", "els => els.map(e => e.textContent)")
    assert "Concepts" in groups and "Papers" in groups
    submit(p, "#results a:has-text('gradient descent')")
    assert "gradient descent" in p.inner_text("#status")
    names = p.evaluate("() => window.kgExplorer.graph.mapNodes((n, a) => a.name)")
    assert "gradient descent" in names
    p.wait_for_function("() => document.querySelector('#details h2')?.textContent === 'gradient descent'")
    assert_bounded(traffic)


def test_explorer_coauthor_network_and_year_range(kg_serve: str, page: tuple[Page, Traffic]) -> None:
    """The year range is applied by the server: coauthorNetwork(years:) for the picture, and
    papers(where: {author, year}) for the side panel (no per-author paper lists in the page)."""
    p, traffic = page
    p.goto(f"{kg_serve}/explore")
    wait_ready(p)
    submit(p, "#tab-coauthor")
    p.fill("#coauthor-form input[name=author]", "Sanjeev Arora")
    p.fill("#coauthor-form input[name=depth]", "1")
    submit(p, "#coauthor-form button[type=submit]")
    p.wait_for_function("() => !document.querySelector('#years').disabled")
    network = (
        "query($a: String!, $y: YearRange) { coauthorNetwork(author: $a, depth: 1, maxNodes: 150, years: $y) "
        "{ nodes { name weight } edges { source target weight } } }"
    )

    def expected(years: dict[str, int] | None) -> tuple[dict[str, float], dict[frozenset[str], int]]:
        net = api(kg_serve, network, a="Sanjeev Arora", y=years)["coauthorNetwork"]
        return (
            {n["name"]: n["weight"] for n in net["nodes"]},
            {frozenset((e["source"], e["target"])): e["weight"] for e in net["edges"]},
        )

    def drawn() -> tuple[dict[str, float], dict[frozenset[str], int]]:
        nodes, edges = p.evaluate(
            "() => [window.kgExplorer.graph.mapNodes((n, a) => [n, a.name, a.weight]),"
            " window.kgExplorer.graph.mapEdges((e, a, s, t) => [s, t, a.weight])]"
        )
        return {n[1]: n[2] for n in nodes}, {frozenset((s, t)): w for s, t, w in edges}

    # The whole year span: exactly the API's network.
    assert drawn() == expected(None)
    # The span: the years of the graph's venues.
    years = [v["year"] for v in api(kg_serve, "{ venues { year } }")["venues"] if v["year"] is not None]
    assert p.input_value("#coauthor-form input[name=yearFrom]") == str(min(years))
    assert p.input_value("#coauthor-form input[name=yearTo]") == str(max(years))

    # 2019 alone: the one paper of that year and the three who wrote it, as the server answers.
    p.fill("#coauthor-form input[name=yearFrom]", "2019")
    p.fill("#coauthor-form input[name=yearTo]", "2019")
    p.press("#coauthor-form input[name=yearTo]", "Tab")
    p.wait_for_function("() => document.querySelector('#status').textContent.includes('2019\u20132019')")
    p.wait_for_function("() => document.body.dataset.state === 'ready'")
    names, edges = drawn()
    assert (names, edges) == expected({"from": 2019, "to": 2019})
    assert set(names) == {"Sanjeev Arora", "Abhishek Panigrahi", "Ada Example"}
    assert sorted(edges.values()) == [1, 1, 1]
    assert "yearFrom=2019" in p.url and "yearTo=2019" in p.url

    # 2020-2021: only the 2021 paper, by Arora and Ada Example.
    p.fill("#coauthor-form input[name=yearFrom]", "2020")
    p.fill("#coauthor-form input[name=yearTo]", "2021")
    p.press("#coauthor-form input[name=yearTo]", "Tab")
    p.wait_for_function("() => document.querySelector('#status').textContent.includes('2020\u20132021')")
    p.wait_for_function("() => document.body.dataset.state === 'ready'")
    names, edges = drawn()
    assert (names, edges) == expected({"from": 2020, "to": 2021})
    assert set(names) == {"Sanjeev Arora", "Ada Example"}
    assert list(edges.values()) == [1]

    # A click on an author lists their papers of the chosen years, counted by the server.
    ids = p.evaluate("() => Object.fromEntries(window.kgExplorer.graph.mapNodes((n, a) => [a.name, n]))")
    click_node(p, ids["Ada Example"])
    p.wait_for_function("() => document.querySelector('#details h2')?.textContent === 'Ada Example'")
    p.wait_for_selector("#paper-list")
    titles = p.eval_on_selector_all("#paper-list .paper-title", "els => els.map(e => e.textContent)")
    assert titles == ["Implicit regularization of gradient descent in matrix factorization"]
    assert "(1 in 2020\u20132021)" in p.inner_text("#details .meta")
    assert "Co-authors (shared papers, all years)" in p.inner_text("#details")  # says what it counts
    assert p.evaluate(NODE_PIXELS) > 100
    posts = traffic.graphql_posts()
    asked = [b["variables"].get("years") for b in posts if "coauthorNetwork" in b["query"]]
    assert {"from": 2020, "to": 2021} in asked and {"from": 2019, "to": 2019} in asked, asked
    assert not any("papers(first: 100)" in b["query"] for b in posts), "the page fetched author paper lists"
    assert_bounded(traffic)


def test_explorer_concept_panel_draws_its_trend(kg_serve: str, page: tuple[Page, Traffic]) -> None:
    """A concept's side panel has its papers per year as bars, one a year, from Concept.trend
    counted as its paperCount is (narrower concepts included)."""
    data = api(
        kg_serve,
        "{ concepts(first: 1, orderBy: PAPER_COUNT) { nodes { name paperCount "
        "trend(includeNarrower: true) { year papers } } } }",
    )
    c = data["concepts"]["nodes"][0]
    assert c["trend"], c
    p, traffic = page
    p.goto(f"{kg_serve}/explore?concept={quote(c['name'])}")
    wait_ready(p)
    p.wait_for_selector("#details #trend-chart")
    bars = p.eval_on_selector_all(
        "#trend-chart rect.bar",
        "els => els.map(e => [+e.dataset.year, +e.dataset.papers, e.getBBox().height])",
    )
    first, last = c["trend"][0]["year"], c["trend"][-1]["year"]
    by_year = {t["year"]: t["papers"] for t in c["trend"]}
    assert [(y, n) for y, n, _ in bars] == [(y, by_year.get(y, 0)) for y in range(first, last + 1)]
    assert all((h > 0) == (n > 0) for _, n, h in bars), bars
    assert all(h <= hh for _, n, h in bars for _, nn, hh in bars if n <= nn), bars  # taller = more
    caption = p.inner_text("#trend figcaption")
    assert f"{sum(by_year.values())} of the {c['paperCount']}" in caption, caption
    assert f"{c['paperCount']} paper" in p.inner_text("#details .meta")
    assert_bounded(traffic)


def test_explorer_rare_concept_keeps_the_form_and_draws_its_weaker_ties(
    kg_serve: str, page: tuple[Page, Traffic]
) -> None:
    """A concept that shares 2 papers with no other is drawn with its ties of 1 paper, says so,
    and the form keeps "Min. shared papers" at its default of 2 (it used to be reset to 1)."""
    p, traffic = page
    names = [
        c["name"]
        for c in api(kg_serve, "{ concepts(first: 100, orderBy: PAPER_COUNT) { nodes { name } } }")[
            "concepts"
        ]["nodes"]
    ]
    graph = "query($c: String!, $w: Int!) { conceptGraph(concept: $c, minWeight: $w) { edges { source } } }"
    rare = next(
        n
        for n in names
        if not api(kg_serve, graph, c=n, w=2)["conceptGraph"]["edges"]
        and api(kg_serve, graph, c=n, w=1)["conceptGraph"]["edges"]
    )
    p.goto(f"{kg_serve}/explore?concept={quote(rare)}")
    wait_ready(p)
    p.wait_for_function("() => document.querySelector('#status').textContent.includes('none shares 2')")
    assert p.input_value("#concept-form input[name=minWeight]") == "2"
    assert p.evaluate("() => window.kgExplorer.graph.order") > 1
    assert (
        p.evaluate("() => window.kgExplorer.graph.getNodeAttribute(window.kgExplorer.focus, 'name')") == rare
    )
    assert_bounded(traffic)


def test_explorer_typesets_evidence_as_the_paper_wrote_it(kg_serve: str, page: tuple[Page, Traffic]) -> None:
    """An evidence sentence with inline math is stored with its LaTeX (not a "§" placeholder)
    and the paper's side panel typesets it with KaTeX, like titles and abstracts."""
    data = api(kg_serve, "{ papers(first: 100) { nodes { id abstract concepts(first: 40) { evidence } } } }")
    with_math = [
        (p, s)
        for p in data["papers"]["nodes"]
        for m in p["concepts"]
        for s in m["evidence"][:1]
        if re.search(r"\$[^$]+\$", s)
    ]
    assert with_math, "no example paper has an evidence sentence with inline math"
    assert not any("§" in s for p in data["papers"]["nodes"] for m in p["concepts"] for s in m["evidence"])
    paper, sentence = with_math[0]
    formulas = re.findall(r"\$([^$]+)\$", sentence)
    assert all(f"${f}$" in paper["abstract"] for f in formulas), (formulas, paper["abstract"])
    p, traffic = page
    p.goto(f"{kg_serve}/explore?paper={quote(paper['id'])}")
    p.wait_for_selector("#details .evidence .katex")
    typeset = p.eval_on_selector_all(
        "#details .evidence annotation[encoding='application/x-tex']", "els => els.map(e => e.textContent)"
    )
    assert set(formulas) <= {t.strip() for t in typeset}, (formulas, typeset)
    shown = p.eval_on_selector_all("#details .evidence", "els => els.map(e => e.textContent)")
    assert not any("§" in s for s in shown), shown
    assert_bounded(traffic)
