"""JSON, JSONL and CSV exports (field names as in the paperlists data), checked value by value.

A record becomes a :class:`RawPaper` plus problems: a refused value (a dict as title, the
author ``"None"``, year 99999) is reported as ``skipped`` and left out, a cleaned one
(control characters stripped) as ``repaired``; the rest of the record is kept. A record with
neither a usable title nor an abstract is skipped as a whole.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterator, Mapping
from typing import Any

from kg.core.models import RawPaper
from kg.core.topics import topic_path
from kg.readers.fields import parse_venue, split_authors
from kg.readers.jsonscan import DECODER, RECORD_LIST_KEYS, iter_json, iter_jsonl
from kg.readers.limits import (
    MAX_ABSTRACT_CHARS,
    MAX_AUTHORS,
    MAX_LIST_ITEMS,
    MAX_RECORD_CHARS,
    MAX_TITLE_CHARS,
    over,
)
from kg.readers.paperlists import (
    author_affiliations,
    author_institutions,
    author_keys,
    is_taxonomy,
    series_name,
    taxonomy_path,
    venue_from_bibtex,
    venue_from_site,
)
from kg.readers.problems import ReadProblem
from kg.readers.values import (
    Checked,
    check_author,
    check_name,
    check_text,
    check_year,
    is_junk,
    without_lone_surrogates,
)

__all__ = ["FIELD_NAMES", "RECORD_LIST_KEYS", "read_csv", "read_json", "read_jsonl", "record_to_paper"]

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
    "track": ("track",),
    "status": ("status", "decision"),
    "site": ("site",),
    "bibtex": ("bibtex", "bib"),
}

Item = RawPaper | ReadProblem


def _get(record: Mapping[str, Any], field: str) -> Any:
    """The first non-empty value of ``field`` under any accepted spelling, any case.

    ``record`` is the lower-cased view :func:`_lowered` makes once per record.
    """
    for name in FIELD_NAMES[field]:
        value = record.get(name.lower())
        if value is not None and value != "":
            return value
    return None


def _lowered(record: Mapping[Any, Any]) -> dict[str, Any]:
    """Keys lower-cased once (the first spelling of a key wins), so lookups are dict hits."""
    out: dict[str, Any] = {}
    for key, value in record.items():
        if isinstance(key, str):
            lk = key.lower()
            if lk not in out or out[lk] in (None, ""):
                out[lk] = value
    return out


class _Record:
    """Collects one record's problems while its values are checked."""

    def __init__(self, file: str, line: int, label: str) -> None:
        self.file, self.line, self.label = file, line, label
        self.problems: list[ReadProblem] = []

    def skip(self, reason: str) -> None:
        self.problems.append(ReadProblem(self.file, self.line, self.label + reason))

    def repair(self, reason: str) -> None:
        self.problems.append(ReadProblem(self.file, self.line, self.label + reason, "repaired"))

    def take(self, checked: Checked) -> str | None:
        if checked.refused:
            self.skip(checked.refused)
        if checked.repaired:
            self.repair(checked.repaired)
        return checked.value

    def names(self, values: list[object], what: str) -> list[str]:
        kept: list[str] = []
        for v in values:
            name = self.take(check_name(v, what))
            if name is not None:
                kept.append(name)
        return kept


def _as_list(value: object) -> list[object]:
    """A list field given as a list, a JSON-looking string or a ``;``/``,``-delimited string."""
    if value is None:
        return []
    if isinstance(value, list):
        return list(value)
    if isinstance(value, str):
        text = value.strip()
        if text.startswith("[") and text.endswith("]"):
            try:
                parsed = DECODER.decode(text)
            except (ValueError, RecursionError):
                parsed = None
            if isinstance(parsed, list):
                return list(parsed)
        sep = ";" if ";" in text else ","
        return [p.strip() for p in _split_outside_brackets(text, sep) if p.strip()]
    return [value]


def _split_outside_brackets(text: str, sep: str) -> list[str]:
    """``text`` split at ``sep`` where no bracket is open, so one keyword that lists examples,
    IJCAI's "CV: Recognition (object detection, categorization)", stays one keyword. An
    unbalanced bracket closes at the end of the text: the split is then the plain one after it.

    >>> _split_outside_brackets("CV: Recognition (detection, categorization)", ",")
    ['CV: Recognition (detection, categorization)']
    >>> _split_outside_brackets("bandits, RL (offline, online), (a, b", ",")
    ['bandits', ' RL (offline, online)', ' (a', ' b']
    """
    parts: list[str] = []
    depth, start = 0, 0
    for i, ch in enumerate(text):
        if ch in "([":
            depth += 1
        elif ch in ")]" and depth:
            depth -= 1
        elif ch == sep and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    if depth:  # an unbalanced bracket: split its tail plainly rather than glue it into one keyword
        *head, tail = parts
        parts = [*head, *tail.split(sep)]
    return parts


