"""Parallel extraction (kg/ingest/extract_pool.py): same graph as one process, never a lost paper.

Real spaCy, real forked worker processes, a real SQLite store file.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from kg.core.models import PaperRecord, RawPaper
from kg.ingest.extract_pool import Extractor
from kg.ingest.job import ingest
from kg.ingest.pipeline import Pipeline
from kg.readers import ReadProblem, read_file
from kg.stores.sqlite.store import SQLiteStore

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "listings"


def seed_papers() -> list[RawPaper]:
    return [p for f in sorted(EXAMPLES.iterdir()) for p in read_file(f).papers]


def graph_after(tmp: Path, nlp: Any, jobs: int, batch_size: int) -> tuple[str, int]:
    store = SQLiteStore(tmp)
    try:
        report = ingest([EXAMPLES], store, Pipeline(nlp=nlp), batch_size=batch_size, jobs=jobs)
        assert report.ok, report.lines()
        return store.export().model_dump_json(), report.summary.added
    finally:
        store.close()


def test_workers_give_the_graph_one_process_gives(tmp_path: Path, nlp_fast: Any) -> None:
    one, added = graph_after(tmp_path / "one", nlp_fast, jobs=1, batch_size=7)
    many, added_many = graph_after(tmp_path / "many", nlp_fast, jobs=2, batch_size=7)
    assert added == added_many == 58
    assert many == one


def test_extraction_does_not_depend_on_the_papers_seen_before(nlp_fast: Any) -> None:
    """Workers see different papers before a batch than one process does: the records of a
    batch must not depend on that (a score read from a cache filled by earlier papers did)."""
    papers = seed_papers()
    fresh = Pipeline(nlp=nlp_fast).build(papers[:10])[0]
    seasoned = Pipeline(nlp=nlp_fast)
    seasoned.build(papers[10:])
    assert seasoned.build(papers[:10])[0] == fresh


def test_one_batch_is_extracted_without_workers(nlp_fast: Any) -> None:
    extractor = Extractor(Pipeline(nlp=nlp_fast), jobs=2)
    try:
        assert list(extractor.submit(seed_papers()[:5])) == []  # held: maybe the only batch
        built = list(extractor.drain())
    finally:
        extractor.close()
    assert len(built) == 1 and len(built[0][0]) == 5
    assert not extractor.parallel


class DiesInWorkers(Pipeline):
    """A pipeline whose worker processes die (as under the OOM killer) on every batch."""

    parent: int = 0

    def build(self, papers: Any) -> tuple[list[PaperRecord], list[ReadProblem]]:
        if os.getpid() != self.parent:
            os._exit(9)
        return super().build(papers)


def test_a_dead_worker_loses_no_paper(nlp_fast: Any) -> None:
    pipeline = DiesInWorkers(nlp=nlp_fast)
    pipeline.parent = os.getpid()
    papers = seed_papers()
    batches = [papers[i : i + 10] for i in range(0, len(papers), 10)]
    extractor = Extractor(pipeline, jobs=2)
    records: list[PaperRecord] = []
    try:
        for batch in batches:
            for built in extractor.submit(batch):
                records += built[0]
        for built in extractor.drain():
            records += built[0]
    finally:
        extractor.close()
    assert extractor.parallel
    assert len(records) == len(papers)
    assert [r.paper.id for r in records] == [r.paper.id for r in Pipeline(nlp=nlp_fast).build(papers)[0]]


def test_bulk_records_from_workers_come_in_input_order(tmp_path: Path, nlp_fast: Any) -> None:
    """``kg ingest --bulk`` extracts with the same pool: the records, and the problems of a
    bad file, are those of one process, in the same order."""
    from kg.ingest.bulk import records_from_files

    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"title": "x"\n', encoding="utf-8")
    runs: list[tuple[list[PaperRecord], list[str]]] = []
    for jobs in (1, 2):
        problems: list[ReadProblem] = []
        records = list(records_from_files([EXAMPLES, bad], Pipeline(nlp=nlp_fast), problems, jobs, batch=7))
        runs.append((records, [str(p) for p in problems]))
    assert len(runs[0][0]) == 58 and runs[0][1]
    assert runs[1] == runs[0]
