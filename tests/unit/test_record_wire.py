"""Records sent from the extraction workers as tuples (kg/ingest/record_wire.py) come back equal.

Equal by value and type (a settled record stays settled, so the writer's plan skips its headline
rule only when the worker applied it), and node objects the batch shared stay shared.
"""

from __future__ import annotations

import pickle

from kg.core.models import PaperRecord, SettledRecord
from kg.core.provisional import settle
from kg.ingest.record_wire import pack, unpack


def _through_the_pipe(records: list[PaperRecord]) -> list[PaperRecord]:
    return unpack(pickle.loads(pickle.dumps(pack(records), protocol=pickle.HIGHEST_PROTOCOL)))


def test_records_come_back_equal_and_of_their_type(seed_records: list[PaperRecord]) -> None:
    mixed = [settle(r) if i % 2 else r for i, r in enumerate(seed_records)]
    back = _through_the_pipe(mixed)
    assert back == mixed  # pydantic equality: same type, same field values
    assert [type(r) for r in back] == [type(r) for r in mixed]
    assert any(isinstance(r, SettledRecord) for r in back) and any(type(r) is PaperRecord for r in back)
    assert [r.model_dump_json() for r in back] == [r.model_dump_json() for r in mixed]


def test_a_node_shared_by_records_is_shared_after(seed_records: list[PaperRecord]) -> None:
    shared = {id(n) for r in seed_records for n in r.nodes}
    total = sum(len(r.nodes) for r in seed_records)
    assert len(shared) < total  # the pipeline shares normalised concept nodes among records
    back = _through_the_pipe(seed_records)
    assert len({id(n) for r in back for n in r.nodes}) == len(shared)
