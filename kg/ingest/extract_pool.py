"""Extraction on every core: batches of raw papers go to worker processes, records come back in order.

Why: extraction (the spaCy tokenizer and the concept analysis) is most of an ingest's CPU and
depends on nothing but the paper, while store writes must stay in one process (one writer
transaction at a time, and the merge of a batch reads what the previous one wrote). So the
ingest process reads files and writes batches, and ``jobs`` worker processes extract the
batches ahead of it. Results are taken in submission order, so the store sees exactly the
batches a one-process ingest would, and the graph is the same. What the ingest does to each
record before writing it and that depends on nothing the writes change (author resolution,
curations, the provisional headline rule: ``finish``) runs here too, and records come back as
tuples (:mod:`kg.ingest.record_wire`): the writer process is the ingest's critical path.

Workers are forked from the ingest process, which has the spaCy pipeline loaded already: no
second model load, and the pages are shared until written. A small ingest (one batch or less:
``kg ingest new.jsonl``) never starts a worker, because forking costs more than it saves there.
If a worker dies (killed, out of memory), the batches in flight are extracted in the ingest
process instead and the pool is not used again: papers are never lost to a dead worker. If the
ingest process dies, its workers are killed with it (``PR_SET_PDEATHSIG`` on Linux).
"""

from __future__ import annotations

import ctypes
import gc
import multiprocessing
import os
import signal
import sys
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

from kg.core.models import PaperRecord, RawPaper
from kg.ingest.pipeline import Pipeline
from kg.ingest.record_wire import RecordWire, pack, unpack
from kg.readers import ReadProblem

Built = tuple[list[PaperRecord], list[ReadProblem]]
Sent = tuple[list[RecordWire], list[ReadProblem]]  # a worker's result as it crosses the pipe
# What the ingest does to each extracted batch's records before writing them (its author
# resolution, curations, the provisional headline rule): work that depends only on the records
# and the state fixed before extraction starts, run where the batch is extracted.
Finish = Callable[[list[PaperRecord]], list[PaperRecord]]
PR_SET_PDEATHSIG = 1  # linux/prctl.h
_PIPELINE: Pipeline | None = None  # the forked workers' pipeline (set before the fork)
_FINISH: Finish | None = None  # and their finishing step


def default_jobs() -> int:
    """Worker processes by default: the cores this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def build_records(pipeline: Pipeline, papers: Sequence[RawPaper]) -> Built:
    """The batch's records; if the batch as a whole fails, paper by paper, so only the culprit is lost."""
    try:
        return pipeline.build(papers)
    except Exception:  # one paper must not cost its batch: retry one by one
        records: list[PaperRecord] = []
        problems: list[ReadProblem] = []
        for p in papers:
            try:
                r, pr = pipeline.build([p])
            except Exception as e:
                problems.append(ReadProblem(p.file, p.line, f"extraction failed: {type(e).__name__}: {e}"))
                continue
            records += r
            problems += pr
        return records, problems


def _init_worker(parent: int) -> None:
    """Die with the ingest process: a SIGKILLed ``kg ingest`` must not leave workers behind
    (they would wait on the task queue forever)."""
    if sys.platform.startswith("linux"):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent:  # the parent died before the line above ran
        os._exit(0)


def _finished(built: Built, finish: Finish | None) -> Built:
    """``built`` with ``finish`` applied to its records. Outside :func:`build_records`' retry: a
    failure here is the ingest's (as it was when the writer ran these steps), not one paper's."""
    records, problems = built
    return (records if finish is None else finish(records)), problems


def _work(papers: list[RawPaper]) -> Sent:
    assert _PIPELINE is not None, "worker started without a pipeline"
    records, problems = _finished(build_records(_PIPELINE, papers), _FINISH)
    return pack(records), problems  # kg.ingest.record_wire: cheaper to pickle and rebuild


class Extractor:
    """Extracts submitted batches, ``jobs`` at a time, and yields the results in order.

    Args:
        pipeline: the loaded pipeline (workers inherit it).
        jobs: worker processes; 1 extracts in this process.
        finish: applied to each batch's records where the batch is extracted (a worker, or this
            process), so the writer does not: it must depend only on the records and on state
            fixed before the first :meth:`submit` (workers are forked with it then), and give
            the same records in any process.

    Use: :meth:`submit` each batch and write what it yields; then write what :meth:`drain`
    yields; :meth:`close` at the end (also after an error).
    """

    def __init__(self, pipeline: Pipeline, jobs: int = 1, finish: Finish | None = None) -> None:
        self.pipeline = pipeline
        self.jobs = jobs
        self.finish = finish
        self._pool: ProcessPoolExecutor | None = None
        self._broken = False
        self._held: list[RawPaper] | None = None  # the first batch, until a second shows up
        self._flight: deque[tuple[list[RawPaper], Future[Sent]]] = deque()

    @property
    def parallel(self) -> bool:
        """Did any batch go to a worker process?"""
        return self._pool is not None

    def submit(self, papers: list[RawPaper]) -> Iterator[Built]:
        """Queue a batch; yields the results whose turn has come (none while workers are busy)."""
        if self.jobs <= 1 or self._broken:
            while self._flight:  # the batches sent before the pool broke come first
                yield self._next()
            yield from self._in_process([papers])
            return
        if self._pool is None:
            if self._held is None:
                self._held = papers
                return
            self._start()
            self._send(self._held)
            self._held = None
        self._send(papers)
        while len(self._flight) > self.jobs:
            yield self._next()

    def drain(self) -> Iterator[Built]:
        """The results of every batch still queued, in order."""
        if self._held is not None:
            held, self._held = self._held, None
            yield from self._in_process([held])
        while self._flight:
            yield self._next()

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            gc.unfreeze()  # see _start

    # -- internals ---------------------------------------------------------------------------
    def _in_process(self, batches: list[list[RawPaper]]) -> Iterator[Built]:
        for papers in batches:
            yield _finished(build_records(self.pipeline, papers), self.finish)

    def _start(self) -> None:
        global _PIPELINE, _FINISH
        _PIPELINE = self.pipeline
        _FINISH = self.finish
        # Everything alive now (the model, the vocabulary, the ingest's author resolution) is
        # shared with the workers until a page of it is written. A worker reads only the
        # resolution entries of its own papers (``finish``), but a full collection in a worker
        # walks every tracked object and writes to its header, copying each page it touches
        # into that worker. Frozen objects are never walked; ``close`` unfreezes them (as
        # ``collector_relaxed`` leaves the heap).
        gc.freeze()
        self._pool = ProcessPoolExecutor(
            self.jobs,
            mp_context=multiprocessing.get_context("fork"),
            initializer=_init_worker,
            initargs=(os.getpid(),),
        )

    def _send(self, papers: list[RawPaper]) -> None:
        assert self._pool is not None
        try:
            self._flight.append((papers, self._pool.submit(_work, papers)))
        except BrokenProcessPool:
            self._flight.append((papers, _failed()))

    def _next(self) -> Built:
        papers, future = self._flight.popleft()
        try:
            wires, problems = future.result()
        except BrokenProcessPool:
            # A worker died: this batch and every later one are extracted here instead.
            self._broken = True
            return _finished(build_records(self.pipeline, papers), self.finish)
        return unpack(wires), problems


def _failed() -> Future[Sent]:
    f: Future[Sent] = Future()
    f.set_exception(BrokenProcessPool("the extraction pool is broken"))
    return f
