"""Field-level parsing shared by every reader: author lists, venue headers, topic paths."""

from __future__ import annotations

import re

# A trailing "等" (Chinese "et al.") or "et al." means the author list was cut short.
_TRUNCATION = re.compile(r"\s*(?:等|et\s+al\.?|…|\.\.\.)\s*$", re.IGNORECASE)
_AUTHOR_SPLIT = re.compile(r"\s*(?:[,，;；、]|\band\b|&)\s*")
_NAME_PARTICLES = frozenset(
    "van von der den de del della di da dos du la le bin ibn al el y zu ten ter".split()
)
_VENUE = re.compile(
    r"^\s*(?P<series>[A-Za-z][A-Za-z&\-]*(?:\s+[A-Z][A-Za-z&\-]*)*?)\s*['’]?\s*"
    r"(?P<year>(?:19|20)\d{2})\b"
)
_SEARCH_HEADERS = ("论文检索", "paper search", "search results", "检索结果")


def split_authors(value: str) -> tuple[list[str], bool]:
    """Split an author line; the flag says the list was truncated (``等`` / ``et al.``).

    >>> split_authors("Jong Lee, Chirag Nagpal, Aradhana Sinha 等")
    (['Jong Lee', 'Chirag Nagpal', 'Aradhana Sinha'], True)
    >>> split_authors("Reza Babanezhad and Sharan Vaswani")
    (['Reza Babanezhad', 'Sharan Vaswani'], False)
    """
    text = value.strip()
    truncated = bool(_TRUNCATION.search(text))
    if truncated:
        text = _TRUNCATION.sub("", text)
    names = [n.strip() for n in _AUTHOR_SPLIT.split(text)]
    return [n for n in names if n], truncated


def looks_like_author_line(line: str) -> bool:
    """True for a comma-separated list of personal names.

    A topic such as ``Applications · Chemistry, Physics, and Earth Sciences`` has commas too,
    so callers test for topic lines first.

    >>> looks_like_author_line("Simon Park, Abhishek Panigrahi, Dung D. Le")
    True
    >>> looks_like_author_line("We propose a method, which works.")
    False
    """
    if "·" in line or len(line) > 2000:
        return False
    names, _ = split_authors(line)
    if not names:
        return False
    for name in names:
        words = name.split()
        if not 1 <= len(words) <= 6 or name.endswith((".", ":", "?", "!")) and len(words[-1]) > 2:
            return False
        for w in words:
            core = w.strip("“”\"'‘’()")
            if not core:
                continue
            if core[0].islower() and core.lower() not in _NAME_PARTICLES:
                return False
    return True


def is_topic_line(line: str) -> bool:
    """True for a topic path such as ``Deep Learning · Large Language Models``."""
    return "·" in line or "›" in line


def parse_venue(value: str) -> tuple[str, int] | None:
    """Venue series and year from a header such as ``ICML 2026 论文列表``.

    >>> parse_venue("ICLR 2026 Papers"), parse_venue("ICML 2026 论文列表"), parse_venue("论文检索")
    (('ICLR', 2026), ('ICML', 2026), None)
    """
    match = _VENUE.match(value)
    if not match:
        return None
    return match.group("series").strip(), int(match.group("year"))


def is_search_header(value: str) -> bool:
    """True for the header of the ``论文检索`` (paper search) layout."""
    folded = value.strip().casefold()
    return any(folded.startswith(h) for h in _SEARCH_HEADERS)
