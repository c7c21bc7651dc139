"""How an upsert merges new properties into existing ones; both backends follow these rules.

Every rule is **commutative and associative**: the merged map depends only on the set of
property maps merged, never on the order they arrived in, so ingesting files forward or in
reverse gives the same graph, and re-merging a map already merged changes nothing
(``merge(merge(a, b), b) == merge(a, b)``), so a re-ingest reports ``unchanged``.

Rules (the contract suite checks them on both stores; ``tests/unit/test_ids_and_merge.py``
checks order independence over permutations):

- ``None`` (or a missing key) never overwrites a value.
- List properties in :data:`UNION_LIST_PROPERTIES` are sorted sets: the sorted union of both
  sides (a single side is sorted too, so a first insert is already in normal form).
- The title group (``title``, ``titleSource``, ``shortTitle``) moves as one: a listing title
  beats a ``DERIVED`` one; between two titles of the same source the better-ranked spelling
  (:func:`spelling_rank`) wins.
- ``name``: the best-ranked spelling of all names seen wins (:func:`spelling_rank`: mixed case
  over ALL CAPS / all lower, then more non-ASCII letters, so accents survive, then fewer
  capitals inside words, then the code-point order); every other spelling joins ``aliases``
  (which never holds the name). So 'ABHRA CHAUDHURI' and 'Abhra Chaudhuri' give name
  'Abhra Chaudhuri' and aliases ['ABHRA CHAUDHURI'] in either order.
  Exception: a curated node (``source`` other than ``"discovered"``) keeps its curated name,
  kind and source against a discovered one.
- ``kind``: a specific kind beats ``CONCEPT``; among specific kinds the first in
  :data:`KIND_ORDER` wins.
- Any other scalar that differs: a fixed total order decides (``False`` before ``True``,
  the larger number, the code-point-smaller string). Re-extracting the same paper gives the
  same value, so this only decides between genuinely different inputs (two listings of one
  paper), where "newest wins" would make the result depend on file order.
"""

from __future__ import annotations

from collections.abc import Iterable

from kg.core.models import Properties, PropertyValue

# ``keyphrases`` (a paper's provisional phrases, kg.core.provisional) is one too: two listings of one
# paper (one abstract, two titles) hide different phrases, and keeping the smaller list instead
# of both made the result depend on whether a phrase was promoted before the second listing came.
UNION_LIST_PROPERTIES: frozenset[str] = frozenset(
    {
        "sources",
        "aliases",
        "keywords",
        "externalIds",
        "tracks",
        "statuses",
        "keyphrases",
        "affiliations",
        "institutions",
        "mergeEvidence",
    }
)
DERIVED = "DERIVED"
DISCOVERED = "discovered"
TITLE_GROUP = ("title", "titleSource", "shortTitle")
CURATED_GROUP = ("name", "kind", "source")
# Specific kinds, most specific first; CONCEPT (the generic kind) loses to all of them.
KIND_ORDER: tuple[str, ...] = ("MODEL", "DATASET", "METRIC", "METHOD", "TASK", "CONCEPT")
# Keys some rule above treats specially. A first insert (nothing stored yet) of a map with none
# of them and no ``None`` is its own normal form, in the same key order, so merge_properties
# returns a copy at once: most relationships of a batch (MENTIONS, AUTHORED) are new and carry
# only plain scalars (merging was about a sixth of the ingest writer's CPU at 100k papers).
RULED_KEYS: frozenset[str] = UNION_LIST_PROPERTIES | {*TITLE_GROUP, *CURATED_GROUP}


def spelling_rank(text: str) -> tuple[int, int, int, str]:
    """Sort key of a spelling, smallest is best.

    Mixed case first (over ALL CAPS and all lower), then more non-ASCII letters (accents
    kept), then fewer capitals inside words ('Zheng Zhang' over 'ZHeng ZHang'), then the
    code-point order as the last, arbitrary but fixed, tie-break.

    >>> sorted(["ABHRA CHAUDHURI", "abhra chaudhuri", "Abhra Chaudhuri"], key=spelling_rank)[0]
    'Abhra Chaudhuri'
    >>> min(["Korbinian Poppel", "Korbinian Pöppel"], key=spelling_rank)
    'Korbinian Pöppel'
    >>> min(["ZHeng ZHang", "Zheng Zhang"], key=spelling_rank)
    'Zheng Zhang'
    """
    letters = [c for c in text if c.isalpha()]
    cased = [c for c in letters if c.isupper() or c.islower()]
    mixed = any(c.isupper() for c in cased) and any(c.islower() for c in cased)
    non_ascii = sum(1 for c in letters if not c.isascii())
    inner_caps = sum(1 for w in text.split() for c in w[1:] if c.isupper()) if mixed else 0
    return (0 if mixed or not cased else 1, -non_ascii, inner_caps, text)


