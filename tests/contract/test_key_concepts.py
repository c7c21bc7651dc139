"""A paper's key concepts, paper-only phrases included, on every backend (``Paper.keyConcepts``).

Hand-built records, so each rule decides something: "Tor network" is a provisional phrase the
first paper is about and names in its title (a node from the first paper, :func:`earns_node`);
"ASCII art" is one it is about but names only later in the abstract (a keyphrase row); "hidden
service" is one it names in the title without being about it (a row; ``about: false``);
"onion routing" is a row whose words are not in the paper's text (only the row can find the
paper). The curated "anonymity" is a node; "privacy" is a vocabulary concept the mention marks
``predicted``. Every backend must give the answers written here.
"""

from __future__ import annotations

from typing import Any

from kg.core.models import Node, PaperRecord, Relationship
from kg.core.provisional import earns_node, first_sentence
from kg.read.service import PaperFilter, ReadService
from kg.stores.protocol import PaperQuery, ReadStore

P1 = "paper:tor"
P2 = "paper:art"
TITLE = "Measuring the Tor Network and its Hidden Services"
ABSTRACT = (
    "We measure the Tor network for a month. Its relays draw ASCII art in their descriptors. We count them."
)


def _concept(cid: str, name: str, source: str = "discovered", provisional: bool = True) -> Node:
    props: dict[str, Any] = {"name": name, "kind": "CONCEPT", "aliases": [], "source": source}
    if provisional:
        props["provisional"] = True
    return Node(id=f"concept:{cid}", label="Concept", properties=props)


TOR = _concept("tor-network", "Tor network")
ART = _concept("ascii-art", "ASCII art")
HIDDEN = _concept("hidden-service", "hidden service")
ONION = _concept("onion-rout", "onion routing")
ANON = _concept("anonymity", "anonymity", source="vocabulary", provisional=False)
PRIVACY = _concept("privacy", "privacy", source="vocabulary", provisional=False)


def _mention(pid: str, c: Node, score: float, about: bool, surface: str, **extra: Any) -> Relationship:
    props: dict[str, Any] = {
        "count": 1,
        "score": score,
        "evidence": [f"a sentence with {surface}"],
        "surface": surface,
        "salience": 0.4 if about else 0.0,
        "about": about,
        **extra,
    }
    return Relationship(type="MENTIONS", start=pid, end=c.id, properties=props)


def tor_paper(title: str | None = TITLE) -> PaperRecord:
    props: dict[str, Any] = {"abstract": ABSTRACT}
    if title is not None:
        props["title"] = title
    paper = Node(id=P1, label="Paper", properties=props)
    rels = [
        _mention(P1, TOR, 3.0, True, "Tor network"),
        _mention(P1, ANON, 2.0, True, "anonymity"),
        _mention(P1, ART, 1.5, True, "ASCII art"),
        _mention(P1, ONION, 1.5, True, "onion routing"),
        _mention(P1, PRIVACY, 2.5, False, "privacy", predicted=True),  # scored high, only mentioned
        _mention(P1, HIDDEN, 0.5, False, "Hidden Services"),
    ]
    return PaperRecord(paper=paper, nodes=[TOR, ANON, ART, ONION, PRIVACY, HIDDEN], relationships=rels)


def art_paper() -> PaperRecord:
    paper = Node(
        id=P2,
        label="Paper",
        properties={"title": "Drawing with text", "abstract": "We render images as text."},
    )
    return PaperRecord(paper=paper, nodes=[ART], relationships=[_mention(P2, ART, 2.0, True, "ASCII art")])


def test_the_rule_reads_the_title_and_the_first_sentence_of_the_record() -> None:
    record = tor_paper()
    mention = {r.end: r.properties for r in record.relationships}
    props = record.paper.properties
    assert first_sentence(ABSTRACT) == "We measure the Tor network for a month."
    assert earns_node(props, TOR.properties, mention[TOR.id])  # title and first sentence
    assert not earns_node(props, ART.properties, mention[ART.id])  # the second sentence
    assert not earns_node(props, HIDDEN.properties, mention[HIDDEN.id])  # in the title, not about
    no_title = tor_paper(title=None).paper.properties
    assert earns_node(no_title, TOR.properties, mention[TOR.id])  # the first sentence alone


def _listing(service: ReadService, pid: str) -> list[tuple[Any, ...]]:
    (ranked,) = service.key_concepts_many([pid])
    return [
        (k.name, k.surface, k.score, k.about, k.source, k.node.id if k.node else None, k.evidence[:1])
        for k in ranked
    ]


def test_key_concepts_list_nodes_and_paper_only_phrases_best_first(store: ReadStore) -> None:
    store.upsert([tor_paper()])
    assert store.get_nodes([TOR.id, ART.id])[0] is not None  # the headline phrase is a node
    assert store.get_nodes([ART.id, HIDDEN.id, ONION.id]) == [None, None, None]
    assert _listing(ReadService(store), P1) == [
        ("Tor network", "Tor network", 3.0, True, "DISCOVERED", TOR.id, ["a sentence with Tor network"]),
        ("anonymity", "anonymity", 2.0, True, "VOCABULARY", ANON.id, ["a sentence with anonymity"]),
        # equal scores and salience: by folded name
        ("ASCII art", "ASCII art", 1.5, True, "DISCOVERED", None, ["a sentence with ASCII art"]),
        ("onion routing", "onion routing", 1.5, True, "DISCOVERED", None, ["a sentence with onion routing"]),
        # what the paper is about comes first, whatever the score
        ("privacy", "privacy", 2.5, False, "PREDICTED", PRIVACY.id, ["a sentence with privacy"]),
        (
            "hidden service",
            "Hidden Services",
            0.5,
            False,
            "DISCOVERED",
            None,
            ["a sentence with Hidden Services"],
        ),
    ]
    assert store.paper_keyphrases([P2, P1])[0] == []
    assert [r.concept for r in store.paper_keyphrases([P1])[0]] == [ART.id, HIDDEN.id, ONION.id]


