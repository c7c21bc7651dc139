"""Choose a reader by content, walk folders, and read one file without ever raising."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from kg.core.models import RawPaper
from kg.readers.decode import decode
from kg.readers.jsonscan import looks_like_jsonl
from kg.readers.limits import over
from kg.readers.listing import is_abstract_line, read_listing
from kg.readers.paperlists import venue_from_file_name
from kg.readers.problems import ReadProblem
from kg.readers.structured import FIELD_NAMES, read_csv, read_json, read_jsonl

LISTING_SUFFIXES = frozenset({".txt", ".md", ".json", ".jsonl", ".ndjson", ".csv", ".tsv", ""})
MAX_FILE_BYTES = 2 * 1024**3  # one file is read into memory whole


@dataclass
class ReadResult:
    """Papers and problems from one file, plus the format it was read as."""

    file: str
    format: str
    papers: list[RawPaper] = field(default_factory=list)
    problems: list[ReadProblem] = field(default_factory=list)


def iter_input_files(paths: list[Path]) -> Iterator[Path | ReadProblem]:
    """Files named directly, and listing-like files under folders (sorted, hidden ones skipped).

    Under a folder only regular files are taken (``is_file`` is false for FIFOs and devices);
    a non-regular file named directly is refused by :func:`read_file`.
    """
    for path in paths:
        shown = printable_name(path)
        if shown is not None:
            yield ReadProblem(shown, None, NOT_UTF8_NAME)
            continue
        try:
            exists, is_dir = path.exists(), path.is_dir()
        except OSError as e:
            yield ReadProblem(str(path), None, f"cannot read path: {e.strerror or e}")
            continue
        if not exists:
            yield ReadProblem(str(path), None, "no such file or directory")
        elif is_dir:
            found = False
            try:
                children = sorted(path.rglob("*"))
            except OSError as e:
                yield ReadProblem(str(path), None, f"cannot list folder: {e.strerror or e}")
                continue
            root = path.resolve()
            for child in children:
                rel = child.relative_to(path)
                if any(part.startswith(".") for part in rel.parts) or not child.is_file():
                    continue
                if child.suffix.lower() in LISTING_SUFFIXES:
                    found = True
                    outside = _outside(child, root)
                    if outside is not None:
                        yield outside
                        continue
                    shown = printable_name(child)
                    yield child if shown is None else ReadProblem(shown, None, NOT_UTF8_NAME)
            if not found:
                yield ReadProblem(str(path), None, "folder holds no listing files")
        else:
            yield path


def _outside(child: Path, root: Path) -> ReadProblem | None:
    """A problem when ``child`` (found under the folder ``root``) is, or lies under, a symbolic
    link leading outside ``root``; ``None`` when it is really inside.

    Why: a listing folder is data someone handed over; a link in it to ``/etc/passwd`` or
    ``/proc/self/environ`` made ``kg ingest`` read and parse that file. A path named on the
    command line is read wherever it leads: the user chose it.
    """
    try:
        real = child.resolve()
    except (OSError, RuntimeError) as e:  # a link loop
        return ReadProblem(printable_name(child) or str(child), None, f"cannot resolve symbolic link: {e}")
    if real.is_relative_to(root):
        return None
    shown = printable_name(child) or str(child)
    target = printable_name(real) or str(real)
    return ReadProblem(
        shown, None, f"symbolic link to {target}, outside the folder given: not read (name it to read it)"
    )


NOT_UTF8_NAME = "file name is not valid UTF-8, not read (rename it, e.g. with convmv)"


def printable_name(path: Path) -> str | None:
    """``None`` for a path that is valid UTF-8, else its name with the undecodable bytes shown
    as ``\\xNN``. Why: Python carries such bytes as lone surrogates, which neither a terminal
    nor the store's UTF-8 encoder accepts, so one such name aborted the whole ingest.

    >>> printable_name(Path("ok.json")), printable_name(Path("caf\\udce9.json"))
    (None, 'caf\\\\xe9.json')
    """
    name = str(path)
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return os.fsencode(name).decode("utf-8", errors="backslashreplace")
    return None


def detect_format(text: str, suffix: str = "") -> str:
    """``json``, ``jsonl``, ``csv`` or ``listing``, from the text; the suffix only breaks ties.

    A header row naming known fields is CSV whatever the extension; a ``.csv``/``.tsv`` file
    whose header names none is still read as CSV, so its reader can say which columns are
    missing instead of calling it an unknown format.
    """
    stripped = text.lstrip()
    first_line = stripped.split("\n", 1)[0].split("\r", 1)[0].strip()
    if stripped.startswith("["):
        return "json"
    if stripped.startswith("{"):
        return "jsonl" if looks_like_jsonl(stripped) else "json"
    header = first_line.lower()
    cells = {c.strip().strip('"') for c in header.replace("\t", ",").split(",")}
    names = set(FIELD_NAMES["title"]) | set(FIELD_NAMES["abstract"]) | set(FIELD_NAMES["authors"])
    if len(cells) > 1 and (cells & names or suffix.lower() in (".csv", ".tsv")):
        return "csv"
    return "listing"


def _read_bytes(path: Path, name: str) -> bytes | ReadProblem:
    """The file's bytes, or why not; a FIFO or device is refused without opening it."""
    try:
        st = os.stat(path)
    except OSError as e:
        return ReadProblem(name, None, f"cannot read file: {e.strerror or e}")
    if not stat.S_ISREG(st.st_mode):
        kind = "a FIFO" if stat.S_ISFIFO(st.st_mode) else "a device or socket"
        return ReadProblem(name, None, f"not a regular file ({kind}), not read")
    if st.st_size > MAX_FILE_BYTES:
        return ReadProblem(name, None, over("file", st.st_size, MAX_FILE_BYTES, "bytes"))
    try:
        # O_NONBLOCK: if the path was swapped for a FIFO after the check, open() must not hang.
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        with os.fdopen(fd, "rb") as f:
            if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
                return ReadProblem(name, None, "not a regular file, not read")
            return f.read()
    except OSError as e:
        return ReadProblem(name, None, f"cannot read file: {e.strerror or e}")


