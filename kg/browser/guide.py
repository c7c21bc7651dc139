"""A Neo4j Browser guide (``:guide <url>``) generated from the graph it is about.

Why generated: a guide whose queries name things that are not in the graph shows empty frames,
and the names worth looking at (the concepts and the authors with the most papers, the real
topic roots and venues) are only known once the data is loaded. The queries themselves
are the documented ones of ``neo4j-browser/browser-queries.cypher`` (:mod:`kg.browser.queries`),
with their ``:param`` values replaced by names picked from the graph, so the guide, the file
and the test that runs the file agree.

The guide is one HTML file of ``<slide>`` sections; Neo4j Browser turns every
``<pre class="runnable">`` into a block that fills its editor when clicked. The Neo4j servers
of this repository serve it at ``/paperkg/guide.html`` (see ``neo4j-browser/README.md``).

Run it after an ingest::

    python -m kg.browser.guide --neo4j-uri bolt://127.0.0.1:7687 \\
        --out "$NEO4J_HOME/paperkg-browser/guide.html"
"""

from __future__ import annotations

import argparse
import html
import os
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kg.browser import guide_queries as gq
from kg.browser.queries import PARAM_USE, DocumentedQuery, QueryFileError, load_queries
from kg.core.errors import KGError

DEFAULT_QUERIES = Path("neo4j-browser/browser-queries.cypher")
# The picture stays readable up to about this many CO_OCCURS edges.
MAX_CO_OCCURS_EDGES = 150
PICKS = 5  # names listed per kind
VARIANTS = 2  # extra ready-made blocks per query, for the next picks

# The Browser colour of each concept kind (neo4j-browser/paperkg.grass), for the legend.
KIND_COLOURS: dict[str, tuple[str, str]] = {
    "Concept": ("#8DCC93", "#2A2C34"),
    "Method": ("#57C7E3", "#2A2C34"),
    "Task": ("#F16667", "#FFFFFF"),
    "Dataset": ("#C9A66B", "#2A2C34"),
    "Model": ("#DA7194", "#FFFFFF"),
    "Metric": ("#6A8CAF", "#FFFFFF"),
    "Paper": ("#4C8EDA", "#FFFFFF"),
    "Author": ("#F79767", "#2A2C34"),
    "Venue": ("#C990C0", "#FFFFFF"),
    "Topic": ("#FFC454", "#2A2C34"),
    "Institution": ("#8DCC93", "#2A2C34"),
}
# Which parameter of the documented queries each pick list fills.
PARAM_PICKS = {"name": "concepts", "author": "authors", "topic": "roots", "venue": "venues"}
SLIDES: tuple[tuple[str, str, str], ...] = (
    ("0", "Concepts", "The concepts with the most papers and their neighbourhoods."),
    ("1", "Concepts", "The concepts with the most papers and their neighbourhoods."),
    ("2", "Concepts that occur together", "Pairs of concepts that share papers."),
    ("3", "Co-authors", "Who writes with whom; edge captions count joint papers."),
    ("4", "Topics", "The topic hierarchy of the listings."),
    ("5", "Venues", "Venue editions and their papers."),
)


class GuideError(KGError):
    """The guide cannot be generated (no graph, unreadable query file, unreachable server)."""


@dataclass(frozen=True)
class Pick:
    """One name offered by the guide, with the counts shown next to it (role: guide payload)."""

    name: str
    detail: str


@dataclass
class GuidePicks:
    """Everything the guide shows that comes from the graph (role: guide payload)."""

    label_counts: dict[str, int] = field(default_factory=dict)
    concepts: list[Pick] = field(default_factory=list)
    authors: list[Pick] = field(default_factory=list)
    roots: list[Pick] = field(default_factory=list)
    venues: list[Pick] = field(default_factory=list)
    min_weight: int = 1
    co_occurs_edges: int = 0

    def names(self, param: str) -> list[str]:
        """The picked names that can fill ``$param`` (empty: keep the file's default)."""
        kind = PARAM_PICKS.get(param)
        picks: list[Pick] = getattr(self, kind) if kind else []
        return [p.name for p in picks]