def _authors(
    record: Mapping[str, Any], rec: _Record
) -> tuple[list[str], list[tuple[str, ...]], bool, list[tuple[str, ...]], list[tuple[str, ...]]]:
    raw = _get(record, "authors")
    truncated = False
    if isinstance(raw, str) and ";" in raw:
        items: list[object] = [a.strip() for a in raw.split(";")]
    elif isinstance(raw, str) and not raw.lstrip().startswith("["):
        split, truncated = split_authors(raw)
        items = list(split)
    else:
        items = _as_list(raw)
        if items and items[-1] in ("等", "et al.", "et al"):
            items, truncated = items[:-1], True
    keys, notes = author_keys(record, len(items)) if items else ([], [])
    affs = author_affiliations(record, len(items)) if items else []
    places = author_institutions(record, len(items)) if items else []
    for note in notes:
        rec.repair(note)
    if len(items) > MAX_AUTHORS:
        rec.repair(f"{len(items):,} authors, over the {MAX_AUTHORS:,}-author limit: the rest are cut")
        items, keys, truncated = items[:MAX_AUTHORS], keys[:MAX_AUTHORS], True
    names: list[str] = []
    kept_keys: list[tuple[str, ...]] = []
    kept_affs: list[tuple[str, ...]] = []
    kept_places: list[tuple[str, ...]] = []
    seen: set[tuple[str, tuple[str, ...]]] = set()
    for i, item in enumerate(items):
        if isinstance(item, str) and not item.strip():
            continue  # an empty slot between separators
        name = rec.take(check_author(item))
        if name is None:
            continue
        key = keys[i] if i < len(keys) else ()
        if (name, key) in seen:
            continue  # some paperlists exports repeat the whole author list
        seen.add((name, key))
        names.append(name)
        kept_keys.append(key)
        kept_affs.append(affs[i] if i < len(affs) else ())
        kept_places.append(places[i] if i < len(places) else ())
    return (
        names,
        (kept_keys if any(kept_keys) else []),
        truncated,
        (kept_affs if any(kept_affs) else []),
        (kept_places if any(kept_places) else []),
    )


def _venue_and_year(record: Mapping[str, Any], rec: _Record) -> tuple[str | None, int | None]:
    venue: str | None = None
    year: int | None = None
    raw_venue = _get(record, "venue")
    if raw_venue is not None:
        text = rec.take(check_name(raw_venue, "venue"))
        if text is not None:
            parsed = parse_venue(text)
            if parsed is not None and (series_name(parsed[0]) or len(text) < 40):
                venue, year = series_name(parsed[0]) or parsed[0], parsed[1]
            else:
                venue = series_name(text) or text
    raw_year = _get(record, "year")
    if raw_year is not None:
        checked_year, reason = check_year(raw_year)
        if reason:
            rec.skip(reason)
        year = checked_year if checked_year is not None else (year if reason is None else None)
    if venue is None or year is None:
        site = _get(record, "site")
        found = venue_from_site(site) if isinstance(site, str) else None
        if found is not None:
            venue, year = venue or found[0], year or found[1]
    if venue is None or year is None:
        bib = _get(record, "bibtex")
        if isinstance(bib, str):
            series, bib_year = venue_from_bibtex(bib[:10_000])
            venue, year = venue or series, year or bib_year
    return venue, year


def _scalar(value: object, rec: _Record, what: str) -> str | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        rec.skip(f"{what} must be a string, got {type(value).__name__}")
        return None
    text = str(value).strip()
    if len(text) > 2_000:
        rec.skip(over(what, len(text), 2_000))
        return None
    return text or None


