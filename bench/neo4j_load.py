"""Neo4j load benchmark: batched store upserts against one paper per transaction.

Usage::

    python bench/neo4j_load.py [--uri bolt://127.0.0.1:7687] [--papers 10000]
                               [--batch-sizes 500 2000] [--per-paper 1000] [--runs 3] [--yes]

Builds a corpus of ``--papers`` distinct papers from ``--data-dir`` (*.jsonl) plus
``examples/listings`` (recombined with a "(variant k)" suffix when the files hold fewer),
extracts their records once with the fast pipeline, then times loading those records into a
cleared database: (a) ``Neo4jStore.upsert`` in batches of each ``--batch-sizes``, and (b) one
paper per transaction (``upsert([record])``) on the first ``--per-paper`` records, extrapolated
per paper. Each figure is the median of ``--runs`` runs; the database is cleared before each.

It also times a **floor**: the same graph (every distinct node and relationship of the records,
derived pairs aggregated over the whole corpus) written with nothing but ``CREATE`` statements,
10,000 rows per transaction, no reads and no merge planning. No transactional loader can do
less work for this graph, so the floor's papers/s is the most this server and machine allow;
the store's figure is compared with it.

**It deletes everything in the target database**; ``--yes`` is required when it is not empty.
Credentials come from ``KG_NEO4J_USER`` / ``KG_NEO4J_PASSWORD`` like the CLI.
"""

from __future__ import annotations

import argparse
import dataclasses
import itertools
import json
import os
import platform
import statistics
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import neo4j  # noqa: E402

from kg import neo4j_queries as q  # noqa: E402
from kg.config import Settings  # noqa: E402
from kg.derived import top_concepts  # noqa: E402
from kg.merge import merge_properties  # noqa: E402
from kg.models import PaperRecord, RawPaper  # noqa: E402
from kg.nlp import load_nlp  # noqa: E402
from kg.pipeline import Pipeline  # noqa: E402
from kg.readers import read_file  # noqa: E402
from kg.stores.neo4j.store import Neo4jStore, _db_node_properties  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATA_DIR = Path(__file__).resolve().parents[1].parent / "shared" / "data"
OUT = ROOT / "bench" / "out" / "neo4j_load.json"


def build_corpus(data_dir: Path, target: int) -> tuple[list[RawPaper], int]:
    """Raw papers from the data files and seed listings, plus suffixed variants; (papers, originals)."""
    base: list[RawPaper] = []
    for path in [*sorted(data_dir.glob("*.jsonl")), *sorted((ROOT / "examples" / "listings").iterdir())]:
        base.extend(read_file(path).papers)
    papers = list(base)
    k = 2
    while len(papers) < target * 1.02:  # a few percent spare for duplicate ids
        for p in base:
            papers.append(
                dataclasses.replace(
                    p,
                    title=f"{p.title} (variant {k})" if p.title else None,
                    abstract=f"{p.abstract} (variant {k})" if p.abstract else p.abstract,
                    external_id=f"{p.external_id}-v{k}" if p.external_id else None,
                )
            )
        k += 1
    return papers, len(base)


def extract(papers: list[RawPaper], target: int) -> tuple[list[PaperRecord], float]:
    """Records of the first ``target`` distinct papers, and the extraction time."""
    pipeline = Pipeline(nlp=load_nlp())
    t0 = time.perf_counter()
    records, _problems = pipeline.build(papers)
    seconds = time.perf_counter() - t0
    unique: dict[str, PaperRecord] = {}
    for r in records:
        unique.setdefault(r.paper.id, r)
    if len(unique) < target:
        raise SystemExit(f"only {len(unique)} distinct papers could be built (wanted {target})")
    return list(unique.values())[:target], seconds


