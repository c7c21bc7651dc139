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
