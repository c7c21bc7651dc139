"""The `kg` command line (the composition root: it wires kg, extractors and api together, so it
lives on top, in api/, and nothing in kg/ imports api/): ingest, stats, export, query, serve."""

from __future__ import annotations

import argparse
import gc
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from kg.config import Settings
from kg.errors import ConfigError, KGError
from kg.stores.protocol import ReadStore


def _out(text: str = "") -> None:
    sys.stdout.write(text + "\n")


def _err(text: str) -> None:
    sys.stderr.write(text + "\n")


def _legacy_notice(settings: Settings) -> None:
    """Say once when an old pickled graph sits in the data dir (it is never loaded)."""
    if settings.backend == "sqlite":
        from kg.stores.sqlite import legacy_pickle_notice

        notice = legacy_pickle_notice(settings.data_dir)
        if notice:
            _err(notice)


def _open_store(settings: Settings) -> ReadStore:
    """The configured store, after :func:`_legacy_notice`."""
    _legacy_notice(settings)
    from kg.stores import open_store

    return open_store(settings)


def _settings(args: argparse.Namespace) -> Settings:
    overrides: dict[str, Any] = {}
    for flag, key in (
        ("backend", "backend"),
        ("data_dir", "data_dir"),
        ("neo4j_uri", "neo4j_uri"),
        ("neo4j_user", "neo4j_user"),
        ("neo4j_password", "neo4j_password"),
        ("neo4j_database", "neo4j_database"),
        ("batch_size", "batch_size"),
        ("jobs", "jobs"),
        ("mode", "concept_mode"),
    ):
        value = getattr(args, flag, None)
        if value is not None:
            overrides[key] = value
    return Settings(**overrides)


def _add_store_flags(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("store (defaults from KG_* environment variables)")
    g.add_argument(
        "--backend",
        choices=["sqlite", "neo4j", "memory"],
        help="graph store (KG_BACKEND): sqlite (embedded, default) or neo4j; memory = sqlite (0.1 name)",
    )
    g.add_argument("--data-dir", type=Path, help="embedded store folder (KG_DATA_DIR, ./.kg)")
    g.add_argument("--neo4j-uri", help="Bolt URI (KG_NEO4J_URI)")
    g.add_argument("--neo4j-user", help="Neo4j user (KG_NEO4J_USER)")
    g.add_argument("--neo4j-password", help="Neo4j password (KG_NEO4J_PASSWORD)")
    g.add_argument("--neo4j-database", help="Neo4j database (KG_NEO4J_DATABASE)")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="kg", description="Build a knowledge graph from paper listings and query it."
    )
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("ingest", help="read listing files or folders into the graph")
    p.add_argument("paths", nargs="+", type=Path, metavar="PATH")
    p.add_argument("--mode", choices=["fast", "accurate"], help="concept extraction mode")
    p.add_argument("--batch-size", type=int, help="papers per store write (KG_BATCH_SIZE)")
    p.add_argument(
        "--jobs", type=int, help="extraction processes (KG_JOBS; default 0 = one per core, 1 = no workers)"
    )
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument(
        "--bulk",
        action="store_true",
        help="neo4j only: first load into an EMPTY database with neo4j-admin import "
        "(stops and restarts the server in KG_NEO4J_HOME)",
    )
    _add_store_flags(p)

    p = sub.add_parser("stats", help="node and relationship counts")
    p.add_argument("--json", action="store_true", help='{"nodes": {...}, "relationships": {...}}')
    _add_store_flags(p)

    p = sub.add_parser("analyze", help="compute and store centrality and communities of the whole graph")
    _add_store_flags(p)

    p = sub.add_parser("export", help="write the whole graph")
    p.add_argument("--format", choices=["json", "graphml", "cypher", "gexf", "vosviewer"], default="json")
    p.add_argument("-o", "--output", type=Path, help="file to write (default: stdout)")
    _add_store_flags(p)

    p = sub.add_parser("query", help="run a GraphQL query in-process and print the JSON response")
    p.add_argument("query", help="GraphQL document, or @file.graphql")
    p.add_argument("--variables", help="JSON object of variables")
    _add_store_flags(p)

    p = sub.add_parser("serve", help="serve GraphQL (with GraphiQL) at /graphql and /healthz")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=8000)
    p.add_argument(
        "--workers",
        type=int,
        default=1,
        help="server processes (each opens the store and warms its caches before serving; "
        "a single process uses at most one core)",
    )
    _add_store_flags(p)

    p = sub.add_parser("eval-concepts", help="score concept extraction against author keywords")
    p.add_argument("file", type=Path, metavar="FILE.jsonl")
    p.add_argument("--limit", type=int, default=None, help="first N papers by id")
    p.add_argument("--mode", choices=["fast", "accurate", "both"], default="both")
    p.add_argument("--no-yake", action="store_true", help="skip the YAKE baseline")
    return parser