def distinct_graph(records: Sequence[PaperRecord]) -> tuple[dict[str, list[Any]], dict[str, list[Any]]]:
    """Every distinct node (rows per label) and relationship (rows per type) of ``records``.

    Derived pairs are counted over the whole corpus (``COAUTHOR``: all author pairs of a paper;
    ``CO_OCCURS``: pairs among its top concepts), so each pair is one row with its final count.
    """
    nodes: dict[str, tuple[str, dict[str, Any]]] = {}
    rels: dict[tuple[str, str, str], dict[str, Any]] = {}
    pairs: Counter[tuple[str, str, str]] = Counter()
    for r in records:
        for node in (r.paper, *r.nodes):
            if node.id not in nodes:
                nodes[node.id] = (node.label, merge_properties({}, node.properties))
        authors: set[str] = set()
        mentions: dict[str, float] = {}
        for rel in r.relationships:
            rels.setdefault((rel.start, rel.type, rel.end), merge_properties({}, rel.properties))
            if rel.type == "AUTHORED":
                authors.add(rel.start)
            elif rel.type == "MENTIONS":
                mentions[rel.end] = float(rel.properties.get("score") or 0.0)  # type: ignore[arg-type]
        for rtype, members in (("COAUTHOR", authors), ("CO_OCCURS", top_concepts(mentions.items()))):
            for a, b in itertools.combinations(sorted(members), 2):
                pairs[(a, rtype, b)] += 1
    by_label: dict[str, list[Any]] = defaultdict(list)
    for node_id, (lb, props) in nodes.items():
        by_label[lb].append(_db_node_properties(node_id, lb, props))
    by_type: dict[str, list[Any]] = defaultdict(list)
    for (start, rtype, end), props in rels.items():
        by_type[rtype].append([start, end, props])
    for (start, rtype, end), n in pairs.items():
        by_type[rtype].append([start, end, {"papers": n}])
    return by_label, by_type


def floor_load(
    driver: neo4j.Driver, database: str | None, records: Sequence[PaperRecord]
) -> Callable[[], None]:
    """Write ``records``' distinct graph with ``CREATE`` only (the least work any loader must do)."""
    by_label, by_type = distinct_graph(records)
    rows_per_tx = 10_000

    def write(session: neo4j.Session, stmt: q.Statement) -> None:
        def tx_work(tx: neo4j.ManagedTransaction) -> None:
            tx.run(stmt.text, stmt.params).consume()

        session.execute_write(tx_work)

    def work() -> None:
        with driver.session(database=database) as session:
            for lb, node_rows in by_label.items():
                for i in range(0, len(node_rows), rows_per_tx):
                    write(session, q.create_nodes(lb, node_rows[i : i + rows_per_tx]))
            for rtype, rel_rows in by_type.items():
                # Reference Cypher for the floor only (ends by the id index, no element ids).
                text = (
                    f"UNWIND $rows AS row MATCH (a:{q.NODE_LABEL} {{id: row[0]}}) "
                    f"MATCH (b:{q.NODE_LABEL} {{id: row[1]}}) "
                    f"CREATE (a)-[r:{q.rel_type(rtype)}]->(b) SET r = row[2]"
                )
                for i in range(0, len(rel_rows), rows_per_tx):
                    write(session, q.Statement(text, {"rows": rel_rows[i : i + rows_per_tx]}))

    return work


def timed(runs: int, prepare: Callable[[], None], work: Callable[[], None]) -> list[float]:
    out: list[float] = []
    for _ in range(runs):
        prepare()
        t0 = time.perf_counter()
        work()
        out.append(time.perf_counter() - t0)
    return out


