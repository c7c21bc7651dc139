"""The shared write plan (kg.stores.write_plan) over a real SQLite store's reads."""

from __future__ import annotations

from typing import Any

import pytest

from kg.core.errors import GraphStoreError
from kg.core.models import Relationship
from kg.stores.sqlite import SQLiteStore
from kg.stores.sqlite.batch_writes import Known, StoredRows
from kg.stores.write_plan import plan_upsert


def test_a_stored_batch_plans_no_change_and_a_new_one_plans_its_pairs(seed_records: list[Any]) -> None:
    store = SQLiteStore(None)
    store.upsert(seed_records[:4])
    graph = StoredRows(store._conn, Known())  # the store's own connection: no write happens

    again = plan_upsert(graph, seed_records[:4])
    assert not again.changes
    assert (again.summary.added, again.summary.updated, again.summary.unchanged) == (0, 0, 4)

    fresh = plan_upsert(graph, seed_records[4:6])
    assert fresh.summary.added == 2
    assert fresh.changes
    # every planned pair is sorted (start < end) and counts at least one paper of this batch
    assert fresh.pair_changes()
    assert all(a < b and n > 0 for (a, _t, b), n in fresh.pair_changes())


def test_a_record_carrying_a_derived_relationship_is_refused_whole(seed_records: list[Any]) -> None:
    store = SQLiteStore(None)
    store.upsert(seed_records[:2])
    before = store.export()
    record = seed_records[2].model_copy(deep=True)
    pid = record.paper.id  # both ends stored or in the batch: only the type is wrong
    record.relationships.append(Relationship(type="COAUTHOR", start=pid, end=pid))
    with pytest.raises(GraphStoreError, match="COAUTHOR relationships are derived by the store"):
        store.upsert([seed_records[3], record])
    assert store.export() == before
