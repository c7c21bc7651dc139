"""Each search word's BM25 part on every row that holds it, held per store version (role: the
word side of :meth:`kg.stores.sqlite.reads.SQLiteReads.search` once a version is warm).

Why: FTS5 scores every row a query matches and walks each query word's whole row list for its
idf, once per statement: the word side of a new search cost 7-8 ms of CPU at 100k papers (10-20
ms for texts of common words only, "Learning from Data by"), growing with the store. FTS5's
``bm25()`` is a sum over the query's phrases of a part that depends only on the phrase and the
row (the documented formula: ``idf(q) * f(q,D) * (k1 + 1) / (f(q,D) + k1 * (1 - b + b * |D| /
avgdl))``, added phrase by phrase in the query's order, a phrase not on the row adding 0). So
each word's part is what FTS5's own ``bm25()`` gives for the one-word query, on every row holding
the word; a query's score is those parts added in its phrases' order, which is FTS5's score to
the last bit, with no internal of FTS5 read (the column weights, the idf, the row's length and
the average length are FTS5's, as the statements use them).

Reading a word costs about FTS5's own scoring of its rows (1.2-1.7 us a row at 100k papers:
50-70 ms for "learning", in 39,766 rows), more than one statement holding it costs (a statement
scores only the rows its query matches). Read only as asked, the words of 600 new texts cost
more than the statements they replaced (bench/README.md, "the word side from a held index"), so
a version's commonest words (:data:`HELD_SHARE` of its rows or more: 1,022 words, 7.3M (word,
row) pairs, 83 MiB at 100k papers) are read once the version has been searched
:data:`WARM_SEARCHES` times (:class:`kg.stores.warm.WarmSlot`): 10-13 s of CPU at 100k papers,
on a thread of its own from one snapshot (the SQLite store's ``_built``), the searches meanwhile
answered by the statements. The others, in fewer rows, are read when first asked
and kept while the version lasts (bounded: :data:`LAZY_ENTRIES`). A word is read with the
version checked before and after: one read across a write is not kept, and the caller's
statements answer instead.

>>> import sqlite3
>>> c = sqlite3.connect(":memory:")
>>> _ = c.execute("CREATE TABLE meta (key TEXT, value INTEGER)")
>>> _ = c.execute("INSERT INTO meta VALUES ('version', 1)")
>>> _ = c.execute("CREATE VIRTUAL TABLE fts USING fts5(title, abstract, name, aliases)")
>>> rows = [("robot arms", "", "", ""), ("robot legs", "robot", "", ""), ("soft arms", "", "", "")]
>>> _ = c.executemany("INSERT INTO fts VALUES (?, ?, ?, ?)", rows)
>>> from kg.stores.sqlite.word_rows import attach
>>> attach(c)  # the read connections' row counts (fts5vocab)
>>> held = WordScores.read(c, 1, (2.0, 1.0, 3.0, 2.0), share=0.5)
>>> sorted(held.words)  # read at build: the words in half the rows or more
['arms', 'robot']
>>> rows, scores = held.every_word(c, ["robot", "arms"])
>>> rows.tolist(), scores.tolist() == [s for (s,) in c.execute(
...     "SELECT -bm25(fts, 2.0, 1.0, 3.0, 2.0) FROM fts WHERE fts MATCH 'robot AND arms'")]
([1], True)
"""

from __future__ import annotations

import sqlite3
import threading
from collections import OrderedDict
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

# Searches (``search`` calls without a phrase: 1.4 a ReadService.search) of one store version
# before its commonest words are read, on a thread of their own (kg.stores.warm.WarmSlot): the
# read costs 10.4-11.7 s of CPU at 100k papers and saves ~2.7 ms a call (bench/README.md,
# "SQLite: held structures built in the background"), so it pays for itself after ~4,100 calls.
# Read at that count (the ski rental's rule): a version searched fewer times never pays it, one
# searched more pays at most twice what knowing its future would have (the read, then replaced).
WARM_SEARCHES = 4000
# Words in at least this share of the index's rows are read when a version is warm (1,876 rows
# at 100k papers: 1,022 words, 7.3M of the index's 10.5M (word, row) pairs); the rest when asked.
HELD_SHARE = 1 / 200
# (word, row) pairs of words read when asked, kept per version (12 bytes each).
LAZY_ENTRIES = 2_000_000

Rows = npt.NDArray[np.int64]
Scores = npt.NDArray[np.float64]
_EMPTY: tuple[Rows, Scores] = (np.zeros(0, np.int64), np.zeros(0, np.float64))


def _version(conn: sqlite3.Connection) -> int:
    row = conn.execute("SELECT value FROM meta WHERE key = 'version'").fetchone()
    return int(row[0]) if row else 0


