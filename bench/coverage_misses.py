"""Where ``concept(K).papers`` loses the papers whose authors listed K: every missed paper in one class.

Usage::

    python bench/coverage_misses.py [--data-dir ../shared/data] [--sets "COLM 2024" "3DV 2025"]
                                    [--cache FILE] [--examples 6] [--no-link-detail]
                                    [--added BASE_CACHE] [--sample 20] [--seed 25]

Why: the keyword-coverage target (issue 25: for the 25 most frequent author keywords of a dev
set, ``concept(K).papers`` holds >= 75% of the papers whose authors listed K) is read through the
API, but the cause of each miss sits in the paper's record. So this does what
``api.concept_eval`` does (each set alone in a new SQLite store, ``concept(name: K)`` through
the GraphQL schema) and, for every listed paper the answer misses, puts it in the first class
that fits, from its record and the store:

1. ``passing``: the record links K's concept or one below it (the store's narrower closure),
   but not ``about`` (a passing mention, or a PREDICTED concept under its bar);
2. ``not climbing``: an about link below K marked ``climbs: false``;
3. ``node ending in K``: about a concept *node* whose name ends in K's words (or the resolved
   concept's name), not under K ("automatic evaluation" for "evaluation");
4. ``phrase holding K``: a paper-only phrase (no node) with K's words inside, not at the end
   ("model bias" for "bias");
5. ``phrase ending in K, about`` / ``not about``: a paper-only phrase ending in K's words;
6. ``node holding K``: about a concept node with K's words inside, not at the end;
7. ``no link``: nothing with K's words. For these the script says what the paper has instead:
   whether its title and abstract hold K's words (stemmed), an acronym of K, and its top
   concepts.

Each class is printed with examples (the keyword, the paper's title, what it links instead).
Records are extracted in fast mode as ``kg ingest`` would (one ``Pipeline.build`` per set);
``--cache`` keeps them between runs (delete it after changing the extractor).

``--added BASE_CACHE`` (a ``--cache`` file written by another tree, e.g. the base commit): every
(concept, paper) link ``concept(K).papers`` lists with this tree's records but not with the
base's, for every concept that is a discovered ``BROADER`` parent and each ``--concept`` (the
links a placement rule adds), each set alone in its store; counted per concept and a random
``--sample`` printed with title, the paper's own link that climbs, and the abstract's start,
for judging by hand.
"""

from __future__ import annotations

import argparse
import pickle
import random
import re
import sys
import tempfile
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from api.concept_eval import DevSet, SchemaReader, concept_papers, extract, frequent_keywords  # noqa: E402
from bench.concepts import DEFAULT_DATA_DIR, DEV_SETS  # noqa: E402
from kg.core.config import Settings  # noqa: E402
from kg.core.models import PaperRecord, Relationship  # noqa: E402
from kg.core.names import loose_key, query_loose_key  # noqa: E402
from kg.eval.evaluation import load_eval_papers  # noqa: E402
from kg.read.resolve import resolve_concept  # noqa: E402
from kg.stores.protocol import CLOSURE_LIMIT  # noqa: E402
from kg.stores.sqlite import SQLiteStore  # noqa: E402

CLASSES = (
    "passing",
    "not climbing",
    "node ending in K",
    "phrase holding K",
    "phrase ending in K, about",
    "phrase ending in K, not about",
    "node holding K",
    "no link",
)


@dataclass
class Miss:
    """One paper K's concept does not list: why, and what the paper links instead."""

    keyword: str
    title: str
    why: str
    instead: str
    words_in_text: bool = False


@dataclass
class SetMisses:
    label: str
    listed: int = 0
    held: int = 0
    misses: list[Miss] = field(default_factory=list)
    # keyword -> (papers listing it, of those held, the concept it resolves to and its source)
    keywords: dict[str, tuple[int, int, str]] = field(default_factory=dict)

    @property
    def coverage(self) -> float:
        """Mean over the keywords of the share held (what ``api.concept_eval`` reports)."""
        shares = [100.0 * h / n for n, h, _ in self.keywords.values()]
        return sum(shares) / max(len(shares), 1)


def _ends(name: str, key: str) -> bool:
    return bool(key) and name != key and name.endswith(" " + key)


def _holds(name: str, key: str) -> bool:
    return bool(key) and f" {key} " in f" {name} " and not name.endswith(key)


def _stems(text: str) -> list[str]:
    return [w[:5] for w in re.findall(r"[a-z0-9]+", text.lower())]


def _mentions(record: PaperRecord) -> list[Relationship]:
    out = [r for r in record.relationships if r.type == "MENTIONS"]

    def score(r: Relationship) -> float:
        value = r.properties.get("score")
        return float(value) if isinstance(value, int | float) else 0.0

    return sorted(out, key=lambda r: -score(r))


