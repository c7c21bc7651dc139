"""The typed per-request GraphQL context: service, settings and fresh DataLoaders.

A plain class, so that ``kg query`` (which runs the schema in-process) does not import
FastAPI and strawberry's FastAPI integration: that was half a second of its start. The HTTP
server's context (:mod:`api.http_context`) is this class plus strawberry's ``BaseContext``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ParamSpec, TypeVar

from api.lanes import HEAVY, run_in
from api.loaders import Loaders, Lookup, call_store
from kg.core.config import Settings
from kg.core.models import Node
from kg.read.key_concepts import KeyConcept
from kg.read.service import ReadService
from kg.stores.protocol import ReadStore

P = ParamSpec("P")
R = TypeVar("R")


class Context:
    """What every resolver sees as ``info.context`` (role: request scope).

    Args:
        service: the app-wide :class:`kg.read.service.ReadService` (its store is ``store``).
        settings: limits such as ``max_page_size``.
        offload: run blocking store calls in worker threads (the server always does, so a slow
            query never blocks the event loop; ``kg query`` runs them inline).
    """

    def __init__(self, service: ReadService, settings: Settings, offload: bool | None = None) -> None:
        super().__init__()  # BaseContext.__init__ in api.http_context.HTTPContext
        self.service = service
        self.store: ReadStore = service.store
        self.settings = settings
        self.offload = True if offload is None else offload
        self.loaders = Loaders(self.store, offload=self.offload)
        # Links every page of papers or co-authors asks for: one store query per level.
        self.paper_authors: Lookup[str, list[Node]] = Lookup(service.paper_authors_many, self.offload)
        self.paper_venue: Lookup[str, Node | None] = Lookup(service.paper_venue_many, self.offload)
        self.key_concepts: Lookup[str, list[KeyConcept]] = Lookup(service.key_concepts_many, self.offload)
        # keyed on (author id, page size): a page reads only the nodes it can hold
        self.coauthors: Lookup[tuple[str, int], list[tuple[Node, int]]] = Lookup(
            service.coauthor_pages, self.offload
        )

    async def call(self, fn: Callable[P, R], *args: P.args, **kwargs: P.kwargs) -> R:
        """A blocking service or store call, off the event loop when the backend does I/O."""
        return await call_store(self.offload, fn, *args, **kwargs)

    async def compute(self, fn: Callable[P, R], *args: P.args, **kwargs: P.kwargs) -> R:
        """A heavy call (graph analytics, whole-graph aggregates) in the heavy lane, so a burst of
        them never delays cheap lookups."""
        if not self.offload:
            return fn(*args, **kwargs)
        return await run_in(HEAVY, fn, *args, **kwargs)
