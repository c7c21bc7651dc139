"""Hand-built graph parts for the tests that upsert records without the extractor.

Why a module: five test files built the same curated Concept node (name, kind, aliases, source
``vocabulary``); a node the store's rules treat differently when one of them drifts (a missing
``source`` makes it a discovered concept) would make those tests disagree for no reason.
"""

from __future__ import annotations

from typing import Any

from kg.core.models import Node


def curated_concept(slug: str, name: str, kind: str = "CONCEPT", aliases: list[str] | None = None) -> Node:
    """A vocabulary Concept ``concept:<slug>`` (``slug`` already prefixed is kept as it is)."""
    props: dict[str, Any] = {"name": name, "kind": kind, "aliases": aliases or [], "source": "vocabulary"}
    node_id = slug if slug.startswith("concept:") else f"concept:{slug}"
    return Node(id=node_id, label="Concept", properties=props)
