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
import re
from collections import Counter
from collections.abc import Iterable
from functools import lru_cache
from typing import Any
from urllib.parse import parse_qsl

from graphql import (
    DocumentNode,
    FieldNode,
    FragmentDefinitionNode,
    FragmentSpreadNode,
    GraphQLError,
    InlineFragmentNode,
    OperationDefinitionNode,
    SelectionSetNode,
    Source,
    TokenKind,
    parse,
)
from graphql.language import Lexer
from starlette.types import ASGIApp, Message, Receive, Scope, Send

MAX_BODY_BYTES = 1 << 20
MAX_JSON_DEPTH = 32
MAX_TOKENS = 5000
MAX_FIELDS = 5000
MAX_SPREADS = 500
# Same-named field pairs validation may compare (9,870 took 0.1-0.5 s; a real query has a few).
MAX_REPEATED_PAIRS = 2_000


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


def nested_deeper_than(text: str, limit: int) -> bool:
    """Whether JSON ``text`` nests deeper than ``limit``; a text with no more opening brackets
    than that cannot, and is not scanned (C-speed counts instead of a Python loop per character:
    a request body has a handful of brackets).

    >>> nested_deeper_than('{"a": [[1]]}', 2), nested_deeper_than('{"a": "[[[[["}', 2)
    (True, False)
    """
    if text.count("[") + text.count("{") <= limit:
        return False
    return json_depth(text) > limit


def decode_body(body: bytes) -> dict[str, Any]:
    """The request object of a JSON POST body, or :class:`Refused` saying what is wrong."""
    if len(body) > MAX_BODY_BYTES:
        raise Refused(f"request body over {MAX_BODY_BYTES} bytes", "REQUEST_TOO_LARGE", 413)
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as e:
        raise Refused(f"request body is not UTF-8 (byte {e.start})") from e
    if nested_deeper_than(text, MAX_JSON_DEPTH):
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


def count_tokens(query: str, limit: int = MAX_TOKENS) -> int | None:
    """Lexical tokens of ``query`` (comments excluded, as graphql-core's ``max_tokens`` counts
    them), stopping at ``limit + 1``; ``None`` when the lexer meets a syntax error first.

    Why a count of our own: graphql-core's ``max_tokens`` answers with a syntax error whose
    only distinguishing mark is its text, and a gate that recognised it by its text missed it
    when the text changed, which let a padded document past every later check.

    >>> count_tokens('{ a b(x: "s") }'), count_tokens("{ a b c }", limit=2), count_tokens('{ "')
    (9, 3, None)
    """
    lexer = Lexer(Source(query))
    count = 0
    try:
        while lexer.advance().kind != TokenKind.EOF:
            count += 1
            if count > limit:
                break
    except GraphQLError:
        return None
    return count


def check_document(query: str, operation_name: str | None) -> None:
    """Bound the document's tokens, and its size after fragment expansion, and require an
    operation name when there are several operations; raise :class:`Refused` otherwise.

    A document that does not lex or parse passes: strawberry reports the syntax error with its
    location (and parses with the same token limit, :func:`api.schema.build_schema`).

    The verdict depends only on the text and the operation name, so it is remembered
    (:func:`document_verdict`): clients send the same few documents with other variables, and
    lexing and parsing each again here cost as much as strawberry's own (cached) parse saved.
    """
    verdict = document_verdict(query, operation_name)
    if verdict is not None:
        raise Refused(*verdict)


# Documents whose verdict is remembered, and the longest one remembered (a longer one is checked
# every time, so hostile texts cannot fill memory: 512 x 64 KB at most).
VERDICT_CACHE_SIZE = 512
MAX_REMEMBERED_CHARS = 64 * 1024


def document_verdict(query: str, operation_name: str | None) -> tuple[str, str] | None:
    """``(message, code)`` of the refusal :func:`check_document` gives ``query``, or ``None``;
    remembered for the last :data:`VERDICT_CACHE_SIZE` documents of at most
    :data:`MAX_REMEMBERED_CHARS` characters.

    >>> document_verdict("{ a b }", None) is None
    True
    >>> document_verdict("query A { a } query B { b }", None)[1]
    'BAD_REQUEST'
    """
    if len(query) > MAX_REMEMBERED_CHARS:
        return _verdict(query, operation_name)
    return remembered_verdict(query, operation_name)


def _verdict(query: str, operation_name: str | None) -> tuple[str, str] | None:
    tokens = count_tokens(query)
    if tokens is None:
        return None
    if tokens > MAX_TOKENS:
        return (f"document has more than {MAX_TOKENS} tokens", "QUERY_TOO_COMPLEX")
    try:
        document = parse(query, max_tokens=MAX_TOKENS)
    except GraphQLError:
        return None
    refusal = document_refusal(document, operation_name)
    return None if refusal is None else (str(refusal), refusal.code)


remembered_verdict = lru_cache(maxsize=VERDICT_CACHE_SIZE)(_verdict)


