"""Bytes to text without losing good lines: BOM detection, per-line UTF-8, one NUL rule.

- A UTF-8/16/32 byte-order mark picks the codec; BOM-less UTF-16 (every other byte NUL) is
  recognised too, so a spreadsheet's "Unicode text" export is read, not called binary.
- Otherwise the text is UTF-8, decoded line by line: a line with undecodable bytes keeps its
  readable part (bytes replaced by U+FFFD) and is reported, instead of the whole file failing.
- NUL characters are removed wherever they are (first byte or the last) and each affected line
  is reported; JSON and CSV readers therefore never see one.
- A file is *binary* (refused as a whole) when it starts with a known file signature or when
  more than 10% of it is control or undecodable bytes: then no line is text worth reading.
"""

from __future__ import annotations

import codecs
from dataclasses import dataclass, field

from kg.readers.problems import ReadProblem

_BOMS: tuple[tuple[bytes, str], ...] = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),  # before UTF-16 LE: it starts with the same two bytes
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)
_SIGNATURES: tuple[tuple[bytes, str], ...] = (
    (b"\x89PNG", "PNG image"),
    (b"%PDF-", "PDF document"),
    (b"PK\x03\x04", "ZIP archive"),
    (b"\x1f\x8b", "gzip archive"),
    (b"\x7fELF", "executable"),
    (b"GIF8", "GIF image"),
    (b"\xff\xd8\xff", "JPEG image"),
)
_TEXT_CONTROLS = frozenset("\t\n\r\f\v\x1b")
MAX_REPORTED_LINES = 20  # per file and kind of repair; the rest are counted in one line


@dataclass
class Decoded:
    """The text of a file (``None`` when it is binary) and what decoding had to repair."""

    text: str | None
    encoding: str
    problems: list[ReadProblem] = field(default_factory=list)


class _LineReports:
    """Per-line repair reports, capped so a file full of bad bytes gives a readable report."""

    def __init__(self, file: str, what: str) -> None:
        self.file, self.what = file, what
        self.problems: list[ReadProblem] = []
        self.extra = 0

    def add(self, line: int, reason: str) -> None:
        if len(self.problems) < MAX_REPORTED_LINES:
            self.problems.append(ReadProblem(self.file, line, reason, "repaired"))
        else:
            self.extra += 1

    def done(self) -> list[ReadProblem]:
        if self.extra:
            more = f"... and {self.extra:,} more line(s) with {self.what}"
            self.problems.append(ReadProblem(self.file, None, more, "repaired"))
        return self.problems


def _bom_less_utf16(data: bytes) -> str | None:
    sample = data[:4096]
    if len(sample) < 4 or sample.count(0) < len(sample) // 3:
        return None
    even = sample[0::2].count(0)
    odd = sample[1::2].count(0)
    if odd > 0.9 * (len(sample) // 2) and even < 0.1 * (len(sample) // 2):
        return "utf-16-le"
    if even > 0.9 * (len(sample) // 2) and odd < 0.1 * (len(sample) // 2):
        return "utf-16-be"
    return None


def _utf8_by_line(data: bytes, file: str) -> tuple[str, list[ReadProblem]]:
    try:
        return data.decode("utf-8"), []
    except UnicodeDecodeError:
        pass
    reports = _LineReports(file, "invalid UTF-8")
    lines: list[str] = []
    for number, raw in enumerate(data.split(b"\n"), start=1):
        try:
            lines.append(raw.decode("utf-8"))
        except UnicodeDecodeError as e:
            lines.append(raw.decode("utf-8", errors="replace"))
            reports.add(
                number,
                f"invalid UTF-8 (byte 0x{raw[e.start]:02x} at column {e.start + 1}) replaced by U+FFFD",
            )
    return "\n".join(lines), reports.done()


def _strip_nul(text: str, file: str) -> tuple[str, list[ReadProblem]]:
    reports = _LineReports(file, "NUL characters")
    start = 0
    line = 1
    while (i := text.find("\x00", start)) != -1:
        line += text.count("\n", start, i)
        end = text.find("\n", i)
        end = len(text) if end == -1 else end
        reports.add(line, f"{text.count(chr(0), i, end):,} NUL character(s) removed")
        start = end
    return text.replace("\x00", ""), reports.done()


def _binary_reason(data: bytes, text: str) -> str | None:
    for signature, kind in _SIGNATURES:
        if data.startswith(signature):
            return kind
    sample = text[:65536] + text[-65536:] if len(text) > 131072 else text
    bad = sum(1 for c in sample if (c < " " and c not in _TEXT_CONTROLS) or c in "\ufffd\x7f")
    if bad >= 8 and bad > len(sample) // 10:
        return "contains NUL bytes" if "\x00" in sample else "mostly control or undecodable bytes"
    return None


def decode(data: bytes, file: str) -> Decoded:
    """Text of ``data`` plus the repairs made; ``text`` is ``None`` for a binary file."""
    encoding = next((enc for bom, enc in _BOMS if data.startswith(bom)), None)
    problems: list[ReadProblem] = []
    if encoding is not None:
        bom = next(b for b, enc in _BOMS if enc == encoding and data.startswith(b))
        body = data[len(bom) :]
        if encoding == "utf-8":
            text, problems = _utf8_by_line(body, file)
        else:
            try:
                text = body.decode(encoding)
            except UnicodeDecodeError as e:
                text = body.decode(encoding, errors="replace")
                where = f"invalid {encoding} at byte offset {e.start + len(bom):,}"
                problems.append(ReadProblem(file, None, f"{where} replaced by U+FFFD", "repaired"))
    elif (utf16 := _bom_less_utf16(data)) is not None:
        encoding, text = utf16, data.decode(utf16, errors="replace")
    else:
        encoding = "utf-8"
        text, problems = _utf8_by_line(data, file)
    reason = _binary_reason(data, text)
    if reason is not None:
        return Decoded(None, encoding, [ReadProblem(file, None, f"binary file ({reason}), not a listing")])
    if "\x00" in text:
        text, nul_problems = _strip_nul(text, file)
        problems += nul_problems
    return Decoded(text, encoding, problems)
