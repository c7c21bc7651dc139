"""``kg eval-concepts`` scores what the API shows: lists read through the GraphQL schema from a
real store, in both settings, with each target printed beside its figure."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from api.concept_eval import Evaluation, SchemaReader, concept_papers, frequent_keywords, read_lists, run
from kg.core.config import Settings
from kg.eval.evaluation import load_eval_papers, score
from kg.read.service import ReadService
from kg.stores.sqlite import SQLiteStore

DATA = Path(__file__).resolve().parents[1] / "data"


@pytest.fixture(scope="module")
def evaluation() -> tuple[str, Evaluation]:
    papers = load_eval_papers(DATA / "iclr2018.jsonl", limit=20)
    sets = {"ICLR": papers[:12], "ICLR more": papers[12:]}
    out = io.StringIO()
    result = run(sets, out)
    return out.getvalue(), result


def test_the_report_gives_every_target_per_setting_beside_the_extractor_and_yake(
    evaluation: tuple[str, Evaluation],
) -> None:
    text, _ = evaluation
    for dev in ("== ICLR: 12 papers", "== ICLR more: 8 papers"):
        assert dev in text
    for line in (
        "API keyConcepts, set alone in its store",
        "API keyConcepts, all sets in one store",
        "extractor records only (not what the API shows)",
        "F1@10 / YAKE (target >= 1.7x): alone ",
        "papers with >= 8 key concepts (target >= 95%): alone ",
        "linked to >= 7% of the store's papers (target <= 5%): alone ",
        "resolving to a concept (target 25, none null): alone ",
        "concept(K).papers holds, mean over the 25 (null = 0; target >= 75%): alone ",
    ):
        assert text.count(line) >= 2, line  # once per dev set (table rows also in the ratio line)
    assert text.count("all sets ") >= 10


def test_the_figures_are_those_of_the_lists_the_store_shows(evaluation: tuple[str, Evaluation]) -> None:
    """Scored lists = each paper's ten best key concepts as the service ranks them; keyword
    coverage = the share of a keyword's papers the concept's papers hold."""
    _, result = evaluation
    dev = result.devs[1]
    store = SQLiteStore(None)
    store.upsert(dev.records)
    reader = SchemaReader(store, Settings(backend="sqlite"))
    lists = read_lists(reader)
    ranked = ReadService(store).key_concepts_many(dev.paper_ids)
    assert [lists[pid].surfaces for pid in dev.paper_ids] == [[k.surface for k in r[:10]] for r in ranked]
    figures = result.alone[dev.label]
    assert figures.scores == score(dev.papers, [lists[pid].surfaces for pid in dev.paper_ids])
    shares = []
    for keyword, listing in frequent_keywords(dev):
        held = concept_papers(reader, keyword)
        shares.append(100.0 * len(listing & (held or set())) / len(listing))
    assert figures.coverage == pytest.approx(sum(shares) / len(shares))
    assert 0 < figures.keywords <= 25 and 0 <= figures.resolved <= figures.keywords
