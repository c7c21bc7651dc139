"""Records that are one paper (one id) but disagree on its title, year or venue: noted.

Why: a paper's id comes from its abstract (else its title), so two listings of the same
abstract are one paper; their metadata is merged by the rules of :mod:`kg.core.merge` (README,
"Merge rules"), which is right for a spelling variant and silent for a real conflict (two
different titles, years or venues). Each conflict is reported once per pair of values, with
both sources, as a ``note`` line: the merge still happens, and re-ingesting changes nothing.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from kg.core.ids import paper_id, text_key
from kg.core.models import RawPaper
from kg.readers.problems import ReadProblem

# What a differing value becomes, per the documented merge rule (README, "Merge rules").
RULE = {
    "title": "the smaller string is kept",
    "year": "the larger year is kept",
    "venue": "the paper is linked to both venues",
}


@dataclass
class _Seen:
    values: dict[str, tuple[str, str]]  # field -> (value, "file:line")


@dataclass
class ConflictNotes:
    """Watches the papers of one ingest run; :meth:`observe` gives the notes for a paper."""

    _seen: dict[str, _Seen] = field(default_factory=dict)
    _noted: set[tuple[str, str, str, str]] = field(default_factory=set)

    def observe(self, paper: RawPaper) -> list[ReadProblem]:
        try:
            pid = paper_id(paper.abstract, paper.title)
        except ValueError:
            return []
        where = f"{paper.file}:{paper.line}"
        values = {
            "title": (paper.title or "").strip(),
            "year": "" if paper.year is None else str(paper.year),
            "venue": (paper.venue or "").strip(),
        }
        seen = self._seen.get(pid)
        if seen is None:
            self._seen[pid] = _Seen({k: (v, where) for k, v in values.items() if v})
            return []
        notes: list[ReadProblem] = []
        for name, value in values.items():
            if not value:
                continue
            first = seen.values.get(name)
            if first is None:
                seen.values[name] = (value, where)
                continue
            if _same(name, first[0], value):
                continue
            low, high = sorted((first[0], value))
            key = (pid, name, low, high)
            if key in self._noted:
                continue
            self._noted.add(key)
            reason = (
                f"same paper as {first[1]} (same {'abstract' if paper.abstract else 'title'}) with a "
                f"different {name}: {value!r} here, {first[0]!r} there; merged: {RULE[name]}"
            )
            notes.append(ReadProblem(paper.file, paper.line, reason, "note"))
        return notes


def _same(name: str, a: str, b: str) -> bool:
    """Spelling variants (case, spacing, accents, punctuation) are not a conflict."""
    return a == b if name == "year" else text_key(a) == text_key(b)