class WordScores:
    """Per word: the sorted rowids of the rows holding it and its BM25 part on each, at one store
    version. Thread-safe; words read on demand use the asking thread's connection."""

    def __init__(self, version: int, boosts: Sequence[float], words: dict[str, tuple[Rows, Scores]]) -> None:
        self.version = version
        self._boosts = tuple(boosts)
        self.words = words  # read at build, never evicted
        self._lazy: OrderedDict[str, tuple[Rows, Scores]] = OrderedDict()
        self._lazy_entries = 0
        self._lock = threading.Lock()

    @classmethod
    def read(
        cls, conn: sqlite3.Connection, version: int, boosts: Sequence[float], share: float | None = None
    ) -> WordScores | None:
        """The version's commonest words read (``None`` if ``conn`` is not at ``version``, or a
        write came in meanwhile); ``share``: :data:`HELD_SHARE` unless given. The row counts come
        from FTS5's ``fts5vocab`` table
        (:mod:`kg.stores.sqlite.word_rows` makes it on every read connection)."""
        if _version(conn) != version:
            return None
        (total,) = conn.execute("SELECT count(*) FROM fts").fetchone()
        least = max(1, int(np.ceil(total * (HELD_SHARE if share is None else share))))
        common = [w for (w,) in conn.execute("SELECT term FROM temp.fts_words WHERE doc >= ?", (least,))]
        held = cls(version, boosts, {})
        words = {w: held._scores(conn, w) for w in common}
        if _version(conn) != version:
            return None
        held.words = words
        return held

    def _scores(self, conn: sqlite3.Connection, word: str) -> tuple[Rows, Scores]:
        """FTS5's one-word query: its rows in rowid order, each with its ``bm25()`` score."""
        found = conn.execute(
            "SELECT rowid, -bm25(fts, ?, ?, ?, ?) FROM fts WHERE fts MATCH ? ORDER BY rowid",
            (*self._boosts, f'"{word}"'),
        ).fetchall()
        if not found:
            return _EMPTY
        pairs = np.array(found, dtype=np.float64)
        rows = pairs[:, 0].astype(np.int64)
        return (rows.astype(np.int32) if rows[-1] < 2**31 else rows), pairs[:, 1].copy()

    def of(self, conn: sqlite3.Connection, word: str) -> tuple[Rows, Scores] | None:
        """``word``'s rows and parts, read now if not held; ``None`` if ``conn`` is not at this
        version (a write came in: the caller's statements answer)."""
        held = self.words.get(word)
        if held is not None:
            return held
        with self._lock:
            held = self._lazy.get(word)
            if held is not None:
                self._lazy.move_to_end(word)
                return held
        if _version(conn) != self.version:
            return None
        held = self._scores(conn, word)
        if _version(conn) != self.version:
            return None
        with self._lock:
            if word not in self._lazy:
                self._lazy[word] = held
                self._lazy_entries += len(held[0])
            while self._lazy_entries > LAZY_ENTRIES and len(self._lazy) > 1:
                _, (old, _s) = self._lazy.popitem(last=False)
                self._lazy_entries -= len(old)
        return held

    def postings(
        self, conn: sqlite3.Connection, words: Sequence[str]
    ) -> dict[str, tuple[Rows, Scores]] | None:
        """:meth:`of` each word, or ``None`` if any cannot be had at this version."""
        found = {}
        for w in dict.fromkeys(words):
            p = self.of(conn, w)
            if p is None:
                return None
            found[w] = p
        return found

    def every_word(self, conn: sqlite3.Connection, words: Sequence[str]) -> tuple[Rows, Scores] | None:
        """The rows holding every word and their scores for the query of ``words`` in that
        order (FTS5's ``"a" AND "b" ...``)."""
        lists = self.postings(conn, words)
        if lists is None:
            return None
        rows = min(lists.values(), key=lambda p: len(p[0]))[0]
        for r, _ in sorted(lists.values(), key=lambda p: len(p[0])):
            rows = rows[_where(r, rows)[1]]
        return rows, scored(rows, [lists[w] for w in words])

    def any_word(
        self, lists: dict[str, tuple[Rows, Scores]], order: Sequence[str], among: Sequence[str]
    ) -> tuple[Rows, Scores]:
        """The rows holding any of ``among`` and their scores for a query whose phrases are
        ``order`` (FTS5's ``("a" OR "b") AND ("c")`` with ``("a" OR "b") NOT ("c")``: the rows
        of ``a`` or ``b``, each scored by every word it holds)."""
        rows = np.unique(np.concatenate([lists[w][0] for w in among]))
        return rows, scored(rows, [lists[w] for w in order])


def _where(posting: Rows, rows: Rows) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.bool_]]:
    """Where each of ``rows`` is in ``posting`` (sorted), and whether it is there."""
    if len(posting) == 0:
        return np.zeros(len(rows), np.intp), np.zeros(len(rows), np.bool_)
    at = np.minimum(np.searchsorted(posting, rows), len(posting) - 1)
    return at, posting[at] == rows


def scored(rows: Rows, parts: Sequence[tuple[Rows, Scores]]) -> Scores:
    """Each row's parts added in ``parts``' order, from 0.0, as FTS5's ``bm25()`` adds its
    phrases (a part not on the row adds nothing: FTS5 adds an exact 0.0 for it).

    >>> r = np.array([1, 2, 3])
    >>> scored(r, [(np.array([1, 3]), np.array([0.5, 0.25])), (np.array([3]), np.array([2.0]))]).tolist()
    [0.5, 0.0, 2.25]
    """
    total = np.zeros(len(rows), np.float64)
    for posting, part in parts:
        at, hit = _where(posting, rows)
        total[hit] += part[at[hit]]
    return total


def best(rows: Rows, scores: Scores, limit: int) -> list[tuple[int, float]]:
    """``(rowid, score)`` of the best ``limit`` rows and of every row tying the last of them
    (the ids decide among those, as the statements' page does), best first.

    >>> best(np.array([4, 5, 6, 7]), np.array([1.0, 3.0, 1.0, 2.0]), 3)
    [(5, 3.0), (7, 2.0), (4, 1.0), (6, 1.0)]
    """
    if len(rows) > limit > 0:
        cut = np.partition(scores, len(scores) - limit)[len(scores) - limit]
        keep = scores >= cut
        rows, scores = rows[keep], scores[keep]
    elif limit <= 0:
        return []
    order = np.argsort(-scores, kind="stable")
    return list(zip(rows[order].tolist(), scores[order].tolist(), strict=True))
