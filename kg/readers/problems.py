"""A reader's complaint about one file, record or value."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

# ``skipped``: a file, record or value was left out (``kg ingest`` exits 1).
# ``repaired``: the record was kept after a documented fix, e.g. undecodable bytes replaced or
# control characters stripped; reported so nothing changes silently, but not a skip.
# ``note``: nothing was changed or left out, but the user should know (two records of one
# paper that disagree on its title, year or venue: kg.ingest.conflicts).
Severity = Literal["skipped", "repaired", "note"]


@dataclass(frozen=True, slots=True)
class ReadProblem:
    """Something that could not be read as is, with where it is (role: reader output)."""

    file: str
    line: int | None
    reason: str
    severity: Severity = "skipped"

    def __str__(self) -> str:
        where = self.file if self.line is None else f"{self.file}:{self.line}"
        return f"{where}: {self.reason}"
