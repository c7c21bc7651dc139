"""Refuse hostile GraphQL requests before any parsing work they could make expensive.

Why a separate gate in front of strawberry: a 1.5 KB document of nested fragment spreads
expands to billions of fields, and graphql-core's validation (overlapping fields, depth) walks
that expansion; deeply nested JSON, a 5,000-digit number or invalid UTF-8 in a body crashed the
JSON decoding with a 500. Here every request body is checked in bounded time:

- size (``MAX_BODY_BYTES``), UTF-8, JSON nesting depth (``MAX_JSON_DEPTH``, scanned before
  decoding) and shape (an object with a string ``query``, object ``variables``);
- the document: at most ``MAX_TOKENS`` lexical tokens (graphql-core's own limit), and at most
  ``MAX_FIELDS`` fields and ``MAX_SPREADS`` fragment spreads after expanding fragments,
  counted once per fragment (memoised, so an exponential document is measured in linear time);
- several operations without ``operationName`` are an error, not "the first one".

A refusal is HTTP 400 with a GraphQL-shaped error and a ``code``. Nothing here touches the store.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any
from urllib.parse import parse_qs

from graphql import (
    DocumentNode,
    FieldNode,
    FragmentDefinitionNode,
    FragmentSpreadNode,
    GraphQLError,
    InlineFragmentNode,
    OperationDefinitionNode,
    SelectionSetNode,
    parse,
)
from starlette.types import ASGIApp, Message, Receive, Scope, Send

MAX_BODY_BYTES = 1 << 20
MAX_JSON_DEPTH = 32
MAX_TOKENS = 5000
MAX_FIELDS = 5000
MAX_SPREADS = 500


class Refused(Exception):
    """A request refused by the gate: message and code for the client."""

    def __init__(self, message: str, code: str = "BAD_REQUEST", status: int = 400) -> None:
        super().__init__(message)
        self.code = code
        self.status = status


def json_depth(text: str) -> int:
    """Deepest nesting of arrays/objects in JSON text, outside strings, in one linear scan.

    >>> json_depth('{"a": [1, {"b": "[[["}]}')
    3
    """
    depth = deepest = 0
    in_string = escaped = False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif ch in "]}":
            depth -= 1
    return deepest


def decode_body(body: bytes) -> dict[str, Any]:
    """The request object of a JSON POST body, or :class:`Refused` saying what is wrong."""
    if len(body) > MAX_BODY_BYTES:
        raise Refused(f"request body over {MAX_BODY_BYTES} bytes", "REQUEST_TOO_LARGE", 413)
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as e:
        raise Refused(f"request body is not UTF-8 (byte {e.start})") from e
    if json_depth(text) > MAX_JSON_DEPTH:
        raise Refused(f"request JSON nested deeper than {MAX_JSON_DEPTH} levels")
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as e:
        raise Refused(f"request body is not valid JSON: {str(e)[:200]}") from e
    if not isinstance(data, dict):
        raise Refused("request body must be a JSON object with a `query` string")
    check_shape(data)
    return data


def check_shape(data: dict[str, Any]) -> None:
    """``query`` a string, ``variables`` an object, ``operationName`` a string (when given)."""
    if not isinstance(data.get("query"), str):
        raise Refused("`query` must be a string holding a GraphQL document")
    if not isinstance(data.get("variables"), dict | None):
        raise Refused("`variables` must be a JSON object")
    if not isinstance(data.get("operationName"), str | None):
        raise Refused("`operationName` must be a string")


def check_document(query: str, operation_name: str | None) -> None:
    """Bound the document's size after fragment expansion, and require an operation name when
    there are several operations."""
    try:
        document = parse(query, max_tokens=MAX_TOKENS)
    except GraphQLError as e:
        if "token limit" in e.message:
            raise Refused(f"document has more than {MAX_TOKENS} tokens", "QUERY_TOO_COMPLEX") from e
        return  # an ordinary syntax error: strawberry reports it with its location
    operations = [d for d in document.definitions if isinstance(d, OperationDefinitionNode)]
    if len(operations) > 1 and not operation_name:
        raise Refused("the document has several operations: say which one with `operationName`")
    fields, spreads = expanded_size(document)
    if spreads > MAX_SPREADS:
        raise Refused(
            f"document expands to {spreads} fragment spreads (limit {MAX_SPREADS})", "QUERY_TOO_COMPLEX"
        )
    if fields > MAX_FIELDS:
        raise Refused(f"document expands to {fields} fields (limit {MAX_FIELDS})", "QUERY_TOO_COMPLEX")


def expanded_size(document: DocumentNode) -> tuple[int, int]:
    """``(fields, fragment spreads)`` of every operation with fragments expanded, computed with
    one memoised count per fragment; cycles count as over the limit.

    >>> expanded_size(parse("{ a ...F ...F } fragment F on Q { b c }"))
    (5, 2)
    """
    fragments = {d.name.value: d for d in document.definitions if isinstance(d, FragmentDefinitionNode)}
    memo: dict[str, tuple[int, int]] = {}
    visiting: set[str] = set()
    over = (MAX_FIELDS + 1, MAX_SPREADS + 1)

    def count(selection_set: SelectionSetNode | None) -> tuple[int, int]:
        if selection_set is None:
            return (0, 0)
        fields = spreads = 0
        for sel in selection_set.selections:
            if isinstance(sel, FieldNode):
                f, s = count(sel.selection_set)
                fields, spreads = fields + 1 + f, spreads + s
            elif isinstance(sel, InlineFragmentNode):
                f, s = count(sel.selection_set)
                fields, spreads = fields + f, spreads + s
            elif isinstance(sel, FragmentSpreadNode):
                f, s = fragment(sel.name.value)
                fields, spreads = fields + f, spreads + 1 + s
            if fields > MAX_FIELDS or spreads > MAX_SPREADS:
                return over
        return (fields, spreads)

    def fragment(name: str) -> tuple[int, int]:
        if name in memo:
            return memo[name]
        node = fragments.get(name)
        if node is None:
            return (0, 0)  # unknown fragment: validation reports it
        if name in visiting:
            return over  # a cycle: validation reports it; never expand it
        visiting.add(name)
        memo[name] = count(node.selection_set)
        visiting.discard(name)
        return memo[name]

    total = (0, 0)
    for op in document.definitions:
        if isinstance(op, OperationDefinitionNode):
            f, s = count(op.selection_set)
            total = (total[0] + f, total[1] + s)
    return total


def error_body(message: str, code: str) -> bytes:
    return json.dumps({"data": None, "errors": [{"message": message, "extensions": {"code": code}}]}).encode()


class RequestGuardMiddleware:
    """Pure ASGI gate in front of ``/graphql`` (see the module docstring)."""

    def __init__(self, app: ASGIApp, path: str = "/graphql") -> None:
        self.app = app
        self.path = path

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"].rstrip("/") != self.path:
            await self.app(scope, receive, send)
            return
        try:
            if scope["method"] == "GET":
                params = parse_qs(scope.get("query_string", b"").decode("latin-1"))
                query = params.get("query", [None])[0]
                if query is not None:
                    check_document(query, params.get("operationName", [None])[0])
                await self.app(scope, receive, send)
                return
            if scope["method"] != "POST":
                await self.app(scope, receive, send)
                return
            body = await _read_body(receive, MAX_BODY_BYTES + 1)
            if body is None:
                return
            content_type = dict(scope["headers"]).get(b"content-type", b"").split(b";")[0].strip()
            if content_type == b"application/json":
                data = decode_body(body)
                check_document(data["query"], data.get("operationName"))
            elif len(body) > MAX_BODY_BYTES:
                raise Refused(f"request body over {MAX_BODY_BYTES} bytes", "REQUEST_TOO_LARGE", 413)
        except Refused as e:
            await _respond(send, e.status, error_body(str(e), e.code))
            return
        await self.app(scope, replaying(body, receive), send)


def replaying(body: bytes, receive: Receive) -> Receive:
    """A ``receive`` that hands the app the body already read, then the client's later messages
    (a disconnect): how a middleware that had to read the body passes the request on."""
    replayed = False

    async def replay() -> Message:
        nonlocal replayed
        if not replayed:
            replayed = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replay


async def _read_body(receive: Receive, limit: int) -> bytes | None:
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] != "http.request":
            return None
        chunk = message.get("body", b"")
        size += len(chunk)
        if size <= limit:
            chunks.append(chunk)
        if not message.get("more_body", False):
            return b"".join(chunks) if size <= limit else b"x" * limit


async def _respond(send: Send, status: int, body: bytes) -> None:
    headers: Iterable[tuple[bytes, bytes]] = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
    ]
    await send({"type": "http.response.start", "status": status, "headers": list(headers)})
    await send({"type": "http.response.body", "body": body})
