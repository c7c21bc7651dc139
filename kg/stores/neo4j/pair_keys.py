"""Keys on derived pairs (and keyphrase rows) in databases written before they had them.

Why: an upsert finds the COAUTHOR / CO_OCCURS pair it bumps by the pair's indexed key
(:func:`kg.stores.neo4j.queries.pair_key`), and creates the pair when the key is not found. In a
database where some pairs have no key, that would create a second relationship for the same
pair. So the store, when it opens, gives every pair a key before its first write, and then
records that it did in a meta node (:data:`~kg.stores.neo4j.queries.PAIR_KEYS_ID`), so later
opens cost one lookup. A bulk import writes the keys and the meta node itself.

The keys are computed here, not in Cypher (which has no hash function without plugins): the
pairs are streamed once and written back by element id in transactions of
:data:`ROWS_PER_TRANSACTION`. Two processes migrating the same database at once write the same
keys, so the result does not depend on who finishes first.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable

import neo4j

from kg.core.models import DERIVED_REL_TYPES
from kg.core.provisional import phrase_key, row_about
from kg.stores.neo4j import queries as q

log = logging.getLogger(__name__)

ROWS_PER_TRANSACTION = 10_000
FORMAT = 1  # the value of the meta node once every pair has its key


def ensure_pair_keys(session_factory: Callable[[], neo4j.Session]) -> int:
    """Give every derived pair its key unless the database says they all have one.

    Returns the number of pairs that got a key (0 on every open after the first).
    """
    marker = q.read_meta(q.PAIR_KEYS_ID)
    with session_factory() as session:
        if session.run(marker.text, marker.params).single() is not None:
            return 0
    done = 0
    started = time.monotonic()
    for rtype in DERIVED_REL_TYPES:
        with session_factory() as reader, session_factory() as writer:
            stmt = q.pairs_without_key(rtype)
            rows: list[list[object]] = []
            for record in reader.run(stmt.text, stmt.params):
                rows.append([record["eid"], q.pair_key(record["start"], record["end"])])
                if len(rows) >= ROWS_PER_TRANSACTION:
                    done += _write(writer, rtype, rows)
                    rows = []
            if rows:
                done += _write(writer, rtype, rows)
    if done:
        log.warning(
            "gave %d derived pairs their lookup key in %.0f s (once per database written before pair keys)",
            done,
            time.monotonic() - started,
        )
    with session_factory() as session:
        stmt = q.set_meta(q.PAIR_KEYS_ID, FORMAT)
        session.run(stmt.text, stmt.params).consume()
    return done


def _write(session: neo4j.Session, rtype: str, rows: list[list[object]]) -> int:
    stmt = q.set_pair_keys(rtype, rows)
    session.execute_write(lambda tx: tx.run(stmt.text, stmt.params).consume())
    return len(rows)


def ensure_keyphrase_keys(session_factory: Callable[[], neo4j.Session]) -> int:
    """Give every keyphrase row its lookup ``key`` and ``about`` (:mod:`kg.core.provisional`) unless
    the database says they all have them; returns how many rows got them.

    Why: a row written before them is invisible to ``papers(where: {concept})`` (found by key)
    and to the ``about`` test. Same scheme as the pair keys: once, then a meta node.
    """
    marker = q.read_meta(q.KEYPHRASE_KEYS_ID)
    with session_factory() as session:
        if session.run(marker.text, marker.params).single() is not None:
            return 0
    done = 0
    with session_factory() as reader, session_factory() as writer:
        stmt = q.keyphrases_without_key()
        rows: list[list[object]] = []
        for record in reader.run(stmt.text, stmt.params):
            node, rel = json.loads(record["node"]), json.loads(record["rel"])
            rows.append([record["id"], phrase_key(node), row_about(rel)])
            if len(rows) >= ROWS_PER_TRANSACTION:
                done += _write_rows(writer, rows)
                rows = []
        if rows:
            done += _write_rows(writer, rows)
    with session_factory() as session:
        stmt = q.set_meta(q.KEYPHRASE_KEYS_ID, FORMAT)
        session.run(stmt.text, stmt.params).consume()
    return done


def _write_rows(session: neo4j.Session, rows: list[list[object]]) -> int:
    stmt = q.set_keyphrase_keys(rows)
    session.execute_write(lambda tx: tx.run(stmt.text, stmt.params).consume())
    return len(rows)
