"""The documented Neo4j Browser queries and the generated guide, on the example listings.

Every query of ``neo4j-browser/browser-queries.cypher`` runs through the driver with its
default parameters and must return rows; graph-view queries must return a picture equal to
the result (no relationship to a node outside it, no internal label or property), and every
block of the guide generated from the same graph must return rows too.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import neo4j
import pytest

from kg.browser.guide import generate, guide_blocks, read_picks
from kg.browser.queries import DocumentedQuery, load_queries
from kg.core.models import PaperRecord
from kg.read.service import ReadService
from kg.stores.neo4j.store import Neo4jStore

ROOT = Path(__file__).resolve().parents[2]
QUERIES_FILE = ROOT / "neo4j-browser" / "browser-queries.cypher"
QUERIES = load_queries(QUERIES_FILE)


@pytest.fixture(scope="module")
def example_graph(neo4j_driver: neo4j.Driver, seed_records: list[PaperRecord]) -> Iterator[neo4j.Driver]:
    """The database holding exactly the example listings."""
    store = Neo4jStore(neo4j_driver)
    store.clear()
    store.upsert(seed_records)
    yield neo4j_driver
    store.close()


def _value(session: neo4j.Session, expr: str) -> Any:
    return session.run(f"RETURN {expr} AS v").single(strict=True)["v"]


def _run(driver: neo4j.Driver, cypher: str, params: dict[str, Any] | None = None) -> list[neo4j.Record]:
    with driver.session() as session:
        return list(session.run(cypher, params or {}))


def _check_picture(rows: list[neo4j.Record], where: str) -> None:
    (row,) = rows
    nodes, rels = row["nodes"], row["relationships"]
    assert nodes, f"{where}: empty picture"
    ids = {n.element_id for n in nodes}
    for r in rels:  # the picture is the result: every drawn edge joins two returned nodes
        assert r.start_node.element_id in ids and r.end_node.element_id in ids, where
    for n in nodes:
        assert not any(label.startswith("__") for label in n.labels), f"{where}: {n.labels}"
        assert "_aliasText" not in n, where


def test_the_file_documents_pictures_and_tables() -> None:
    numbers = [q.number for q in QUERIES]
    assert len(numbers) == len(set(numbers)) >= 10
    assert sum(q.is_picture for q in QUERIES) >= 6


@pytest.mark.parametrize("query", QUERIES, ids=[q.number for q in QUERIES])
def test_documented_query_returns_rows_with_its_defaults(
    example_graph: neo4j.Driver, query: DocumentedQuery
) -> None:
    with example_graph.session() as session:
        params = {name: _value(session, expr) for name, expr in query.params.items()}
    rows = _run(example_graph, query.cypher, params)
    where = f"{QUERIES_FILE.name}:{query.line} (query {query.number}, {params})"
    assert rows, f"{where}: no rows"
    if query.is_picture:
        _check_picture(rows, where)


def test_co_occurrence_picture_draws_exactly_the_filtered_edges(example_graph: neo4j.Driver) -> None:
    (query,) = [q for q in QUERIES if q.number == "2"]
    with example_graph.session() as session:
        params = {name: _value(session, expr) for name, expr in query.params.items()}
    (row,) = _run(example_graph, query.cypher, params)
    expected = _run(
        example_graph,
        "MATCH (:Concept)-[r:CO_OCCURS]->(:Concept) WHERE r.papers >= $w RETURN count(r) AS n",
        {"w": params["minWeight"]},
    )[0]["n"]
    assert 0 < len(row["relationships"]) == min(expected, params["limit"])


def test_every_guide_block_returns_rows(example_graph: neo4j.Driver) -> None:
    with example_graph.session() as session:
        picks = read_picks(session)
    assert picks.concepts and picks.authors and picks.roots and picks.venues
    blocks = guide_blocks(QUERIES, picks)
    assert len(blocks) > len(QUERIES)  # the next picks get blocks too
    for query, text in blocks:
        assert "$" not in text, text  # names are written in, no :param needed
        rows = _run(example_graph, text.removesuffix(";"))
        assert rows, f"guide block of query {query.number}: no rows\n{text}"
        if query.is_picture:
            _check_picture(rows, f"guide block of query {query.number}")


def test_generated_guide_names_the_graphs_top_concept(example_graph: neo4j.Driver) -> None:
    # The top concept by papers about it or a narrower one (paperCount), computed here from the
    # raw relationships: each concept's papers, then added up the BROADER hierarchy (a link
    # marked ``climbs: false`` counts for its own concept only).
    about = _run(
        example_graph,
        "MATCH (p:Paper)-[r:MENTIONS|INTRODUCES]->(c:Concept) "
        "WHERE type(r) = 'INTRODUCES' OR r.about IS NULL OR r.about <> false "
        "RETURN c.id AS c, p.id AS p, r.climbs = false AS stays",
    )
    broader = _run(example_graph, "MATCH (a:Concept)-[:BROADER]->(b:Concept) RETURN a.id AS a, b.id AS b")
    names = {
        r["id"]: r["name"] for r in _run(example_graph, "MATCH (c:Concept) RETURN c.id AS id, c.name AS name")
    }
    up: dict[str, set[str]] = {}
    for r in broader:
        up.setdefault(r["a"], set()).add(r["b"])
    papers: dict[str, set[str]] = {}
    for r in about:
        todo, seen = [r["c"]], set()
        while todo:
            c = todo.pop()
            if c not in seen:
                seen.add(c)
                papers.setdefault(c, set()).add(r["p"])
                if not r["stays"]:
                    todo.extend(up.get(c, ()))
    top = min(papers, key=lambda c: (-len(papers[c]), names[c]))
    top = names[top]
    html_text = generate(example_graph, QUERIES_FILE)
    assert html_text.count("<slide>") == 6
    assert f"{{name: '{top}'}}" in html_text.replace("&#x27;", "'")


def test_guide_concept_counts_are_the_api_paper_counts(example_graph: neo4j.Driver) -> None:
    """One count (issue 29): the guide's "kind, N papers" and query 0's ``papers`` are what the
    API's ``paperCount`` (and the explorer beside it) says for the same concept."""
    store = Neo4jStore(example_graph)
    service = ReadService(store)
    with example_graph.session() as session:
        picks = read_picks(session)
    assert picks.concepts
    for pick in picks.concepts:
        concept = service.require_concept(pick.name)
        expected = service.paper_count(service.concept_query(concept.id))
        assert pick.detail.endswith(f", {expected} papers"), (pick, expected)
    query0 = next(q for q in QUERIES if q.number == "0")
    name = picks.concepts[0].name
    rows = _run(example_graph, query0.cypher, {"name": name})
    by_name = {r["concept"]: r["papers"] for r in rows}
    assert name in by_name, by_name
    for concept_name, papers in by_name.items():
        concept = service.require_concept(concept_name)
        assert papers == service.paper_count(service.concept_query(concept.id)), concept_name


