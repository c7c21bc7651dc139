"""Field values checked one by one: cleaned and kept, or refused with a reason.

A reader calls these on every record; a refused value is reported like a malformed record
(``skipped``) and never stored, a cleaned one is reported as ``repaired``.

- Text: C0/C1 control characters (except whitespace), ANSI escape sequences and Unicode
  bidirectional controls (U+202A..U+202E, U+2066..U+2069, U+200E/F, U+061C) are stripped;
  they can make a name display as something else. Whitespace runs collapse to one space.
- Names (authors, venues, keywords, topics) must contain a letter and must not be JSON-ish
  junk: ``None``, ``null``, ``{}``, ``[]``, ``NaN``, ``undefined``, ``N/A``, a bare number.
- Author names also lose what exports leave around them (:func:`check_author`): footnote
  marks (``Patel*``, ``Zhang¹``, ``1Dominik``, ``Ravi[2]``), HTML entities (``D&#x27;``),
  UTF-8 read as Latin-1 (``SauppÃ©``) and a list's last "and" (``and Mahdieh Abbasi``).
  At 100k papers, 65 of 156k Author names began or ended with something other than a letter;
  where the clean spelling also occurs, each was a second node for the same person.
- Titles and abstracts must be strings (a number or a list/dict is refused; a title ``"5"``
  or ``"None"`` is junk too).
- Years are integers (or 4-digit strings) in :data:`MIN_YEAR`..current year + 1.
"""

from __future__ import annotations

import datetime
import html
import re
from dataclasses import dataclass
from typing import Any

from kg.readers.limits import MAX_NAME_CHARS, over

MIN_YEAR = 1900
_ANSI = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)?|[@-Z\\-_])")
_CONTROLS = re.compile(
    "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u200e\u200f\u061c\u202a-\u202e\u2066-\u2069\ufeff]"
)
_SPACES = re.compile(r"\s+")
_JUNK = frozenset(
    "none null nil nan undefined n/a na true false {} [] () \"\" '' - -- ? unknown anonymous".split()
)
# Names that say "no name is known" (an anonymous submission's author list, an "Unknown"
# venue): the file is not wrong, it says nobody. The value is left out and the record reported
# ``repaired`` (exit code 0), as is a slot of punctuation only (")*", what an export leaves
# between two names); serialisation accidents ("None", "{}", "5") stay refused.
_PLACEHOLDERS = frozenset(
    {
        "anonymous",
        "anonymous author",
        "anonymous authors",
        "anonymous submission",
        "unknown",
        "unknown author",
    }
    | {"n/a", "tba", "tbd", "not available"}
)
_NUMBER = re.compile(r"[-+]?\d*\.?\d+(?:e[-+]?\d+)?")
_YEAR_TEXT = re.compile(r"^\s*(\d{4})(?:\D|$)")
# Footnote marks at either end of an author name: symbols, superscript digits, a bracketed
# number, or one or two digits written against the name ("Zhang1", "1Dominik").
_MARKS = "*†‡§¶#⁰¹²³⁴⁵⁶⁷⁸⁹"
_TRAILING_MARK = re.compile(rf"(?:\s*[{_MARKS}]+|\s*\[\d{{1,2}}\]|(?<=[^\W\d_])\d{{1,2}})+$")
_LEADING_MARK = re.compile(rf"^(?:[{_MARKS}]+\s*|\d{{1,2}}(?=[^\W\d_]))+")
# A list's last "and" left on the last name ("Christian Gagné;and Mahdieh Abbasi").
_LEADING_AND = re.compile(r"^and\s+(?=[A-Z])")


def max_year() -> int:
    """The latest accepted year: next year (accepted papers are listed ahead of time)."""
    return datetime.date.today().year + 1


@dataclass(frozen=True, slots=True)
class Checked:
    """A cleaned value (``None`` when refused) and what was wrong with the original."""

    value: str | None
    refused: str | None = None  # reason the value was dropped
    repaired: str | None = None  # what was stripped from a value that was kept, or why a
    # placeholder (value None) was left out without refusing anything


