"""The ingest job: files → readers → pipeline → store, with progress and a closing summary."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

from kg.authors.ingest import Collected, Prepared, apply_people, prepare
from kg.authors.institutions import Synced, carries_affiliations
from kg.authors.institutions import sync as sync_institutions
from kg.authors.report import AuthorIdentityStats
from kg.authors.resolution import Resolution
from kg.core.collector import collector_relaxed
from kg.core.models import PaperRecord, RawPaper, UpsertSummary
from kg.core.provisional import settle
from kg.curation.concept_rewrite import ConceptPlan
from kg.curation.concept_rewrite import apply_record as curate_concepts
from kg.curation.concept_rewrite import plan as concept_plan
from kg.curation.decisions import Curation
from kg.ingest.conflicts import ConflictNotes
from kg.ingest.extract_pool import Built, Extractor, Finish
from kg.ingest.file_stamps import FileStamp, changed_while_read, file_stamp
from kg.ingest.pipeline import Pipeline
from kg.readers import ReadProblem, iter_input_files, read_file
from kg.stores.protocol import GraphStore


@dataclass
class IngestReport:
    """What an ingest did; ``ok`` is False when anything was skipped.

    ``problems`` holds both kinds of :class:`ReadProblem`: ``skipped`` (a file, record or value
    left out: ``kg ingest`` exits 1) and ``repaired`` (kept after a documented fix: reported,
    exit code unaffected).
    """

    files: int = 0
    read: int = 0
    summary: UpsertSummary = field(default_factory=UpsertSummary)
    problems: list[ReadProblem] = field(default_factory=list)
    seconds: float = 0.0
    authors: AuthorIdentityStats = field(default_factory=AuthorIdentityStats)
    resolution: Prepared | None = None
    institutions: Synced | None = None

    @property
    def skipped(self) -> int:
        return sum(1 for p in self.problems if p.severity == "skipped")

    @property
    def repaired(self) -> int:
        return sum(1 for p in self.problems if p.severity == "repaired")

    @property
    def ok(self) -> bool:
        return self.skipped == 0

    def lines(self) -> list[str]:
        """The human summary printed at the end of ``kg ingest``."""
        s = self.summary
        rate = self.read / self.seconds if self.seconds > 0 else 0.0
        out = [
            f"{self.files} file(s), {self.read} paper(s) read in {self.seconds:.1f} s "
            f"({rate:.0f} papers/s): {s.added} added, {s.updated} updated, "
            f"{s.unchanged} unchanged, {self.skipped} skipped"
            + (f", {self.repaired} repaired" if self.repaired else "")
        ]
        out += [f"  {p.severity} {p}" for p in self.problems]
        if self.resolution is not None:
            r = self.resolution
            out.append(
                f"  authors: {r.slots:,} author slot(s) resolved into {len(r.resolution.people):,} people in "
                f"{r.seconds:.1f} s ({r.stored_slots:,} stored slot(s) re-resolved, {r.moved:,} moved)"
            )
        if self.institutions is not None:
            out.append(self.institutions.line())
        out += self.authors.lines(set(self.resolution.resolution.people) if self.resolution else None)
        return out


class Progress:
    """A one-line progress bar on a terminal; quiet otherwise (logs stay readable).

    It never goes back and never sits still without saying why: the bar counts files read
    (only ever up), the line says how many papers are read and how many written, and the
    stretches with no file to read (loading the model, extracting and writing the last
    batches) say so in words.
    """

    def __init__(self, stream: TextIO = sys.stderr, enabled: bool | None = None) -> None:
        self.stream = stream
        self.enabled = stream.isatty() if enabled is None else enabled
        self.start = time.perf_counter()
        self._last = 0.0
        self._width = 0  # of the line on screen, to blank what a shorter line leaves

    def update(
        self, file: str, done_files: int, total_files: int, papers: int, written: int | None = None
    ) -> None:
        now = time.perf_counter()
        if not self.enabled or (now - self._last < 0.1 and done_files < total_files):
            return
        self._last = now
        width = 24
        filled = int(width * done_files / max(total_files, 1))
        bar = "#" * filled + "-" * (width - filled)
        elapsed = now - self.start
        rate = papers / elapsed if elapsed > 0 else 0.0
        name = Path(file).name[-30:]
        stored = "" if written is None else f" ({written} written)"
        self._show(
            f"[{bar}] {done_files}/{total_files} files  {papers} papers{stored}  {rate:6.0f}/s  {name}"
        )

    def note(self, text: str) -> None:
        """A phase without a file to count (``loading the language model``), shown at once."""
        if self.enabled:
            self._last = time.perf_counter()
            self._show(text)

    def _show(self, line: str) -> None:
        self.stream.write("\r" + line.ljust(self._width))
        self._width = len(line)
        self.stream.flush()

    def close(self) -> None:
        if self.enabled:
            self.stream.write("\n")
            self.stream.flush()


def finisher(resolution: Resolution | None, concepts: ConceptPlan) -> Finish:
    """What becomes of each extracted batch's records before they are written: authors replaced
    by their resolved people, the user's concept decisions applied, the provisional headline
    rule settled (:func:`kg.core.provisional.settle`).

    Why here and not in the writer: each step reads only the record and state fixed before
    extraction starts, so the extraction workers run it (:class:`Extractor` ``finish``) and
    the one writer process, the ingest's critical path, does not (bench/README.md, "The
    writer's CPU per paper").
    """

    def finish(records: list[PaperRecord]) -> list[PaperRecord]:
        if resolution is not None:
            records = [apply_people(r, resolution) for r in records]
        if concepts:
            records = [curate_concepts(r, concepts) for r in records]
        return [settle(r) for r in records]

    return finish


def ingest(
    paths: Sequence[Path],
    store: GraphStore,
    pipeline: Pipeline,
    *,
    batch_size: int = 500,
    jobs: int = 1,
    progress: Progress | None = None,
    on_batch: Callable[[int], None] | None = None,
    write_size: int | None = None,
    max_files: int = 0,
    max_records_per_file: int = 0,
    resolve_authors: bool = True,
    curations: Sequence[Curation] = (),
) -> IngestReport:
    """Ingest files and folders; a bad file or record is reported and skipped, never fatal.

    Papers are extracted in batches of ``batch_size``; ``jobs`` > 1 extracts them in that many
    worker processes ahead of the writes (:mod:`kg.ingest.extract_pool`). Consecutive batches are
    written together, in input order, as one upsert (one transaction) once they hold
    ``write_size`` papers (``None``: each extracted batch alone), and ``on_batch`` is called
    after each write. Batch boundaries do not change the graph (the store contract), so
    neither does ``write_size``; it trades the papers an interrupted ingest must redo, and how
    long other writers wait for the lock, against the cost per paper of a transaction.
    ``max_files`` and ``max_records_per_file`` (0: no limit) bound what one run reads: past
    them the first files / records are read and one ``skipped`` line says what was left.

    ``resolve_authors`` (default): author slots are resolved into people first
    (:mod:`kg.authors.ingest`); ``False`` keys each slot by its own id or name, as before
    (``bench/author_identity.py`` measures the difference). ``curations``: the user's recorded
    decisions (:mod:`kg.curation.decisions`), applied to the resolution and, for concepts, to every record
    (:mod:`kg.curation.concept_rewrite`).
    """
    report = IngestReport()
    t0 = time.perf_counter()
    inputs = list(iter_input_files(list(paths)))
    files = [p for p in inputs if isinstance(p, Path)]
    report.problems.extend(p for p in inputs if isinstance(p, ReadProblem))
    if max_files and len(files) > max_files:
        left = files[max_files:]
        report.problems.append(
            ReadProblem(
                str(left[0]),
                None,
                f"{len(files):,} files to read, over the limit of {max_files:,} per run: the first "
                f"{max_files:,} read, {len(left):,} not (from this one on); raise it with --max-files",
            )
        )
        files = files[:max_files]
    pending: list[RawPaper] = []
    current: dict[str, str | int] = {"file": "", "index": 0}
    start_version = store.version()
    affiliations_written = False
    conflicts = ConflictNotes()
    group: list[PaperRecord] = []  # extracted, not written yet

    def flush_group() -> None:
        nonlocal affiliations_written
        records = group[:]
        group.clear()
        if records:
            affiliations_written = affiliations_written or carries_affiliations(records)
            report.summary += store.upsert(records)
        if on_batch is not None:
            on_batch(len(records))

    written = 0
    resolution: Resolution | None = None
    concept_decisions = concept_plan(curations)  # kg.curation.concept_rewrite: the same in every ingest

    def write(built: Built) -> None:
        nonlocal written
        records, problems = built  # finished where they were extracted (finisher)
        report.problems.extend(problems)
        group.extend(records)
        if write_size is None or len(group) >= write_size:
            written += len(group)
            flush_group()
        if progress is not None:  # files read so far: the bar never goes back
            progress.update(str(current["file"]), report.files, len(files), report.read, written)

    with collector_relaxed():  # the writer's heap: see kg.core.collector
        # Who each author is depends on every slot of the name (kg.authors.ingest): read all
        # files, resolve, then extract and write.
        if progress is not None and files:
            progress.note(f"[{'-' * 24}] 0/{len(files)} files  reading {files[0].name}")
        stamps: list[FileStamp] = []
        if resolve_authors:
            # The pre-pass keeps only each file's author slots; the files are read again below,
            # one at a time, as they are extracted (the raw papers of 86,859 were 277 MB,
            # bench/ingest_memory.py, and forked workers inherited them).
            collected = Collected()
            for path in files:
                stamps.append(file_stamp(path))
                collected.add(read_file(path, max_records=max_records_per_file).papers)
            prepared = prepare(store, collected, curations)
            report.resolution = prepared
            resolution = prepared.resolution
            resolution.drop_slots()
            del collected  # its names and slot list (about 180 MB at 87k papers) are done with
        # Created once the resolution is known: the workers are forked with it.
        extractor = Extractor(pipeline, jobs, finisher(resolution, concept_decisions))
        try:
            for i, path in enumerate(files, start=1):
                result = read_file(path, max_records=max_records_per_file)
                if stamps and file_stamp(path) != stamps[i - 1]:
                    report.problems.append(changed_while_read(path))
                current["file"], current["index"] = str(path), i - 1
                report.authors.add(result.papers)
                report.files += 1
                report.read += len(result.papers)
                report.problems.extend(result.problems)
                for paper in result.papers:
                    report.problems.extend(conflicts.observe(paper))
                    pending.append(paper)
                    if len(pending) >= batch_size:
                        for built in extractor.submit(pending):
                            write(built)
                        pending = []
                if progress is not None:
                    progress.update(str(path), i, len(files), report.read, written)
            if progress is not None:
                rest = report.read - written
                progress.note(
                    f"{len(files)}/{len(files)} files read; extracting and writing the last {rest} papers"
                )
            if pending:
                for built in extractor.submit(pending):
                    write(built)
            for built in extractor.drain():
                write(built)
            if group:  # the last, partial group
                if progress is not None:
                    progress.note(
                        f"{len(files)}/{len(files)} files read; writing the last {len(group)} papers"
                    )
                flush_group()
        finally:
            extractor.close()
    store.flush()
    # Institutions are derived from every stored AUTHORED edge, after resolution moved slots
    # and the records were written (kg.authors.institutions: why not per record).
    moved = report.resolution is not None and report.resolution.moved > 0
    untouched = not (affiliations_written or moved or report.summary.updated)
    report.institutions = sync_institutions(store, untouched_since=start_version if untouched else None)
    if progress is not None:
        progress.close()
    report.seconds = time.perf_counter() - t0
    return report
