"""Re-ingesting changes nothing, and the graph does not depend on the order files came in.

Both on real records (``tests/data/reingest``, see its README entry), on both stores, through
:func:`kg.ingest.job.ingest` as ``kg ingest`` runs it:

- ``broader-link`` and ``no-link`` carry the same provisional concept, "model augmentation";
  only the first paper links it to its vocabulary head (``BROADER`` data augmentation). Ingested
  in that order, the second paper promoted the concept without the link, and re-ingesting the
  first then wrote it: 1 paper ``updated``, the store version moved (the ``kg ingest`` and
  ``bench/neo4j_load.py`` symptoms). The other order had the link.
- ``colt`` and ``ijcai`` are two listings of one paper (one abstract, two titles) that hide
  different phrases, and ``communication`` promotes a phrase both hide. The paper's
  ``keyphrases`` kept one listing's list, so which one depended on the order.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from kg.core.models import Graph, PaperRecord
from kg.ingest.job import ingest
from kg.ingest.pipeline import Pipeline
from kg.readers import read_file
from kg.stores.protocol import GraphStore
from tests.conftest import TEST_DATA

REINGEST = TEST_DATA / "reingest"
LINKED = ("concept:model-augmentation", "BROADER", "concept:data-augmentation")
TWICE = "paper:c20c527c05e22285"  # the colt and ijcai listings


@pytest.fixture(scope="module")
def pipeline(nlp_fast: Any) -> Pipeline:
    return Pipeline(nlp=nlp_fast)


@pytest.fixture(scope="module")
def records(pipeline: Pipeline) -> dict[str, list[PaperRecord]]:
    """The records of each fixture folder, extracted once."""
    out: dict[str, list[PaperRecord]] = {}
    for folder in sorted(REINGEST.iterdir()):
        raws = [p for f in sorted(folder.iterdir()) for p in read_file(f).papers]
        built, problems = pipeline.build(raws)
        assert not problems and len(built) == 1
        out[folder.name] = built
    return out


def _ingest(store: GraphStore, pipeline: Pipeline, paths: Sequence[Path]) -> tuple[int, int, int]:
    summary = ingest(list(paths), store, pipeline, jobs=1).summary
    return summary.added, summary.updated, summary.unchanged


def _keys(graph: Graph) -> set[tuple[str, str, str]]:
    return {r.key for r in graph.relationships}


def test_the_fixture_still_holds_the_case(records: dict[str, list[PaperRecord]]) -> None:
    """The extractors decide the link per paper: only ``broader-link`` has it, both hide the phrase."""
    concept = LINKED[0]
    for name, linked in (("broader-link", True), ("no-link", False)):
        (record,) = records[name]
        node = next(n for n in record.nodes if n.id == concept)
        assert node.properties.get("provisional") is True
        assert (LINKED in {r.key for r in record.relationships}) is linked
    assert records["colt"][0].paper.id == records["ijcai"][0].paper.id == TWICE


def test_reingest_after_a_promotion_reports_nothing_updated(store: GraphStore, pipeline: Pipeline) -> None:
    assert _ingest(store, pipeline, [REINGEST / "broader-link"]) == (1, 0, 0)
    assert store.get_nodes([LINKED[0]]) == [None]  # one carrier: a keyphrase, not a node yet
    assert _ingest(store, pipeline, [REINGEST / "no-link"]) == (1, 0, 0)
    graph, version = store.export(), store.version()
    assert _ingest(store, pipeline, [REINGEST / "broader-link", REINGEST / "no-link"]) == (0, 0, 2)
    assert store.version() == version
    assert store.export() == graph
    assert LINKED in _keys(graph)  # the promotion brought the first carrier's link along


def test_reingest_of_every_fixture_in_any_order_reports_nothing_updated(
    store: GraphStore, pipeline: Pipeline
) -> None:
    folders = sorted(REINGEST.iterdir())
    for folder in folders:  # one ingest per file, as new listings arrive
        _ingest(store, pipeline, [folder])
    graph, version = store.export(), store.version()
    for order in (folders, folders[::-1]):
        added, updated, _ = _ingest(store, pipeline, order)
        assert (added, updated) == (0, 0)
        assert store.version() == version
    assert store.export() == graph


def _orders() -> list[tuple[tuple[str, ...], ...]]:
    """Upserts of the fixture folders: every order of the listings and the phrase's promoter, and
    the promoter in one batch with the second listing (the paper merged before the promotion
    takes the phrase out); the link pair either way round."""
    Batches = tuple[tuple[str, ...], ...]
    twice: list[Batches] = [
        tuple((name,) for name in order)
        for order in itertools.permutations(("colt", "ijcai", "communication"))
    ]
    twice += [(("colt",), ("communication", "ijcai")), (("ijcai",), ("colt", "communication"))]
    out: list[Batches] = []
    for batches in twice:
        for first, last in (("broader-link", "no-link"), ("no-link", "broader-link")):
            out.append(((first,), *batches, (last,)))
    return out


def test_the_graph_does_not_depend_on_the_order_of_ingests(
    store: GraphStore, records: dict[str, list[PaperRecord]]
) -> None:
    store.upsert([r for name in sorted(records) for r in records[name]])  # one batch: no promotion
    together = store.export()
    for order in _orders():
        store.clear()
        for batch in order:
            store.upsert([r for name in batch for r in records[name]])
        assert store.export() == together, order
    assert LINKED in _keys(together)
    phrases = next(n for n in together.nodes if n.id == TWICE).properties["keyphrases"]
    assert isinstance(phrases, list)
    # both listings' phrases ("machines work" in one, "m machines work" in the other), less the
    # promoted one
    assert {"machines work", "m machines work"} <= set(phrases) and "communication" not in phrases
