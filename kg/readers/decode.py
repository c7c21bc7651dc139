"""Bytes to text without losing good lines: BOM detection, per-line UTF-8, one NUL rule.

- A UTF-8/16/32 byte-order mark picks the codec; BOM-less UTF-16 (every other byte NUL) is
  recognised too, so a spreadsheet's "Unicode text" export is read, not called binary.
- Otherwise the text is UTF-8, decoded line by line: a line with undecodable bytes keeps its
  readable part (bytes replaced by U+FFFD) and is reported, instead of the whole file failing.
- Lines that are not UTF-8 but another encoding (GBK, Big5, KOI8-R, Shift-JIS, ...) are
  decoded in it when there is enough evidence: the encoding is detected over all such lines of
  the file (:mod:`charset_normalizer`), and a line is decoded in it only when it has no valid
  UTF-8 sequence of its own and the result is plausible text (no C1 controls, no word mixing
  Latin and Cyrillic letters). Otherwise the bytes become U+FFFD, as before.
- A UTF-16 file whose tail is UTF-8 (two exports concatenated) is read in both parts.
- NUL characters are removed wherever they are (first byte or the last) and each affected line
  is reported; JSON and CSV readers therefore never see one. A byte-order mark inside the text
  (a second file's, after concatenation) is removed and reported too.
- A file whose lines end in lone CRs only (classic Mac) gets ``\n`` line ends, so JSONL and
  listings split into lines.
- A file is *binary* (refused as a whole) when it starts with a known file signature or when
  more than 10% of it is control or undecodable bytes: then no line is text worth reading.
"""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass, field

from charset_normalizer import from_bytes

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
    (b"BZh", "bzip2 archive"),
    (b"\xfd7zXZ\x00", "xz archive"),
    (b"\x28\xb5\x2f\xfd", "zstd archive"),
    (b"7z\xbc\xaf\x27\x1c", "7z archive"),
)
# zlib stream headers (CMF 0x78, FLG making the pair a multiple of 31); "x^" is left out, as
# a text may well start with it.
_ZLIB_HEADERS = (b"\x78\x01", b"\x78\x9c", b"\x78\xda")
_UTF8_SEQUENCE = re.compile(rb"[\xc2-\xdf][\x80-\xbf]|[\xe0-\xef][\x80-\xbf]{2}|[\xf0-\xf4][\x80-\xbf]{3}")
_HIGH_BYTE = re.compile(rb"[\x80-\xff]")
_WORD = re.compile(r"\w+")
_LATIN = re.compile(r"[A-Za-z\u00c0-\u024f]")
_CYRILLIC = re.compile(r"[\u0400-\u04ff]")
_C1_OR_PRIVATE = re.compile(r"[\x80-\x9f\ue000-\uf8ff\ufffd]")
MIN_LEGACY_EVIDENCE = 8  # high bytes outside UTF-8 sequences before another encoding is tried
LEGACY_SAMPLE_BYTES = 65536
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
    sample = sample[: sample.rfind(b"\x00") + 2]  # the UTF-16 part, when UTF-8 follows
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
    raw_lines = data.split(b"\n")
    legacy = _legacy_encoding([raw for raw in raw_lines if not _is_utf8(raw)])
    reports = _LineReports(file, "invalid UTF-8")
    lines: list[str] = []
    for number, raw in enumerate(raw_lines, start=1):
        try:
            lines.append(raw.decode("utf-8"))
            continue
        except UnicodeDecodeError as e:
            error = e
        text = _as_legacy(raw, legacy) if legacy is not None else None
        if text is not None:
            lines.append(text)
            reports.add(number, f"invalid UTF-8: the line is {legacy} (detected), decoded as such")
            continue
        lines.append(raw.decode("utf-8", errors="replace"))
        reports.add(
            number,
            f"invalid UTF-8 (byte 0x{raw[error.start]:02x} at column {error.start + 1}) replaced by U+FFFD",
        )
    return "\n".join(lines), reports.done()


def _is_utf8(raw: bytes) -> bool:
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _legacy_encoding(bad_lines: list[bytes]) -> str | None:
    """The encoding of a file's non-UTF-8 lines, detected over all of them together (a single
    short line says too little), or ``None`` without enough evidence or a confident guess."""
    sample = b"\n".join(bad_lines)[:LEGACY_SAMPLE_BYTES]
    foreign = len(_HIGH_BYTE.findall(sample)) - sum(len(m) for m in _UTF8_SEQUENCE.findall(sample))
    if foreign < MIN_LEGACY_EVIDENCE:
        return None
    best = from_bytes(sample).best()
    if best is None or best.encoding in ("utf_8", "ascii"):
        return None
    return str(best.encoding)