def clean_text(text: str) -> tuple[str, str | None]:
    """``text`` without control/bidi characters and ANSI escapes, whitespace collapsed.

    >>> clean_text("Ada\\u202e Lovelace\\x1b[31m")
    ('Ada Lovelace', 'removed 2 control/bidi character(s)')
    """
    if text.isprintable():  # no control, bidi or line-separator character: the common case
        return (text.strip() if "  " not in text else _SPACES.sub(" ", text).strip()), None
    count = 0
    if "\x1b" in text:
        text, count = _ANSI.subn("", text)
    text, stripped = _CONTROLS.subn("", text)
    count += stripped
    text = _SPACES.sub(" ", text).strip()
    return text, (f"removed {count} control/bidi character(s)" if count else None)


def is_junk(text: str) -> bool:
    """True for values that are serialisation accidents, not names or titles.

    >>> [is_junk(v) for v in ("None", "{}", "5", "3.0", "Ada", "R2-D2")]
    [True, True, True, True, False, False]
    """
    folded = text.strip().casefold()
    if folded in _JUNK:
        return True
    if folded[:1].isdigit() or folded[:1] in ("+", "-", "."):
        if _NUMBER.fullmatch(folded):
            return True
    return folded.startswith(("{", "[")) and folded.endswith(("}", "]"))


def check_name(value: object, what: str, limit: int = MAX_NAME_CHARS) -> Checked:
    """An author/venue/keyword/topic name: a string with a letter, not junk, within ``limit``.

    >>> check_name("Anonymous", "author name").repaired
    "author name 'Anonymous' is a placeholder, not a name: left out"
    >>> check_name(")*", "author name").repaired  # what an export left between two names
    "author name ')*' is punctuation only: left out"
    >>> check_name("None", "author name").refused
    "author name 'None' is not a name (no letters, or a placeholder)"
    """
    if not isinstance(value, str):
        return Checked(None, f"{what} must be a string, got {_type(value)}")
    text, repaired = clean_text(value)
    if not text:
        return Checked(None, f"{what} is empty" + (" after removing control characters" if repaired else ""))
    if len(text) > limit:
        return Checked(None, over(what, len(text), limit))
    if text.casefold() in _PLACEHOLDERS:
        return Checked(None, None, f"{what} {_show(text)} is a placeholder, not a name: left out")
    junk = is_junk(text)
    if not junk and not any(c.isalnum() for c in text):
        return Checked(None, None, f"{what} {_show(text)} is punctuation only: left out")
    if junk or not any(c.isalpha() for c in text):
        return Checked(None, f"{what} {_show(text)} is not a name (no letters, or a placeholder)")
    if "\ufffd" in text:  # bytes no decoding could read: a name with holes would match no one
        return Checked(None, f"{what} {_show(text)} has undecodable bytes (U+FFFD), not stored")
    return Checked(text, None, f"{what} {_show(text)}: {repaired}" if repaired else None)


def check_author(value: object) -> Checked:
    """An author name (:func:`check_name`) without footnote marks, entities or mojibake.

    >>> [check_author(v).value for v in ("Aashish N Patel*", "Lihe Zhang¹", "1Dominik Jain",
    ...                                  "Sujith Ravi[2]", "Renaud DubÃ©", "Sam O&#x27;Brien")]
    ['Aashish N Patel', 'Lihe Zhang', 'Dominik Jain', 'Sujith Ravi', 'Renaud Dubé', "Sam O'Brien"]
    >>> check_author("and Mahdieh Abbasi").value
    'Mahdieh Abbasi'
    >>> check_author("Ömer Morgül1").repaired
    "author name 'Ömer Morgül1': removed a footnote mark"
    """
    checked = check_name(value, "author name")
    name = checked.value
    if name is None:
        return checked
    fixed, what = _unmark(name)
    if not what:
        return checked
    if not fixed or not any(c.isalpha() for c in fixed):
        return Checked(None, None, f"author name {_show(name)} is footnote marks only: left out")
    note = f"author name {_show(name)}: {what}"
    return Checked(fixed, None, f"{checked.repaired}; {note}" if checked.repaired else note)