def document_refusal(document: DocumentNode, operation_name: str | None) -> Refused | None:
    """Why a parsed document is refused (several operations without a name, too many fields or
    fragment spreads after expansion), or ``None``; shared by the HTTP gate and the schema's own
    check (:class:`api.schema.GatedValidationCache`), so every way into execution applies it."""
    operations = [d for d in document.definitions if isinstance(d, OperationDefinitionNode)]
    if len(operations) > 1 and not operation_name:
        return Refused("the document has several operations: say which one with `operationName`")
    fields, spreads = expanded_size(document)
    if spreads > MAX_SPREADS:
        return Refused(
            f"document expands to {spreads} fragment spreads (limit {MAX_SPREADS})", "QUERY_TOO_COMPLEX"
        )
    if fields > MAX_FIELDS:
        return Refused(f"document expands to {fields} fields (limit {MAX_FIELDS})", "QUERY_TOO_COMPLEX")
    pairs = repeated_field_pairs(document)
    if pairs > MAX_REPEATED_PAIRS:
        return Refused(
            f"document repeats fields of one name so often that checking them takes {pairs} "
            f"comparisons (limit {MAX_REPEATED_PAIRS}); ask for each field once",
            "QUERY_TOO_COMPLEX",
        )
    return None


def repeated_field_pairs(document: DocumentNode) -> int:
    """Pairs of same-named fields that validation must compare, summed over the document's
    selection sets (each with its fragments' fields merged in, as graphql-core collects them).

    Why: the "overlapping fields can be merged" rule compares every pair of fields with one
    response name in a selection set; 700 copies of ``stats { nodes { label } }`` (4,900
    tokens, under every other bound) took 3.5 s of validation, blocking the event loop.

    >>> repeated_field_pairs(parse("{ a a b ...F } fragment F on Q { a c { d d } }"))
    4
    """
    fragments = {d.name.value: d for d in document.definitions if isinstance(d, FragmentDefinitionNode)}
    memo: dict[str, Counter[str]] = {}
    visiting: set[str] = set()

    def names(selection_set: SelectionSetNode) -> Counter[str]:
        found: Counter[str] = Counter()
        for sel in selection_set.selections:
            if isinstance(sel, FieldNode):
                found[(sel.alias or sel.name).value] += 1
            elif isinstance(sel, InlineFragmentNode):
                found.update(names(sel.selection_set))
            elif isinstance(sel, FragmentSpreadNode):
                found.update(fragment_names(sel.name.value))
        return found

    def fragment_names(name: str) -> Counter[str]:
        if name in memo:
            return memo[name]
        node = fragments.get(name)
        if node is None or name in visiting:
            return Counter()  # unknown or cyclic: validation reports it
        visiting.add(name)
        memo[name] = names(node.selection_set)
        visiting.discard(name)
        return memo[name]

    total = 0
    stack = [
        d.selection_set
        for d in document.definitions
        if isinstance(d, OperationDefinitionNode | FragmentDefinitionNode)
    ]
    while stack and total <= MAX_REPEATED_PAIRS:
        selection_set = stack.pop()
        total += sum(k * (k - 1) // 2 for k in names(selection_set).values())
        for sel in selection_set.selections:
            if isinstance(sel, FieldNode | InlineFragmentNode) and sel.selection_set is not None:
                stack.append(sel.selection_set)
    return total


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


# Media types a POST may carry: JSON (the GraphQL-over-HTTP request) or a bare document.
JSON_MEDIA_TYPE = "application/json"
GRAPHQL_MEDIA_TYPE = "application/graphql"
# Query-string parameters strawberry reads from a GET; each may appear once.
GET_PARAMETERS = ("query", "variables", "operationName", "extensions")
_TOKEN = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")
_PARAMETER = re.compile(
    r'\s*;\s*([!#$%&\'*+.^_`|~0-9A-Za-z-]+)=("(?:[^"\\]|\\.)*"|[!#$%&\'*+.^_`|~0-9A-Za-z-]+)'
)


def media_type(header: str) -> tuple[str, dict[str, str]] | None:
    """``(type/subtype, parameters)`` of a ``Content-Type`` value (RFC 9110 section 8.3.1), lower
    case, or ``None`` when it is not exactly one media type.

    Why a parser: the server reads a JSON body whenever ``application/json`` appears anywhere
    in the header, so ``xapplication/json`` or ``application/json, text/plain`` reached it
    while a gate comparing the text before ``;`` let them through unchecked.

    >>> media_type('Application/JSON; charset="utf-8"')
    ('application/json', {'charset': 'utf-8'})
    >>> media_type("xapplication/json"), media_type("application/json, text/plain")
    (('xapplication/json', {}), None)
    """
    text = header.strip()
    kind, slash, rest = text.partition("/")
    if not slash or not _TOKEN.fullmatch(kind):
        return None
    sub = _TOKEN.match(rest)
    if sub is None:
        return None
    params: dict[str, str] = {}
    tail = rest[sub.end() :]
    while tail.strip():
        param = _PARAMETER.match(tail)
        if param is None:
            return None
        value = param.group(2)
        if value.startswith('"'):
            value = re.sub(r"\\(.)", r"\1", value[1:-1])
        params[param.group(1).lower()] = value
        tail = tail[param.end() :]
    return f"{kind}/{sub.group()}".lower(), params


def query_parameters(query_string: bytes) -> dict[str, str]:
    """The GraphQL parameters of a query string, decoded as the server decodes them; a repeated
    one is :class:`Refused` (the gate would check one copy and the server run another)."""
    pairs = parse_qsl(query_string.decode("latin-1"), keep_blank_values=True)
    found: dict[str, str] = {}
    for name, value in pairs:
        if name not in GET_PARAMETERS:
            continue
        if name in found:
            raise Refused(f"the query string gives `{name}` more than once")
        found[name] = value
    return found


def check_get(query_string: bytes) -> None:
    """Check the document and variables a GET carries in its query string."""
    params = query_parameters(query_string)
    variables = params.get("variables")
    if variables and nested_deeper_than(variables, MAX_JSON_DEPTH):
        raise Refused(f"`variables` nested deeper than {MAX_JSON_DEPTH} levels")
    query = params.get("query")
    if query is not None:
        check_document(query, params.get("operationName"))


def post_body(content_type: str | None, body: bytes) -> bytes:
    """The JSON body the server gets for a POST, checked; a bare GraphQL document
    (``application/graphql``) becomes ``{"query": ...}``. Anything else is 415."""
    parsed = media_type(content_type) if content_type is not None else None
    if parsed is None or parsed[0] not in (JSON_MEDIA_TYPE, GRAPHQL_MEDIA_TYPE):
        shown = "none" if content_type is None else repr(content_type[:80])
        raise Refused(
            f"unsupported Content-Type {shown}: send {JSON_MEDIA_TYPE} (or {GRAPHQL_MEDIA_TYPE})",
            "UNSUPPORTED_MEDIA_TYPE",
            415,
        )
    kind, params = parsed
    if params.get("charset", "utf-8").lower() not in ("utf-8", "utf8"):
        raise Refused(f"unsupported charset {params['charset']!r}: send UTF-8", "UNSUPPORTED_MEDIA_TYPE", 415)
    if len(body) > MAX_BODY_BYTES:
        raise Refused(f"request body over {MAX_BODY_BYTES} bytes", "REQUEST_TOO_LARGE", 413)
    if kind == GRAPHQL_MEDIA_TYPE:
        try:
            document = body.decode("utf-8")
        except UnicodeDecodeError as e:
            raise Refused(f"request body is not UTF-8 (byte {e.start})") from e
        check_document(document, None)
        return json.dumps({"query": document}).encode()
    data = decode_body(body)
    check_document(data["query"], data.get("operationName"))
    return body


class RequestGuardMiddleware:
    """Pure ASGI gate in front of every route (see the module docstring).

    It checks every request, whatever its path: a path test could be walked around (a proxy
    prefix, a second mount), and no other route of the app reads a body or a ``query``
    parameter, so they lose nothing. GraphQL parameters in a query string are checked on every
    method; a POST body must be JSON or a GraphQL document and pass :func:`post_body`.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket":
            # No GraphQL over WebSocket (the schema has no subscriptions): the handshake is
            # refused here, so a socket is never a way into execution around this gate.
            await send({"type": "websocket.close", "code": 1008, "reason": "no WebSocket service"})
            return
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        try:
            check_get(scope.get("query_string", b""))
            if scope["method"] != "POST":
                await self.app(scope, receive, send)
                return
            headers: list[tuple[bytes, bytes]] = list(scope["headers"])
            declared = [v for k, v in headers if k == b"content-length"]
            if declared and declared[0].isdigit() and int(declared[0]) > MAX_BODY_BYTES:
                raise Refused(f"request body over {MAX_BODY_BYTES} bytes", "REQUEST_TOO_LARGE", 413)
            types = [v.decode("latin-1") for k, v in headers if k == b"content-type"]
            content_type = ", ".join(types) if types else None  # two headers are a list: refused
            body = await _read_body(receive, MAX_BODY_BYTES)
            if body is None:
                return
            forwarded = post_body(content_type, body)
        except Refused as e:
            await _respond(send, e.status, error_body(str(e), e.code))
            return
        # The server gets the media type as the gate understood it (strawberry matches the
        # header's text case-sensitively), and the body the gate checked.
        rest = [(k, v) for k, v in headers if k not in (b"content-type", b"content-length")]
        rest += [
            (b"content-type", JSON_MEDIA_TYPE.encode()),
            (b"content-length", str(len(forwarded)).encode()),
        ]
        await self.app(dict(scope, headers=rest), replaying(forwarded, receive), send)


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
    """The body, or :class:`Refused` (413) as soon as it passes ``limit`` bytes (the rest is
    never read nor kept), or ``None`` when the client went away."""
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] != "http.request":
            return None
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > limit:
            raise Refused(f"request body over {limit} bytes", "REQUEST_TOO_LARGE", 413)
        chunks.append(chunk)
        if not message.get("more_body", False):
            return b"".join(chunks)


async def _respond(send: Send, status: int, body: bytes) -> None:
    headers: Iterable[tuple[bytes, bytes]] = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
    ]
    await send({"type": "http.response.start", "status": status, "headers": list(headers)})
    await send({"type": "http.response.body", "body": body})