def cmd_ingest(args: argparse.Namespace) -> int:
    from kg.extract_pool import default_jobs
    from kg.ingest import Progress, ingest
    from kg.nlp import load_nlp
    from kg.pipeline import Pipeline
    from kg.stores import write_size

    settings = _settings(args)
    if args.bulk:
        if settings.backend != "neo4j":
            raise ConfigError("--bulk needs --backend neo4j")
        from kg.stores.neo4j.bulk import bulk_ingest

        nlp = load_nlp(settings.spacy_model, settings.concept_mode)
        pipeline = Pipeline(nlp=nlp, mode=settings.concept_mode)
        return bulk_ingest(args.paths, pipeline, settings, _out, jobs=settings.jobs or default_jobs())
    store = _open_store(settings)
    try:
        nlp = load_nlp(settings.spacy_model, settings.concept_mode)
        pipeline = Pipeline(nlp=nlp, mode=settings.concept_mode)
        progress = Progress(enabled=False if args.no_progress else None)
        jobs = settings.jobs or default_jobs()
        report = ingest(
            args.paths,
            store,
            pipeline,
            batch_size=settings.batch_size,
            jobs=jobs,
            progress=progress,
            write_size=write_size(settings),
        )
    finally:
        store.close()
    for line in report.lines():
        _out(line)
    where = settings.data_dir if settings.backend == "sqlite" else settings.neo4j_uri
    _out(f"graph: {settings.backend} store at {where}")
    return 0 if report.ok else 1


def cmd_analyze(args: argparse.Namespace) -> int:
    from kg.analyze import analyze

    store = _open_store(_settings(args))
    try:
        for s in analyze(store):
            _out(
                f"{s.pair}: {s.nodes} nodes, {s.ties} ties, {s.communities} communities "
                f"in {s.seconds:.1f} s (store version {s.version})"
            )
    finally:
        store.close()
    return 0


def cmd_stats(args: argparse.Namespace) -> int:
    store = _open_store(_settings(args))
    try:
        counts = store.counts()
    finally:
        store.close()
    if args.json:
        _out(json.dumps(counts.model_dump(), indent=2))
        return 0
    _out("nodes")
    for label, n in counts.nodes.items():
        _out(f"  {label:<14}{n:>8}")
    _out("relationships")
    for rel, n in counts.relationships.items():
        _out(f"  {rel:<14}{n:>8}")
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    from kg.export import to_cypher, to_gexf, to_graphml, to_json, to_vosviewer

    store = _open_store(_settings(args))
    try:
        graph = store.export()
    finally:
        store.close()
    writers = {
        "json": to_json,
        "graphml": to_graphml,
        "cypher": to_cypher,
        "gexf": to_gexf,
        "vosviewer": to_vosviewer,
    }
    text = writers[args.format](graph)
    if args.output:
        args.output.write_text(text, encoding="utf-8")
        _err(f"wrote {len(graph.nodes)} nodes and {len(graph.relationships)} relationships to {args.output}")
    else:
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
    return 0


def cmd_query(args: argparse.Namespace) -> int:
    from api.execute import execute_query

    document = args.query
    if document.startswith("@"):
        document = Path(document[1:]).read_text(encoding="utf-8")
    variables = json.loads(args.variables) if args.variables else None
    settings = _settings(args)
    _legacy_notice(settings)
    result = execute_query(document, variables, settings=settings)
    _out(json.dumps(result, indent=2, ensure_ascii=False))
    return 0 if not result.get("errors") else 1


def cmd_serve(args: argparse.Namespace) -> int:
    import uvicorn

    from api.app import create_app

    settings = _settings(args)
    _legacy_notice(settings)
    if args.workers < 1:
        raise ConfigError(f"--workers must be at least 1 (got {args.workers})")
    _err(f"GraphQL (GraphiQL in a browser) at http://{args.host}:{args.port}/graphql")
    if args.workers == 1:
        uvicorn.run(create_app(settings), host=args.host, port=args.port, log_level="info")
        return 0
    # Worker processes start afresh (spawn) and read their settings from the environment.
    for flag, env in _SERVE_ENV:
        value = getattr(args, flag, None)
        if value is not None:
            os.environ[env] = str(value)
    uvicorn.run(
        "api.app:worker_app",
        factory=True,
        workers=args.workers,
        host=args.host,
        port=args.port,
        log_level="info",
    )
    return 0


# ``kg serve`` flags that worker processes receive as environment variables.
_SERVE_ENV = (
    ("backend", "KG_BACKEND"),
    ("data_dir", "KG_DATA_DIR"),
    ("neo4j_uri", "KG_NEO4J_URI"),
    ("neo4j_user", "KG_NEO4J_USER"),
    ("neo4j_password", "KG_NEO4J_PASSWORD"),
    ("neo4j_database", "KG_NEO4J_DATABASE"),
)


def cmd_eval_concepts(args: argparse.Namespace) -> int:
    from kg.eval_cli import run_eval_concepts

    return run_eval_concepts(args.file, limit=args.limit, mode=args.mode, yake=not args.no_yake)


COMMANDS = {
    "ingest": cmd_ingest,
    "stats": cmd_stats,
    "analyze": cmd_analyze,
    "export": cmd_export,
    "query": cmd_query,
    "serve": cmd_serve,
    "eval-concepts": cmd_eval_concepts,
}


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``kg`` console script; errors are one clear line, not a traceback."""
    args = build_parser().parse_args(argv)
    try:
        return COMMANDS[args.command](args)
    except KGError as e:
        _err(f"kg {args.command}: error: {e}")
        return 2
    except KeyboardInterrupt:
        _err(f"kg {args.command}: interrupted; the stored graph is unchanged since the last flush")
        return 130


def run() -> None:
    """The ``kg`` console script: :func:`main`, then an exit that skips the final collection.

    At exit CPython's collector walks every object still alive: with spaCy imported that is
    0.3 s, a tenth of a ``kg ingest`` of ten papers. ``gc.freeze`` moves them out of its
    reach; memory and files are released as usual (stores are closed by the commands, which
    commit before they return). Tests call :func:`main`, whose process goes on.
    """
    code = main()
    gc.freeze()
    raise SystemExit(code)


if __name__ == "__main__":
    run()