def _unmark(name: str) -> tuple[str, str | None]:
    """``name`` repaired, and what was done (``None``: nothing)."""
    done: list[str] = []
    if "&" in name and ";" in name:
        unescaped = html.unescape(name)
        if unescaped != name:
            name = unescaped
            done.append("decoded HTML entities")
    if "Ã" in name or "Â" in name:
        try:
            decoded = name.encode("cp1252").decode("utf-8")
        except UnicodeError:
            decoded = name
        if decoded != name:
            name = decoded
            done.append("re-decoded UTF-8 read as Latin-1")
    unmarked = _LEADING_MARK.sub("", _TRAILING_MARK.sub("", name)).strip()
    if unmarked != name:
        name = unmarked
        done.append("removed a footnote mark")
    if _LEADING_AND.match(name):
        name = _LEADING_AND.sub("", name)
        done.append("removed a leading 'and'")
    return name, ("; ".join(done) or None)


def check_text(value: object, what: str, limit: int) -> Checked:
    """A title or abstract: a string (possibly empty), cleaned, within ``limit`` characters."""
    if value is None:
        return Checked(None)
    if not isinstance(value, str):
        return Checked(None, f"{what} must be a string, got {_type(value)}")
    if len(value) > limit:  # before cleaning: a 50 MB value costs no regex pass
        return Checked(None, over(what, len(value), limit))
    text, repaired = clean_text(value)
    if text and (is_junk(text) or not any(c.isalnum() for c in text)):
        return Checked(None, f"{what} {_show(text)} is not text (a placeholder or punctuation only)")
    return Checked(text, None, f"{what}: {repaired}" if repaired else None)


def check_year(value: object) -> tuple[int | None, str | None]:
    """``(year, None)`` or ``(None, reason)``; ``None`` in gives ``(None, None)``.

    >>> check_year("2024"), check_year(99999)[0], check_year(-5)[0], check_year(True)[0]
    ((2024, None), None, None, None)
    """
    if value is None or value == "":
        return None, None
    year: int | None = None
    if isinstance(value, bool):
        year = None
    elif isinstance(value, int):
        year = value
    elif isinstance(value, float) and value.is_integer():
        year = int(value)
    elif isinstance(value, str):
        m = _YEAR_TEXT.match(value) if len(value) < 100 else None
        year = int(m.group(1)) if m else None
    if year is None:
        return None, f"year {_show(value)} is not a year"
    if not MIN_YEAR <= year <= max_year():
        return None, f"year {year} is outside {MIN_YEAR}..{max_year()}"
    return year, None


def _type(value: object) -> str:
    return {dict: "an object", list: "a list", bool: "a boolean", int: "a number", float: "a number"}.get(
        type(value), type(value).__name__
    )


def _show(value: object) -> str:
    text = str(value)
    return repr(text[:40] + "…" if len(text) > 40 else text)


_LONE_SURROGATE = re.compile(r"[\ud800-\udfff]")


def without_lone_surrogates(value: Any) -> tuple[Any, int]:
    r"""``value`` (decoded JSON) with lone UTF-16 surrogates removed from every string and key,
    and how many there were.

    Why: ``"\ud800"`` is valid JSON but no character; Python keeps it in a ``str`` that no
    UTF-8 encoder accepts, so one such escape made storing the batch fail. Removed, the rest of
    the value (``"Ivy \ud800 Qi"`` is Ivy Qi) is kept and the record reports a repair.

    >>> without_lone_surrogates({"authors": ["Ivy \ud800 Qi"], "k\udc00": 1})
    ({'authors': ['Ivy  Qi'], 'k': 1}, 2)
    """
    if isinstance(value, str):
        return _LONE_SURROGATE.subn("", value)
    if isinstance(value, list):
        items = [without_lone_surrogates(v) for v in value]
        return [v for v, _ in items], sum(n for _, n in items)
    if isinstance(value, dict):
        total = 0
        out: dict[Any, Any] = {}
        for k, v in value.items():
            key, n_key = without_lone_surrogates(k)
            clean, n_value = without_lone_surrogates(v)
            out[key] = clean
            total += n_key + n_value
        return out, total
    return value, 0
