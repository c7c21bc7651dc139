"""Plain-text listings: a venue header then abstracts, or the ``论文检索`` layout.

``论文检索`` ("paper search") pages repeat blocks of topic line, author line and abstract.
Lines are classified one by one, so the reader copes with or without blank lines between them.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from kg.models import RawPaper
from kg.readers.fields import (
    is_search_header,
    is_topic_line,
    looks_like_author_line,
    parse_venue,
    split_authors,
)
from kg.readers.limits import MAX_ABSTRACT_CHARS, over
from kg.readers.problems import ReadProblem

_HEADER_WORDS = re.compile(r"(papers?|proceedings|accepted|论文|列表|list|orals?|posters?)", re.I)
# Words that make a lone short line a topic rather than one author's name.
_TOPIC_WORDS = frozenset(
    """learning optimization optimisation theory methods applications models vision language
    processing systems networks inference algorithms statistics robotics reinforcement
    probabilistic general machine deep fairness privacy safety security social science sciences
    causality everything else data mining graphs retrieval generative computer neuroscience
    healthcare biology chemistry physics economics benchmarks infrastructure""".split()
)
_SENTENCE_END = re.compile(r"[.!?。](?:\s|$)")


@dataclass
class _Pending:
    """Short lines seen since the last abstract: topic, authors or title of the next paper."""

    lines: list[tuple[int, str]] = field(default_factory=list)


def is_abstract_line(line: str) -> bool:
    """Long prose, as opposed to a header, topic, title or author line."""
    if is_topic_line(line) and len(line) < 200:
        return False
    if looks_like_author_line(line):
        return False
    words = line.split()
    return len(line) >= 200 or (len(words) >= 12 and bool(_SENTENCE_END.search(line)))


def _venue_header(line: str) -> tuple[str, int] | None:
    venue = parse_venue(line)
    if venue is None:
        return None
    rest = line[len(venue[0]) :].strip()
    if len(line) > 80 or (rest and not _HEADER_WORDS.search(rest) and not rest[:4].isdigit()):
        return None
    return venue


def read_listing(text: str, file: str) -> Iterator[RawPaper | ReadProblem]:
    """Papers from a text listing; short lines between abstracts become topic/authors/title."""
    venue: tuple[str, int] | None = None
    search_layout = False
    pending = _Pending()
    abstract_lines: list[str] = []
    abstract_start = 0
    seen_content = False

    def flush_abstract() -> Iterator[RawPaper | ReadProblem]:
        nonlocal abstract_lines
        if abstract_lines:
            abstract = " ".join(abstract_lines)
            if len(abstract) > MAX_ABSTRACT_CHARS:
                yield ReadProblem(file, abstract_start, over("abstract", len(abstract), MAX_ABSTRACT_CHARS))
            else:
                yield _paper(file, abstract_start, abstract, pending, venue, search_layout)
            pending.lines = []
            abstract_lines = []

    # "\n", "\r\n" and a lone "\r" end lines; U+2028 and friends do not (as in JSONL)
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    for lineno, raw in enumerate(lines, start=1):
        if len(raw) > MAX_ABSTRACT_CHARS:  # refused before any pass over it
            yield from flush_abstract()
            yield ReadProblem(file, lineno, over("line", len(raw), MAX_ABSTRACT_CHARS))
            continue
        line = raw.strip()
        if not line:
            yield from flush_abstract()
            continue
        if is_abstract_line(line) or (abstract_lines and not pending.lines and len(line) > 80):
            if not abstract_lines:
                abstract_start = lineno
            abstract_lines.append(line)
            seen_content = True
            continue
        yield from flush_abstract()
        header = _venue_header(line)
        if header is not None and not pending.lines:
            venue, search_layout = header, False
            continue
        if is_search_header(line) and not pending.lines:
            search_layout, venue = True, None
            continue
        if not seen_content and not pending.lines and _HEADER_WORDS.fullmatch(line):
            continue  # a bare "Papers" header carries nothing
        pending.lines.append((lineno, line))
    yield from flush_abstract()
    for lineno, line in pending.lines:
        yield ReadProblem(file, lineno, f"line is not followed by an abstract: {line[:60]!r}")


def _paper(
    file: str,
    line: int,
    abstract: str,
    pending: _Pending,
    venue: tuple[str, int] | None,
    search_layout: bool,
) -> RawPaper:
    paper = RawPaper(file=file, line=line, abstract=abstract)
    if venue is not None:
        paper.venue, paper.year = venue
    unassigned: list[str] = []
    for _, text in pending.lines:
        if is_topic_line(text):
            paper.topic = text
        elif looks_like_author_line(text) and ("," in text or "，" in text or text.endswith("等")):
            paper.authors, paper.authors_truncated = split_authors(text)
        else:
            unassigned.append(text)
    for text in unassigned:
        words = {w.strip(",.:").lower() for w in text.split()}
        if search_layout and paper.topic is None and (words & _TOPIC_WORDS or not paper.authors):
            if words & _TOPIC_WORDS or len(unassigned) > 1:
                paper.topic = text
                continue
        if not paper.authors and looks_like_author_line(text) and not words & _TOPIC_WORDS:
            paper.authors, paper.authors_truncated = split_authors(text)
        elif paper.title is None and not search_layout:
            paper.title = text
        elif paper.topic is None and search_layout:
            paper.topic = text
        elif paper.title is None:
            paper.title = text
    return paper