def choose_min_weight(pairs_by_weight: Mapping[int, int], max_edges: int = MAX_CO_OCCURS_EDGES) -> int:
    """The smallest CO_OCCURS weight that keeps at most ``max_edges`` edges (at least one).

    >>> choose_min_weight({1: 1531, 2: 41, 3: 1, 4: 2})
    2
    >>> choose_min_weight({1: 5})
    1
    >>> choose_min_weight({})
    1
    """
    kept = 0
    best = max(pairs_by_weight, default=1)
    for weight in sorted(pairs_by_weight, reverse=True):
        if kept + pairs_by_weight[weight] > max_edges and kept > 0:
            break
        kept += pairs_by_weight[weight]
        best = weight
    return max(best, 1)


def cypher_string(value: str) -> str:
    """A Cypher string literal (single quotes, backslash escapes).

    >>> cypher_string("O'Brien")
    "'O\\\\'Brien'"
    """
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"


def runnable(query: DocumentedQuery, overrides: Mapping[str, str]) -> str:
    """``query`` with every ``$param`` replaced by its value (overridden, else the file's).

    Literal values rather than ``:param`` lines: Browser runs a block with several statements
    in multi-statement mode, which lists the statements instead of drawing the picture.
    """
    values = {name: overrides.get(name, expr) for name, expr in query.params.items()}
    text = PARAM_USE.sub(lambda m: values.get(m.group(1), m.group(0)), query.cypher)
    return text + ";"


def _overrides(query: DocumentedQuery, picks: GuidePicks, index: int = 0) -> dict[str, str]:
    out: dict[str, str] = {}
    for name in query.params:
        names = picks.names(name)
        if len(names) > index:
            out[name] = cypher_string(names[index])
        if name == "minWeight":
            out[name] = str(picks.min_weight)
    return out


def guide_blocks(queries: Sequence[DocumentedQuery], picks: GuidePicks) -> list[tuple[DocumentedQuery, str]]:
    """Every runnable block of the guide, with the documented query it comes from."""
    blocks: list[tuple[DocumentedQuery, str]] = []
    for q in queries:
        blocks.append((q, runnable(q, _overrides(q, picks))))
        varied = _varied_param(q, picks)
        if varied is not None:
            others = picks.names(varied)[1 : 1 + VARIANTS]
            blocks += [(q, runnable(q, _overrides(q, picks, i + 1))) for i in range(len(others))]
    return blocks


def _varied_param(query: DocumentedQuery, picks: GuidePicks) -> str | None:
    return next((p for p in query.params if len(picks.names(p)) > 1), None)


def _pre(text: str) -> str:
    return f'<pre class="runnable">{html.escape(text)}</pre>'


def _description(query: DocumentedQuery) -> str:
    body = query.description.split("\n")[1:]
    return html.escape(" ".join(line.strip() for line in body))


def _query_html(query: DocumentedQuery, picks: GuidePicks) -> str:
    parts = [f"<h4>{html.escape(query.number)}. {html.escape(query.title)}</h4>"]
    if desc := _description(query):
        parts.append(f"<p>{desc}</p>")
    parts.append(_pre(runnable(query, _overrides(query, picks))))
    varied = _varied_param(query, picks)
    if varied is not None:
        others = picks.names(varied)[1 : 1 + VARIANTS]
        blocks = [
            f"<p>${html.escape(varied)} = {html.escape(name)}:</p>"
            + _pre(runnable(query, _overrides(query, picks, i + 1)))
            for i, name in enumerate(others)
        ]
        summary = "The same for " + ", ".join(html.escape(n) for n in others)
        parts.append(f"<details><summary>{summary}</summary>{''.join(blocks)}</details>")
    return "\n".join(parts)