def classify(
    record: PaperRecord,
    keyword: str,
    concept_name: str,
    closure: set[str],
    nodes: dict[str, bool],
    names: dict[str, str],
    text: str,
) -> tuple[str, str, bool]:
    """(class, what the paper links instead, whether its text holds K's words) of one missed paper."""
    keys = {query_loose_key(keyword), query_loose_key(concept_name)} - {""}
    rels = _mentions(record)
    below = [r for r in rels if r.end in closure]
    k_stems = _stems(keyword)
    t_stems = _stems(text)
    in_text = any(t_stems[i : i + len(k_stems)] == k_stems for i in range(len(t_stems)))
    if below and not any(r.properties.get("about") for r in below):
        r = below[0]
        return (
            "passing",
            f"{names.get(r.end, r.end)} (about: false, salience {r.properties.get('salience')})",
            in_text,
        )
    if below:
        return "not climbing", ", ".join(names.get(r.end, r.end) for r in below), in_text

    def first(test: object, node: bool, about: bool | None = True) -> Relationship | None:
        assert callable(test)
        for r in rels:
            name = loose_key(names.get(r.end, r.end))
            if nodes.get(r.end, False) != node or not any(test(name, k) for k in keys):
                continue
            if about is None or bool(r.properties.get("about")) == about:
                return r
        return None

    for why, test, node, about in (
        ("node ending in K", _ends, True, True),
        ("phrase holding K", _holds, False, None),
        ("phrase ending in K, about", _ends, False, True),
        ("phrase ending in K, not about", _ends, False, False),
        ("node holding K", _holds, True, True),
    ):
        hit = first(test, node, about)
        if hit is not None:
            flag = "about" if hit.properties.get("about") else "passing"
            return why, f"{names.get(hit.end, hit.end)} ({flag})", in_text
    top = [f"{names.get(r.end, r.end)}{'' if r.properties.get('about') else '*'}" for r in rels[:6]]
    return "no link", "top: " + ", ".join(top) + " (* = passing)", in_text


def set_misses(dev: DevSet, settings: Settings) -> SetMisses:
    """Every paper a top-25 keyword's concept misses in the set's own store, classified."""
    out = SetMisses(dev.label)
    by_id = {r.paper.id: (r, p) for r, p in zip(dev.records, dev.papers, strict=True)}
    with tempfile.TemporaryDirectory(prefix="kg-misses-") as tmp:
        store = SQLiteStore(Path(tmp))
        try:
            for i in range(0, len(dev.records), 500):
                store.upsert(dev.records[i : i + 500])
            reader = SchemaReader(store, settings)
            ids = {r.end for rec in dev.records for r in rec.relationships if r.type == "MENTIONS"}
            found = dict(zip(sorted(ids), store.get_nodes(sorted(ids)), strict=True))
            nodes = {i: n is not None for i, n in found.items()}
            names = {n.id: str(n.properties.get("name") or n.id) for rec in dev.records for n in rec.nodes}
            for keyword, listing in frequent_keywords(dev):
                held = concept_papers(reader, keyword) or set()
                node = resolve_concept(store, keyword)
                closure = set(store.narrower_closure(node.id, CLOSURE_LIMIT)) if node else set()
                cname = str(node.properties.get("name")) if node else keyword
                out.listed += len(listing)
                src = f"{cname} ({node.properties.get('source')})" if node else "null"
                out.keywords[keyword] = (len(listing), len(listing & held), src)
                out.held += len(listing & held)
                for pid in sorted(listing - held):
                    record, paper = by_id[pid]
                    text = f"{paper.title}. {paper.abstract}"
                    why, instead, in_text = classify(record, keyword, cname, closure, nodes, names, text)
                    out.misses.append(Miss(keyword, paper.title, why, instead, in_text))
        finally:
            store.close()
    return out


def _store(records: list[PaperRecord], tmp: str) -> SQLiteStore:
    store = SQLiteStore(Path(tmp))
    for i in range(0, len(records), 500):
        store.upsert(records[i : i + 500])
    return store