def _as_legacy(raw: bytes, encoding: str) -> str | None:
    """``raw`` decoded in ``encoding`` when that is what it is: at least a quarter of its high
    bytes outside UTF-8 sequences (else it is UTF-8 with a stray byte; GBK and Big5 text forms
    some valid UTF-8 pairs by chance), a strict decoding, and plausible text."""
    high = len(_HIGH_BYTE.findall(raw))
    foreign = high - sum(len(m) for m in _UTF8_SEQUENCE.findall(raw))
    if foreign < 1 or foreign * 4 < high:
        return None
    try:
        text = raw.decode(encoding)
    except (UnicodeDecodeError, LookupError):
        return None
    return text if plausible(text) else None


def plausible(text: str) -> bool:
    """Whether decoded text looks like what a person wrote: no C1 control, private-use or
    replacement character, and no word that mixes Latin and Cyrillic letters (Latin-1 "Gödel"
    read as KOI8-R is "GЖdel").

    >>> plausible("Иван Петров"), plausible("GЖdel"), plausible("Gödel")
    (True, False, True)
    """
    if _C1_OR_PRIVATE.search(text):
        return False
    for word in _WORD.findall(text):
        if _LATIN.search(word) and _CYRILLIC.search(word):
            return False
    return True


def _utf16_then_utf8(body: bytes, encoding: str) -> int | None:
    """Offset where a UTF-16 ``body`` continues as UTF-8 text (two exports concatenated), or
    ``None``. The UTF-16 part ends after its last NUL byte (ASCII in UTF-16 is half NULs); what
    follows must decode as UTF-8, hold a line end and be mostly ASCII text."""
    last_nul = body.rfind(b"\x00")
    if last_nul < 0:
        return None
    cut = last_nul + 1 if encoding.endswith("le") else last_nul + 2
    if cut % 2:
        return None
    tail = body[cut:]
    if len(tail) < 16 or b"\n" not in tail:
        return None
    try:
        text = tail.decode("utf-8")
    except UnicodeDecodeError:
        return None
    ascii_text = sum(1 for c in text if c.isascii() and (c.isprintable() or c in "\n\r\t"))
    return cut if ascii_text >= 0.6 * len(text) else None


def _decode_replacing(body: bytes, encoding: str, file: str, offset: int, problems: list[ReadProblem]) -> str:
    """``body`` decoded; bytes invalid in ``encoding`` become U+FFFD and one problem says where.

    ``offset`` is where ``body`` starts in the file (after a BOM), so the byte offset reported is
    the file's own.
    """
    try:
        return body.decode(encoding)
    except UnicodeDecodeError as e:
        where = f"invalid {encoding} at byte offset {e.start + offset:,}"
        problems.append(ReadProblem(file, None, f"{where} replaced by U+FFFD", "repaired"))
        return body.decode(encoding, errors="replace")


def _decode_utf16(body: bytes, encoding: str, file: str, offset: int) -> tuple[str, list[ReadProblem]]:
    problems: list[ReadProblem] = []
    cut = _utf16_then_utf8(body, encoding)
    head, tail = (body, b"") if cut is None else (body[:cut], body[cut:])
    text = _decode_replacing(head, encoding, file, offset, problems)
    if tail:
        line = text.count("\n") + 1
        problems.append(
            ReadProblem(file, line, f"the file continues in UTF-8 from here ({encoding} before)", "repaired")
        )
        rest, rest_problems = _utf8_by_line(tail, file)
        text += rest
        problems += rest_problems
    return text, problems


def _inner_boms(text: str, file: str) -> tuple[str, list[ReadProblem]]:
    reports = _LineReports(file, "a byte-order mark")
    for number, line in enumerate(text.split("\n"), start=1):
        if "\ufeff" in line:
            reports.add(number, "byte-order mark inside the file removed")
    return text.replace("\ufeff", ""), reports.done()


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
    if data[:2] in _ZLIB_HEADERS:
        return "zlib stream"
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
        elif encoding.startswith("utf-16"):
            text, problems = _decode_utf16(body, encoding, file, len(bom))
        else:
            text = _decode_replacing(body, encoding, file, len(bom), problems)
    elif (utf16 := _bom_less_utf16(data)) is not None:
        encoding = utf16
        text, problems = _decode_utf16(data, utf16, file, 0)
    else:
        encoding = "utf-8"
        reason = _binary_reason(data, "")  # a known signature: no encoding is tried on it
        if reason is not None:
            return Decoded(
                None, encoding, [ReadProblem(file, None, f"binary file ({reason}), not a listing")]
            )
        text, problems = _utf8_by_line(data, file)
    reason = _binary_reason(data, text)
    if reason is not None:
        return Decoded(None, encoding, [ReadProblem(file, None, f"binary file ({reason}), not a listing")])
    if "\x00" in text:
        text, nul_problems = _strip_nul(text, file)
        problems += nul_problems
    if "\ufeff" in text[1:]:
        head, (text, bom_problems) = text[:1], _inner_boms(text[1:], file)
        text = head + text
        problems += bom_problems
    if "\r" in text and "\n" not in text:
        text = text.replace("\r", "\n")
        problems.append(ReadProblem(file, None, "lines end in lone CRs: read as line ends", "repaired"))
    return Decoded(text, encoding, problems)
