"""The GraphQL context of an HTTP request (role: the router's ``context_getter``).

strawberry's FastAPI router accepts only a dict or a ``BaseContext`` from its context getter,
and gives the latter the request and response; :class:`api.context.Context` stays free of
FastAPI so that ``kg query`` need not import it.
"""

from __future__ import annotations

from starlette.requests import Request
from strawberry.fastapi import BaseContext

from api.context import Context
from kg.core import deadline


class HTTPContext(Context, BaseContext):
    """:class:`~api.context.Context` with strawberry's request, response and background tasks."""


async def get_context(request: Request) -> HTTPContext:
    """``context_getter`` for the GraphQL router: new loaders for every request."""
    state = request.app.state
    deadline.start(state.settings.request_timeout_s)
    return HTTPContext(service=state.service, settings=state.settings)
