"""Concepts scored as users see them: papers ingested into a real store, lists read through GraphQL.

Why here and not in ``kg.eval.evaluation``: the extractor's records are not what a reader gets. The
store hides phrases one paper carries (:mod:`kg.core.provisional`), merges listings and ranks what it
shows, so the figure that counts is ``Paper.keyConcepts(first: 10)`` as the schema answers it,
executed in-process on the real schema (what ``kg query`` runs) over a real SQLite store. The
extractor-only figure (records before any store) stays beside it, labelled as such.

Two settings, since the store's view depends on what else it holds: each dev set alone in its
own store, and all dev sets in one store. Per dev set and setting this reports the issue's
targets (:data:`TARGETS`): F1@10 against author keywords as a multiple of YAKE's on the same
papers in the same run, the share of papers with at least 8 key concepts, the share of top-10
slots holding a concept linked to at least 7% of the store's papers, and for the 25 most
frequent author keywords whether ``concept(name: K)`` resolves and how many of the papers whose
authors listed K its ``papers`` hold.
"""

from __future__ import annotations

import asyncio
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, TextIO

from api.context import Context
from api.schema import build_schema
from kg.core.config import Settings
from kg.core.ids import fold
from kg.core.models import PaperRecord, RawPaper
from kg.eval.evaluation import EvalPaper, EvalRow, Scores, score, yake_predict
from kg.ingest.nlp import Mode, load_nlp
from kg.ingest.pipeline import Pipeline
from kg.read.service import ReadService
from kg.stores.sqlite import SQLiteStore

TOP_K = 10
MIN_CONCEPTS = 8  # a paper with an abstract should show at least this many key concepts
BROAD_SHARE = 0.07  # a concept linked to this share of the store's papers is too broad for a top 10
TOP_KEYWORDS = 25
TARGETS = {
    "f1_ratio": 1.7,  # F1@10 / YAKE's, at least
    "eight_plus": 95.0,  # % of papers with >= MIN_CONCEPTS key concepts, at least
    "broad_slots": 5.0,  # % of top-10 slots on a broad concept, at most
    "keyword_coverage": 75.0,  # % of the papers listing K that concept(K).papers holds, at least
}

PAPERS_PAGE = """query($after: String) { papers(first: 100, after: $after) {
    pageInfo { hasNextPage endCursor }
    nodes { id keyConcepts(first: 10) {
        name surface concept { id paperCount(includeNarrower: false, includeMentions: true) } } } } }"""
CONCEPT_PAPERS = """query($name: String!, $after: String) { concept(name: $name) { id
    papers(first: 100, after: $after) { pageInfo { hasNextPage endCursor } nodes { id } } } }"""
STATS = "{ stats { nodes { label count } } }"


@dataclass
class DevSet:
    """A dev set: its papers (abstract and author keywords) and their records, aligned."""

    label: str
    papers: list[EvalPaper]
    records: list[PaperRecord] = field(default_factory=list)
    yake: list[list[str]] = field(default_factory=list)

    @property
    def paper_ids(self) -> list[str]:
        return [r.paper.id for r in self.records]


@dataclass
class Listed:
    """What the API showed for one paper: its top key concepts (the paper's wording) and how
    many of the store's papers each one's concept is linked to (1 for a paper-only phrase)."""

    surfaces: list[str]
    linked: list[int]


@dataclass
class SettingFigures:
    """The figures of one dev set in one setting (role: report row)."""

    scores: Scores
    eight_plus: float
    broad_slots: float
    resolved: int
    keywords: int
    coverage: float  # mean over the TOP_KEYWORDS keywords, an unresolved one counting 0
    coverage_resolved: float  # mean over the resolved ones
    read_s: float
    worst_keywords: list[tuple[str, float]] = field(default_factory=list)


class SchemaReader:
    """GraphQL documents executed in-process on the real schema over one store (``kg query``)."""

    def __init__(self, store: SQLiteStore, settings: Settings) -> None:
        self.settings = settings
        self.schema = build_schema(settings)
        self.service = ReadService(store)

    def run(self, document: str, variables: dict[str, Any] | None = None) -> dict[str, Any]:
        context = Context(service=self.service, settings=self.settings, offload=False)
        result = asyncio.run(self.schema.execute(document, variable_values=variables, context_value=context))
        if result.errors:
            raise RuntimeError(f"GraphQL error: {result.errors[0].message}")
        assert result.data is not None
        return result.data


def extract(
    papers: Sequence[EvalPaper], mode: Mode = "fast", context: Mapping[str, object] | None = None
) -> list[PaperRecord]:
    """The records of ``papers``, in their order (the pipeline ``kg ingest`` runs; ``context``
    adds to the pipeline's context, e.g. an ``about_model`` trained without this set)."""
    pipeline = Pipeline(nlp=load_nlp(mode=mode), mode=mode, context=dict(context or {}))
    raws = [
        RawPaper(file="eval", line=i, title=p.title or None, abstract=p.abstract)
        for i, p in enumerate(papers, start=1)
    ]
    records, problems = pipeline.build(raws)
    if problems or len(records) != len(papers):
        raise RuntimeError(f"extraction failed on {len(problems)} paper(s): {problems[:1]}")
    return records


