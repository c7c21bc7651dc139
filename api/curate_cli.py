"""``kg curate``: record a correction of author identity or of a concept and apply it at once.

Each verb appends one decision to the curations file (:mod:`kg.curation.decisions`; default
``curations.jsonl`` in the data dir, ``--curations PATH`` for another) and re-resolves the names
it concerns from the store's slots with every recorded decision applied, so the store shows it
immediately; ``kg ingest`` applies the same file to every later ingest, so the decision survives
a rebuilt store. A concept verb rewrites the stored links of the concepts it names by the rule
every ingest applies (:mod:`kg.curation.concept_apply`). ``kg curate list`` prints the decisions.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path
from typing import Any

from kg.authors.ingest import Collected, prepare
from kg.authors.institutions import sync as sync_institutions
from kg.core.config import Settings
from kg.core.ids import fold
from kg.curation.concept_apply import apply_now as apply_concept_now
from kg.curation.concept_apply import concepts, names_of
from kg.curation.concept_rewrite import CONCEPT_VERBS, HIDE, MERGE, PLACE
from kg.curation.decisions import FILE_NAME, Curation, CurationError, load, record
from kg.stores.protocol import GraphStore, ReadStore


def curations_path(args: argparse.Namespace, settings: Settings) -> Path:
    """``--curations PATH``, else ``curations.jsonl`` next to the embedded store (the data dir)."""
    given: Path | None = getattr(args, "curations", None)
    return given if given is not None else settings.data_dir / FILE_NAME


def add_parser(sub: argparse._SubParsersAction[Any], store_flags: Callable[..., None]) -> None:
    """The ``curate`` subcommand and its verbs."""
    p = sub.add_parser(
        "curate", help="record a correction of author identity or a concept (re-applied by every ingest)"
    )
    verbs = p.add_subparsers(dest="verb", required=True)
    v = verbs.add_parser("merge-authors", help="these Authors are one person (the first id is kept)")
    v.add_argument("ids", nargs="+", metavar="ID")
    v = verbs.add_parser("split-author", help="these papers of an Author are another person")
    v.add_argument("id", metavar="ID")
    v.add_argument("--papers", nargs="+", required=True, metavar="PAPER_ID")
    v = verbs.add_parser("rename-author", help="show this Author under another name")
    v.add_argument("id", metavar="ID")
    v.add_argument("name", metavar="NAME")
    v = verbs.add_parser(
        MERGE, help="these Concepts are one (the first id is kept, the others' names become aliases)"
    )
    v.add_argument("ids", nargs="+", metavar="ID")
    v = verbs.add_parser(HIDE, help="leave this Concept and its links out of the graph")
    v.add_argument("id", metavar="ID")
    v = verbs.add_parser(PLACE, help="this Concept's one broader concept is PARENT_ID")
    v.add_argument("id", metavar="ID")
    v.add_argument("parent", metavar="PARENT_ID")
    verbs.add_parser("list", help="print the recorded decisions")
    for child in verbs.choices.values():
        child.add_argument(
            "--curations", type=Path, help=f"the curations file (default: DATA_DIR/{FILE_NAME})"
        )
        store_flags(child)


def curation_of(args: argparse.Namespace) -> Curation:
    if args.verb == "merge-authors":
        if len(set(args.ids)) < 2:
            raise CurationError("merge-authors needs two or more different ids")
        return Curation("merge-authors", tuple(args.ids))
    if args.verb == "split-author":
        return Curation("split-author", (args.id,), tuple(args.papers))
    if not args.name.strip():
        raise CurationError("rename-author needs a non-empty name")
    return Curation("rename-author", (args.id,), name=args.name.strip())


def concept_curation(store: ReadStore, args: argparse.Namespace) -> Curation:
    """The concept decision of ``args``, with the names the store shows (refused for an id that
    is no stored Concept, before anything is recorded)."""
    if args.verb == MERGE:
        if len(set(args.ids)) < 2:
            raise CurationError("merge-concepts needs two or more different ids")
        ids = tuple(dict.fromkeys(args.ids))
        nodes = concepts(store, ids)
        kept = names_of(nodes[0])
        others = sorted({n for node in nodes[1:] for n in names_of(node)} - set(kept[:1]))
        return Curation(MERGE, ids, name=kept[0] if kept else None, aliases=tuple(others))
    if args.verb == HIDE:
        concepts(store, [args.id])
        return Curation(HIDE, (args.id,))
    if args.id == args.parent:
        raise CurationError("place-concept needs a parent other than the concept itself")
    parent = concepts(store, [args.id, args.parent])[1]
    name = names_of(parent)
    return Curation(PLACE, (args.id, args.parent), name=name[0] if name else None)


def apply_now(store: GraphStore, curation: Curation, curations: list[Curation]) -> int:
    """Re-resolve the names of the Authors ``curation`` concerns with ``curations``; returns the
    number of stored slots moved. Unknown ids are refused before anything is recorded."""
    nodes = store.get_nodes(list(curation.ids))
    names: set[str] = set()
    for author, node in zip(curation.ids, nodes, strict=True):
        if node is None or node.label != "Author":
            raise CurationError(
                f"no Author {author!r} in the store (ids look like author:openreview:~Ada_Lovelace1)"
            )
        for value in (node.properties.get("name"), *(_list(node.properties.get("aliases")))):
            if isinstance(value, str):
                names.add(fold(value))
    collected = Collected()
    collected.names = names
    moved = prepare(store, collected, curations).moved
    if moved:
        sync_institutions(store)  # affiliations follow the slots to their new Authors
    return moved


def _list(value: object) -> list[object]:
    return list(value) if isinstance(value, list) else []


def run(
    args: argparse.Namespace,
    settings: Settings,
    open_store: Callable[[Settings], ReadStore],
    out: Callable[[str], None],
) -> int:
    """``kg curate VERB ...``."""
    path = curations_path(args, settings)
    recorded = load(path)
    if args.verb == "list":
        for number, c in enumerate(recorded, start=1):
            out(f"{number}. {c.describe()}")
        out(f"{len(recorded)} decision(s) in {path}")
        return 0
    if args.verb in CONCEPT_VERBS:
        store = open_store(settings)
        try:
            curation = concept_curation(store, args)
            done = apply_concept_now(store, curation, [*recorded, curation])
        finally:
            store.close()
        record(path, curation)
        out(
            f"recorded in {path}: {curation.describe()}; {done.removed} concept(s) removed, "
            f"{done.cut} link(s) replaced or dropped"
        )
        return 0
    curation = curation_of(args)
    store = open_store(settings)
    try:
        moved = apply_now(store, curation, [*recorded, curation])
    finally:
        store.close()
    record(path, curation)
    out(f"recorded in {path}: {curation.describe()}; {moved} paper slot(s) moved")
    return 0
