"""What ``kg ingest`` keeps in memory, and what that must not change (issue 30).

The author pre-pass keeps each file's author slots only, and each file is read again when its
papers are extracted (kg/ingest/job.py); forked extraction workers get a frozen heap
(kg/ingest/extract_pool.py). Real spaCy, real forked workers, real SQLite store files.
"""

from __future__ import annotations

import gc
import json
from pathlib import Path
from typing import Any

from kg.ingest.extract_pool import Extractor
from kg.ingest.job import ingest
from kg.ingest.pipeline import Pipeline
from kg.readers import read_file
from kg.stores.sqlite.store import SQLiteStore

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "listings"


def _paper(i: int, authors: list[str]) -> str:
    record = {
        "title": f"Bandits with memory {i}",
        "abstract": f"We study bandits, case {i}.",
        "authors": authors,
    }
    return json.dumps(record) + "\n"


def test_a_file_changed_between_the_two_reads_is_noted_and_its_papers_written(
    tmp_path: Path, nlp_fast: Any
) -> None:
    first, second = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    first.write_text(_paper(1, ["Ada Lovelace", "Alan Turing"]) + _paper(2, ["Ada Lovelace"]))
    second.write_text(_paper(3, ["Alan Turing"]))
    edited: list[int] = []

    def edit_second_file(_written: int) -> None:
        # called after each write; file a's papers are written before file b is read again
        if not edited:
            edited.append(1)
            with second.open("a", encoding="utf-8") as fh:
                fh.write(_paper(4, ["Grace Hopper"]))

    store = SQLiteStore(tmp_path / "kg")
    try:
        report = ingest(
            [first, second], store, Pipeline(nlp=nlp_fast), batch_size=1, on_batch=edit_second_file
        )
        titles = sorted(str(n.properties["title"]) for n in store.export().nodes if n.label == "Paper")
    finally:
        store.close()
    assert edited
    notes = [p for p in report.problems if "changed while this ingest read it" in p.reason]
    assert [(n.file, n.severity) for n in notes] == [(str(second), "note")]
    assert report.ok and report.summary.added == 4
    assert titles == [f"Bandits with memory {i}" for i in (1, 2, 3, 4)]


def test_unchanged_files_give_no_note(tmp_path: Path, nlp_fast: Any) -> None:
    store = SQLiteStore(tmp_path / "kg")
    try:
        report = ingest([EXAMPLES], store, Pipeline(nlp=nlp_fast), batch_size=7)
    finally:
        store.close()
    assert report.ok
    assert not [p for p in report.problems if "changed while" in p.reason]


def test_the_heap_frozen_for_the_workers_is_unfrozen_when_they_are_done(nlp_fast: Any) -> None:
    """The workers must not walk the parent's heap (it would copy it), and the parent must
    collect as before once they are done (tests and the API run ingests in-process)."""
    papers = [p for f in sorted(EXAMPLES.iterdir()) for p in read_file(f).papers]
    extractor = Extractor(Pipeline(nlp=nlp_fast), jobs=2)
    try:
        built = [*extractor.submit(papers[:10]), *extractor.submit(papers[10:20])]
        assert extractor.parallel
        assert gc.get_freeze_count() > 0
        built += list(extractor.drain())
    finally:
        extractor.close()
    assert gc.get_freeze_count() == 0  # as kg.core.collector.collector_relaxed leaves it
    assert sum(len(records) for records, _ in built) == 20