def test_papers_by_a_phrase_no_node_stands_for(store: ReadStore) -> None:
    store.upsert([tor_paper()])
    service = ReadService(store)
    assert store.keyphrase_concepts("ascii art", 10) == [ART.id]
    assert store.keyphrase_concepts("no such phrase", 10) == []
    for name in ("ASCII art", "ascii arts", "Onion Routing"):
        query = service.paper_query(PaperFilter(concept=name))
        assert query.concepts is None and query.phrases
        assert service.papers(query, 0, 10).ids == [P1], name
    about = service.paper_query(PaperFilter(concept="hidden services"))
    assert service.papers(about, 0, 10).total == 0  # the paper is not about it
    mentions = service.paper_query(PaperFilter(concept="hidden services", about_only=False))
    assert service.papers(mentions, 0, 10).ids == [P1]
    # with another condition: the phrase's papers that meet it too
    assert store.papers(PaperQuery(phrases=(ART.id,), year=1999), 0, 10).total == 0
    assert store.paper_count(PaperQuery(phrases=(ART.id,), about_only=True)) == 1


def test_search_finds_a_paper_by_its_paper_only_phrases(store: ReadStore) -> None:
    store.upsert([tor_paper()])
    assert [h.node.id for h in store.search("onion routing", 5)] == [P1]


def test_a_second_paper_turns_the_phrase_into_a_node_on_both_papers(store: ReadStore) -> None:
    store.upsert([tor_paper()])
    store.upsert([art_paper()])
    service = ReadService(store)
    assert store.paper_keyphrases([P1])[0][0].concept == HIDDEN.id
    assert store.keyphrase_concepts("ascii art", 10) == []
    rows = {r[0]: r for r in _listing(service, P1)}
    assert rows["ASCII art"][5] == ART.id
    assert service.papers(service.paper_query(PaperFilter(concept="ASCII art")), 0, 10).ids == [P2, P1]


def test_the_headline_rule_does_not_depend_on_the_order_of_listings(store: ReadStore) -> None:
    """One paper listed twice: without a title the phrase is in the first sentence, with the title
    also there; a third listing whose abstract puts it later would hide it, but one listing that
    earns the node is enough, in any order, and re-ingesting changes nothing."""
    late = tor_paper(title="Relays")
    late = late.model_copy(
        update={
            "paper": late.paper.model_copy(
                update={"properties": {"title": "Relays", "abstract": "Relays log. " + ABSTRACT}}
            )
        }
    )
    assert not earns_node(late.paper.properties, TOR.properties, late.relationships[0].properties)
    exports = []
    for order in ([late, tor_paper()], [tor_paper(), late]):
        store.clear()
        for record in order:
            store.upsert([record])
        exports.append(store.export())
        version = store.version()
        summary = store.upsert(order[::-1])
        assert (summary.added, summary.updated) == (0, 0)
        assert store.version() == version
    assert exports[0] == exports[1]
    assert any(n.id == TOR.id for n in exports[0].nodes)


def _field_paper(i: int) -> PaperRecord:
    """One of many robot papers: about "robotics" (one word) and "reinforcement learning"."""
    pid = f"paper:robot-{i:03d}"
    paper = Node(id=pid, label="Paper", properties={"title": f"Robot paper {i}", "abstract": "Robots."})
    return PaperRecord(
        paper=paper,
        nodes=[ROBOTICS, RL],
        relationships=[
            _mention(pid, ROBOTICS, 3.0, True, "robotics"),
            _mention(pid, RL, 2.9, True, "reinforcement learning"),
        ],
    )


ROBOTICS = _concept("robotics", "robotics", source="vocabulary", provisional=False)
RL = _concept("reinforcement-learning", "reinforcement learning", source="vocabulary", provisional=False)
SPLAT = _concept("gaussian-splatting", "Gaussian splatting", source="vocabulary", provisional=False)


def test_a_one_word_concept_common_in_the_store_goes_after_the_specific_ones(store: ReadStore) -> None:
    """In a store of robot papers "robotics" is every paper's field: it moves below a paper's
    specific concepts (it stays listed); the common multi-word "reinforcement learning", which
    authors do list, keeps its place. With too few papers to judge, nothing moves."""
    store.upsert([_field_paper(i) for i in range(60)])
    first = _field_paper(999)
    record = first.model_copy(
        update={
            "nodes": [*first.nodes, SPLAT],
            "relationships": [*first.relationships, _mention(first.paper.id, SPLAT, 1.0, True, "splatting")],
        }
    )
    store.upsert([record])

    def names() -> list[str]:
        (ranked,) = ReadService(store).key_concepts_many([record.paper.id])
        return [k.name for k in ranked]

    assert names() == ["robotics", "reinforcement learning", "Gaussian splatting"]  # 61 papers: too few
    store.upsert([_field_paper(i) for i in range(60, 120)])
    assert names() == ["reinforcement learning", "Gaussian splatting", "robotics"]
