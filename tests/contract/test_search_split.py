"""The any-word search split into rarer and commoner words, on both stores: with the rows of a
text's rarer words within the budget (:data:`kg.core.text_index.RARE_ROWS`, made small here), a
page filled by the rows holding a rarer word holds only those, and a page they do not fill
takes the rows with the commoner words too (:func:`kg.core.text_index.rarer_first`)."""

from __future__ import annotations

from typing import Any

import pytest

from kg.core import text_index
from kg.core.models import Node, PaperRecord

ZORBLAX = {f"paper:z{i}" for i in range(6)}


def records() -> list[PaperRecord]:
    """Six papers with "zorblax" (four with "learning" too), 30 with "learning" alone (short, so
    several score above the long zorblax papers without it), 60 with neither."""
    rows = [
        (f"z{i}", f"Zorblax study {i}", "On learning things." if i < 4 else "A long abstract " * 30)
        for i in range(6)
    ]
    rows += [(f"l{i:02d}", "Learning learning", "Learning.") for i in range(30)]
    rows += [(f"o{i:02d}", "Other", "Something else.") for i in range(60)]
    return [
        PaperRecord(
            paper=Node(id=f"paper:{pid}", label="Paper", properties={"title": t, "abstract": a, "year": 2024})
        )
        for pid, t, a in rows
    ]


def test_rows_with_a_rarer_word_fill_the_page(store: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    store.upsert(records())
    monkeypatch.setattr(text_index, "RARE_ROWS", 1000)  # every word within the budget
    assert {h.node.id for h in store.search("zorblax learning", 36)} == ZORBLAX | {
        f"paper:l{i:02d}" for i in range(30)
    }
    whole = {h.node.id for h in store.search("zorblax learning", 20)}
    assert not ZORBLAX <= whole  # the long zorblax papers rank below papers with "learning" alone
    monkeypatch.setattr(text_index, "RARE_ROWS", 10)  # "learning" (34 rows) is a commoner word
    assert {h.node.id for h in store.search("zorblax learning", 6)} == ZORBLAX
    assert {h.node.id for h in store.search("zorblax learning", 20)} == whole  # not filled: every word
