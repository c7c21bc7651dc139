"""``kg ingest --backend neo4j --bulk``: the listing files extracted into records and handed to the
bulk loader (:func:`kg.stores.neo4j.bulk.bulk_load`).

Why here and not in the store package: this is the ingest (readers, author resolution,
curations, the extraction workers), the same steps ``kg ingest`` runs; the store package keeps
only what writes the CSV files and drives ``neo4j-admin``.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

from kg.authors.ingest import Collected, apply_all, resolve_collected
from kg.core.config import Settings
from kg.core.models import PaperRecord, RawPaper
from kg.curation.concept_rewrite import apply_record as curate_record
from kg.curation.concept_rewrite import plan as concept_plan
from kg.curation.decisions import Curation
from kg.curation.decisions import apply as apply_curations
from kg.ingest.extract_pool import Built, Extractor
from kg.ingest.pipeline import Pipeline
from kg.readers import ReadProblem, iter_input_files, read_file
from kg.stores.neo4j.bulk import bulk_load


def records_from_files(
    paths: Sequence[Path],
    pipeline: Pipeline,
    problems: list[ReadProblem],
    jobs: int = 1,
    batch: int = 2000,
    curations: Sequence[Curation] = (),
) -> Iterator[PaperRecord]:
    """Records of every paper in ``paths`` (files or folders), in input order.

    Extracted in batches of ``batch`` by ``jobs`` worker processes (:mod:`kg.ingest.extract_pool`,
    as ``kg ingest`` does), so the merge, which consumes this iterator, runs in this process
    while the workers extract the batches after. Unreadable files and records are appended to
    ``problems`` and skipped, like ``kg ingest``. ``curations`` (:mod:`kg.curation.decisions`) are applied
    as ``kg ingest`` applies them: to the resolution, and to each record for concepts.
    """
    # Authors are resolved into people over every file first (kg.authors.ingest; the database
    # is empty, so there are no stored slots to re-resolve).
    results = []
    for item in iter_input_files(list(paths)):
        if isinstance(item, ReadProblem):
            problems.append(item)
            continue
        results.append(read_file(item))
    collected = Collected()
    for result in results:
        collected.add(result.papers)
    resolution = apply_curations(resolve_collected(collected), curations)
    concept_decisions = concept_plan(curations)
    extractor = Extractor(pipeline, jobs)
    pending: list[RawPaper] = []

    def take(built: Iterator[Built]) -> Iterator[PaperRecord]:
        for records, found in built:
            problems.extend(found)
            for record in apply_all(records, resolution):
                yield curate_record(record, concept_decisions) if concept_decisions else record

    try:
        for result in results:
            problems.extend(result.problems)
            for paper in result.papers:
                pending.append(paper)
                if len(pending) >= batch:
                    yield from take(extractor.submit(pending))
                    pending = []
        if pending:
            yield from take(extractor.submit(pending))
        yield from take(extractor.drain())
    finally:
        extractor.close()


def _say(phase: str) -> None:
    sys.stderr.write(f"kg ingest --bulk: {phase}\n")


def _sync_institutions(settings: Settings) -> str:
    """Derive the institution graph from the loaded ``AUTHORED`` edges, as every ingest does
    (:func:`kg.authors.institutions.sync`; the bulk files hold only what the records give)."""
    from kg.authors.institutions import sync
    from kg.stores.neo4j.store import open_neo4j_store

    store = open_neo4j_store(settings)
    try:
        return sync(store).line()
    finally:
        store.close()


def bulk_ingest(
    paths: Sequence[Path],
    pipeline: Pipeline,
    settings: Settings,
    out: Callable[[str], None],
    jobs: int = 1,
    curations: Sequence[Curation] = (),
) -> int:
    """``kg ingest --bulk``: extract ``paths`` (``jobs`` worker processes), bulk-load them, print
    a summary; the exit code."""
    problems: list[ReadProblem] = []
    summary = bulk_load(
        records_from_files(paths, pipeline, problems, jobs, curations=curations),
        settings,
        on_phase=_say,
    )
    institutions = _sync_institutions(settings)
    for line in summary.lines():
        out(line)
    out(institutions)
    skipped = sum(1 for p in problems if p.severity == "skipped")
    for p in problems:
        out(f"  {p.severity} {p}")
    repaired = len(problems) - skipped
    out(
        f"graph: neo4j store at {settings.neo4j_uri} ({skipped} skipped"
        + (f", {repaired} repaired)" if repaired else ")")
    )
    return 0 if not skipped else 1  # as kg ingest: a repaired value is kept, not a failure