def run(args: argparse.Namespace) -> dict[str, Any]:
    settings = Settings()
    uri = args.uri or settings.neo4j_uri
    password = settings.neo4j_password.get_secret_value()
    auth = (settings.neo4j_user, password) if password else None

    raw, originals = build_corpus(args.data_dir, args.papers)
    records, extract_s = extract(raw, args.papers)
    print(
        f"corpus: {len(records)} distinct papers ({min(originals, len(records))} from the files, "
        f"the rest suffixed variants); extraction {extract_s:.1f} s "
        f"({len(raw) / extract_s:.0f} papers/s, not part of the load figures)"
    )
    result: dict[str, Any] = {
        "papers": len(records),
        "extraction_s": round(extract_s, 2),
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}",
        "batched": {},
    }
    with neo4j.GraphDatabase.driver(uri, auth=auth) as driver:
        driver.verify_connectivity()
        result["server"] = driver.get_server_info().agent
        probe = Neo4jStore(driver, settings.neo4j_database)
        if sum(probe.counts().nodes.values()) and not args.yes:
            raise SystemExit(f"{uri} holds data; this benchmark deletes it: pass --yes to go on")

        def load(store: Neo4jStore, batch: int, recs: Sequence[PaperRecord]) -> Callable[[], None]:
            def work() -> None:
                for i in range(0, len(recs), batch):
                    store.upsert(recs[i : i + batch])

            return work

        rels = 0
        for batch in args.batch_sizes:
            store = Neo4jStore(driver, settings.neo4j_database, batch_size=batch)
            times = timed(args.runs, store.clear, load(store, batch, records))
            counts = store.counts()
            rels = sum(counts.relationships.values())
            t = statistics.median(times)
            again = timed(1, lambda: None, load(store, batch, records))[0]
            result["batched"][str(batch)] = {
                "seconds": [round(x, 2) for x in times],
                "median_s": round(t, 2),
                "papers_per_s": round(len(records) / t),
                "relationships_per_s": round(rels / t),
                "nodes": sum(counts.nodes.values()),
                "relationships": rels,
                "reingest_s": round(again, 2),
                "reingest_papers_per_s": round(len(records) / again),
            }
            print(
                f"batched {batch:>5}: {len(records) / t:7.0f} papers/s  {rels / t:8.0f} rels/s  "
                f"median {t:6.2f} s of {[round(x, 2) for x in times]}  "
                f"({sum(counts.nodes.values())} nodes, {rels} rels); "
                f"re-ingest (all unchanged) {len(records) / again:.0f} papers/s"
            )

        probe.clear()
        times = timed(args.runs, probe.clear, floor_load(driver, settings.neo4j_database, records))
        t = statistics.median(times)
        floor_rels = sum(probe.counts().relationships.values())
        best = max(v["papers_per_s"] for v in result["batched"].values())
        result["floor"] = {
            "seconds": [round(x, 2) for x in times],
            "median_s": round(t, 2),
            "papers_per_s": round(len(records) / t),
            "relationships_per_s": round(floor_rels / t),
            "store_best_over_floor": round(best / (len(records) / t), 2),
        }
        print(
            f"floor (CREATE only, each element once): {len(records) / t:7.0f} papers/s  "
            f"{floor_rels / t:8.0f} rels/s  median {t:6.2f} s of {[round(x, 2) for x in times]}; "
            f"store (best batch) reaches {best / (len(records) / t):.0%} of it"
        )

        subset = records[: args.per_paper]
        store = Neo4jStore(driver, settings.neo4j_database)
        times = timed(args.runs, store.clear, load(store, 1, subset))
        t = statistics.median(times)
        sub_rels = sum(store.counts().relationships.values())
        per_paper_rate = len(subset) / t
        result["per_paper"] = {
            "papers": len(subset),
            "seconds": [round(x, 2) for x in times],
            "median_s": round(t, 2),
            "papers_per_s": round(per_paper_rate, 1),
            "relationships_per_s": round(sub_rels / t),
            "ms_per_paper": round(1000 * t / len(subset), 2),
            "extrapolated_s": round(t / len(subset) * len(records), 1),
        }
        print(
            f"per paper     : {per_paper_rate:7.1f} papers/s  {sub_rels / t:8.0f} rels/s  "
            f"median {t:6.2f} s for {len(subset)} ({1000 * t / len(subset):.1f} ms/paper; "
            f"{len(records)} papers would take {t / len(subset) * len(records):.0f} s)"
        )
        best = max(v["papers_per_s"] for v in result["batched"].values())
        result["ratio_batched_per_paper"] = round(best / per_paper_rate, 1)
        print(f"ratio         : batched (best) / per paper = {best / per_paper_rate:.1f}x")
        store.clear()
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--uri", help="Bolt URI (default: KG_NEO4J_URI or bolt://127.0.0.1:7687)")
    parser.add_argument("--data-dir", type=Path, default=DEFAULT_DATA_DIR)
    parser.add_argument("--papers", type=int, default=10_000)
    parser.add_argument("--batch-sizes", type=int, nargs="+", default=[500, 2000])
    parser.add_argument("--per-paper", type=int, default=1000, help="papers loaded one per transaction")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--yes", action="store_true", help="allow deleting a non-empty database")
    args = parser.parse_args(argv)
    result = run(args)
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {OUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