def read_file(path: Path, max_records: int = 0) -> ReadResult:
    """Read one file; never raises: every problem is reported with its file and line.

    Any unexpected exception inside a reader becomes this file's problem (with the papers read
    before it kept), so one file can never lose the papers of another.
    """
    name = str(path)
    result = ReadResult(file=name, format="unknown")
    try:
        _read_into(path, result, max_records)
    except Exception as e:  # the last line of defence: a bug must cost one file, not the ingest
        result.problems.append(ReadProblem(name, None, f"reader failed: {type(e).__name__}: {e}"))
    except RecursionError as e:  # pragma: no cover - RecursionError is an Exception; kept explicit
        result.problems.append(ReadProblem(name, None, f"reader failed: {e}"))
    fallback = venue_from_file_name(name)
    if fallback is not None:
        for paper in result.papers:
            if paper.venue is None:
                paper.venue = fallback[0]
            if paper.year is None and paper.venue == fallback[0]:
                paper.year = fallback[1]
    return result


def _read_into(path: Path, result: ReadResult, max_records: int = 0) -> None:
    name = result.file
    data = _read_bytes(path, name)
    if isinstance(data, ReadProblem):
        result.problems.append(data)
        return
    if not data.strip():
        result.problems.append(ReadProblem(name, None, "file is empty"))
        return
    decoded = decode(data, name)
    del data
    result.problems.extend(decoded.problems)
    text = decoded.text
    if text is None:
        return
    if text.startswith("\ufeff"):
        text = text[1:]
    if not text.strip():
        result.problems.append(ReadProblem(name, None, "file is empty"))
        return
    result.format = detect_format(text, path.suffix)
    reader = {"json": read_json, "jsonl": read_jsonl, "csv": read_csv, "listing": read_listing}[result.format]
    for item in reader(text, name):
        if isinstance(item, ReadProblem):
            result.problems.append(item)
        elif max_records and len(result.papers) >= max_records:
            line = f" (line {item.line:,} on)" if item.line else ""
            result.problems.append(
                ReadProblem(
                    name,
                    None,
                    f"more than {max_records:,} records: the first {max_records:,} read, the rest{line} "
                    "not; raise the limit with --max-records-per-file",
                )
            )
            break
        else:
            result.papers.append(item)
    if result.format == "listing" and not result.papers:
        has_prose = any(is_abstract_line(line.strip()) for line in text.split("\n")[:10_000])
        reason = (
            "no papers found"
            if has_prose
            else "not a known listing format: expected a venue header and abstracts, "
            "a 论文检索 listing, JSON, JSONL or CSV"
        )
        # line-level noise of a file that is not a listing at all is dropped; a refused
        # over-limit line is kept, since it is why nothing was found
        kept = [p for p in result.problems if p.severity == "repaired" or "limit" in p.reason]
        result.problems = kept
        if not any(p.severity == "skipped" for p in kept):
            result.problems.append(ReadProblem(name, None, reason))
