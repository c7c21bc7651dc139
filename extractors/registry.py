"""Extractors registered under versioned names, so the pipeline's list is configuration.

Old behaviour stays addressable (``kg.concepts.v1``) when a new version is added.

Example:
    >>> from extractors.registry import get_extractor
    >>> get_extractor("kg.authors.v1").__name__
    'extract_authors'
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from spacy.tokens import Doc

from kg.core.models import Node, Properties, RawPaper, Relationship


@dataclass
class ExtractInput:
    """What every extractor sees: the raw paper, its id, and (for text extractors) its Doc."""

    paper: RawPaper
    paper_id: str
    doc: Doc | None = None
    text: str = ""  # the cleaned text the Doc was made from
    # Characters of ``text`` that are the title (``extractors.text.title_length``), when the
    # caller knows it already; ``None``: extractors compute it from the paper's title.
    title_end: int | None = None
    # The Doc comes from the tokenizer alone (fast mode): no tags, no parse to look for.
    tokens_only: bool = False
    context: dict[str, Any] = field(default_factory=dict)


@dataclass
class Parts:
    """What an extractor adds: nodes, relationships, and properties for the paper node."""

    nodes: list[Node] = field(default_factory=list)
    relationships: list[Relationship] = field(default_factory=list)
    paper_properties: Properties = field(default_factory=dict)
    # Every node's properties are already in merge normal form (``kg.core.merge.normalize_properties``,
    # key order included), so the pipeline takes a first sighting as it is.
    normal_nodes: bool = False


Extractor = Callable[[ExtractInput], Parts]
_REGISTRY: dict[str, Extractor] = {}


def register(name: str) -> Callable[[Extractor], Extractor]:
    """Decorator: register an extractor under a versioned name such as ``kg.topics.v1``."""

    def deco(fn: Extractor) -> Extractor:
        if name in _REGISTRY:
            raise ValueError(f"extractor {name!r} is already registered")
        _REGISTRY[name] = fn
        return fn

    return deco


def get_extractor(name: str) -> Extractor:
    """The extractor registered under ``name``; a clear error lists what exists."""
    _load_builtins()
    try:
        return _REGISTRY[name]
    except KeyError:
        known = ", ".join(sorted(_REGISTRY))
        raise KeyError(f"unknown extractor {name!r}; registered: {known}") from None


def registered() -> list[str]:
    """Names of all registered extractors."""
    _load_builtins()
    return sorted(_REGISTRY)


def _load_builtins() -> None:
    # Importing the modules runs their @register decorators.
    import extractors.concepts.extract  # noqa: F401
    import extractors.concepts.titles  # noqa: F401
    import extractors.metadata  # noqa: F401