def _scalar_key(value: PropertyValue) -> tuple[str, float | str]:
    """A total order over property values of any type (the fallback rule).

    Values of different types never compare their second element: the type name decides.
    """
    if isinstance(value, bool):
        return ("bool", float(value))
    if isinstance(value, int | float):
        return ("num", -float(value))  # the larger number wins (a better score, a later year)
    return (type(value).__name__, repr(value) if isinstance(value, list) else str(value))


def sorted_set(*values: PropertyValue) -> list[str]:
    """The sorted union of list values (non-lists are ignored).

    >>> sorted_set(["b", "a"], ["c", "a"], None)
    ['a', 'b', 'c']
    """
    items: set[str] = set()
    for value in values:
        if isinstance(value, list):
            items.update(map(str, value))
    return sorted(items)


def union_list(old: PropertyValue, new: PropertyValue) -> PropertyValue:
    """Kept for callers of the old API: the sorted union (see :func:`sorted_set`).

    >>> union_list(["a", "b"], ["b", "c"])
    ['a', 'b', 'c']
    """
    if not isinstance(old, list) and not isinstance(new, list):
        return new if new is not None else old
    return sorted_set(old, new)


def _kind_rank(kind: PropertyValue) -> tuple[int, str]:
    text = str(kind)
    return (KIND_ORDER.index(text) if text in KIND_ORDER else len(KIND_ORDER), text)


def _title_rank(props: Properties) -> tuple[int, tuple[int, int, int, str]]:
    source = 1 if props.get("titleSource") == DERIVED else 0
    return (source, spelling_rank(str(props.get("title"))))


def _curated(props: Properties) -> bool:
    return props.get("source") is not None and props.get("source") != DISCOVERED


def normalize_properties(props: Properties) -> Properties:
    """``props`` in merged normal form: ``None`` dropped, union lists sorted.

    ``merge_properties({}, p) == normalize_properties(p)``, so a first insert already has the
    shape every later merge produces and an identical re-ingest compares equal.

    Why a second implementation: the pipeline normalises every node of every record (about 30
    per paper), and :func:`merge_properties` with an empty side still ranks titles, names and
    kinds it has only one of. This is the same rule set with the empty side folded in; it
    returns the same map, keys in the same order (``tests/unit/test_ids_and_merge.py`` checks
    it against ``merge_properties({}, p)`` on generated maps).
    """
    curated = _curated(props)
    merged: Properties = {}
    for key, value in props.items():
        if value is None or key in _NAMED_LATER:
            continue
        if key in UNION_LIST_PROPERTIES:
            merged[key] = sorted_set(value)
        elif key != "source" or not curated:  # a curated source is placed with the name below
            merged[key] = value
    if props.get("title") is not None:
        for key in TITLE_GROUP:
            value = props.get(key)
            if value is not None:
                merged[key] = value
    name = props.get("name")
    if name is not None:
        best = str(name)
        if curated:
            for key in CURATED_GROUP:
                value = props.get(key)
                if value is not None:
                    merged[key] = value
                else:
                    merged.pop(key, None)
        elif (kind := props.get("kind")) is not None:
            merged["kind"] = kind
        merged["name"] = best
        aliases = props.get("aliases")
        if aliases is not None:
            merged["aliases"] = [a for a in sorted_set(aliases) if a != best]
    elif "name" not in props:
        aliases = props.get("aliases")
        if aliases is not None:
            merged["aliases"] = sorted_set(aliases)
        if (kind := props.get("kind")) is not None:
            merged["kind"] = kind
    return merged


# Keys :func:`normalize_properties` places after the others, as :func:`merge_properties` does.
_NAMED_LATER = frozenset({*TITLE_GROUP, "name", "aliases", "kind"})


def _names(*sides: Properties) -> list[str]:
    return [str(s["name"]) for s in sides if s.get("name") is not None]


