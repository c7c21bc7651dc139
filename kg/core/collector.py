"""Pausing CPython's cyclic garbage collector around bulk work."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def collector_paused() -> Iterator[None]:
    """Pause CPython's cyclic garbage collector for one batch; restore it afterwards.

    Extraction and a store's write planning allocate many small objects that outlive a
    collection (Docs, records, rows read back), which makes CPython run full collections that
    re-traverse every imported module, the spaCy model and the vocabulary again and again:
    about a third of the fast mode's time. Nothing here creates reference cycles in bulk, so
    reference counting frees the batch's garbage, and the collector resumes (and catches up) as
    soon as the batch is done.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


# Allocations between two young collections while a bulk job runs (CPython's default is 700).
BULK_GEN0_THRESHOLD = 50_000


@contextmanager
def collector_relaxed(gen0_threshold: int = BULK_GEN0_THRESHOLD) -> Iterator[None]:
    """Run a long bulk job (``kg ingest``'s writer loop) with a collector that stays out of its way.

    Why: the ingest process holds spaCy's model and the vocabulary (millions of long-lived
    objects) while it unpickles the workers' records and plans the writes, each batch hundreds
    of thousands of new containers that live until the batch is written. With the default
    thresholds that is thousands of young collections per batch, and every few hundred a full
    one that walks the whole model again. ``gc.freeze()`` moves everything alive at the start
    out of the collector's generations (it is never garbage: modules, the model, the settings),
    and a larger young threshold collects the batches' objects in fewer, larger passes. Cyclic
    garbage is still collected; it only waits a little longer. Forked extraction workers inherit
    the frozen heap, so their collections skip it too (and do not dirty its shared pages).
    Both settings are restored afterwards (tests run ingests in-process).
    """
    before = gc.get_threshold()
    gc.freeze()
    gc.set_threshold(gen0_threshold, *before[1:])
    try:
        yield
    finally:
        gc.set_threshold(*before)
        gc.unfreeze()