def _pick_list(title: str, picks: Sequence[Pick]) -> str:
    if not picks:
        return ""
    items = "".join(
        f"<li><b>{html.escape(p.name)}</b> <small>({html.escape(p.detail)})</small></li>" for p in picks
    )
    return f"<p>{html.escape(title)}:</p><ul>{items}</ul>"


def _legend(counts: Mapping[str, int]) -> str:
    cells = []
    for label, (bg, fg) in KIND_COLOURS.items():
        if counts.get(label):
            cells.append(
                f'<span style="background:{bg};color:{fg};border-radius:10px;padding:2px 8px;'
                f'margin:2px;display:inline-block">{html.escape(label)} {counts[label]}</span>'
            )
    return "".join(cells)


def _intro_slide(picks: GuidePicks) -> str:
    papers = picks.label_counts.get("Paper", 0)
    return (
        "<slide>\n<h3>paperkg: the graph in this database</h3>\n"
        f"<p>{papers} papers. Nodes by label (colours as in the pictures; a concept's kind is its "
        f"second label):</p>\n<p>{_legend(picks.label_counts)}</p>\n"
        "<p>Click a grey block to copy its query into the editor, then run it (Ctrl+Enter). "
        "The blocks are the queries of <code>neo4j-browser/browser-queries.cypher</code> with "
        "names picked from this graph in place of their <code>$parameters</code>; edit them to "
        "look at something else.</p>\n"
        "<p>Graph pictures show exactly what the query returns: the queries return virtual "
        "copies of the selected nodes and relationships, so Browser adds no edges of its own "
        "(whatever <i>Connect result nodes</i> says) and internal labels and properties stay "
        "hidden. Node size and colour come from the paperkg style, loaded when you connected "
        "(<code>:style</code> shows it).</p>\n"
        "<p>Co-author (<code>COAUTHOR</code>) and co-occurrence (<code>CO_OCCURS</code>) ties have "
        "no direction: Neo4j Browser draws every relationship with an arrowhead, and on these it "
        "means nothing (it points from the smaller id to the larger).</p>\n</slide>"
    )


def _slide(title: str, lead: str, body: str) -> str:
    return f"<slide>\n<h3>{html.escape(title)}</h3>\n<p>{html.escape(lead)}</p>\n{body}\n</slide>"


def render_guide(queries: Sequence[DocumentedQuery], picks: GuidePicks) -> str:
    """The guide's HTML: an overview slide, then one slide per group of documented queries."""
    groups: dict[str, list[DocumentedQuery]] = {}
    for q in queries:
        groups.setdefault(q.number[0], []).append(q)
    pick_lists = {
        "1": _pick_list(
            "Most papers (about it or a narrower concept, as the explorer counts)", picks.concepts
        ),
        "2": f"<p>$minWeight = {picks.min_weight} keeps {picks.co_occurs_edges} pairs.</p>",
        "3": _pick_list("Authors with the most papers", picks.authors),
        "4": _pick_list("Root topics", picks.roots),
        "5": _pick_list("Venues", picks.venues),
    }
    slides = [_intro_slide(picks)]
    merged: dict[str, list[DocumentedQuery]] = {}
    for key, group in groups.items():
        merged.setdefault("1" if key == "0" else key, []).extend(group)
    titles = {key: (title, lead) for key, title, lead in SLIDES}
    for key, group in merged.items():
        title, lead = titles.get(key, (group[0].title, ""))
        body = pick_lists.get(key, "") + "\n" + "\n".join(_query_html(q, picks) for q in group)
        slides.append(_slide(title, lead, body))
    papers = picks.label_counts.get("Paper", 0)
    return (
        '<!DOCTYPE html>\n<html><head><meta charset="utf-8">'
        f'<title>paperkg ({papers} papers)</title></head>\n<body>\n<article class="guide">\n'
        + "\n".join(slides)
        + "\n</article>\n</body></html>\n"
    )


