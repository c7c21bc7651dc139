"""JSON and JSONL read record by record, with bounded nesting and integer size.

- A JSON array is decoded one member at a time (``raw_decode``), so a malformed member costs
  only itself: the reader reports it and resynchronises at the next member.
- A wrapper object (``{"papers": [...]}``) is found by parsing its keys with the JSON string
  decoder, so an escaped key (``"pap\\u0065rs"``) is the same key.
- Records deeper than :data:`~kg.readers.limits.MAX_JSON_DEPTH` are refused by name; Python's
  recursive decoder never gets to raise ``RecursionError`` through to the user.
- Integers longer than :data:`~kg.readers.limits.MAX_INT_DIGITS` stay digit strings, so a
  5,000-digit number is just an invalid value, not a ``ValueError`` from ``int()``.
- JSONL is split on ``\\n`` only: U+2028, U+2029 and U+0085 are legal inside JSON strings and
  must neither break a record nor shift the line numbers of provenance.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from typing import Any

from kg.readers.limits import MAX_INT_DIGITS, MAX_JSON_DEPTH, MAX_RECORD_CHARS, over

# Wrapper keys that hold the record list, compared case-insensitively.
RECORD_LIST_KEYS = ("papers", "notes", "data", "results", "items", "records")
_WS = " \t\r\n"
_STRUCT = re.compile(r'["\[\]{}]')
_IN_STRING = re.compile(r'["\\]')
_SCALAR_END = re.compile(r"[,\]}\s]")
_NEXT_MEMBER = re.compile(r"[,\[]\s*\{")


class TooDeep(ValueError):
    """A JSON value nested deeper than :data:`MAX_JSON_DEPTH`."""


def _bounded_int(digits: str) -> int | str:
    return int(digits) if len(digits.lstrip("-")) <= MAX_INT_DIGITS else digits


DECODER = json.JSONDecoder(strict=False, parse_int=_bounded_int)


def skip_value(text: str, pos: int) -> int:
    """End of the JSON value starting at ``pos`` (string-aware, iterative, never decodes).

    Unbalanced input ends at the first mismatched bracket or at the end of the text.

    >>> skip_value('{"a": "}", "b": [1, {}]}, 3', 0)
    24
    """
    n = len(text)
    if pos >= n:
        return n
    if text[pos] not in '"[{':
        m = _SCALAR_END.search(text, pos)
        return m.start() if m else n
    stack: list[str] = []
    i = pos
    while i < n:
        if text[i] == '"':
            i += 1
            while True:
                m = _IN_STRING.search(text, i)
                if m is None:
                    return n
                if m.group() == "\\":
                    i = m.end() + 1
                    continue
                i = m.end()
                break
            if not stack:
                return i
            continue
        m = _STRUCT.search(text, i)
        if m is None:
            return n
        c, i = m.group(), m.start()
        if c == '"':
            continue
        i += 1
        if c in "[{":
            stack.append("]" if c == "[" else "}")
        elif not stack or stack.pop() != c:
            return i - 1 if not stack else i
        elif not stack:
            return i
    return n


def depth(value: Any) -> int:
    """Nesting depth of a decoded value, iteratively (a scalar is 0, ``[]`` is 1)."""
    best = 0
    todo: list[tuple[Any, int]] = [(value, 0)]
    while todo:
        v, d = todo.pop()
        if isinstance(v, dict):
            v = list(v.values())
        if isinstance(v, list):
            best = max(best, d + 1)
            if d + 1 > MAX_JSON_DEPTH:
                return d + 1
            todo.extend((x, d + 1) for x in v)
    return best


def decode_at(text: str, pos: int) -> tuple[Any, int]:
    """One JSON value at ``pos``: ``(value, end)``; raises ``JSONDecodeError`` or :class:`TooDeep`."""
    try:
        value, end = DECODER.raw_decode(text, pos)
    except RecursionError:
        raise TooDeep(f"nested deeper than {MAX_JSON_DEPTH} levels") from None
    if depth(value) > MAX_JSON_DEPTH:
        raise TooDeep(f"nested deeper than {MAX_JSON_DEPTH} levels")
    return value, end


def _skip_ws(text: str, pos: int) -> int:
    n = len(text)
    while pos < n and text[pos] in _WS:
        pos += 1
    return pos


class _Lines:
    """Line number of a position, counted incrementally (positions only move forward)."""

    def __init__(self, text: str) -> None:
        self.text, self.pos, self.line = text, 0, 1

    def at(self, pos: int) -> int:
        if pos < self.pos:
            return self.text.count("\n", 0, pos) + 1
        self.line += self.text.count("\n", self.pos, pos)
        self.pos = pos
        return self.line


# What the JSON readers yield: (decoded record, line, label) or (None, line, reason).
Item = tuple[Any, int, str]


def iter_array(
    text: str, pos: int, lines: _Lines, top_level: bool = True
) -> Iterator[tuple[bool, Any, int, str]]:
    """Members of the array at ``pos``: ``(ok, value_or_reason, line, label)``.

    In a top-level array, a ``]`` followed by more members is a stray bracket: reported, and
    the members after it are still read.
    """
    n = len(text)
    pos += 1
    index = 0
    while True:
        pos = _skip_ws(text, pos)
        while pos < n and text[pos] == ",":
            pos = _skip_ws(text, pos + 1)
        if pos >= n:
            yield False, "unterminated JSON array (no closing ']')", lines.at(n), ""
            return
        if text[pos] == "]":
            after = _skip_ws(text, pos + 1)
            if not top_level or after >= n:
                return
            if text[after] == ",":
                yield False, "stray ']' inside the array; reading on", lines.at(pos), ""
                pos = after
                continue
            yield False, "extra data after the JSON array", lines.at(after), ""
            return
        index += 1
        line, label = lines.at(pos), f"record {index}: "
        try:
            value, end = decode_at(text, pos)
        except TooDeep as e:
            yield False, f"{label}{e}", line, label
            pos = skip_value(text, pos)
            continue
        except json.JSONDecodeError as e:
            yield False, f"{label}malformed JSON: {e.msg} (line {e.lineno} column {e.colno})", line, label
            resume = e.pos if e.pos > pos and e.pos < n and text[e.pos] == "{" else None
            if resume is None:
                m = _NEXT_MEMBER.search(text, max(e.pos, pos + 1))
                if m is None:
                    return
                resume = m.end() - 1
            pos = resume
            continue
        if end - pos > MAX_RECORD_CHARS:
            yield False, f"{label}{over('record', end - pos, MAX_RECORD_CHARS)}", line, label
        else:
            yield True, value, line, label
        pos = end


def _value_or_problem(
    text: str, pos: int, malformed: Callable[[json.JSONDecodeError], str]
) -> tuple[Any, int] | str:
    """:func:`decode_at`, or the problem as a message: a record too deep, or ``malformed(error)``.

    Why a message and not an exception: every caller reports a bad record and goes on with the
    next one, so the record's problem is a value like the record.
    """
    try:
        return decode_at(text, pos)
    except TooDeep as e:
        return str(e)
    except json.JSONDecodeError as e:
        return malformed(e)


def iter_json(text: str) -> Iterator[tuple[bool, Any, int, str]]:
    """Records of a JSON document: an array, a wrapper object holding one, or one record."""
    lines = _Lines(text)
    start = _skip_ws(text, 0)
    if start < len(text) and text[start] == "[":
        yield from iter_array(text, start, lines)
        return
    wrapper = _find_wrapper(text, start)
    if wrapper is not None:
        yield from iter_array(text, wrapper, lines, top_level=False)
        return
    line = lines.at(start)
    got = _value_or_problem(
        text, start, lambda e: f"malformed JSON: {e.msg} (line {e.lineno} column {e.colno})"
    )
    if isinstance(got, str):
        yield False, got, line, ""
        return
    value, end = got
    if end - start > MAX_RECORD_CHARS:
        yield False, over("record", end - start, MAX_RECORD_CHARS), line, ""
        return
    yield True, value, line, ""
    rest = _skip_ws(text, end)
    if rest < len(text):
        yield False, "extra data after the JSON value", lines.at(rest), ""


def _find_wrapper(text: str, pos: int) -> int | None:
    """Position of the record array in ``{"papers": [...]}``, keys decoded, not text-matched."""
    n = len(text)
    if pos >= n or text[pos] != "{":
        return None
    pos += 1
    for _ in range(10_000):
        pos = _skip_ws(text, pos)
        if pos >= n or text[pos] != '"':
            return None
        try:
            key, pos = DECODER.raw_decode(text, pos)  # a JSON string: escapes decoded
        except json.JSONDecodeError:
            return None
        if not isinstance(key, str):
            return None
        pos = _skip_ws(text, pos)
        if pos >= n or text[pos] != ":":
            return None
        pos = _skip_ws(text, pos + 1)
        if key.lower() in RECORD_LIST_KEYS and pos < n and text[pos] == "[":
            return pos
        pos = _skip_ws(text, skip_value(text, pos))
        if pos >= n or text[pos] != ",":
            return None
        pos += 1
    return None


def looks_like_jsonl(text: str) -> bool:
    """True when ``text`` holds several top-level JSON values (or broken lines) rather than one."""
    start = _skip_ws(text, 0)
    first_line_end = text.find("\n", start)
    first_line = text[start:] if first_line_end == -1 else text[start:first_line_end]
    end = skip_value(text, start)
    if end < len(text):
        return _skip_ws(text, end) < len(text)
    # unterminated first value: JSONL with a broken first line if other lines start records
    starts = sum(1 for line in text.split("\n")[1:50] if line.startswith("{"))
    return starts > 0 and first_line.rstrip().endswith(("}", ",", '"'))


def iter_jsonl(text: str) -> Iterator[tuple[bool, Any, int, str]]:
    """One JSON value per ``\\n``-separated line."""
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        if len(line) > MAX_RECORD_CHARS:
            yield False, over("line", len(line), MAX_RECORD_CHARS), number, ""
            continue
        got = _value_or_problem(
            line, _skip_ws(line, 0), lambda e: f"malformed JSON line: {e.msg} (column {e.colno})"
        )
        if isinstance(got, str):
            yield False, got, number, ""
            continue
        value, end = got
        if _skip_ws(line, end) < len(line):
            yield False, f"malformed JSON line: extra data (column {end + 1})", number, ""
            continue
        yield True, value, number, ""
