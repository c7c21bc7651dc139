"""How an upsert merges new properties into existing ones; both backends follow these rules.

Rules (the contract suite checks them on both stores):

- ``None`` never overwrites a value.
- List properties in :data:`UNION_LIST_PROPERTIES` are unioned, existing order first.
- A ``DERIVED`` paper title never replaces a title that came from a listing.
- A discovered concept (``source: "discovered"``) keeps the ``name`` and ``kind`` it was first
  stored with; a later paper's different spelling joins its ``aliases``. Two papers may word one
  discovered concept differently, and "newest wins" would flip the name whenever a corpus is
  re-ingested in another order.
- Anything else: the newest value wins (re-extracting the same paper gives the same value).
"""

from __future__ import annotations

from kg.models import Properties, PropertyValue

UNION_LIST_PROPERTIES: frozenset[str] = frozenset({"sources", "aliases", "keywords"})
DERIVED = "DERIVED"
DISCOVERED = "discovered"


def union_list(old: PropertyValue, new: PropertyValue) -> PropertyValue:
    """``old`` followed by the items of ``new`` it lacks.

    >>> union_list(["a", "b"], ["b", "c"])
    ['a', 'b', 'c']
    """
    if not isinstance(old, list):
        return new
    if not isinstance(new, list):
        return old
    seen = set(old)
    merged: list[str] = [str(x) for x in old]
    for item in new:
        if item not in seen:
            seen.add(item)
            merged.append(str(item))
    return merged


def merge_properties(old: Properties, new: Properties) -> Properties:
    """The merged property map; ``old`` is not modified.

    >>> merge_properties({"title": "T", "titleSource": "LISTING"},
    ...                  {"title": "D", "titleSource": "DERIVED", "year": None})
    {'title': 'T', 'titleSource': 'LISTING'}
    >>> merge_properties({"name": "grape", "source": "discovered", "aliases": []},
    ...                  {"name": "GRAPE", "source": "discovered", "aliases": []})
    {'name': 'grape', 'source': 'discovered', 'aliases': ['GRAPE']}
    """
    merged = dict(old)
    keep_title = old.get("titleSource") not in (None, DERIVED) and new.get("titleSource") == DERIVED
    keep_name = old.get("source") == DISCOVERED and new.get("source") == DISCOVERED and "name" in old
    for key, value in new.items():
        if value is None:
            continue
        if keep_title and key in ("title", "titleSource", "shortTitle"):
            continue
        if keep_name and key in ("name", "kind"):
            if key == "name" and value != old["name"]:
                merged["aliases"] = union_list(merged.get("aliases", []), [str(value)])
            continue
        if key in UNION_LIST_PROPERTIES and key in merged:
            merged[key] = union_list(merged[key], value)
        else:
            merged[key] = value
    return merged