def read_picks(session: Any, limit: int = PICKS) -> GuidePicks:
    """The guide's names and counts, read with ``session`` (a ``neo4j.Session``)."""

    def rows(query: gq.GuideQuery) -> list[dict[str, Any]]:
        text, params = query
        return [dict(r) for r in session.run(text, params)]

    weights = {int(r["weight"]): int(r["pairs"]) for r in rows(gq.co_occurs_weights())}
    min_weight = choose_min_weight(weights)
    return GuidePicks(
        label_counts={r["label"]: int(r["nodes"]) for r in rows(gq.label_counts())},
        concepts=[
            Pick(r["name"], f"{str(r['kind']).lower()}, {r['papers']} papers")
            for r in rows(gq.top_concepts(limit))
        ],
        authors=[
            Pick(r["name"], f"{r['coauthors']} co-authors, {r['papers']} papers")
            for r in rows(gq.top_authors(limit))
        ],
        roots=[
            Pick(r["name"], f"{r['subtopics']} subtopics, {r['papers']} papers")
            for r in rows(gq.topic_roots(limit))
        ],
        venues=[Pick(r["name"], f"{r['papers']} papers") for r in rows(gq.venues(limit))],
        min_weight=min_weight,
        co_occurs_edges=sum(n for w, n in weights.items() if w >= min_weight),
    )


def generate(driver: Any, queries_file: Path, database: str | None = None) -> str:
    """The guide for the graph behind ``driver`` (a ``neo4j.Driver``)."""
    queries = load_queries(queries_file)
    with driver.session(database=database) as session:
        picks = read_picks(session)
    if not picks.label_counts.get("Paper"):
        raise GuideError("the graph has no papers: run `kg ingest --backend neo4j ...` first")
    return render_guide(queries, picks)


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m kg.browser.guide",
        description="Write a Neo4j Browser guide whose queries name things in the loaded graph.",
    )
    p.add_argument("--neo4j-uri", default=os.environ.get("KG_NEO4J_URI", "bolt://127.0.0.1:7687"))
    p.add_argument("--neo4j-user", default=os.environ.get("KG_NEO4J_USER", "neo4j"))
    p.add_argument("--neo4j-password", default=os.environ.get("KG_NEO4J_PASSWORD", ""))
    p.add_argument("--neo4j-database", default=os.environ.get("KG_NEO4J_DATABASE") or None)
    p.add_argument("--queries", type=Path, default=DEFAULT_QUERIES, help="the documented queries")
    p.add_argument("--out", type=Path, help="output file (default: stdout)")
    return p


def run(args: argparse.Namespace) -> int:
    """Generate the guide for ``args`` (see :func:`_parser`); 0 on success, 1 with a message."""
    import neo4j

    from kg.stores.neo4j.store import translate_error

    auth = (args.neo4j_user, args.neo4j_password) if args.neo4j_password else None
    try:
        with neo4j.GraphDatabase.driver(args.neo4j_uri, auth=auth) as driver:
            text = generate(driver, args.queries, args.neo4j_database)
    except (QueryFileError, GuideError) as e:
        sys.stderr.write(f"error: {e}\n")
        return 1
    except (neo4j.exceptions.Neo4jError, neo4j.exceptions.DriverError, ValueError) as e:
        sys.stderr.write(f"error: {translate_error(e, args.neo4j_uri, args.neo4j_user)}\n")
        return 1
    if args.out is None:
        sys.stdout.write(text)
        return 0
    try:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text, encoding="utf-8")
    except OSError as e:
        sys.stderr.write(f"error: cannot write {args.out}: {e.strerror or e}\n")
        return 1
    sys.stderr.write(f"wrote {args.out}\n")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m kg.browser.guide``."""
    return run(_parser().parse_args(argv))


if __name__ == "__main__":
    raise SystemExit(main())
