"""Plain-text listings: a venue header then abstracts, or the ``论文检索`` layout.

``论文检索`` ("paper search") pages repeat blocks of topic line, author line and abstract.
Lines are classified one by one, so the reader copes with or without blank lines between them.

An abstract pasted with hard line breaks (an e-mail, a PDF, a terminal 72 columns wide) is
first joined back into one line (:func:`logical_lines`): otherwise each of its short lines
reads as a title or an author line, and the paper is lost.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from itertools import pairwise as pairs

from kg.core.models import RawPaper
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
# A hard-wrapped paragraph: every line but its last is full, i.e. it and the next line's
# first word would not have fitted the width (taken as the longest line's), with this slack
# for editors that wrap a little early. A title before an abstract is rarely that long.
_WRAP_FILL = 0.85
_MIN_WRAP = 40  # nobody wraps prose narrower; a list of short lines is not a paragraph
_CLOSING = (".", "!", "?", "。", ":")
_MARKUP = re.compile(r"[$\\{}=^_]")
_PROBLEM_HINT = (
    "a paper is its title, author or topic lines, then its abstract "
    "(prose of 12+ words with a full stop); put a blank line between papers"
)


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


def _is_structural(line: str) -> bool:
    """A line that is never part of a wrapped abstract: a topic, an author list, a header."""
    return (
        is_topic_line(line) or _author_line(line) or _venue_header(line) is not None or is_search_header(line)
    )


def _author_line(line: str) -> bool:
    """An author list; a wrapped line of math (``$\\tilde{O}(T)$,``) has the shape of one."""
    return not _MARKUP.search(line) and looks_like_author_line(line)


def _title_like(line: str, following: str) -> bool:
    """A title before an abstract: Title Case, no closing punctuation, the abstract starts anew."""
    if not following[:1].isupper() or line.endswith((".", ",", ";", "-", "and", "of", "the")):
        return False
    words = [w for w in line.split() if len(w) > 3 and w[:1].isalpha()]
    return bool(words) and sum(w[:1].isupper() for w in words) >= 0.6 * len(words)


def _paragraph_start(segment: list[str]) -> int | None:
    """Where a hard-wrapped abstract begins in ``segment`` (consecutive lines, none structural
    or blank) and runs to its end; ``None`` when no two or more lines are one wrapped abstract."""
    for k in range(len(segment) - 1):
        run = segment[k:]
        width = max(len(s) for s in run)
        if width < _MIN_WRAP or any(
            len(s) + 1 + len(n.split()[0]) < _WRAP_FILL * width for s, n in pairs(run)
        ):
            continue
        joined = _join(run)
        if _title_like(run[0], run[1]) or not (is_abstract_line(joined) and _SENTENCE_END.search(joined)):
            continue
        return k
    return None


def _join(lines: list[str]) -> str:
    """Wrapped lines as one: a space between, none after a hyphen that a wrap left at a line's
    end ("high-" + "dimensional" is "high-dimensional": the wrap broke at the hyphen)."""
    out = lines[0]
    for line in lines[1:]:
        out += line if out.endswith("-") and out[-2:-1].isalpha() else " " + line
    return out


def logical_lines(lines: list[str]) -> list[tuple[int, str]]:
    """``(line number, text)`` with each hard-wrapped abstract joined into one line.

    Blank lines separate papers, so a wrapped abstract is a run of consecutive non-blank
    lines, none of them a topic, author or header line, whose lines fill the width of the
    longest (all but the last) and that reads as an abstract once joined. Lines before it in
    the run (a title) stay as they are; every other line is passed through unchanged.

    >>> lines = logical_lines(["A Title for It", "We bound the regret of bandits with heavy",
    ...                        "tails by a log factor. It also holds for", "us."])
    >>> lines[0], lines[1][0], lines[1][1][-40:], len(lines)
    ((1, 'A Title for It'), 2, 's by a log factor. It also holds for us.', 2)
    """
    out: list[tuple[int, str]] = []
    i = 0
    while i < len(lines):
        j = i
        while j < len(lines) and lines[j].strip() and len(lines[j]) <= MAX_ABSTRACT_CHARS:
            line = lines[j].strip()
            # mid-sentence ("... Revenue-Aware Incentive" / "Compatibility (RAIC) and ..."),
            # a line shaped like an author list is the sentence going on
            if _is_structural(line) and (j == i or lines[j - 1].rstrip().endswith(_CLOSING)):
                break
            if is_topic_line(line) or _venue_header(line) is not None or is_search_header(line):
                break
            j += 1
        if j - i < 2:
            i = _author_lines(lines, i, out)
            continue
        segment = [line.strip() for line in lines[i:j]]
        k = _paragraph_start(segment)
        if k is None:
            out.extend((i + 1 + t, lines[i + t]) for t in range(j - i))
        else:
            out.extend((i + 1 + t, lines[i + t]) for t in range(k))
            out.append((i + 1 + k, _join(segment[k:])))
        i = j
    return out


def _author_lines(lines: list[str], i: int, out: list[tuple[int, str]]) -> int:
    """Append line ``i`` to ``out``, joined with the author lines right after it when it is one
    (a paper has one author list: two in a row are one list that was wrapped); the next index."""
    line = lines[i].strip()
    j = i + 1
    if "," in line and not is_topic_line(line) and _author_line(line):  # a list, not one name
        while j < len(lines) and lines[j].strip() and len(lines[j]) <= MAX_ABSTRACT_CHARS:
            nxt = lines[j].strip()
            if is_topic_line(nxt) or not _author_line(nxt):
                break
            line, j = _join([line, nxt]), j + 1
    out.append((i + 1, line if j > i + 1 else lines[i]))
    return j


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
    for lineno, raw in logical_lines(lines):
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
    yield from _unread(file, pending.lines)


def _unread(file: str, leftover: list[tuple[int, str]]) -> Iterator[ReadProblem]:
    """One problem per block of lines that no abstract followed, saying what a paper needs.

    Lines at most one blank line apart are one block: twenty lines of a text that is not a
    listing are one complaint, not twenty.
    """
    blocks: list[list[tuple[int, str]]] = []
    for lineno, line in leftover:
        if blocks and lineno - blocks[-1][-1][0] <= 2:
            blocks[-1].append((lineno, line))
        else:
            blocks.append([(lineno, line)])
    for block in blocks:
        lineno, line = block[0]
        if len(block) == 1:
            what = f"line is not followed by an abstract: {line[:60]!r}"
        else:
            what = f"{len(block)} lines up to line {block[-1][0]} are not followed by an abstract"
            what += f", from {line[:60]!r}"
        yield ReadProblem(file, lineno, f"{what} ({_PROBLEM_HINT})")


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
