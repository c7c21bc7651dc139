"""Run a GraphQL document in-process (``kg query``), with the same schema, limits and errors as HTTP."""

from __future__ import annotations

import asyncio
from typing import Any

from graphql import GraphQLError

from api.context import Context
from api.schema import build_schema
from kg.core.config import Settings, get_settings
from kg.core.errors import StoreUnavailable
from kg.read.service import ReadService
from kg.stores.protocol import ReadStore


def execute_query(
    document: str,
    variables: dict[str, Any] | None = None,
    settings: Settings | None = None,
    store: ReadStore | None = None,
) -> dict[str, Any]:
    """The JSON response ``{"data": ..., "errors": [...]}`` to one GraphQL request.

    ``errors`` is present only when there are errors, as in the HTTP response.

    Args:
        document: a GraphQL query document.
        variables: its variables.
        settings: defaults to :func:`kg.core.config.get_settings`.
        store: an open store (left open); default: open one from settings and close it after.

    Example:
        >>> from kg.stores.sqlite import SQLiteStore
        >>> result = execute_query("{ stats { nodes { label count } } }", store=SQLiteStore(None))
        >>> result["data"]["stats"]["nodes"][0]
        {'label': 'Paper', 'count': 0}
    """
    cfg = settings if settings is not None else get_settings()
    owned = store is None
    if store is None:
        from kg.stores import open_store

        try:
            store = open_store(cfg)
        except StoreUnavailable as e:
            error = GraphQLError(f"graph store unavailable: {e}", extensions={"code": "STORE_UNAVAILABLE"})
            return {"data": None, "errors": [error.formatted]}
    try:
        context = Context(service=ReadService(store), settings=cfg, offload=False)
        result = asyncio.run(
            build_schema(cfg).execute(document, variable_values=variables, context_value=context)
        )
    finally:
        if owned:
            store.close()
    response: dict[str, Any] = {"data": result.data}
    if result.errors:
        response["errors"] = [e.formatted for e in result.errors]
    return response
