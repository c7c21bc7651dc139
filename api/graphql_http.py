"""GraphQL over HTTP: ``Accept`` negotiation and ``application/graphql-response+json``.

The GraphQL-over-HTTP spec gives two response media types. ``application/json`` (the legacy
one) answers 200 for every well-formed request, whatever its GraphQL errors; clients of it
keep exactly the old behaviour. ``application/graphql-response+json`` lets the status code say
what happened: a *request error* (the document does not parse or validate, or the variables do
not coerce: nothing was executed) is a 4xx and the body has no ``data`` entry, while a response
with ``data`` (even when some fields failed) stays 2xx.

:class:`GraphQLResponseMediaType` does this around the whole app, so the router, the fast path,
the response cache and the timeout inside it need not know: it picks the media type from the
request's ``Accept`` (quality values and wildcards as in RFC 9110), asks the inner app for
``application/json``, and rewrites the answer for clients that chose the new type. A request
whose ``Accept`` allows neither type (nor a streaming type) gets 406, as the spec recommends.

How a request error is told apart: the result has ``"data": null`` and none of its errors has a
``path``. Field errors always carry the path of the field that failed (graphql-core sets it),
while parse, validation and variable-coercion errors never do. Among request errors, the
``code`` extension of :class:`api.schema.ErrorPolicy` picks the status: 503 when the store is
unavailable, 500 for an unexpected error, 400 otherwise.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from fastapi import FastAPI
from starlette.types import ASGIApp, Message, Receive, Scope, Send

GRAPHQL_RESPONSE_JSON = "application/graphql-response+json"
APPLICATION_JSON = "application/json"
SUPPORTED = (GRAPHQL_RESPONSE_JSON, APPLICATION_JSON)
# Incremental delivery and subscriptions over HTTP: left to the router when a client asks.
STREAMING = ("multipart/mixed", "text/event-stream")
STATUS_BY_CODE = {"STORE_UNAVAILABLE": 503, "STORE_ERROR": 503, "INTERNAL_SERVER_ERROR": 500, "TIMEOUT": 504}


def negotiate(accept: str | None) -> str | None:
    """The response media type for an ``Accept`` header, or ``None`` when none is acceptable.

    A missing or empty header means ``application/json`` (the spec's legacy default, which
    every existing client expects), and so does a bare wildcard: a client that names
    ``application/graphql-response+json`` gets it. Among media ranges of equal quality, an
    exact name beats a wildcard and, among exact names, the one listed first wins.

    Args:
        accept: the request's ``Accept`` header value.

    Returns:
        ``application/graphql-response+json``, ``application/json`` or ``None``.

    Example:
        >>> negotiate("application/graphql-response+json, application/json;q=0.9")
        'application/graphql-response+json'
        >>> negotiate("*/*"), negotiate(None), negotiate("text/html")
        ('application/json', 'application/json', None)
    """
    if accept is None or not accept.strip():
        return APPLICATION_JSON
    best: tuple[float, int, int] | None = None
    choice: str | None = None
    for position, (media_range, quality) in enumerate(_media_ranges(accept)):
        if quality <= 0:
            continue
        for preference, media_type in enumerate(SUPPORTED):
            specificity = _match(media_range, media_type)
            if specificity is None:
                continue
            # Higher quality, then more specific, then earlier in the header; a wildcard
            # prefers application/json (SUPPORTED order reversed for wildcard matches).
            rank = (quality, specificity, -position if specificity == 2 else preference)
            if best is None or rank > best:
                best, choice = rank, media_type
    return choice


def _media_ranges(accept: str) -> Iterable[tuple[str, float]]:
    for part in accept.split(","):
        fields = [f.strip() for f in part.split(";")]
        media_range = fields[0].lower()
        if not media_range:
            continue
        quality = 1.0
        for param in fields[1:]:
            name, _, value = param.partition("=")
            if name.strip().lower() == "q":
                try:
                    quality = float(value.strip())
                except ValueError:
                    quality = 0.0
        yield media_range, quality


def _match(media_range: str, media_type: str) -> int | None:
    """2 for an exact match, 1 for ``type/*``, 0 for ``*/*``, ``None`` for no match."""
    if media_range == media_type:
        return 2
    if media_range == "*/*":
        return 0
    kind, _, sub = media_range.partition("/")
    if sub == "*" and media_type.startswith(kind + "/"):
        return 1
    return None


def response_status(body: dict[str, Any]) -> int | None:
    """The status a ``graphql-response+json`` answer gets when ``body`` is a request error.

    Args:
        body: a GraphQL response (``data``/``errors``) as the inner app produced it.

    Returns:
        400/500/503/504 for a request error (nothing executed), ``None`` when the body has
        ``data`` to return (status unchanged).

    Example:
        >>> response_status({"data": None, "errors": [{"message": "Syntax Error"}]})
        400
        >>> response_status({"data": None, "errors": [{"message": "boom", "path": ["paper"]}]}) is None
        True
    """
    errors = body.get("errors")
    if body.get("data") is not None or not isinstance(errors, list) or not errors:
        return None
    if any(isinstance(e, dict) and e.get("path") for e in errors):
        return None  # a field error: data is null because a non-null field failed
    codes = [(e.get("extensions") or {}).get("code") for e in errors if isinstance(e, dict)]
    return max((STATUS_BY_CODE.get(c, 400) for c in codes if isinstance(c, str)), default=400)


class GraphQLResponseMediaType:
    """Serve ``application/graphql-response+json`` at ``path`` for clients that accept it.

    Args:
        app: the wrapped ASGI app (answers in ``application/json``).
        path: the GraphQL endpoint.
    """

    def __init__(self, app: ASGIApp, path: str = "/graphql") -> None:
        self.app = app
        self.path = path

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"].rstrip("/") != self.path or not _is_operation(scope):
            await self.app(scope, receive, send)
            return
        headers: list[tuple[bytes, bytes]] = list(scope["headers"])
        accept = ", ".join(v.decode("latin-1") for k, v in headers if k == b"accept") or None
        media_type = negotiate(accept)
        if media_type is None:
            if accept is not None and any(s in accept.lower() for s in STREAMING):
                await self.app(scope, receive, send)  # the router decides on streaming
                return
            await _send(send, 406, _error_body(f"Not Acceptable: answers are {' or '.join(SUPPORTED)}"))
            return
        if media_type == APPLICATION_JSON:
            await self.app(scope, receive, _text_errors_as_json(_vary(send)))
            return
        inner_headers = [(k, v) for k, v in headers if k != b"accept"]
        inner_headers.append((b"accept", APPLICATION_JSON.encode()))
        await self._rewrite(dict(scope, headers=inner_headers), receive, send)

    async def _rewrite(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Run the inner app, buffer its answer and re-send it as ``graphql-response+json``."""
        start: Message | None = None
        parts: list[bytes] = []

        async def capture(message: Message) -> None:
            nonlocal start
            if message["type"] == "http.response.start":
                start = message
            elif message["type"] == "http.response.body":
                parts.append(message.get("body", b""))
                if not message.get("more_body", False) and start is not None:
                    await self._finish(start, b"".join(parts), send)
            else:
                await send(message)

        await self.app(scope, receive, _text_errors_as_json(capture))

    async def _finish(self, start: Message, body: bytes, send: Send) -> None:
        status: int = start["status"]
        dropped = (b"content-type", b"content-length")
        headers = [(k, v) for k, v in start.get("headers", []) if k not in dropped]
        content_type = dict(start.get("headers", [])).get(b"content-type", b"").decode("latin-1")
        if content_type.startswith(APPLICATION_JSON):
            payload = _json(body) if b'"errors"' in body else None
            if isinstance(payload, dict) and "data" in payload:
                new_status = response_status(payload) if status < 400 else None
                if new_status is not None or (status >= 400 and payload["data"] is None):
                    del payload["data"]  # a request error: nothing executed, no data entry
                    status = new_status or status
                    body = json.dumps(payload, separators=(",", ":"), ensure_ascii=False).encode()
        else:
            await send(start)
            await send({"type": "http.response.body", "body": body})
            return
        await send(
            {
                "type": "http.response.start",
                "status": status,
                "headers": [
                    *headers,
                    (b"content-type", f"{GRAPHQL_RESPONSE_JSON}; charset=utf-8".encode()),
                    (b"content-length", str(len(body)).encode()),
                    *([] if any(k == b"vary" for k, _ in headers) else [(b"vary", b"Accept")]),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})


def _is_operation(scope: Scope) -> bool:
    """POSTs, and GETs that carry a query (a GET without one shows the IDE)."""
    if scope["method"] == "POST":
        return True
    if scope["method"] != "GET":
        return False
    query_string: bytes = scope.get("query_string", b"")
    return any(p.split(b"=", 1)[0] == b"query" for p in query_string.split(b"&"))


def _text_errors_as_json(send: Send) -> Send:
    """``send`` turning strawberry's plain-text 4xx ("Unsupported content type", "No GraphQL
    query found in the request") into a GraphQL error in JSON, status kept; under both media
    types (``graphql-response+json`` answers are rewritten from it).

    Why: a client reads ``errors`` from every answer; a text body made it fail on the parse
    (found by ``tests/api/test_api_fuzz.py``: an empty ``text/plain`` POST).
    """
    held: Message | None = None
    parts: list[bytes] = []

    async def sending(message: Message) -> None:
        nonlocal held
        if message["type"] == "http.response.start":
            content_type = dict(message.get("headers", [])).get(b"content-type", b"")
            if message["status"] >= 400 and content_type.startswith(b"text/plain"):
                held = message
                return
        elif message["type"] == "http.response.body" and held is not None:
            parts.append(message.get("body", b""))
            if message.get("more_body", False):
                return
            text = b"".join(parts).decode("utf-8", "replace")
            dropped = (b"content-type", b"content-length")
            body = _error_body(text)
            headers = [(k, v) for k, v in held.get("headers", []) if k not in dropped]
            headers += [
                (b"content-type", APPLICATION_JSON.encode()),
                (b"content-length", str(len(body)).encode()),
            ]
            await send({**held, "headers": headers})
            await send({"type": "http.response.body", "body": body})
            return
        await send(message)

    return sending


def _vary(send: Send) -> Send:
    """``send`` adding ``Vary: Accept``: the answer depends on it, which caches must know."""

    async def sending(message: Message) -> None:
        if message["type"] == "http.response.start":
            headers = list(message.get("headers", []))
            if not any(k.lower() == b"vary" for k, _ in headers):
                message = {**message, "headers": [*headers, (b"vary", b"Accept")]}
        await send(message)

    return sending


def _json(body: bytes) -> Any:
    try:
        return json.loads(body)
    except ValueError:
        return None


def _error_body(message: str) -> bytes:
    return json.dumps({"errors": [{"message": message}]}, separators=(",", ":")).encode()


async def _send(send: Send, status: int, body: bytes) -> None:
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", APPLICATION_JSON.encode()),
                (b"content-length", str(len(body)).encode()),
                (b"vary", b"Accept"),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


def install(app: FastAPI, path: str = "/graphql") -> None:
    """Wrap ``app`` (outermost, so cached and timed-out answers are negotiated too).

    Call it after every other ``add_middleware`` of the app.
    """
    app.add_middleware(GraphQLResponseMediaType, path=path)
