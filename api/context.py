"""The typed per-request GraphQL context: store, service, settings and fresh DataLoaders."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any, ParamSpec, TypeVar

from starlette.requests import Request
from strawberry.fastapi import BaseContext

from api.loaders import Loaders, Lookup, call_store
from kg.config import Settings
from kg.models import Node
from kg.service import GraphService
from kg.stores.protocol import GraphStore

P = ParamSpec("P")
R = TypeVar("R")


class Context(BaseContext):
    """What every resolver sees as ``info.context`` (role: request scope).

    Args:
        service: the app-wide :class:`kg.service.GraphService` (its store is ``store``).
        settings: limits such as ``max_page_size``.
        offload: run blocking store calls in worker threads (network backends).
    """

    def __init__(self, service: GraphService, settings: Settings, offload: bool | None = None) -> None:
        super().__init__()
        self.service = service
        self.store: GraphStore = service.store
        self.settings = settings
        self.offload = service.store.backend_name != "sqlite" if offload is None else offload
        self.loaders = Loaders(self.store, offload=self.offload)
        # Links every page of papers or co-authors asks for, from the service's caches.
        self.paper_authors: Lookup[str, list[Node]] = Lookup(
            service.paper_authors, service.paper_authors_many, self.offload
        )
        self.paper_venue: Lookup[str, Node | None] = Lookup(
            service.paper_venue, service.paper_venue_many, self.offload
        )
        self.coauthors: Lookup[str, list[tuple[Node, int]]] = Lookup(
            service.coauthors, service.coauthors_many, self.offload
        )
        # API objects made from the service's cached nodes, kept while the store version lasts
        # (see api.types.intern_all): node id -> Author / Venue.
        self.objects: dict[str, Any] = service.version_cache("api.objects")

    async def call(self, fn: Callable[P, R], *args: P.args, **kwargs: P.kwargs) -> R:
        """A blocking service or store call, off the event loop when the backend does I/O."""
        return await call_store(self.offload, fn, *args, **kwargs)

    async def compute(self, fn: Callable[P, R], *args: P.args, **kwargs: P.kwargs) -> R:
        """A CPU-heavy call (graph analytics), always in a worker thread so the loop stays free."""
        return await asyncio.to_thread(fn, *args, **kwargs)


async def get_context(request: Request) -> Context:
    """``context_getter`` for the GraphQL router: new loaders for every request."""
    state = request.app.state
    return Context(service=state.service, settings=state.settings)