def test_coauthor_picture_keeps_a_budget_and_marks_the_author(example_graph: neo4j.Driver) -> None:
    """Query 3: at most $limit co-authors, each with at most 2 ties among them besides the one
    to the author (<= 3 x $limit edges, under Browser's 500-item cut), the author marked."""
    (query,) = [q for q in QUERIES if q.number == "3"]
    with example_graph.session() as session:
        params = {name: _value(session, expr) for name, expr in query.params.items()}
        author = read_picks(session).authors[0].name
    count = "MATCH (:Author {name: $a})-[:COAUTHOR]-(co) RETURN count(DISTINCT co) AS n"
    coauthors = _run(example_graph, count, {"a": author})[0]["n"]
    limit = max(2, coauthors - 2)  # fewer than the author has: the cut is exercised
    assert coauthors > limit
    params.update(author=author, limit=limit)
    rows = _run(example_graph, query.cypher, params)
    _check_picture(rows, "query 3")
    nodes, rels = rows[0]["nodes"], rows[0]["relationships"]
    assert len(nodes) == limit + 1
    assert len(rels) <= 3 * limit and len(rels) <= 3 * len(nodes)
    marked = [n for n in nodes if "Searched" in n.labels]
    assert [n["name"] for n in marked] == [author]
    assert {r.type for r in rels} == {"COAUTHOR"}
