"""The explorer's pictures at real size: 10,683 paperlists records in headless Chromium.

On the examples' 58 papers every picture reads well; on 17k papers the landing view drew 120
concepts and 4,213 links, and opening a concept from the search reset "Min. shared papers"
to 1 (issue 29). These tests measure what sigma actually has on screen (its display data:
hidden links, the labels it draws, node positions in pixels) on a store of >= 10,000 real
papers:

- drawn links <= 3x drawn nodes (the drawing budget; "Show all" draws the rest);
- at most one overlapping pair of labels per ten labelled nodes (label boxes in pixels: the
  circle plus the label text in the page's font, as sigma draws it to the node's right);
- the searched node is marked (highlighted) and labelled;
- deep links (?concept=, ?author=, ?paper=) open their view and the address follows the user;
- KaTeX typesets a title written with LaTeX.

The counts are printed (run with -s) for the record.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qs, quote, urlsplit

import httpx
import pytest
from playwright.sync_api import Page

from tests.api.pages.conftest import Traffic

pytestmark = [pytest.mark.browser, pytest.mark.slow]

# What is on screen, from sigma's display data (the reducers' output) and its camera.
ON_SCREEN = """() => {
  const r = window.kgExplorer.renderer, g = window.kgExplorer.graph;
  const ctx = document.createElement('canvas').getContext('2d');
  ctx.font = '500 13px system-ui, sans-serif';
  let nodes = 0, links = 0;
  const boxes = [];
  g.forEachNode((n) => {
    const d = r.getNodeDisplayData(n);
    if (d.hidden) return;
    nodes++;
    if (!d.label) return;
    const v = r.framedGraphToViewport(d), s = r.scaleSize(d.size);
    const w = ctx.measureText(d.label).width, h = Math.max(s, 8);
    boxes.push([d.label, v.x - s, v.x + s + 3 + w, v.y - h, v.y + h]);
  });
  g.forEachEdge((e) => { if (!r.getEdgeDisplayData(e).hidden) links++; });
  const clashes = [];
  for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) {
    const a = boxes[i], b = boxes[j];
    if (a[1] < b[2] && b[1] < a[2] && a[3] < b[4] && b[3] < a[4]) clashes.push(a[0] + ' / ' + b[0]);
  }
  const f = window.kgExplorer.focus, fd = f && r.getNodeDisplayData(f);
  return {
    nodes, links, allLinks: g.size, labelled: boxes.map((b) => b[0]), clashes,
    colours: new Set(g.mapNodes((n) => r.getNodeDisplayData(n).color)).size,
    focus: f ? g.getNodeAttribute(f, 'name') : null,
    focusLabel: fd ? fd.label : null, focusHighlighted: fd ? !!fd.highlighted : null,
  };
}"""


def settled(p: Page) -> None:
    """Wait until the view is drawn and its labels chosen."""
    p.wait_for_function(
        "() => document.body.dataset.state === 'ready' && document.body.dataset.labels === 'done'"
        " && window.kgExplorer.graph && window.kgExplorer.graph.order > 0"
    )


def on_screen(p: Page, view: str) -> dict[str, Any]:
    shown: dict[str, Any] = p.evaluate(ON_SCREEN)
    print(
        f"\n{view}: {shown['nodes']} nodes, {shown['links']} of {shown['allLinks']} links drawn, "
        f"{len(shown['labelled'])} labelled, {len(shown['clashes'])} overlapping label pairs, "
        f"{shown['colours']} colours"
    )
    return shown


def assert_readable(shown: dict[str, Any]) -> None:
    assert shown["nodes"] >= 50, "too small a picture to say anything about real size"
    assert shown["links"] <= 3 * shown["nodes"], shown
    assert shown["allLinks"] > shown["links"], "the store is not big enough to need a budget"
    labelled = len(shown["labelled"])
    assert labelled >= 10, shown["labelled"]
    assert len(shown["clashes"]) * 10 <= labelled, shown["clashes"]
    assert shown["colours"] >= 3, "communities are not coloured apart"


def assert_focus(shown: dict[str, Any], name: str) -> None:
    assert shown["focus"] == name
    assert shown["focusLabel"] == name, "the searched node is not labelled"
    assert shown["focusHighlighted"], "the searched node is not marked"


def query_of(p: Page) -> dict[str, list[str]]:
    return parse_qs(urlsplit(p.url).query)


def gql(base: str, query: str, **variables: Any) -> dict[str, Any]:
    body = httpx.post(f"{base}/graphql", json={"query": query, "variables": variables}, timeout=60).json()
    assert "errors" not in body, body
    data: dict[str, Any] = body["data"]
    return data


def test_landing_view_draws_a_budget_with_labels_that_fit(
    kg_serve_10k: str, page: tuple[Page, Traffic]
) -> None:
    p, _ = page
    p.goto(f"{kg_serve_10k}/explore")
    settled(p)
    shown = on_screen(p, "landing concept graph")
    assert_readable(shown)
    # The rest is one click away.
    p.click("#all-links")
    p.wait_for_function("() => document.querySelector('#all-links').textContent.startsWith('Draw only')")
    every = p.evaluate(ON_SCREEN)
    assert every["links"] == every["allLinks"] == shown["allLinks"]


def test_concept_deep_link_marks_and_labels_the_concept(
    kg_serve_10k: str, page: tuple[Page, Traffic]
) -> None:
    p, _ = page
    concepts = gql(kg_serve_10k, "{ concepts(first: 2, orderBy: PAPER_COUNT) { nodes { name } } }")
    name = concepts["concepts"]["nodes"][1]["name"]
    p.goto(f"{kg_serve_10k}/explore?concept={quote(name)}")
    settled(p)
    assert p.input_value("#concept-form input[name=concept]") == name
    assert p.get_attribute("#tab-concept", "aria-selected") == "true"
    shown = on_screen(p, f"concept graph around {name!r}")
    assert_readable(shown)
    assert_focus(shown, name)
    p.wait_for_function("(n) => document.querySelector('#details h2')?.textContent === n", arg=name)


def test_opening_a_concept_from_search_keeps_min_shared_papers(
    kg_serve_10k: str, page: tuple[Page, Traffic]
) -> None:
    p, _ = page
    p.goto(f"{kg_serve_10k}/explore")
    settled(p)
    assert p.input_value("#concept-form input[name=minWeight]") == "2"
    p.fill("#search-input", "reinforcement learning")
    p.press("#search-input", "Enter")
    p.wait_for_selector("#results .group")
    before = p.evaluate("() => window.kgExplorer.requests")
    p.click("#results .group:first-of-type a >> nth=0")  # the first concept found
    p.wait_for_function(
        "(n) => window.kgExplorer.requests > n && document.body.dataset.state === 'ready'", arg=before
    )
    settled(p)
    assert p.input_value("#concept-form input[name=minWeight]") == "2"
    opened = p.input_value("#concept-form input[name=concept]")
    assert query_of(p)["concept"] == [opened]
    shown = on_screen(p, f"concept graph around {opened!r} (from the search)")
    assert_readable(shown)
    assert_focus(shown, opened)
    # The address is a history entry: Back returns to the landing view.
    p.go_back()
    p.wait_for_function("() => document.querySelector('#concept-form input[name=concept]').value === ''")
    assert "concept" not in query_of(p)


def test_author_deep_link_opens_the_coauthor_network(kg_serve_10k: str, page: tuple[Page, Traffic]) -> None:
    p, _ = page
    authors = gql(kg_serve_10k, "{ authors(first: 1, orderBy: PAPER_COUNT) { nodes { name } } }")
    top = authors["authors"]["nodes"][0]["name"]
    p.goto(f"{kg_serve_10k}/explore?author={quote(top)}")
    settled(p)
    assert p.get_attribute("#tab-coauthor", "aria-selected") == "true"
    assert p.input_value("#coauthor-form input[name=author]") == top
    shown = on_screen(p, f"co-author network of {top!r}")
    assert_readable(shown)
    assert_focus(shown, top)
    p.wait_for_function("(n) => document.querySelector('#details h2')?.textContent === n", arg=top)


def math_paper(base: str) -> dict[str, Any]:
    """The first paper (in the API's order) whose title has an inline formula ``$...$``."""
    after = None
    for _ in range(20):
        page = gql(
            base,
            "query($after: String) { papers(first: 100, after: $after) "
            "{ pageInfo { endCursor } nodes { id title concepts(first: 1) { concept { name } } } } }",
            after=after,
        )["papers"]
        for paper in page["nodes"]:
            if paper["title"].count("$") >= 2 and paper["concepts"]:
                return dict(paper)
        after = page["pageInfo"]["endCursor"]
    raise AssertionError("no paper with a formula in its title among the first 2,000")


def test_paper_deep_link_typesets_its_title(kg_serve_10k: str, page: tuple[Page, Traffic]) -> None:
    p, traffic = page
    paper = math_paper(kg_serve_10k)
    p.goto(f"{kg_serve_10k}/explore?paper={quote(paper['id'])}")
    settled(p)
    p.wait_for_selector("#details h2 .katex")
    title = p.inner_text("#details h2")
    assert "$" not in title, title
    # Typeset, not an error box: KaTeX marks formulas it cannot read with .katex-error.
    assert p.query_selector("#details h2 .katex-error") is None
    # The graph is the one around the paper's first concept, marked.
    first = paper["concepts"][0]["concept"]["name"]
    shown = on_screen(p, f"paper {paper['id']}: concept graph around {first!r}")
    assert_focus(shown, first)
    assert query_of(p)["paper"] == [paper["id"]]
    # KaTeX's fonts come from this server.
    fonts = [r.url for r in traffic.local if urlsplit(r.url).path.endswith(".woff2")]
    assert fonts and all(urlsplit(f).path.startswith("/static/vendor/explore/katex/fonts/") for f in fonts)


def test_a_concepts_count_is_the_same_on_every_screen(kg_serve_10k: str, page: tuple[Page, Traffic]) -> None:
    """One count (issue 29: "922 papers" in the header beside "newest 20 of 2137"): the search
    result, the panel's header, its list ("newest 20 of N") and its trend caption show the API's
    paperCount for the same concept, on 10k real papers."""
    name = "reinforcement learning"
    api = gql(
        kg_serve_10k,
        "query($n: String!) { concept(name: $n) { name paperCount papers { totalCount } "
        "trend(includeNarrower: true) { papers } } }",
        n=name,
    )["concept"]
    count = api["paperCount"]
    assert count == api["papers"]["totalCount"] > 20, api
    dated = sum(t["papers"] for t in api["trend"])
    p, _ = page
    p.goto(f"{kg_serve_10k}/explore")
    settled(p)
    p.fill("#search-input", name)
    p.press("#search-input", "Enter")
    p.wait_for_selector("#results .group")
    found = p.eval_on_selector_all("#results .group:first-of-type a", "els => els.map(e => e.textContent)")
    assert f"{name} ({count})" in found, found
    p.goto(f"{kg_serve_10k}/explore?concept={quote(name)}")
    settled(p)
    p.wait_for_function("(n) => document.querySelector('#details h2')?.textContent === n", arg=name)
    p.wait_for_selector("#details #trend")
    meta = p.inner_text("#details .meta")
    heading = p.inner_text("#details h3")
    caption = p.inner_text("#trend figcaption")
    print(f"\n{name}: search ({count}), panel {meta!r}, list {heading!r}, trend {caption!r}")
    assert f" {count} papers" in meta, meta
    assert f"newest 20 of {count})" in heading, heading
    assert f"({dated} of the {count} have a year)" in caption, caption
    assert 0 < dated <= count
