"""Per-request DataLoaders over the store's batch reads, so nested fields never cost N+1 calls.

Every loader is backed by one :class:`kg.stores.protocol.GraphStore` batch method, whose results come in
key order, one per key: exactly what :class:`strawberry.dataloader.DataLoader` requires. Nodes
that arrive as the far end of a relationship are primed into the node loader, so asking for
them again by id costs nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine, Generator, Sequence
from typing import Any, Generic, ParamSpec, TypeVar, cast

from strawberry.dataloader import DataLoader

from api.lanes import light, run_in
from kg.core.models import Node, RelType
from kg.stores.protocol import Direction, Edge, GraphStore

P = ParamSpec("P")
R = TypeVar("R")
K = TypeVar("K")
V = TypeVar("V")
T = TypeVar("T")


async def call_store(offload: bool, fn: Callable[P, R], *args: P.args, **kwargs: P.kwargs) -> R:
    """Run a blocking store (or service) call in the light lane (:mod:`api.lanes`) when
    ``offload`` is set, so the event loop keeps serving other requests and ``/healthz``;
    ``kg query`` (one request, no server) runs it inline."""
    if offload:
        return await run_in(light(), fn, *args, **kwargs)
    return fn(*args, **kwargs)


class Loaders:
    """The DataLoaders of one request: nodes by id, neighbours and degrees by (type, direction).

    Args:
        store: the store to batch against.
        offload: run store calls in worker threads (see :func:`call_store`).

    Example:
        >>> import asyncio
        >>> from kg.stores.sqlite import SQLiteStore
        >>> async def missing() -> Node | None:
        ...     return await Loaders(SQLiteStore(None)).nodes.load("paper:missing")
        >>> asyncio.run(missing()) is None
        True
    """

    def __init__(self, store: GraphStore, offload: bool = False) -> None:
        self._store = store
        self._offload = offload
        self.nodes: DataLoader[str, Node | None] = DataLoader(load_fn=self._load_nodes)
        self._neighbors: dict[tuple[RelType, Direction], DataLoader[str, list[Edge]]] = {}
        self._degrees: dict[tuple[RelType, Direction], DataLoader[str, int]] = {}

    async def _load_nodes(self, ids: list[str]) -> list[Node | None]:
        return await call_store(self._offload, self._store.get_nodes, ids)

    def neighbors(self, rel_type: RelType, direction: Direction = "out") -> DataLoader[str, list[Edge]]:
        """Loader of a node's relationships of one type (sorted by the other node's id)."""
        key = (rel_type, direction)
        loader = self._neighbors.get(key)
        if loader is None:

            async def load(ids: list[str]) -> list[list[Edge]]:
                result = await call_store(self._offload, self._store.neighbors_many, ids, rel_type, direction)
                for edges in result:
                    for edge in edges:
                        self.nodes.prime(edge.node.id, edge.node)
                return result

            loader = self._neighbors[key] = DataLoader(load_fn=load)
        return loader

    def degree(self, rel_type: RelType, direction: Direction = "out") -> DataLoader[str, int]:
        """Loader of a node's number of relationships of one type."""
        key = (rel_type, direction)
        loader = self._degrees.get(key)
        if loader is None:

            async def load(ids: list[str]) -> list[int]:
                return await call_store(self._offload, self._store.degree_many, ids, rel_type, direction)

            loader = self._degrees[key] = DataLoader(load_fn=load)
        return loader


class Lookup(Generic[K, V]):
    """A per-request batched read (a DataLoader over one ``many`` call) whose values go into
    plain fields: :meth:`get` returns an awaitable that starts loading only when awaited, so a
    field nobody selects costs nothing and a page of 20 papers costs one store query.

    Args:
        many: the service's lookup for many keys, in key order.
        offload: the backend does I/O (see :func:`call_store`).
    """

    def __init__(self, many: Callable[[list[K]], Sequence[V]], offload: bool) -> None:
        async def load(keys: list[K]) -> list[V]:
            return list(await call_store(offload, many, keys))

        self._loader: DataLoader[K, V] = DataLoader(load_fn=load)

    def get(self, key: K, convert: Callable[[V], T]) -> T:
        """An awaitable of ``convert(value of key)`` (graphql-core awaits it; the type stays T)."""
        loader = self._loader

        async def later() -> T:
            return convert(await loader.load(key))

        return cast(T, Later(later))


class Later(Generic[T]):
    """An awaitable that runs ``start()`` when (and only if) it is awaited."""

    __slots__ = ("_start",)

    def __init__(self, start: Callable[[], Coroutine[Any, Any, T]]) -> None:
        self._start = start

    def __await__(self) -> Generator[Any, None, T]:
        return self._start().__await__()
