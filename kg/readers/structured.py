"""JSON, JSONL and CSV exports (field names as in the paperlists data)."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator, Mapping
from typing import Any

from kg.models import RawPaper
from kg.readers.fields import as_string_list, parse_venue, split_authors
from kg.readers.problems import ReadProblem

# Accepted spellings of each field, first match wins.
FIELD_NAMES: dict[str, tuple[str, ...]] = {
    "id": ("id", "paper_id", "paperId", "openreview_id", "uid"),
    "title": ("title", "paper_title", "name"),
    "abstract": ("abstract", "summary", "tldr_abstract"),
    "authors": ("authors", "author", "author_names"),
    "keywords": ("keywords", "keyword", "tags"),
    "venue": ("venue", "conference", "booktitle", "source"),
    "year": ("year", "publication_year"),
    "topic": ("primary_area", "topic", "area", "track_area"),
    "url": ("url", "link", "site", "pdf"),
}
RECORD_LIST_KEYS = ("papers", "notes", "data", "results", "items", "records")


def _get(record: Mapping[str, Any], field: str) -> Any:
    for name in FIELD_NAMES[field]:
        if name in record and record[name] not in (None, ""):
            return record[name]
        lower = name.lower()
        for key in record:
            if isinstance(key, str) and key.lower() == lower and record[key] not in (None, ""):
                return record[key]
    return None


def record_to_paper(record: object, file: str, line: int) -> RawPaper | ReadProblem:
    """One structured record as a paper, or the reason it is not one."""
    if not isinstance(record, Mapping):
        return ReadProblem(file, line, f"expected a JSON object, got {type(record).__name__}")
    title = _get(record, "title")
    abstract = _get(record, "abstract")
    title = str(title).strip() if title is not None else None
    abstract = str(abstract).strip() if abstract is not None else ""
    if not title and not abstract:
        return ReadProblem(file, line, "record has neither a title nor an abstract")
    raw_authors = _get(record, "authors")
    truncated = False
    if isinstance(raw_authors, str) and not raw_authors.lstrip().startswith("["):
        authors, truncated = split_authors(raw_authors)
    else:
        authors = as_string_list(raw_authors)
        if authors and authors[-1] in ("等", "et al.", "et al"):
            authors, truncated = authors[:-1], True
    venue, year = _venue_and_year(record)
    external = _get(record, "id")
    url = _get(record, "url")
    topic = _get(record, "topic")
    return RawPaper(
        file=file,
        line=line,
        abstract=abstract,
        title=title or None,
        authors=authors,
        authors_truncated=truncated,
        venue=venue,
        year=year,
        topic=str(topic).strip() if topic else None,
        keywords=as_string_list(_get(record, "keywords")),
        external_id=str(external) if external is not None else None,
        url=str(url) if url is not None else None,
    )


def _venue_and_year(record: Mapping[str, Any]) -> tuple[str | None, int | None]:
    venue = _get(record, "venue")
    year_value = _get(record, "year")
    year: int | None = None
    if year_value is not None:
        try:
            year = int(str(year_value).strip()[:4])
        except ValueError:
            year = None
    if venue is None:
        return None, year
    parsed = parse_venue(str(venue))
    if parsed is not None:
        return parsed[0], year if year is not None else parsed[1]
    return str(venue).strip(), year


def read_jsonl(text: str, file: str) -> Iterator[RawPaper | ReadProblem]:
    """One JSON object per line; a malformed line is a problem, not the end of the file."""
    for lineno, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as e:
            yield ReadProblem(file, lineno, f"malformed JSON line: {e.msg} (column {e.colno})")
            continue
        yield record_to_paper(record, file, lineno)


def read_json(text: str, file: str) -> Iterator[RawPaper | ReadProblem]:
    """A JSON array of records, an object holding one (``{"papers": [...]}``), or one record.

    Records are decoded one at a time so each keeps its own line number.
    """
    decoder = json.JSONDecoder()
    start = len(text) - len(text.lstrip())
    try:
        if text[start] == "{":
            whole, _ = decoder.raw_decode(text, start)
            for key in RECORD_LIST_KEYS:
                if isinstance(whole.get(key), list):
                    inner = text.index("[", text.index(f'"{key}"'))
                    yield from _read_array(text, inner, file, decoder)
                    return
            yield record_to_paper(whole, file, text.count("\n", 0, start) + 1)
            return
        yield from _read_array(text, start, file, decoder)
    except json.JSONDecodeError as e:
        yield ReadProblem(file, e.lineno, f"malformed JSON: {e.msg} (column {e.colno})")


def _read_array(
    text: str, pos: int, file: str, decoder: json.JSONDecoder
) -> Iterator[RawPaper | ReadProblem]:
    pos += 1  # past "["
    n = len(text)
    while True:
        while pos < n and text[pos] in " \t\r\n,":
            pos += 1
        if pos >= n:
            raise json.JSONDecodeError("unterminated array", text, pos)
        if text[pos] == "]":
            return
        line = text.count("\n", 0, pos) + 1
        record, pos = decoder.raw_decode(text, pos)
        yield record_to_paper(record, file, line)


def read_csv(text: str, file: str) -> Iterator[RawPaper | ReadProblem]:
    """CSV or TSV with a header row naming at least a title or an abstract column."""
    first = text.split("\n", 1)[0]
    delimiter = "\t" if first.count("\t") > first.count(",") else ","
    reader = csv.DictReader(io.StringIO(text), delimiter=delimiter)
    columns = [c.strip().lower() for c in (reader.fieldnames or [])]
    wanted = set(FIELD_NAMES["title"]) | set(FIELD_NAMES["abstract"])
    if not wanted & set(columns):
        yield ReadProblem(
            file,
            1,
            "CSV header has no title or abstract column "
            f"(found: {', '.join(columns) or 'none'}; expected e.g. title, abstract, authors)",
        )
        return
    expected = len(reader.fieldnames or [])
    start_line = 2
    for row in reader:
        line = start_line
        start_line = reader.line_num + 1
        if None in row or any(v is None for v in row.values()):
            got = len([v for k, v in row.items() if k is not None and v is not None])
            extra = row.get(None)
            got += len(extra) if isinstance(extra, list) else 0
            yield ReadProblem(file, line, f"row has {got} fields, the header has {expected}")
            continue
        clean = {k.strip(): v for k, v in row.items() if k is not None}
        yield record_to_paper(clean, file, line)
