"""Errors of the read side: a request it cannot answer as asked."""

from __future__ import annotations

from collections.abc import Sequence

from kg.core.errors import KGError


class ServiceError(KGError):
    """A request the read side cannot answer as asked (bad argument or unknown name)."""


class InvalidArgument(ServiceError):
    """An argument is out of range (depth, node budget, weight)."""


class UnknownName(ServiceError):
    """A name (concept, author, venue, topic) matches nothing in the graph; carries suggestions."""

    def __init__(self, kind: str, name: str, suggestions: Sequence[str] = ()) -> None:
        self.kind = kind
        self.name = name
        self.suggestions = list(suggestions)
        hint = f"; did you mean: {', '.join(self.suggestions)}?" if self.suggestions else ""
        super().__init__(f"unknown {kind} {name!r}{hint}")
