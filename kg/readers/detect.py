"""Choose a reader by content, and walk folders."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from kg.models import RawPaper
from kg.readers.listing import is_abstract_line, read_listing
from kg.readers.problems import ReadProblem
from kg.readers.structured import FIELD_NAMES, read_csv, read_json, read_jsonl

LISTING_SUFFIXES = frozenset({".txt", ".md", ".json", ".jsonl", ".ndjson", ".csv", ".tsv", ""})
_SNIFF_BYTES = 65536


@dataclass
class ReadResult:
    """Papers and problems from one file, plus the format it was read as."""

    file: str
    format: str
    papers: list[RawPaper] = field(default_factory=list)
    problems: list[ReadProblem] = field(default_factory=list)


def iter_input_files(paths: list[Path]) -> Iterator[Path | ReadProblem]:
    """Files named directly, and listing-like files under folders (sorted, hidden ones skipped)."""
    for path in paths:
        if not path.exists():
            yield ReadProblem(str(path), None, "no such file or directory")
        elif path.is_dir():
            found = False
            for child in sorted(path.rglob("*")):
                rel = child.relative_to(path)
                if any(part.startswith(".") for part in rel.parts) or not child.is_file():
                    continue
                if child.suffix.lower() in LISTING_SUFFIXES:
                    found = True
                    yield child
            if not found:
                yield ReadProblem(str(path), None, "folder holds no listing files")
        else:
            yield path


def detect_format(text: str, suffix: str = "") -> str:
    """``json``, ``jsonl``, ``csv`` or ``listing``, from the text; the suffix only breaks ties.

    A header row naming known fields is CSV whatever the extension; a ``.csv``/``.tsv`` file
    whose header names none is still read as CSV, so its reader can say which columns are
    missing instead of calling it an unknown format.
    """
    stripped = text.lstrip()
    first_line = stripped.split("\n", 1)[0].strip()
    if stripped.startswith("["):
        return "json"
    if stripped.startswith("{"):
        try:
            json.loads(stripped)
        except json.JSONDecodeError:
            return "jsonl"  # several objects, or one broken line among good ones
        return "json"
    header = first_line.lower()
    cells = {c.strip().strip('"') for c in header.replace("\t", ",").split(",")}
    names = set(FIELD_NAMES["title"]) | set(FIELD_NAMES["abstract"]) | set(FIELD_NAMES["authors"])
    if len(cells) > 1 and (cells & names or suffix.lower() in (".csv", ".tsv")):
        return "csv"
    return "listing"


def read_file(path: Path) -> ReadResult:
    """Read one file; never raises for bad content, every problem is reported with its line."""
    name = str(path)
    result = ReadResult(file=name, format="unknown")
    try:
        data = path.read_bytes()
    except OSError as e:
        result.problems.append(ReadProblem(name, None, f"cannot read file: {e.strerror or e}"))
        return result
    if not data.strip():
        result.problems.append(ReadProblem(name, None, "file is empty"))
        return result
    if b"\x00" in data[:_SNIFF_BYTES]:
        result.problems.append(ReadProblem(name, None, "binary file (contains NUL bytes), not a listing"))
        return result
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        line = data[: e.start].count(b"\n") + 1
        result.problems.append(
            ReadProblem(name, line, f"not UTF-8 text (byte 0x{data[e.start]:02x} at offset {e.start})")
        )
        return result
    result.format = detect_format(text, path.suffix)
    reader = {"json": read_json, "jsonl": read_jsonl, "csv": read_csv, "listing": read_listing}[result.format]
    for item in reader(text, name):
        if isinstance(item, ReadProblem):
            result.problems.append(item)
        else:
            result.papers.append(item)
    if result.format == "listing" and not result.papers:
        has_prose = any(is_abstract_line(line.strip()) for line in text.splitlines())
        reason = (
            "no papers found"
            if has_prose
            else "not a known listing format: expected a venue header and abstracts, "
            "a 论文检索 listing, JSON, JSONL or CSV"
        )
        result.problems = [ReadProblem(name, None, reason)]
    return result