def read_lists(reader: SchemaReader) -> dict[str, Listed]:
    """Every paper's ``keyConcepts(first: 10)`` as the API answers, by paper id."""
    out: dict[str, Listed] = {}
    after: str | None = None
    while True:
        page = reader.run(PAPERS_PAGE, {"after": after})["papers"]
        for node in page["nodes"]:
            listed = node["keyConcepts"]
            out[node["id"]] = Listed(
                surfaces=[k["surface"] or k["name"] for k in listed],
                linked=[k["concept"]["paperCount"] if k["concept"] else 1 for k in listed],
            )
        if not page["pageInfo"]["hasNextPage"]:
            return out
        after = page["pageInfo"]["endCursor"]


def concept_papers(reader: SchemaReader, name: str) -> set[str] | None:
    """The ids ``concept(name).papers`` holds (default arguments), or ``None`` when it is null."""
    ids: set[str] = set()
    after: str | None = None
    while True:
        concept = reader.run(CONCEPT_PAPERS, {"name": name, "after": after})["concept"]
        if concept is None:
            return None
        page = concept["papers"]
        ids.update(n["id"] for n in page["nodes"])
        if not page["pageInfo"]["hasNextPage"]:
            return ids
        after = page["pageInfo"]["endCursor"]


def frequent_keywords(dev: DevSet, n: int = TOP_KEYWORDS) -> list[tuple[str, set[str]]]:
    """The ``n`` author keywords most papers of the dev set list (folded; shown in their most
    common spelling), each with the ids of the papers that list it."""
    papers: dict[str, set[str]] = {}
    spellings: dict[str, Counter[str]] = {}
    for paper, pid in zip(dev.papers, dev.paper_ids, strict=True):
        for keyword in dict.fromkeys(k.strip() for k in paper.keywords):
            key = fold(keyword)
            if key:
                papers.setdefault(key, set()).add(pid)
                spellings.setdefault(key, Counter())[keyword] += 1
    ranked = sorted(papers, key=lambda k: (-len(papers[k]), k))[:n]
    return [(spellings[k].most_common(1)[0][0], papers[k]) for k in ranked]


def figures(dev: DevSet, reader: SchemaReader, lists: dict[str, Listed], store_papers: int) -> SettingFigures:
    """The target figures of one dev set from what the API showed."""
    shown = [lists.get(pid, Listed([], [])) for pid in dev.paper_ids]
    scores = score(dev.papers, [s.surfaces for s in shown])
    eight = sum(len(s.surfaces) >= MIN_CONCEPTS for s in shown)
    slots = sum(len(s.linked) for s in shown)
    broad = sum(n >= BROAD_SHARE * store_papers for s in shown for n in s.linked)
    shares: list[tuple[str, float, bool]] = []  # (keyword, % held, resolves)
    for keyword, listing in frequent_keywords(dev):
        held = concept_papers(reader, keyword)
        shares.append((keyword, 100.0 * len(listing & (held or set())) / len(listing), held is not None))
    hits = [s for _, s, ok in shares if ok]
    return SettingFigures(
        scores=scores,
        eight_plus=100.0 * eight / max(len(shown), 1),
        broad_slots=100.0 * broad / max(slots, 1),
        resolved=len(hits),
        keywords=len(shares),
        coverage=sum(s for _, s, _ in shares) / max(len(shares), 1),
        coverage_resolved=sum(hits) / max(len(hits), 1),
        read_s=0.0,
        worst_keywords=sorted(((k, s) for k, s, _ in shares), key=lambda x: x[1])[:5],
    )


def upsert_dev_sets(store: SQLiteStore, devs: Sequence[DevSet]) -> None:
    """Write the dev sets' records into ``store`` in batches of 500, as an ingest would."""
    for dev in devs:
        for i in range(0, len(dev.records), 500):
            store.upsert(dev.records[i : i + 500])


def evaluate_setting(devs: Sequence[DevSet], settings: Settings) -> dict[str, SettingFigures]:
    """Ingest the dev sets' records into one new SQLite store and read each set's figures."""
    with tempfile.TemporaryDirectory(prefix="kg-eval-") as tmp:
        store = SQLiteStore(Path(tmp))
        try:
            upsert_dev_sets(store, devs)
            reader = SchemaReader(store, settings)
            t0 = time.perf_counter()
            lists = read_lists(reader)
            papers = next(n["count"] for n in reader.run(STATS)["stats"]["nodes"] if n["label"] == "Paper")
            out = {}
            for dev in devs:
                start = time.perf_counter()
                out[dev.label] = figures(dev, reader, lists, papers)
                out[dev.label].read_s = time.perf_counter() - start + (start - t0) / len(devs)
            return out
        finally:
            store.close()


def _ratio(f: SettingFigures, yake: float) -> str:
    return f"{f.scores.f1_at_10 / yake:.2f}x"


