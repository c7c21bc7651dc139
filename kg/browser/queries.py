"""The documented Neo4j Browser queries (``neo4j-browser/browser-queries.cypher``), parsed.

One file is the source of the queries people read, of the Browser guide's runnable blocks
(:mod:`kg.browser.guide`) and of the integration test that runs each of them, so the three
cannot drift apart. The file is plain Browser input: ``:param name => <expr>;`` lines set
parameters (they stay set for every later query, as in Browser), every other statement ends
with ``;`` at the end of a line, and the ``//`` comment right above a statement (or above its
``:param`` lines) describes it. A comment line ``// 4c (graph view): ...`` numbers the query.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from kg.core.errors import KGError

PARAM = re.compile(r"^:param\s+([A-Za-z_][A-Za-z0-9_]*)\s*=>\s*(.+?);\s*$")
NUMBER = re.compile(r"^\s*(\d+[a-z]?)[.\s]")
RULE = re.compile(r"^-{5,}$")
PARAM_USE = re.compile(r"\$([A-Za-z_][A-Za-z0-9_]*)")
# Graph-view queries end with this comment before their virtual-copy tail.
PICTURE_TAIL = "// picture tail"


class QueryFileError(KGError):
    """The Cypher file does not have the shape described in this module."""


@dataclass(frozen=True)
class DocumentedQuery:
    """One documented query with the parameters in force where it stands (role: guide payload).

    ``params`` maps each ``$name`` the query uses to the Cypher expression of its value
    (``'language models'``, ``25``), exactly as written in the file's ``:param`` lines.
    """

    number: str
    title: str
    description: str
    cypher: str
    line: int
    params: dict[str, str] = field(default_factory=dict)

    @property
    def is_picture(self) -> bool:
        """A graph-view query (ends with the picture tail) rather than a table."""
        return PICTURE_TAIL in self.cypher


def _comment_text(line: str) -> str:
    return line.strip()[2:].strip()


def parse_queries(text: str, source: str = "browser-queries.cypher") -> list[DocumentedQuery]:
    """Every query in ``text`` with its description and parameters, in file order.

    Raises:
        QueryFileError: a statement without ``;``, a query without a number, or a parameter
            used before any ``:param`` line sets it; the message names ``source`` and the line.
    """
    params: dict[str, str] = {}
    comment: list[str] = []
    number, title = "", ""
    blank_before = False  # a blank line ends a comment block; the next comment starts a new one
    queries: list[DocumentedQuery] = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        stripped = line.strip()
        if not stripped:
            blank_before = True
            i += 1
            continue
        if stripped.startswith("//"):
            body = _comment_text(stripped)
            if blank_before:
                comment, blank_before = [], False
            if body and not RULE.match(body):
                if m := NUMBER.match(body):
                    number, title = m.group(1), body[m.end() :].strip()
                comment.append(body)
            i += 1
            continue
        blank_before = False
        if stripped.startswith(":param"):
            m = PARAM.match(stripped)
            if not m:
                raise QueryFileError(f"{source}:{i + 1}: expected ':param name => value;'")
            params[m.group(1)] = m.group(2).strip()
            i += 1
            continue
        start = i
        body_lines: list[str] = []
        while i < len(lines):
            body_lines.append(lines[i])
            if lines[i].rstrip().endswith(";"):
                break
            i += 1
        else:
            raise QueryFileError(f"{source}:{start + 1}: statement does not end with ';'")
        i += 1
        cypher = "\n".join(body_lines).rstrip().removesuffix(";").rstrip()
        if not number:
            raise QueryFileError(f"{source}:{start + 1}: no '// N. title' comment numbers this query")
        used = dict.fromkeys(PARAM_USE.findall(cypher))
        missing = [name for name in used if name not in params]
        if missing:
            raise QueryFileError(
                f"{source}:{start + 1}: ${missing[0]} is used before a ':param {missing[0]} => ...;' line"
            )
        queries.append(
            DocumentedQuery(
                number=number,
                title=title,
                description="\n".join(comment),
                cypher=cypher,
                line=start + 1,
                params={name: params[name] for name in used},
            )
        )
        comment, number, title = [], "", ""
    return queries


def load_queries(path: Path) -> list[DocumentedQuery]:
    """:func:`parse_queries` of a file; a missing file is a clear error, not a traceback."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as e:
        raise QueryFileError(f"cannot read {path}: {e.strerror or e}") from e
    return parse_queries(text, str(path))
