"""Hand-built graph parts for the tests that upsert records without the extractor.

Why a module: five test files built the same curated Concept node (name, kind, aliases, source
``vocabulary``); a node the store's rules treat differently when one of them drifts (a missing
``source`` makes it a discovered concept) would make those tests disagree for no reason.
"""

from __future__ import annotations

from typing import Any

from kg.core.models import Node, PaperRecord


def curated_concept(slug: str, name: str, kind: str = "CONCEPT", aliases: list[str] | None = None) -> Node:
    """A vocabulary Concept ``concept:<slug>`` (``slug`` already prefixed is kept as it is)."""
    props: dict[str, Any] = {"name": name, "kind": kind, "aliases": aliases or [], "source": "vocabulary"}
    node_id = slug if slug.startswith("concept:") else f"concept:{slug}"
    return Node(id=node_id, label="Concept", properties=props)


def rare_and_common_word_papers() -> list[PaperRecord]:
    """The any-word search split's corpus (:func:`kg.core.text_index.rarer_first`): six papers
    with the rare word "zorblax" (four with "learning" too, two long ones without it), 30 short
    ones with "learning" alone (several score above the long zorblax papers), 60 with neither."""
    rows = [
        (f"z{i}", f"Zorblax study {i}", "On learning things." if i < 4 else "A long abstract " * 30)
        for i in range(6)
    ]
    rows += [(f"l{i:02d}", "Learning learning", "Learning.") for i in range(30)]
    rows += [(f"o{i:02d}", "Other", "Something else.") for i in range(60)]
    return [
        PaperRecord(paper=Node(id=f"paper:{pid}", label="Paper", properties={"title": t, "abstract": a}))
        for pid, t, a in rows
    ]
