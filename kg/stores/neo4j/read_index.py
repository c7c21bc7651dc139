"""The Neo4j read index: lookup, sort and count keys kept next to the graph, in the write transaction.

Why: every API read must be one indexed query (:class:`kg.stores.protocol.ReadStore`), and
Neo4j's range indexes cannot answer what the API asks for with the plain properties:

- names and aliases are a list, and range indexes do not index list membership; so every
  :func:`kg.core.names.concept_keys` key of a concept (and every :func:`kg.core.names.author_keys` key of
  an author) is an internal key node ``(:__KGKey {key, rkey})-[:__KEY_OF {rank}]->(node)``,
  unique on ``key``; ``rkey`` (the reversed loose key) makes "loose key ends with these words"
  an index prefix seek;
- papers sort newest first, then by folded title, then id; one string ``_sortKey`` encodes that
  order, so a page is an index-ordered scan that stops after ``offset + limit`` rows;
- listings sort by paper count: ``_papers`` (``MENTIONS`` in-degree of a concept, ``AUTHORED``
  out-degree of an author) and ``_sortName`` are indexed properties;
- substring search over folded names and aliases: ``_search``, in a text (trigram) index.

All of these are internal (:data:`kg.stores.neo4j.queries.INTERNAL_NODE_PROPERTIES`) and
stripped on read. :func:`update_read_index` runs inside the upsert transaction after the batch's
nodes and relationships are written, so a committed batch is always fully indexed. It works from
what the writer wrote (the created and replaced nodes, the created relationships) and reads
nothing back; keys are computed with the same pure functions the queries use (cached, since
an ingest meets the same concepts batch after batch). :func:`index_nodes` instead recomputes
from the stored state, for a database written without the index (``rebuild_read_index``).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from functools import lru_cache
from typing import Any

import neo4j

from kg.core.ids import fold
from kg.core.models import PropertyValue
from kg.core.names import LOOSE_PREFIX, author_keys, concept_keys
from kg.stores.neo4j import read_queries as rq

Tx = neo4j.ManagedTransaction | neo4j.Transaction
AUTHOR_PREFIX = "a:"
KeyRows = tuple[tuple[str, int, str | None], ...]  # (key, rank, rkey) per key


def _strings(value: PropertyValue | None) -> list[str]:
    return [str(v) for v in value] if isinstance(value, list) else []


def _name(props: Mapping[str, Any]) -> str:
    """What a concept or author is called ("" when nameless, as in the embedded store)."""
    value = props.get("name")
    return "" if value is None else str(value)


def paper_sort_key(node_id: str, props: Mapping[str, Any]) -> str:
    """One string whose order is: newest year first (no year last), folded title, id.

    >>> newer, older = {"year": 2024, "title": "B"}, {"year": 2023, "title": "A"}
    >>> paper_sort_key("p:1", newer) < paper_sort_key("p:0", older)
    True
    >>> paper_sort_key("p:1", {"title": "A"}) > paper_sort_key("p:2", {"year": 1990, "title": "Z"})
    True
    """
    year = props.get("year")
    y = int(year) if isinstance(year, int | float) and not isinstance(year, bool) else None
    # "\x00" sorts below every character of a folded title, so "ab" < "ab c" as in a tuple sort.
    return f"{rq.year_prefix(y)}{fold(str(props.get('title') or ''))}\x00{node_id}"


def search_text(surfaces: Iterable[str], with_loose: bool) -> str:
    """Folded surfaces (and their loose keys) joined by `` | ``: the text ``CONTAINS`` searches
    (the embedded store's ``search_text``, character for character).

    >>> search_text(["Multi-armed Bandits", "MAB"], True)
    'multi-armed bandits | mab | multi armed bandit'
    """
    parts: dict[str, None] = {}
    items = [s for s in surfaces if s]
    for s in items:
        parts[fold(s)] = None
    if with_loose:
        for s in items:
            key = concept_keys(s)
            loose = [k for k in key if k.startswith(LOOSE_PREFIX)]
            if loose:
                parts[loose[0][len(LOOSE_PREFIX) :]] = None
    return " | ".join(p for p in parts if p)


def reversed_text(text: str) -> str:
    """``text`` backwards: a suffix of ``text`` is a prefix of this."""
    return text[::-1]


@lru_cache(maxsize=1 << 16)
def _concept_index(name: str, aliases: tuple[str, ...], curated: bool) -> tuple[str, str, KeyRows]:
    """``(sort name, search text, key rows)`` of a concept: pure, and cached because an ingest
    touches the same (vocabulary) concepts batch after batch."""
    base = 0 if curated else 2
    best: dict[str, int] = {}
    for surface, alias in [(name, 0), *((a, 1) for a in aliases)]:
        for key in concept_keys(surface):
            rank = base + alias
            if key not in best or rank < best[key]:
                best[key] = rank
    rows = tuple(
        (key, rank, reversed_text(key[len(LOOSE_PREFIX) :]) if key.startswith(LOOSE_PREFIX) else None)
        for key, rank in sorted(best.items())
    )
    return fold(name), search_text([name, *aliases], with_loose=True), rows


@lru_cache(maxsize=1 << 16)
def _author_index(name: str, nickname: str | None) -> tuple[str, str, KeyRows]:
    """``(sort name, search text, key rows)`` of an author (pure, cached)."""
    keys = author_keys(name, nickname)
    rows = tuple((AUTHOR_PREFIX + k, 0, None) for k in sorted(set(keys)))
    surfaces = [name] + ([nickname] if nickname else [])
    return fold(name), search_text(surfaces, with_loose=False), rows


def concept_key_rows(props: Mapping[str, Any]) -> KeyRows:
    """``(key, rank, rkey)`` per key of a concept; rank: curated 0/discovered 2, +1 for an alias.

    A key reached by the name and an alias keeps the better (smaller) rank.
    """
    return _concept_of(props)[2]


def _concept_of(props: Mapping[str, Any]) -> tuple[str, str, KeyRows]:
    aliases = tuple(_strings(props.get("aliases")))
    return _concept_index(_name(props), aliases, props.get("source") == "vocabulary")


def _author_of(props: Mapping[str, Any]) -> tuple[str, str, KeyRows]:
    nickname = props.get("nickname")
    return _author_index(_name(props), str(nickname) if nickname else None)


def desired_state(
    node_id: str, labels: Sequence[str], props: Mapping[str, Any], papers: int | None
) -> tuple[dict[str, Any], KeyRows | None]:
    """The internal properties a node should have, and its key rows (``None``: keys not used)."""
    if "Paper" in labels:
        return {"_sortKey": paper_sort_key(node_id, props)}, None
    if "Concept" in labels:
        sort_name, search, rows = _concept_of(props)
        keys = [f"{r[1]}|{r[0]}" for r in rows]
    elif "Author" in labels:
        sort_name, search, rows = _author_of(props)
        keys = [r[0] for r in rows]
    else:
        return {}, None
    return {"_sortName": sort_name, "_search": search, "_papers": papers or 0, "_keys": keys}, rows


def same_value(stored: object, value: object) -> bool:
    """Is ``value`` what Neo4j holds as ``stored``? Types count (``1`` is not ``1.0``), element
    by element in lists, so skipping an equal write never changes what is stored.

    >>> same_value([1, 2], [1, 2]), same_value(1, 1.0), same_value(["a"], ("a",)), same_value(None, None)
    (True, False, False, True)
    """
    if type(stored) is not type(value) or stored != value:
        return False
    if isinstance(stored, list) and isinstance(value, list):
        return all(type(a) is type(b) for a, b in zip(stored, value, strict=True))
    return True


def update_read_index(
    tx: Tx,
    written: Mapping[str, tuple[str, Mapping[str, Any]]],
    fresh: Collection[str],
    paper_delta: Mapping[str, int],
    stored: Mapping[str, Mapping[str, Any]],
    chunk: int = 2000,
    eids: Mapping[str, str] | None = None,
) -> None:
    """Bring the read index up to date inside the upsert transaction ``tx``, from what it wrote.

    ``written``: id -> (label, merged properties) of every node created or changed;
    ``fresh``: the created ones (no old keys to remove, paper count 0); ``paper_delta``: how the
    batch changed each concept's papers-about and each author's papers; ``stored``: the maps
    of the written nodes as read before the batch, internal keys included: only what differs
    from them is written, and a node's keys are replaced only when its ``_keys`` changed (a
    changed concept whose names did not change keeps its key nodes). Nothing is read back,
    and a batch that wrote nothing costs nothing. ``eids``: element ids of the nodes in this
    transaction (the upsert read or created them): those nodes are found by a record lookup,
    not an id-index seek.
    """
    eids = eids or {}
    rows: list[dict[str, Any]] = []
    stale: list[str] = []
    for node_id, (label, props) in written.items():
        state, keys = desired_state(node_id, (label,), props, None)
        if node_id not in fresh:
            state.pop("_papers", None)  # changed by paper_delta only
            old = stored.get(node_id)
            if old is not None:
                state = {k: v for k, v in state.items() if not same_value(old.get(k), v)}
                if "_keys" not in state:
                    keys = None
        if not state:
            continue
        rows.append({"id": node_id, "props": state, "keys": [list(k) for k in keys or ()]})
        if keys is not None and node_id not in fresh:
            stale.append(node_id)
    by_eid = [dict(row, eid=eids[row["id"]]) for row in rows if row["id"] in eids]
    rows = [row for row in rows if row["id"] not in eids]
    deltas = [[i, n] for i, n in paper_delta.items() if n and i not in eids]
    eid_deltas = [[eids[i], n] for i, n in paper_delta.items() if n and i in eids]
    stmts = [rq.delete_keys(stale[i : i + chunk]) for i in range(0, len(stale), chunk)]
    stmts += [rq.set_index(rows[i : i + chunk]) for i in range(0, len(rows), chunk)]
    stmts += [rq.set_index_by_eid(by_eid[i : i + chunk]) for i in range(0, len(by_eid), chunk)]
    stmts += [rq.add_paper_counts(deltas[i : i + chunk]) for i in range(0, len(deltas), chunk)]
    stmts += [rq.add_paper_counts_by_eid(eid_deltas[i : i + chunk]) for i in range(0, len(eid_deltas), chunk)]
    for stmt in stmts:
        tx.run(stmt.text, stmt.params).consume()


def index_nodes(tx: Tx, ids: list[str]) -> int:
    """Recompute the read index of these nodes from their stored state (rebuilding the index of a
    database written without it); returns how many nodes changed."""
    stmt = rq.index_state(ids)
    record = tx.run(stmt.text, stmt.params).single(strict=True)
    rows: list[dict[str, Any]] = []
    stale: list[str] = []
    for node_id, labels, props, papers in record["rows"]:
        state, keys = desired_state(node_id, labels, props, papers)
        diff = {k: v for k, v in state.items() if props.get(k) != v}
        if not diff:
            continue
        new_keys = keys is not None and "_keys" in diff
        rows.append({"id": node_id, "props": diff, "keys": [list(k) for k in keys or ()] if new_keys else []})
        if new_keys and props.get("_keys") is not None:
            stale.append(node_id)
    for stmt in (rq.delete_keys(stale), rq.set_index(rows)):
        tx.run(stmt.text, stmt.params).consume()
    return len(rows)