def _row(name: str, scores: Scores, seconds: float, n: int) -> EvalRow:
    return EvalRow(name, scores, seconds, n / seconds if seconds > 0 else 0.0)


def record_lists(records: Sequence[PaperRecord]) -> list[list[str]]:
    """The extractor's top 10 per record (before any store; see :func:`kg.eval.cli.record_keyphrases`)."""
    from kg.eval.cli import record_keyphrases

    return [record_keyphrases(r, TOP_K) for r in records]


def report(
    devs: Sequence[DevSet],
    alone: dict[str, SettingFigures],
    together: dict[str, SettingFigures] | None,
    extract_s: dict[str, float],
    yake_s: dict[str, float],
    out: TextIO,
) -> None:
    """Print, per dev set, the table and each target with its figure per setting."""
    from kg.eval.evaluation import format_table

    for dev in devs:
        n = len(dev.papers)
        yake_scores = score(dev.papers, dev.yake)
        extractor = score(dev.papers, record_lists(dev.records))
        rows = [
            _row(
                "API keyConcepts, set alone in its store", alone[dev.label].scores, alone[dev.label].read_s, n
            )
        ]
        settings = [("alone", alone[dev.label])]
        if together is not None:
            mine = together[dev.label]
            rows.append(_row("API keyConcepts, all sets in one store", mine.scores, mine.read_s, n))
            settings.append(("all sets", mine))
        rows.append(
            _row("extractor records only (not what the API shows)", extractor, extract_s[dev.label], n)
        )
        rows.append(_row("yake", yake_scores, yake_s[dev.label], n))
        out.write(f"\n== {dev.label}: {n} papers with abstract and keywords ==\n")
        out.write(format_table(rows) + "\n")
        yake10 = yake_scores.f1_at_10 or float("nan")

        def each(
            value: Callable[[SettingFigures], str], rows: list[tuple[str, SettingFigures]] = settings
        ) -> str:
            return ", ".join(f"{label} {value(f)}" for label, f in rows)

        t = TARGETS
        out.write(
            f"  F1@10 / YAKE (target >= {t['f1_ratio']}x): "
            + each(partial(_ratio, yake=yake10))
            + f"; extractor records only {extractor.f1_at_10 / yake10:.2f}x\n"
        )
        out.write(
            f"  papers with >= {MIN_CONCEPTS} key concepts (target >= {t['eight_plus']:.0f}%): "
            + each(lambda f: f"{f.eight_plus:.1f}%")
            + "\n"
        )
        out.write(
            f"  top-10 slots on a concept linked to >= {BROAD_SHARE:.0%} of the store's papers "
            f"(target <= {t['broad_slots']:.0f}%): " + each(lambda f: f"{f.broad_slots:.1f}%") + "\n"
        )
        out.write(
            f"  {TOP_KEYWORDS} most frequent author keywords resolving to a concept (target {TOP_KEYWORDS}, "
            "none null): " + each(lambda f: f"{f.resolved}/{f.keywords}") + "\n"
        )
        out.write(
            f"  papers listing K that concept(K).papers holds, mean over the {TOP_KEYWORDS} (null = 0; "
            f"target >= {t['keyword_coverage']:.0f}%): "
            + each(lambda f: f"{f.coverage:.1f}% ({f.coverage_resolved:.1f}% over the resolved)")
            + "\n"
        )
        out.write(
            "  lowest: " + each(lambda f: "; ".join(f"{k} {s:.0f}%" for k, s in f.worst_keywords)) + "\n"
        )


@dataclass
class Evaluation:
    """A run's dev sets (with their records and YAKE lists) and the figures of both settings."""

    devs: list[DevSet]
    alone: dict[str, SettingFigures]
    together: dict[str, SettingFigures] | None


def run(
    sets: dict[str, list[EvalPaper]],
    out: TextIO,
    *,
    mode: Mode = "fast",
    together: bool = True,
    contexts: Mapping[str, Mapping[str, object]] | None = None,
) -> Evaluation:
    """Extract, run YAKE, evaluate both settings and print the report (``contexts``: pipeline
    context per set label, for a benchmark that plugs in a model per set)."""
    settings = Settings(backend="sqlite")
    devs = [DevSet(label, papers) for label, papers in sets.items() if papers]
    extract_s: dict[str, float] = {}
    yake_s: dict[str, float] = {}
    for dev in devs:
        t0 = time.perf_counter()
        dev.records = extract(dev.papers, mode, (contexts or {}).get(dev.label))
        extract_s[dev.label] = time.perf_counter() - t0
        t0 = time.perf_counter()
        dev.yake = yake_predict(dev.papers)
        yake_s[dev.label] = time.perf_counter() - t0
    alone: dict[str, SettingFigures] = {}
    for dev in devs:
        alone.update(evaluate_setting([dev], settings))
    both = evaluate_setting(devs, settings) if together and len(devs) > 1 else None
    report(devs, alone, both, extract_s, yake_s, out)
    return Evaluation(devs, alone, both)
