"""Every Query field over HTTP against the seed listings, on each backend."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

GQL = Callable[..., dict[str, Any]]


def data(body: dict[str, Any]) -> dict[str, Any]:
    """The ``data`` of a response that must have no errors."""
    assert not body.get("errors"), body.get("errors")
    result: dict[str, Any] = body["data"]
    return result


PAGE = "totalCount nodes { id title } pageInfo { hasNextPage endCursor }"


def ids_of(connection: dict[str, Any]) -> list[str]:
    return [n["id"] for n in connection["nodes"]]


# -- concepts -------------------------------------------------------------------------------------


def test_concept_resolves_plural_to_canonical_name_with_papers(gql: GQL) -> None:
    d = data(gql('{ concept(name: "Nash equilibria") { id name kind papers { ' + PAGE + " } } }"))
    concept = d["concept"]
    assert concept["name"] == "Nash equilibrium"
    assert concept["papers"]["totalCount"] >= 1
    assert len(concept["papers"]["nodes"]) == min(20, concept["papers"]["totalCount"])


@pytest.mark.parametrize(
    ("query", "canonical"),
    [
        ("NASH EQUILIBRIUM", "Nash equilibrium"),
        ("nash equilibrium", "Nash equilibrium"),
        ("LLMs", "large language models"),
        ("llms", "large language models"),
        ("large language model", "large language models"),
        ("bandits", "multi-armed bandits"),
    ],
)
def test_concept_resolves_case_acronyms_and_aliases(gql: GQL, query: str, canonical: str) -> None:
    d = data(gql("query($n: String!) { concept(name: $n) { name } }", n=query))
    assert d["concept"] is not None, query
    assert d["concept"]["name"] == canonical


def test_bandits_includes_papers_of_narrower_concepts(gql: GQL) -> None:
    q = """query($n: String!) { concept(name: $n) {
        id narrower { name }
        all: papers(first: 100) { totalCount nodes { id } }
        direct: papers(first: 100, includeNarrower: false) { totalCount nodes { id } }
        paperCount
        closureCount: paperCount(includeNarrower: true)
    } }"""
    bandits = data(gql(q, n="bandits"))["concept"]
    contextual = data(gql(q, n="contextual bandits"))["concept"]
    assert "contextual bandits" in {c["name"] for c in bandits["narrower"]}
    all_ids, direct_ids = set(ids_of(bandits["all"])), set(ids_of(bandits["direct"]))
    assert ids_of(contextual["all"]), "the seeds have contextual-bandit papers"
    assert set(ids_of(contextual["all"])) <= all_ids
    assert direct_ids <= all_ids
    assert bandits["all"]["totalCount"] >= bandits["direct"]["totalCount"]
    # the same defaults as papers (narrower included): the count beside a list is its length
    assert bandits["paperCount"] == bandits["closureCount"] == bandits["all"]["totalCount"]


def test_paper_count_equals_total_count_under_the_same_arguments(gql: GQL) -> None:
    """Salience: ``papers`` is the papers about a concept unless ``includeMentions``, and
    ``paperCount`` counts exactly what ``papers`` lists for the same arguments."""
    q = """query($n: String!) { concept(name: $n) {
        about: papers(first: 100, includeNarrower: false) { totalCount nodes { id } }
        any: papers(first: 100, includeNarrower: false, includeMentions: true) { totalCount nodes { id } }
        tree: papers(first: 100, includeMentions: true) { totalCount }
        aboutCount: paperCount(includeNarrower: false)
        anyCount: paperCount(includeNarrower: false, includeMentions: true)
        defaultCount: paperCount
        byDefault: papers { totalCount }
        treeCount: paperCount(includeNarrower: true, includeMentions: true)
    } }"""
    listing = data(gql("{ concepts(first: 30, orderBy: PAPER_COUNT) { nodes { name } } }"))
    widened = 0
    for name in [c["name"] for c in listing["concepts"]["nodes"]]:
        c = data(gql(q, n=name))["concept"]
        assert c["aboutCount"] == c["about"]["totalCount"] == len(c["about"]["nodes"]), name
        assert c["anyCount"] == c["any"]["totalCount"] == len(c["any"]["nodes"]), name
        assert c["treeCount"] == c["tree"]["totalCount"], name
        assert c["defaultCount"] == c["byDefault"]["totalCount"] >= c["aboutCount"], name
        assert set(ids_of(c["about"])) <= set(ids_of(c["any"])), name
        widened += c["anyCount"] > c["aboutCount"]
    assert widened, "some seed concept is only mentioned in passing by some paper"


def test_concept_broader_narrower_related(gql: GQL) -> None:
    d = data(
        gql(
            """{ concept(name: "contextual bandits") {
                broader { name narrower { name } }
                related(first: 5) { concept { name } papers }
                introducedBy { id }
            } }"""
        )
    )["concept"]
    assert "multi-armed bandits" in [b["name"] for b in d["broader"]]
    for b in d["broader"]:
        assert "contextual bandits" in [n["name"] for n in b["narrower"]]
    weights = [r["papers"] for r in d["related"]]
    assert weights == sorted(weights, reverse=True)
    assert len(d["related"]) <= 5
    assert isinstance(d["introducedBy"], list)


def test_unknown_concept_is_null_with_suggestions(gql: GQL) -> None:
    d = data(
        gql(
            '{ concept(name: "Nash equilibirum") { name } '
            'conceptSuggestions(name: "Nash equilibirum") { name } }'
        )
    )
    assert d["concept"] is None
    assert "Nash equilibrium" in [c["name"] for c in d["conceptSuggestions"]]
    assert len(d["conceptSuggestions"]) <= 5


def test_concepts_list_filters_orders_and_pages(gql: GQL) -> None:
    q = """query($s: String, $k: ConceptKind, $o: ConceptOrder, $after: String) {
        concepts(search: $s, kind: $k, orderBy: $o, first: 5, after: $after) {
            totalCount nodes { name kind paperCount(includeNarrower: false) }
            pageInfo { hasNextPage endCursor } } }"""
    by_count = data(gql(q))["concepts"]
    counts = [c["paperCount"] for c in by_count["nodes"]]
    assert counts == sorted(counts, reverse=True)
    nxt = data(gql(q, after=by_count["pageInfo"]["endCursor"]))["concepts"]
    assert not {c["name"] for c in nxt["nodes"]} & {c["name"] for c in by_count["nodes"]}
    by_name = data(gql(q, o="NAME"))["concepts"]["nodes"]
    names = [c["name"].casefold() for c in by_name]
    assert names == sorted(names)
    bandits = data(gql(q, s="bandit"))["concepts"]
    assert bandits["totalCount"] >= 2
    assert all("bandit" in c["name"].casefold() or c["name"] for c in bandits["nodes"])
    tasks = data(gql(q, k="TASK"))["concepts"]["nodes"]
    assert tasks and all(c["kind"] == "TASK" for c in tasks)


# -- authors --------------------------------------------------------------------------------------


def test_arora_coauthors_sorted_by_shared_papers(gql: GQL) -> None:
    d = data(
        gql('{ author(name: "Sanjeev Arora") { name paperCount coauthors { author { name } papers } } }')
    )
    coauthors = d["author"]["coauthors"]
    assert coauthors[0] == {"author": {"name": "Abhishek Panigrahi"}, "papers": 2}
    keys = [(-c["papers"], c["author"]["name"].casefold()) for c in coauthors]
    assert keys == sorted(keys)
    assert len(coauthors) == 6
    assert d["author"]["paperCount"] == 2


def test_author_lookup_ignores_case_and_accents_and_pages_papers(gql: GQL) -> None:
    d = data(gql('{ author(name: "sanjeev arora") { name papers(first: 1) { ' + PAGE + " } } }"))
    papers = d["author"]["papers"]
    assert papers["totalCount"] == 2 and papers["pageInfo"]["hasNextPage"]
    rest = data(
        gql(
            'query($a: String) { author(name: "Sanjeev Arora") { papers(first: 5, after: $a) { '
            + PAGE
            + " } } }",
            a=papers["pageInfo"]["endCursor"],
        )
    )["author"]["papers"]
    assert len(rest["nodes"]) == 1 and not rest["pageInfo"]["hasNextPage"]
    assert rest["nodes"][0]["id"] != papers["nodes"][0]["id"]
    assert data(gql('{ author(name: "Nobody Atall") { name } }'))["author"] is None


def test_authors_search(gql: GQL) -> None:
    d = data(gql('{ authors(search: "panigrahi") { totalCount nodes { name } } }'))
    assert d["authors"]["nodes"] == [{"name": "Abhishek Panigrahi"}]
    everyone = data(gql("{ authors(first: 100, orderBy: PAPER_COUNT) { totalCount nodes { paperCount } } }"))
    counts = [a["paperCount"] for a in everyone["authors"]["nodes"]]
    assert counts == sorted(counts, reverse=True)
    assert everyone["authors"]["totalCount"] >= len(counts)


# -- papers ---------------------------------------------------------------------------------------


def test_papers_paginate_without_overlap(gql: GQL) -> None:
    q = "query($after: String) { papers(first: 7, after: $after) { " + PAGE + " } }"
    seen: list[str] = []
    after = None
    total = None
    while True:
        page = data(gql(q, after=after))["papers"]
        total = page["totalCount"]
        seen += ids_of(page)
        if not page["pageInfo"]["hasNextPage"]:
            break
        after = page["pageInfo"]["endCursor"]
    assert len(seen) == len(set(seen)) == total


def test_paper_fields_and_links(gql: GQL) -> None:
    arora = data(gql('{ author(name: "Sanjeev Arora") { papers { nodes { id } } } }'))
    pid = arora["author"]["papers"]["nodes"][0]["id"]
    q = """query($id: ID!) { paper(id: $id) {
        id title titleSource abstract year authorsTruncated shortTitle sources keywords url
        venue { name } authors { name } topics { name path parent { name } }
        concepts { concept { name } count score evidence } introduces { name }
    } }"""
    paper = data(gql(q, id=pid))["paper"]
    assert paper["id"] == pid and paper["title"] and paper["abstract"]
    names = [a["name"] for a in paper["authors"]]
    assert "Sanjeev Arora" in names and names[-1] == "Sanjeev Arora"  # byline order: Arora is last
    scores = [c["score"] for c in paper["concepts"]]
    assert scores == sorted(scores, reverse=True)
    assert all(c["count"] >= 1 and isinstance(c["evidence"], list) for c in paper["concepts"])
    assert paper["topics"] and paper["topics"][0]["path"][-1] == paper["topics"][0]["name"]
    assert data(gql(q, id="paper:does-not-exist"))["paper"] is None


@pytest.mark.parametrize(
    ("where", "check"),
    [
        ({"venue": "ICLR 2026"}, "venue"),
        ({"venue": "iclr"}, "venue"),
        ({"year": 2026}, "year"),
        ({"author": "Sanjeev Arora"}, "author"),
        ({"concept": "bandits"}, "concept"),
        ({"topic": "Deep Learning"}, "topic"),
        ({"text": "Nash equilibrium"}, "text"),
    ],
)
def test_paper_filters(gql: GQL, where: dict[str, Any], check: str) -> None:
    q = """query($w: PaperFilter) { papers(where: $w, first: 100) {
        totalCount nodes { id year venue { name } authors { name } topics { path } } } }"""
    page = data(gql(q, w=where))["papers"]
    nodes = page["nodes"]
    assert nodes and page["totalCount"] == len(nodes)
    if check == "venue":
        assert {n["venue"]["name"] for n in nodes} == {"ICLR 2026"}
    elif check == "year":
        assert {n["year"] for n in nodes} == {2026}
    elif check == "author":
        assert all("Sanjeev Arora" in [a["name"] for a in n["authors"]] for n in nodes)
    elif check == "topic":
        assert all(any(t["path"][0] == "Deep Learning" for t in n["topics"]) for n in nodes)
        assert any(len(t["path"]) > 1 for n in nodes for t in n["topics"]), "subtopics included"
    elif check == "concept":
        bandits = data(gql('{ concept(name: "bandits") { papers(first: 100) { nodes { id } } } }'))
        assert {n["id"] for n in nodes} == set(ids_of(bandits["concept"]["papers"]))
    combined = data(gql(q, w={**where, "year": 1999}))["papers"]
    assert combined["totalCount"] == 0


def test_paper_filters_combine(gql: GQL) -> None:
    q = "query($w: PaperFilter) { papers(where: $w, first: 100) { totalCount nodes { id } } }"
    concept = set(ids_of(data(gql(q, w={"concept": "bandits"}))["papers"]))
    venue = set(ids_of(data(gql(q, w={"venue": "ICLR 2026"}))["papers"]))
    both = set(ids_of(data(gql(q, w={"concept": "bandits", "venue": "ICLR 2026"}))["papers"]))
    assert both == concept & venue


# -- venues, topics, search, stats ----------------------------------------------------------------


def test_venues_and_topics_with_counts(gql: GQL) -> None:
    d = data(
        gql(
            """{ venues { name series year paperCount papers(first: 1) { totalCount } }
                topics { id name path paperCount parent { name } children { name paperCount }
                         papers(first: 100) { totalCount } } }"""
        )
    )
    assert {v["name"] for v in d["venues"]} == {"ICLR 2026", "ICML 2026"}
    for v in d["venues"]:
        assert v["paperCount"] == v["papers"]["totalCount"] > 0
        assert v["series"] in ("ICLR", "ICML") and v["year"] == 2026
    topics = {t["id"]: t for t in d["topics"]}
    roots = [t for t in topics.values() if t["parent"] is None]
    assert roots
    for t in topics.values():
        # a parent counts its own papers and its subtopics' (a paper is under one leaf topic)
        assert t["paperCount"] >= sum(c["paperCount"] for c in t["children"])
        assert t["paperCount"] >= 1
        assert t["papers"]["totalCount"] == t["paperCount"]


def test_search_ranks_papers_and_concepts(gql: GQL) -> None:
    hits = data(
        gql('{ search(text: "Nash equilibrium", first: 10) { score paper { id } concept { name } } }')
    )["search"]
    assert hits and len(hits) <= 10
    scores = [h["score"] for h in hits]
    assert scores == sorted(scores, reverse=True)
    assert all((h["paper"] is None) != (h["concept"] is None) for h in hits)
    assert "Nash equilibrium" in [h["concept"]["name"] for h in hits if h["concept"]]
    papers = data(gql('{ search(text: "concave games equilibria", first: 5) { paper { abstract } } }'))[
        "search"
    ]
    assert papers and any(h["paper"] and "concave games" in h["paper"]["abstract"] for h in papers)


def test_stats_match_the_store(gql: GQL, seeded_store: Any) -> None:
    d = data(gql("{ stats { nodes { label count } relationships { type count } } }"))["stats"]
    counts = seeded_store.counts()
    assert {n["label"]: n["count"] for n in d["nodes"]} == counts.nodes
    assert {r["type"]: r["count"] for r in d["relationships"]} == counts.relationships


# -- networks and analytics -----------------------------------------------------------------------


def test_coauthor_network_of_arora(gql: GQL) -> None:
    q = """query($d: Int, $m: Int) { coauthorNetwork(author: "Sanjeev Arora", depth: $d, maxNodes: $m) {
        nodes { id label name weight } edges { source target weight } truncated } }"""
    net = data(gql(q, d=1))["coauthorNetwork"]
    assert len(net["nodes"]) == 7
    assert net["nodes"][0]["name"] == "Sanjeev Arora" and not net["truncated"]
    assert all(n["label"] == "Author" and n["weight"] >= 1 for n in net["nodes"])
    ids = {n["id"] for n in net["nodes"]}
    assert all(e["source"] in ids and e["target"] in ids and e["source"] < e["target"] for e in net["edges"])
    weights = {(e["source"], e["target"]): e["weight"] for e in net["edges"]}
    assert weights[("author:abhishek-panigrahi", "author:sanjeev-arora")] == 2
    small = data(gql(q, d=2, m=3))["coauthorNetwork"]
    assert len(small["nodes"]) == 3 and small["truncated"]
    assert small["nodes"][1]["name"] == "Abhishek Panigrahi"  # strongest tie kept first
    alone = data(gql(q, d=0))["coauthorNetwork"]
    assert [n["name"] for n in alone["nodes"]] == ["Sanjeev Arora"] and alone["edges"] == []


def test_concept_graph_around_a_concept_and_global(gql: GQL) -> None:
    q = """query($c: String, $w: Int, $m: Int) { conceptGraph(concept: $c, minWeight: $w, maxNodes: $m) {
        nodes { id name weight } edges { source target weight } truncated } }"""
    around = data(gql(q, c="large language models", w=1, m=50))["conceptGraph"]
    assert around["nodes"][0]["name"] == "large language models"
    assert len(around["nodes"]) > 1 and around["edges"]
    top = data(gql(q, w=2, m=10))["conceptGraph"]
    assert 0 < len(top["nodes"]) <= 10
    assert all(e["weight"] >= 2 for e in top["edges"])
    again = data(gql(q, w=2, m=10))["conceptGraph"]
    assert again == top, "deterministic"


def test_network_rows_are_the_typed_nodes_and_edges(gql: GQL) -> None:
    q = """query($c: String) { conceptGraph(concept: $c, minWeight: 1, maxNodes: 30) {
        nodes { id label name weight } edges { source target weight } rows } }"""
    for concept in ("large language models", None):
        net = data(gql(q, c=concept))["conceptGraph"]
        assert net["edges"], concept
        assert net["rows"] == {
            "nodes": [[n["id"], n["label"], n["name"], n["weight"]] for n in net["nodes"]],
            "edges": [[e["source"], e["target"], e["weight"]] for e in net["edges"]],
        }


def test_collaboration_path(gql: GQL) -> None:
    q = """query($a: String!, $b: String!) {
        collaborationPath(from: $a, to: $b) { length authors { name } } }"""
    path = data(gql(q, a="Simon Park", b="Xingyu Zhu"))["collaborationPath"]
    assert path["length"] == 2
    names = [a["name"] for a in path["authors"]]
    assert names[0] == "Simon Park" and names[-1] == "Xingyu Zhu"
    assert names[1] in ("Abhishek Panigrahi", "Sanjeev Arora")
    assert data(gql(q, a="Simon Park", b="Pan Xu"))["collaborationPath"] is None


@pytest.mark.parametrize("measure", ["DEGREE", "BETWEENNESS", "PAGERANK"])
def test_centrality(gql: GQL, measure: str) -> None:
    q = """query($m: CentralityMeasure) {
        centralAuthors(measure: $m, first: 5) { author { name } score }
        centralConcepts(measure: $m, first: 5) { concept { name } score } }"""
    d = data(gql(q, m=measure))
    for key in ("centralAuthors", "centralConcepts"):
        scores = [r["score"] for r in d[key]]
        assert len(scores) == 5 and scores == sorted(scores, reverse=True)
    if measure == "DEGREE":
        assert "large language models" in [c["concept"]["name"] for c in d["centralConcepts"]]


def test_communities(gql: GQL) -> None:
    d = data(
        gql(
            """{ coauthors: communities(graph: COAUTHOR, first: 3) { index size members(first: 50) { name } }
                concepts: communities(graph: CONCEPT, first: 3) { index size members(first: 2) { name } } }"""
        )
    )
    sizes = [c["size"] for c in d["coauthors"]]
    assert sizes == sorted(sizes, reverse=True) and len(sizes) == 3
    assert [c["index"] for c in d["coauthors"]] == [0, 1, 2]
    assert all(len(c["members"]) == min(50, c["size"]) for c in d["coauthors"])
    assert all(len(c["members"]) == min(2, c["size"]) for c in d["concepts"])
    arora_team = [c for c in d["coauthors"] if "Sanjeev Arora" in [m["name"] for m in c["members"]]]
    if arora_team:
        assert "Abhishek Panigrahi" in [m["name"] for m in arora_team[0]["members"]]


# -- key concepts ---------------------------------------------------------------------------------

KEY_CONCEPTS = """{ papers(first: 100) { nodes { id
    concepts { concept { id name } }
    keyConcepts(first: 100) { name surface score salience about source evidence concept { id name } }
    top: keyConcepts { name } } } }"""


def test_key_concepts_list_every_mention_and_the_paper_only_phrases(gql: GQL) -> None:
    papers = data(gql(KEY_CONCEPTS))["papers"]["nodes"]
    phrases: list[tuple[str, dict[str, Any]]] = []
    for paper in papers:
        listed = paper["keyConcepts"]
        ranks = [(k["about"], k["score"]) for k in listed]
        assert ranks == sorted(ranks, reverse=True), paper["id"]  # about first, then by score
        assert len(paper["top"]) == min(10, len(listed))  # first: 10 by default
        assert [k["name"] for k in paper["top"]] == [k["name"] for k in listed[:10]]
        nodes = [k["concept"] for k in listed if k["concept"] is not None]
        # every concept it mentions, under the canonical name (the surface is the paper's wording)
        assert sorted(c["id"] for c in nodes) == sorted(m["concept"]["id"] for m in paper["concepts"])
        assert all(k["name"] == k["concept"]["name"] for k in listed if k["concept"] is not None)
        assert all(k["source"] in ("VOCABULARY", "DISCOVERED", "PREDICTED") for k in listed)
        phrases += [(paper["id"], k) for k in listed if k["concept"] is None]
    assert phrases, "the seeds have phrases of one paper only"
    assert all(k["source"] == "DISCOVERED" and k["evidence"] for _, k in phrases)
    assert any(k["surface"] != k["name"] for p in papers for k in p["keyConcepts"])


def test_predicted_key_concepts_are_marked_and_below_what_the_text_shows(gql: GQL) -> None:
    """Concepts the seeds' texts imply (extractors/concepts/predicted.py): vocabulary nodes,
    no evidence, never also said by the paper, and unless confident after everything it is about."""
    papers = data(gql(KEY_CONCEPTS))["papers"]["nodes"]
    predicted = [(p, k) for p in papers for k in p["keyConcepts"] if k["source"] == "PREDICTED"]
    assert predicted, "the seeds imply concepts they do not name"
    for paper, k in predicted:
        listed = paper["keyConcepts"]
        assert k["concept"] is not None and k["evidence"] == [] and k["salience"] == 0
        assert [x["concept"] for x in listed].count(k["concept"]) == 1
        if not k["about"]:
            assert all(not x["about"] for x in listed[listed.index(k) :])


def test_a_paper_only_phrase_finds_its_paper_and_no_concept(gql: GQL) -> None:
    papers = data(gql(KEY_CONCEPTS))["papers"]["nodes"]
    pid, phrase = next((p["id"], k) for p in papers for k in p["keyConcepts"] if k["concept"] is None)
    q = """query($n: String!) { concept(name: $n) { id }
        papers(where: {concept: $n, includeMentions: true}) { totalCount nodes { id } } }"""
    d = data(gql(q, n=phrase["name"]))
    assert d["concept"] is None
    assert pid in ids_of(d["papers"])
    unknown = gql('{ papers(where: {concept: "zzz no such phrase"}) { totalCount } }')
    assert unknown["errors"][0]["extensions"]["code"] == "BAD_USER_INPUT"


def test_concept_papers_most_central_first_and_pages_stay_windows(gql: GQL) -> None:
    q = """query($n: String!, $o: PaperOrder, $f: Int, $a: String) { concept(name: $n) {
        papers(first: $f, after: $a, orderBy: $o, includeMentions: true) {
            totalCount nodes { id year keyConcepts(first: 100) { about salience concept { id } } }
            pageInfo { hasNextPage endCursor } } } }"""
    name = "large language models"
    relevant = data(gql(q, n=name, f=100))["concept"]["papers"]
    newest = data(gql(q, n=name, o="NEWEST", f=100))["concept"]["papers"]
    assert relevant["totalCount"] == newest["totalCount"] > 3
    assert sorted(ids_of(relevant)) == sorted(ids_of(newest))
    years = [p["year"] or 0 for p in newest["nodes"]]
    assert years == sorted(years, reverse=True)
    assert ids_of(relevant) != ids_of(newest)
    # papers about it before papers that mention it in passing (the paper's link to the concept)
    cid = data(gql("query($n: String!) { concept(name: $n) { id } }", n=name))["concept"]["id"]
    about = [
        next(k["about"] for k in p["keyConcepts"] if (k["concept"] or {}).get("id") == cid)
        for p in relevant["nodes"]
        if any((k["concept"] or {}).get("id") == cid for k in p["keyConcepts"])
    ]
    assert about == sorted(about, reverse=True) and True in about
    # cursors walk the same order
    walked: list[str] = []
    after = None
    while True:
        page = data(gql(q, n=name, f=3, a=after))["concept"]["papers"]
        walked += ids_of(page)
        if not page["pageInfo"]["hasNextPage"]:
            break
        after = page["pageInfo"]["endCursor"]
    assert walked == ids_of(relevant)