def added_links(
    dev: DevSet, base: list[PaperRecord], settings: Settings, also: Sequence[str] = ()
) -> list[tuple[str, str, str, str]]:
    """(parent, title, the paper's own about link below it, abstract) of each link the branch's
    records add to ``concept(parent).papers`` of a discovered parent (see the module doc)."""
    parents: set[str] = set(also)
    for rec in dev.records:
        nodes = {n.id: n for n in rec.nodes}
        for rel in rec.relationships:
            end = nodes.get(rel.end)
            if rel.type == "BROADER" and end is not None and end.properties.get("source") == "discovered":
                parents.add(str(end.properties.get("name")))
    papers = {r.paper.id: p for r, p in zip(dev.records, dev.papers, strict=True)}
    own = {r.paper.id: r for r in dev.records}
    out: list[tuple[str, str, str, str]] = []
    with (
        tempfile.TemporaryDirectory(prefix="kg-added-") as t1,
        tempfile.TemporaryDirectory(prefix="kg-added-") as t2,
    ):
        new, old = _store(dev.records, t1), _store(base, t2)
        try:
            rn, ro = SchemaReader(new, settings), SchemaReader(old, settings)
            for name in sorted(parents):
                node = resolve_concept(new, name)
                closure = set(new.narrower_closure(node.id, CLOSURE_LIMIT)) if node else set()
                for pid in sorted((concept_papers(rn, name) or set()) - (concept_papers(ro, name) or set())):
                    rec = own[pid]
                    names = {n.id: str(n.properties.get("name")) for n in rec.nodes}
                    why = [
                        names.get(r.end, r.end)
                        for r in _mentions(rec)
                        if r.end in closure and r.properties.get("about")
                    ]
                    paper = papers[pid]
                    out.append((name, paper.title, ", ".join(why), paper.abstract))
        finally:
            new.close()
            old.close()
    return out


def report(result: SetMisses, examples: int, no_link_detail: bool) -> None:
    by = defaultdict(list)
    for m in result.misses:
        by[m.why].append(m)
    share = 100.0 * result.held / max(result.listed, 1)
    print(
        f"\n== {result.label}: coverage {result.coverage:.1f}% (mean over the keywords); {result.held} of "
        f"{result.listed} (paper, keyword) pairs held ({share:.1f}%), {len(result.misses)} missed =="
    )
    for why in CLASSES:
        ms = by.get(why, [])
        print(f"  {why}: {len(ms)}  (keyword words in title+abstract: {sum(m.words_in_text for m in ms)})")
        for m in ms[: len(ms) if (why == "no link" and no_link_detail) else examples]:
            print(f"    [{m.keyword}] {m.title[:70]!r} -> {m.instead[:160]}")
    print("  keywords (held / listed, the concept K resolves to):")
    for k, (n, h, src) in sorted(result.keywords.items(), key=lambda kv: kv[1][1] / kv[1][0]):
        print(f"    {k}: {h}/{n} -> {src}")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data-dir", type=Path, default=DEFAULT_DATA_DIR)
    p.add_argument("--sets", nargs="+", default=["COLM 2024", "3DV 2025"], choices=sorted(DEV_SETS))
    p.add_argument("--cache", type=Path, default=None, help="keep the extracted records here")
    p.add_argument("--examples", type=int, default=6)
    p.add_argument("--no-link-detail", action="store_true", help="print every 'no link' paper")
    p.add_argument("--added", type=Path, default=None, help="the base tree's --cache: links added")
    p.add_argument("--concept", action="append", default=[], help="with --added: compare this one too")
    p.add_argument("--sample", type=int, default=20)
    p.add_argument("--seed", type=int, default=25)
    args = p.parse_args(argv)
    cached: dict[str, list[PaperRecord]] = {}
    if args.cache is not None and args.cache.exists():
        cached = pickle.loads(args.cache.read_bytes())
    settings = Settings(backend="sqlite")
    added: list[tuple[str, str, str, str, str]] = []
    for label in args.sets:
        papers = [q for name in DEV_SETS[label] for q in load_eval_papers(args.data_dir / name)]
        dev = DevSet(label, papers)
        if label not in cached:
            cached[label] = extract(papers)
            if args.cache is not None:
                args.cache.write_bytes(pickle.dumps(cached))
        dev.records = cached[label]
        report(set_misses(dev, settings), args.examples, args.no_link_detail)
        if args.added is not None:
            base = pickle.loads(args.added.read_bytes())[label]
            links = added_links(dev, base, settings, args.concept)
            added.extend((label, *link) for link in links)
    if args.added is not None:
        print(f"\n== links added to a discovered parent's papers: {len(added)} ==")
        per = Counter((label, parent) for label, parent, *_ in added)
        print("  " + ", ".join(f"{parent} ({label}) +{n}" for (label, parent), n in per.most_common()))
        sample = random.Random(args.seed).sample(added, min(args.sample, len(added)))
        for i, (label, parent, title, why, abstract) in enumerate(sample, 1):
            print(f"  {i}. [{label}] {parent} <- {why}: {title!r}\n     {abstract[:400]!r}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