def record_to_paper(record: object, file: str, line: int, label: str = "") -> list[Item]:
    """One structured record as a paper (or nothing) plus every problem found in it."""
    rec = _Record(file, line, label)
    if not isinstance(record, Mapping):
        rec.skip(f"expected a JSON object, got {type(record).__name__}")
        return list(rec.problems)
    record = _lowered(record)
    checked_title = check_text(_get(record, "title"), "title", MAX_TITLE_CHARS)
    checked_abstract = check_text(_get(record, "abstract"), "abstract", MAX_ABSTRACT_CHARS)
    refused = checked_title.refused or checked_abstract.refused
    if refused:  # the text is what a paper is; half of one would be stored under a wrong id
        rec.skip(f"record skipped: {refused}")
        return list(rec.problems)
    title = rec.take(checked_title)
    abstract = rec.take(checked_abstract) or ""
    if not title and not abstract:
        rec.skip("record has neither a title nor an abstract")
        return list(rec.problems)
    authors, keys, truncated, affiliations, institutions = _authors(record, rec)
    venue, year = _venue_and_year(record, rec)
    raw_keywords = _as_list(_get(record, "keywords"))[:MAX_LIST_ITEMS]
    keywords = rec.names(raw_keywords, "keyword")
    topics: list[list[str]] = []
    if is_taxonomy(keywords):
        topics = [p for p in (taxonomy_path(k) for k in keywords) if p]
        keywords = []
    raw_topic = _get(record, "topic")
    topic = rec.take(check_name(raw_topic, "topic", 1_000)) if raw_topic is not None else None
    if topic is not None and not topic_path(topic):
        topic = None
    paper = RawPaper(
        file=file,
        line=line,
        abstract=abstract,
        title=title or None,
        authors=authors,
        authors_truncated=truncated,
        venue=venue,
        year=year,
        topic=topic,
        keywords=keywords,
        external_id=_scalar(_get(record, "id"), rec, "id"),
        url=_scalar(_get(record, "url"), rec, "url"),
        author_keys=keys,
        author_affiliations=affiliations,
        author_institutions=institutions,
        track=_label(_get(record, "track"), rec, "track"),
        status=_label(_get(record, "status"), rec, "status"),
        topics=topics,
    )
    return [*rec.problems, paper]


def _label(value: object, rec: _Record, what: str) -> str | None:
    if value is None:
        return None
    text = rec.take(check_name(value, what, 200))
    return None if text is None or is_junk(text) else text


# A JSON escape of a UTF-16 surrogate (paired ones decode to one character; lone ones do not).
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")


def _items(found: Iterator[tuple[bool, Any, int, str]], file: str, text: str) -> Iterator[Item]:
    surrogates = _SURROGATE_ESCAPE.search(text) is not None  # else no walk over every record
    for ok, value, line, label in found:
        if ok:
            if surrogates:
                value, removed = without_lone_surrogates(value)
                if removed:
                    reason = (
                        f"{label}removed {removed} lone surrogate escape(s) (\\ud800-\\udfff: no character)"
                    )
                    yield ReadProblem(file, line, reason, "repaired")
            yield from record_to_paper(value, file, line, label)
        else:
            yield ReadProblem(file, line, str(value))


def read_jsonl(text: str, file: str) -> Iterator[Item]:
    """One JSON object per ``\\n``-separated line; a malformed line is a problem, not the end."""
    yield from _items(iter_jsonl(text), file, text)


def read_json(text: str, file: str) -> Iterator[Item]:
    """A JSON array, a wrapper object holding one (``{"papers": [...]}``), or one record."""
    yield from _items(iter_json(text), file, text)


def read_csv(text: str, file: str) -> Iterator[Item]:
    """CSV or TSV with a header row naming at least a title or an abstract column.

    Lone CR, LF and CRLF all end rows (the text is read in universal-newline mode); a field
    over the record limit is reported with its line and the rest of the file is still read.
    """
    first = text.split("\n", 1)[0].split("\r", 1)[0]
    delimiter = "\t" if first.count("\t") > first.count(",") else ","
    csv.field_size_limit(MAX_RECORD_CHARS)
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    try:
        header = next(reader)
    except StopIteration:
        return
    except csv.Error as e:
        yield ReadProblem(file, 1, f"unreadable CSV header: {e}")
        return
    columns = [c.strip().lstrip("\ufeff") for c in header]
    lowered = [c.lower() for c in columns]
    wanted = {n.lower() for n in FIELD_NAMES["title"] + FIELD_NAMES["abstract"]}
    if not wanted & set(lowered):
        yield ReadProblem(
            file,
            1,
            "CSV header has no title or abstract column "
            f"(found: {', '.join(lowered) or 'none'}; expected e.g. title, abstract, authors)",
        )
        return
    line = reader.line_num + 1
    while True:
        try:
            row = next(reader)
        except StopIteration:
            return
        except csv.Error as e:
            yield ReadProblem(file, line, f"unreadable CSV row: {e}")
            line = reader.line_num + 1
            continue
        start, line = line, reader.line_num + 1
        if not row or all(not c.strip() for c in row):
            continue
        if len(row) != len(columns):
            yield ReadProblem(file, start, f"row has {len(row)} fields, the header has {len(columns)}")
            continue
        yield from record_to_paper(dict(zip(columns, row, strict=True)), file, start)
