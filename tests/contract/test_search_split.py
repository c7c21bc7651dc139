"""The any-word search split into rarer and commoner words, on both stores: with the rows of a
text's rarer words within the budget (:data:`kg.core.text_index.RARE_ROWS`, made small here), a
page filled by the rows holding a rarer word holds only those, and a page they do not fill
takes the rows with the commoner words too (:func:`kg.core.text_index.rarer_first`)."""

from __future__ import annotations

from typing import Any

import pytest

from kg.core import text_index
from tests.graph_builders import rare_and_common_word_papers

ZORBLAX = {f"paper:z{i}" for i in range(6)}


def test_rows_with_a_rarer_word_fill_the_page(store: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    store.upsert(rare_and_common_word_papers())
    monkeypatch.setattr(text_index, "RARE_ROWS", 1000)  # every word within the budget
    assert {h.node.id for h in store.search("zorblax learning", 36)} == ZORBLAX | {
        f"paper:l{i:02d}" for i in range(30)
    }
    whole = {h.node.id for h in store.search("zorblax learning", 20)}
    assert not ZORBLAX <= whole  # the long zorblax papers rank below papers with "learning" alone
    monkeypatch.setattr(text_index, "RARE_ROWS", 10)  # "learning" (34 rows) is a commoner word
    assert {h.node.id for h in store.search("zorblax learning", 6)} == ZORBLAX
    assert {h.node.id for h in store.search("zorblax learning", 20)} == whole  # not filled: every word