def _merge_names(old: Properties, new: Properties, merged: Properties) -> None:
    """The ``name``/``aliases`` (and curated ``kind``/``source``) rule, in place on ``merged``."""
    names = _names(old, new)
    if not names:
        return
    if _curated(old) != _curated(new) and (_curated(old) or _curated(new)):
        winner = old if _curated(old) else new
        for key in CURATED_GROUP:
            if winner.get(key) is not None:
                merged[key] = winner[key]
            else:
                merged.pop(key, None)
        best = str(winner["name"]) if winner.get("name") is not None else min(names, key=spelling_rank)
    else:
        # one spelling (the common case: the same author again) needs no ranking
        best = names[0] if len(names) == 1 or names[0] == names[1] else min(names, key=spelling_rank)
        kinds = [s["kind"] for s in (old, new) if s.get("kind") is not None]
        if kinds:
            merged["kind"] = (
                kinds[0] if len(kinds) == 1 or kinds[0] == kinds[1] else min(kinds, key=_kind_rank)
            )
    merged["name"] = best
    losers = {n for n in names if n != best}
    if losers or old.get("aliases") is not None or new.get("aliases") is not None:
        spellings = sorted_set(old.get("aliases"), new.get("aliases"), sorted(losers))
        merged["aliases"] = [a for a in spellings if a != best]


def _pick(old: PropertyValue, new: PropertyValue) -> PropertyValue:
    if old is None or old == new:
        return new
    return min(old, new, key=_scalar_key)


def merge_properties(old: Properties, new: Properties) -> Properties:
    """The merged property map; neither argument is modified.

    >>> merge_properties({"title": "T", "titleSource": "LISTING"},
    ...                  {"title": "D", "titleSource": "DERIVED", "year": None})
    {'title': 'T', 'titleSource': 'LISTING'}
    >>> merge_properties({"name": "grape", "source": "discovered", "aliases": []},
    ...                  {"name": "GRAPE", "source": "discovered", "aliases": []})
    {'name': 'GRAPE', 'source': 'discovered', 'aliases': ['grape']}
    >>> merge_properties({"name": "GRAPE", "source": "discovered", "aliases": ["grape"]},
    ...                  {"name": "grape", "source": "discovered", "aliases": []})
    {'name': 'GRAPE', 'source': 'discovered', 'aliases': ['grape']}
    """
    if not old and new.keys().isdisjoint(RULED_KEYS) and None not in new.values():
        return dict(new)  # a first insert that no rule touches: see RULED_KEYS
    return merge_by_rules(old, new)


def merge_by_rules(old: Properties, new: Properties) -> Properties:
    """:func:`merge_properties` without its first-insert shortcut (the tests compare the two)."""
    merged: Properties = {k: v for k, v in old.items() if v is not None}
    title_sides = [s for s in (old, new) if s.get("title") is not None]
    if len(title_sides) == 2 and all(old.get(k) == new.get(k) for k in TITLE_GROUP):
        title_sides = title_sides[:1]  # the same title again: nothing to rank
    title_winner: Properties | None = None
    if title_sides:
        title_winner = title_sides[0] if len(title_sides) == 1 else min(title_sides, key=_title_rank)
    for key, value in new.items():
        if value is None or key in TITLE_GROUP or key in ("name", "aliases", "kind"):
            continue
        if key in UNION_LIST_PROPERTIES:
            merged[key] = sorted_set(merged.get(key), value)
        elif key == "source" and _curated(old) != _curated(new):
            continue  # decided with the name below
        else:
            merged[key] = _pick(merged.get(key), value)
    for key in UNION_LIST_PROPERTIES & merged.keys():
        if key not in new and key != "aliases":
            merged[key] = sorted_set(merged[key])
    if title_winner is not None:
        for key in TITLE_GROUP:
            if title_winner.get(key) is not None:
                merged[key] = title_winner[key]
            elif key in merged and key in title_winner:
                del merged[key]
    _merge_names(old, new, merged)
    if "name" not in old and "name" not in new:
        if old.get("aliases") is not None or new.get("aliases") is not None:
            merged["aliases"] = sorted_set(old.get("aliases"), new.get("aliases"))
        kinds = [s["kind"] for s in (old, new) if s.get("kind") is not None]
        if kinds:
            merged["kind"] = min(kinds, key=_kind_rank)
    return merged


def merge_all(maps: Iterable[Properties]) -> Properties:
    """Fold :func:`merge_properties` over ``maps`` (any order gives the same result)."""
    merged: Properties = {}
    for props in maps:
        merged = merge_properties(merged, props)
    return merged
