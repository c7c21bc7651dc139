"""Validate the curated concept vocabulary (``extractors/data/concepts.json``).

Checks (any failure makes the script exit with status 1):

* schema: ``{"version": 1, "concepts": [...]}``; every concept has exactly the keys
  ``name``, ``kind``, ``aliases``, ``broader`` with the right types, and ``kind`` is one
  of CONCEPT, METHOD, TASK, DATASET, MODEL, METRIC;
* concept names are unique, also after normalisation;
* every alias (and name) maps to exactly one concept after normalisation
  (lowercase, hyphens/whitespace collapsed, simple and irregular plural stripping);
* every ``broader`` target is the name of a concept in the file, the link can be is-a by
  the two kinds (:func:`is_a_kinds`: BROADER never means uses-a or related-to), and the
  ``broader`` relation has no cycles (it must be a DAG).

Soft checks are reported as warnings (errors with ``--strict``): very short aliases that
are not on the allow-list of well-known acronyms, and generic words ("model",
"method", ...) used as a name or alias.

Usage::

    python scripts/check_vocabulary.py [path/to/concepts.json] [--strict]
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from extractors.concepts.vocabulary import is_a_kinds  # noqa: E402

DEFAULT_PATH = Path(__file__).resolve().parent.parent / "extractors" / "data" / "concepts.json"
KINDS = ("CONCEPT", "METHOD", "TASK", "DATASET", "MODEL", "METRIC")
CONCEPT_KEYS = frozenset({"name", "kind", "aliases", "broader"})
TOP_LEVEL_KEYS = frozenset({"version", "concepts"})
SUPPORTED_VERSION = 1

MIN_ALIAS_LEN = 3
# Well-known short acronyms that may be used as aliases despite being < 3 characters.
SHORT_ALIAS_ALLOWLIST = frozenset({"AI", "ML", "RL", "GP", "GD", "KL", "LM", "QA", "F1", "LP", "KG"})
# Generic words that must never be a concept name or alias.
GENERIC_TERMS = frozenset(
    {
        "model",
        "method",
        "approach",
        "framework",
        "result",
        "performance",
        "this paper",
        "state of the art",
        "algorithm",
        "data",
        "learning",
        "task",
        "problem",
        "analysis",
        "experiment",
        "network",
        "system",
        "efficiency",
        "technique",
        "application",
        "paper",
        "work",
        "study",
        "evaluation",
        "benchmark",
        "dataset",
    },
)

_IRREGULAR = {
    "equilibria": "equilibrium",
    "hypotheses": "hypothesis",
    "bases": "basis",
    "analyses": "analysis",
    "matrices": "matrix",
    "vertices": "vertex",
    "indices": "index",
    "criteria": "criterion",
    "phenomena": "phenomenon",
    "optima": "optimum",
    "maxima": "maximum",
    "minima": "minimum",
    "axes": "axis",
    "biases": "bias",
    "aliases": "alias",
    "caches": "cache",
}
_INVARIANT = frozenset({"series", "species", "bayes", "news", "lens", "chaos", "gauss"})
_KEEP_S = ("ss", "us", "is", "as", "ics")
_MIN_PLURAL_LEN = 4
_SEP = re.compile(r"[\s\-\u2010-\u2015_/]+")


def _singular(token: str) -> str:
    if token in _IRREGULAR:
        return _IRREGULAR[token]
    if token in _INVARIANT or len(token) < _MIN_PLURAL_LEN:
        return token
    if not token.endswith("s") or token.endswith(_KEEP_S):
        return token
    if token.endswith("ies") and len(token) > _MIN_PLURAL_LEN:
        return token[:-3] + "y"
    if token.endswith(("sses", "xes", "ches", "shes")):
        return token[:-2]
    return token[:-1]


def normalise(term: str) -> str:
    """Return the comparison key of a surface form.

    Lowercase, hyphens/dashes/underscores/slashes/whitespace collapsed to one space,
    and every token reduced to a crude singular ("LLMs" -> "llm", "equilibria" ->
    "equilibrium", "multi-armed bandits" -> "multi armed bandit").
    """
    tokens = [t for t in _SEP.split(term.strip().lower()) if t]
    return " ".join(_singular(t) for t in tokens)


class Report:
    """Collects errors and warnings."""

    def __init__(self) -> None:
        """Start with no findings."""
        self.errors: list[str] = []
        self.warnings: list[str] = []

    def error(self, message: str) -> None:
        """Record a hard failure."""
        self.errors.append(message)

    def warn(self, message: str) -> None:
        """Record a soft finding."""
        self.warnings.append(message)


def _is_clean_string(value: object) -> bool:
    return isinstance(value, str) and bool(value) and value == value.strip() and "  " not in value


def _check_string_list(where: str, field: str, value: object, report: Report) -> list[str]:
    if not isinstance(value, list):
        report.error(f"{where}: '{field}' must be a list of strings")
        return []
    items: list[str] = []
    for item in value:
        if not _is_clean_string(item):
            report.error(f"{where}: '{field}' entry {item!r} must be a non-empty trimmed string")
            continue
        items.append(item)
    for item, count in Counter(items).items():
        if count > 1:
            report.error(f"{where}: '{field}' lists {item!r} {count} times")
    return items


def check_schema(payload: object, report: Report) -> list[dict[str, Any]]:
    """Check the file structure; return the concepts that are well-formed enough to use."""
    if not isinstance(payload, dict):
        report.error("top level must be a JSON object")
        return []
    keys = set(payload)
    if keys != TOP_LEVEL_KEYS:
        report.error(f"top-level keys must be {sorted(TOP_LEVEL_KEYS)}, got {sorted(keys)}")
    version = payload.get("version")
    if type(version) is not int or version != SUPPORTED_VERSION:
        report.error(f"'version' must be the integer {SUPPORTED_VERSION}, got {version!r}")
    concepts = payload.get("concepts")
    if not isinstance(concepts, list):
        report.error("'concepts' must be a list")
        return []

    good: list[dict[str, Any]] = []
    for index, concept in enumerate(concepts):
        where = f"concepts[{index}]"
        if not isinstance(concept, dict):
            report.error(f"{where}: must be an object")
            continue
        name = concept.get("name")
        if _is_clean_string(name):
            where = f"{where} {name!r}"
        else:
            report.error(f"{where}: 'name' must be a non-empty trimmed string, got {name!r}")
            continue
        if set(concept) != CONCEPT_KEYS:
            report.error(f"{where}: keys must be {sorted(CONCEPT_KEYS)}, got {sorted(concept)}")
        kind = concept.get("kind")
        if kind not in KINDS:
            report.error(f"{where}: 'kind' must be one of {', '.join(KINDS)}, got {kind!r}")
        aliases = _check_string_list(where, "aliases", concept.get("aliases", []), report)
        broader = _check_string_list(where, "broader", concept.get("broader", []), report)
        good.append({"name": name, "kind": kind, "aliases": aliases, "broader": broader})
    return good


def check_names(concepts: list[dict[str, Any]], report: Report) -> None:
    """Concept names are unique, exactly and after normalisation."""
    exact = Counter(c["name"] for c in concepts)
    for name, count in sorted(exact.items()):
        if count > 1:
            report.error(f"duplicate concept name {name!r} ({count} times)")
    by_key: defaultdict[str, set[str]] = defaultdict(set)
    for concept in concepts:
        by_key[normalise(concept["name"])].add(concept["name"])
    for key, names in sorted(by_key.items()):
        if len(names) > 1:
            listed = ", ".join(repr(n) for n in sorted(names))
            report.error(f"concept names {listed} are the same after normalisation ({key!r})")


def check_surface_forms(concepts: list[dict[str, Any]], report: Report) -> None:
    """Every name and alias maps to exactly one concept after normalisation."""
    owners: defaultdict[str, dict[str, list[str]]] = defaultdict(dict)
    for concept in concepts:
        name = concept["name"]
        for surface in [name, *concept["aliases"]]:
            key = normalise(surface)
            if not key:
                report.error(f"{name!r}: surface form {surface!r} normalises to nothing")
                continue
            owners[key].setdefault(name, []).append(surface)

    for key, by_concept in sorted(owners.items()):
        if len(by_concept) > 1:
            detail = "; ".join(
                f"{concept!r} via {', '.join(repr(s) for s in surfaces)}"
                for concept, surfaces in sorted(by_concept.items())
            )
            report.error(f"surface form {key!r} maps to {len(by_concept)} concepts: {detail}")


def check_soft_rules(concepts: list[dict[str, Any]], report: Report) -> None:
    """Short and generic aliases."""
    for concept in concepts:
        name = concept["name"]
        if normalise(name) in GENERIC_TERMS:
            report.warn(f"{name!r}: generic word used as a concept name")
        for alias in concept["aliases"]:
            compact = alias.replace(" ", "")
            if len(compact) < MIN_ALIAS_LEN and alias not in SHORT_ALIAS_ALLOWLIST:
                report.warn(f"{name!r}: very short alias {alias!r} (not on the allow-list)")
            if normalise(alias) in GENERIC_TERMS:
                report.warn(f"{name!r}: generic word {alias!r} used as an alias")


def check_broader(concepts: list[dict[str, Any]], report: Report) -> dict[str, list[str]]:
    """Every broader target exists and is not the concept itself; return the edge map."""
    names = {c["name"] for c in concepts}
    kinds = {c["name"]: c["kind"] for c in concepts}
    edges: dict[str, list[str]] = {}
    for concept in concepts:
        name = concept["name"]
        targets: list[str] = []
        for target in concept["broader"]:
            if target == name:
                report.error(f"{name!r}: lists itself as broader")
            elif target not in names:
                report.error(f"{name!r}: broader target {target!r} is not a concept name")
            else:
                if not is_a_kinds(name, concept["kind"], kinds[target]):
                    report.error(
                        f"{name!r} ({concept['kind']}) -> {target!r} ({kinds[target]}): "
                        "BROADER is is-a only (a dataset is not a task, a named model not a method)"
                    )
                targets.append(target)
        edges[name] = targets
    return edges


def find_cycle(edges: dict[str, list[str]]) -> list[str] | None:
    """Return one cycle of the broader relation as a path, or ``None`` if it is a DAG."""
    white, grey, black = 0, 1, 2
    colour = dict.fromkeys(edges, white)
    for start in sorted(edges):
        if colour[start] != white:
            continue
        path = [start]
        stack = [iter(edges[start])]
        colour[start] = grey
        while stack:
            nxt = next(stack[-1], None)
            if nxt is None:
                colour[path.pop()] = black
                stack.pop()
            elif colour.get(nxt, black) == grey:
                return [*path[path.index(nxt) :], nxt]
            elif colour.get(nxt, black) == white:
                colour[nxt] = grey
                path.append(nxt)
                stack.append(iter(edges[nxt]))
    return None


def depth_stats(edges: dict[str, list[str]]) -> tuple[int, int]:
    """Return ``(number of roots, maximum depth)`` of an acyclic broader relation."""
    memo: dict[str, int] = {}

    def depth(name: str) -> int:
        if name not in memo:
            memo[name] = 1 + max((depth(t) for t in edges[name]), default=-1)
        return memo[name]

    roots = sum(1 for targets in edges.values() if not targets)
    return roots, max((depth(n) for n in edges), default=0)


def print_summary(concepts: list[dict[str, Any]], edges: dict[str, list[str]] | None) -> None:
    """Print counts by kind and a few structural figures."""
    kinds = Counter(c["kind"] for c in concepts)
    print("concepts by kind:")  # noqa: T201
    for kind in KINDS:
        print(f"  {kind:<8} {kinds.get(kind, 0):5d}")  # noqa: T201
    invalid = len(concepts) - sum(kinds.get(kind, 0) for kind in KINDS)
    if invalid:
        print(f"  {'invalid':<8} {invalid:5d}")  # noqa: T201
    print(f"  {'total':<8} {len(concepts):5d}")  # noqa: T201
    aliases = sum(len(c["aliases"]) for c in concepts)
    print(f"aliases: {aliases}")  # noqa: T201
    if edges is not None:
        roots, max_depth = depth_stats(edges)
        links = sum(len(t) for t in edges.values())
        print(f"broader links: {links}; roots: {roots}; max depth: {max_depth}")  # noqa: T201


def validate(path: Path, *, strict: bool = False) -> int:
    """Validate ``path``; print findings and a summary; return the exit status."""
    try:
        payload = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        print(f"error: {path} does not exist", file=sys.stderr)  # noqa: T201
        return 2
    except json.JSONDecodeError as exc:
        print(f"error: {path} is not valid JSON: {exc}", file=sys.stderr)  # noqa: T201
        return 2

    report = Report()
    concepts = check_schema(payload, report)
    check_names(concepts, report)
    check_surface_forms(concepts, report)
    check_soft_rules(concepts, report)
    edges = check_broader(concepts, report)
    cycle = find_cycle(edges)
    if cycle is not None:
        report.error(f"cycle in broader: {' -> '.join(repr(n) for n in cycle)}")

    if strict:
        report.errors.extend(report.warnings)
        report.warnings = []
    for message in report.warnings:
        print(f"warning: {message}", file=sys.stderr)  # noqa: T201
    for message in report.errors:
        print(f"error: {message}", file=sys.stderr)  # noqa: T201

    print_summary(concepts, edges if cycle is None else None)
    if report.errors:
        print(f"FAILED: {len(report.errors)} error(s) in {path}", file=sys.stderr)  # noqa: T201
        return 1
    print(f"OK: {path} ({len(report.warnings)} warning(s))")  # noqa: T201
    return 0


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("path", nargs="?", type=Path, default=DEFAULT_PATH)
    parser.add_argument("--strict", action="store_true", help="treat warnings as errors")
    args = parser.parse_args(argv)
    return validate(args.path, strict=args.strict)


if __name__ == "__main__":
    raise SystemExit(main())
