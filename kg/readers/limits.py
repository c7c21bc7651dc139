"""Size and shape limits of input, so one hostile record costs bounded time and memory.

Every limit is reported by name and value when it is hit (``file:line: title is 3,000
characters, over the 2,000-character limit``), so a user can tell a broken export from a
limit set too low. Real paperlists records are far below all of them (longest abstract in the
86,864 papers of ``../shared/data/paperlists``: under 10,000 characters).
"""

from __future__ import annotations

MAX_RECORD_CHARS = 1_000_000  # one JSONL line, one JSON array member, one CSV row
MAX_TITLE_CHARS = 2_000
MAX_ABSTRACT_CHARS = 100_000
MAX_NAME_CHARS = 300  # one author name, venue, topic segment or keyword
MAX_AUTHORS = 5_000  # authors kept per record; more are cut and the record marked truncated
MAX_LIST_ITEMS = 1_000  # keywords / topics per record
MAX_JSON_DEPTH = 64  # nesting of one record; records are flat, so deeper is hostile
MAX_INT_DIGITS = 30  # longer integers are kept as digit strings (never int(): max_str_digits)


def over(what: str, size: int, limit: int, unit: str = "characters") -> str:
    """The message for a value over a limit.

    >>> over("title", 3000, 2000)
    'title is 3,000 characters, over the 2,000-character limit'
    """
    return f"{what} is {size:,} {unit}, over the {limit:,}-{unit.rstrip('s')} limit"
