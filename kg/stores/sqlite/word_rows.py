"""How many rows of the full-text index hold each search word, kept per store version (role: the
document frequencies the any-word search splits its words by, :meth:`SQLiteReads.search`).

Why: FTS5 scores every row an any-word query matches, so a text with a word in a tenth of the
index ("learning": 39,766 of 375,176 rows at 100k papers) cost 30-100 ms however rare its other
words were. The search asks the commonest words only of the rows that hold a rarer one
(:func:`kg.core.text_index.rarer_first`), which needs each word's row count first. FTS5 gives it
through its documented ``fts5vocab`` table, made in each connection's ``temp`` schema (nothing is
written to the store); counting walks the word's row list (2 ms for "learning"), so counts are
kept per (version, word), bounded, and forgotten when the version changes.

>>> import sqlite3
>>> c = sqlite3.connect(":memory:")
>>> _ = c.execute("CREATE VIRTUAL TABLE fts USING fts5(title)")
>>> _ = c.executemany("INSERT INTO fts VALUES (?)", [("robot arms",), ("robot legs",)])
>>> attach(c)
>>> rows_holding(c, ["robot", "arms", "wings"])
{'robot': 2, 'arms': 1, 'wings': 0}
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

from kg.stores.sqlite import totals

# One row per distinct token of ``fts`` with the number of rows holding it (``doc``).
_VOCAB = "CREATE VIRTUAL TABLE IF NOT EXISTS temp.fts_words USING fts5vocab(main, fts, row)"
# Words kept per store version (a search has a handful; the benchmark's 150 texts have ~450).
ENTRIES = 8192


def attach(conn: sqlite3.Connection) -> None:
    """Make ``temp.fts_words`` on ``conn`` (before ``PRAGMA query_only``, which refuses it)."""
    conn.execute(_VOCAB)


def rows_holding(conn: sqlite3.Connection, words: Sequence[str]) -> dict[str, int]:
    """How many rows of ``fts`` hold each of ``words`` (0 for a word no row holds)."""
    found = dict.fromkeys(words, 0)
    marks = ",".join("?" * len(found))
    for term, n in conn.execute(f"SELECT term, doc FROM temp.fts_words WHERE term IN ({marks})", list(found)):
        found[term] = int(n)
    return found


class WordRows:
    """:func:`rows_holding`, remembered per store version (a :class:`~kg.stores.sqlite.totals.Totals`
    of words)."""

    def __init__(self, entries: int = ENTRIES) -> None:
        self._known = totals.Totals(entries)

    def get(self, conn: sqlite3.Connection, version: int, words: Sequence[str]) -> dict[str, int]:
        """Each word's row count at ``version`` (read before counting, as
        :meth:`~kg.stores.sqlite.totals.Totals.put` asks)."""
        found: dict[str, int] = {}
        missing = []
        for w in words:
            n = self._known.get(version, w)
            if n is None:
                missing.append(w)
            else:
                found[w] = n
        if missing:
            for w, n in rows_holding(conn, missing).items():
                self._known.put(version, w, n)
                found[w] = n
        return found
