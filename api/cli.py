"""The `kg` command line (the composition root: it wires kg, extractors and api together, so it
lives on top, in api/, and nothing in kg/ imports api/): ingest, stats, export, query, serve."""

from __future__ import annotations

import argparse
import gc
import json
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NoReturn

from kg.core.config import Settings
from kg.core.errors import ConfigError, KGError
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


def _open_store(settings: Settings, *, create: bool = False) -> ReadStore:
    """The configured store, after :func:`_legacy_notice`.

    Only ``kg ingest`` passes ``create``: a command that reads (stats, export, query, serve)
    refuses a data dir that holds no store, so a typo in ``--data-dir`` is an error, not a new
    empty store that answers with zeros.
    """
    _legacy_notice(settings)
    if not create:
        _require_store(settings)
    from kg.stores import open_store

    store = open_store(settings)
    if getattr(store, "checked_in_part", False):
        _note_checked_in_part(settings)
    return store


def _note_checked_in_part(settings: Settings) -> None:
    """Say that the store was checked only in part when opened, and what stamps it."""
    from kg.stores.sqlite.check import OPEN_BUDGET_S

    _err(
        f"note: {settings.data_dir} is too large to check in full within {OPEN_BUDGET_S:.0f} s "
        "when opened, so this command checked part of it; run `kg check` once: a store it "
        "passes is not checked again until something else changes it"
    )


def _require_store(settings: Settings) -> None:
    """Raise :class:`ConfigError` when the embedded store to read does not exist."""
    if settings.backend != "sqlite":
        return  # a Neo4j server that cannot be reached says so itself (StoreUnavailable)
    from kg.stores.sqlite import DB_FILE
    from kg.stores.sqlite.store import LEGACY_PICKLE

    folder = settings.data_dir
    hint = "check --data-dir / KG_DATA_DIR, or build a graph there with kg ingest"
    if not folder.exists():
        raise ConfigError(f"no graph store at {folder}: the folder does not exist ({hint})")
    if not folder.is_dir():
        raise ConfigError(f"no graph store at {folder}: it is a file, not a folder ({hint})")
    if not (folder / DB_FILE).is_file() and not (folder / LEGACY_PICKLE).is_file():  # noticed apart
        raise ConfigError(f"no graph store in {folder}: it has no {DB_FILE} ({hint})")


def _read_argument_file(path: Path, what: str) -> str:
    """The text of a file named on the command line; a missing or unreadable one is a ConfigError."""
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(f"{what} {path} does not exist") from None
    except IsADirectoryError:
        raise ConfigError(f"{what} {path} is a folder, not a file") from None
    except UnicodeDecodeError as e:
        raise ConfigError(f"{what} {path} is not UTF-8 text (byte {e.start})") from None
    except OSError as e:
        raise ConfigError(f"cannot read {what} {path}: {e.strerror or e}") from None


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
        ("max_files", "max_files"),
        ("max_records_per_file", "max_records_per_file"),
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


class _Parser(argparse.ArgumentParser):
    """argparse's parser with a usage mistake as one line and exit code 2.

    argparse prints the whole usage block before the error; the one line that matters then
    scrolls among a dozen. Subcommand parsers inherit this class (``add_parser``).
    """

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="kg", description="Build a knowledge graph from paper listings and query it.")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("ingest", help="read listing files or folders into the graph")
    p.add_argument("paths", nargs="+", type=Path, metavar="PATH")
    p.add_argument("--mode", choices=["fast", "accurate"], help="concept extraction mode")
    p.add_argument("--batch-size", type=int, help="papers per store write (KG_BATCH_SIZE)")
    p.add_argument(
        "--jobs", type=int, help="extraction processes (KG_JOBS; default 0 = one per core, 1 = no workers)"
    )
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--max-files", type=int, help="files read per run, 0 = no limit (KG_MAX_FILES, 5000)")
    p.add_argument(
        "--max-records-per-file",
        type=int,
        help="records read per file, 0 = no limit (KG_MAX_RECORDS_PER_FILE, 100000)",
    )
    p.add_argument(
        "--curations", type=Path, help="curations file to apply (default: DATA_DIR/curations.jsonl)"
    )
    p.add_argument(
        "--no-embed",
        action="store_true",
        help="skip the papers' embeddings (Paper.similar, like:); `kg embed` adds them later",
    )
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

    p = sub.add_parser("embed", help="embed the stored papers without a vector of the shipped model")
    p.add_argument("--threads", type=int, default=0, help="model threads (default 0 = one per core)")
    _add_store_flags(p)

    p = sub.add_parser("export", help="write the whole graph, or one network for Gephi/VOSviewer")
    p.add_argument("--format", choices=["json", "graphml", "cypher", "gexf", "vosviewer"], default="json")
    p.add_argument("-o", "--output", type=Path, help="file to write (default: stdout)")
    g = p.add_argument_group("gexf and vosviewer: one network, bounded")
    g.add_argument("--network", choices=["coauthors", "concepts"], default="coauthors")
    g.add_argument(
        "--top", type=int, default=1000, help="items with the most shared papers (0 = all; default 1000)"
    )
    g.add_argument(
        "--min-weight",
        type=int,
        help="fewest shared papers of a tie written (default: chosen so at most 10 ties per item remain)",
    )
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

    p = sub.add_parser("check", help="check the embedded store file in full (exit 2 when damaged)")
    _add_store_flags(p)
    p.add_argument(
        "--repair",
        action="store_true",
        help="rebuild a damaged store from every row that can be read; asks before replacing it "
        "(the damaged file is kept beside it)",
    )
    p.add_argument("--yes", action="store_true", help="with --repair: replace without asking")

    from api.curate_cli import add_parser as add_curate_parser

    add_curate_parser(sub, _add_store_flags)

    p = sub.add_parser(
        "eval-concepts",
        help="score the key concepts the API shows (and the extractor's records) against author keywords",
    )
    p.add_argument(
        "file", type=Path, nargs="+", metavar="FILE.jsonl", help="dev sets (JSONL or paperlists JSON)"
    )
    p.add_argument("--limit", type=int, default=None, help="first N papers by id of each file")
    p.add_argument("--mode", choices=["fast", "accurate"], default="fast")
    p.add_argument("--no-quality", action="store_true", help="skip the fragment and generic rates")
    return parser


def cmd_ingest(args: argparse.Namespace) -> int:
    from api.curate_cli import curations_path
    from extractors.embedding import Embedder
    from kg.curation.decisions import load as load_curations
    from kg.ingest.extract_pool import default_jobs
    from kg.ingest.job import Progress, ingest
    from kg.ingest.nlp import load_nlp
    from kg.ingest.pipeline import Pipeline
    from kg.stores import write_size

    settings = _settings(args)
    if args.bulk:
        if settings.backend != "neo4j":
            raise ConfigError("--bulk needs --backend neo4j")
        from kg.ingest.bulk import bulk_ingest

        nlp = load_nlp(settings.spacy_model, settings.concept_mode)
        # as below: the workers embed while they extract, and the import writes the vectors
        bulk_embedder = None if args.no_embed else Embedder(threads=1)
        if bulk_embedder is not None:
            bulk_embedder.prepare()
        pipeline = Pipeline(nlp=nlp, mode=settings.concept_mode, embedder=bulk_embedder)
        from api.curate_cli import curations_path
        from kg.curation.decisions import load as load_curations

        decisions = load_curations(curations_path(args, settings))
        jobs = settings.jobs or default_jobs()
        return bulk_ingest(args.paths, pipeline, settings, _out, jobs=jobs, curations=decisions)
    store = _open_store(settings, create=True)
    try:
        progress = Progress(enabled=False if args.no_progress else None)
        progress.note(f"loading the {settings.concept_mode} language model")
        nlp = load_nlp(settings.spacy_model, settings.concept_mode)
        # one model thread per worker process: the workers already use every core
        embedder = None if args.no_embed else Embedder(threads=1)
        if embedder is not None:
            embedder.prepare()  # the int8 model, derived once per machine, before the workers fork
        pipeline = Pipeline(nlp=nlp, mode=settings.concept_mode, embedder=embedder)
        jobs = settings.jobs or default_jobs()
        report = ingest(
            args.paths,
            store,
            pipeline,
            batch_size=settings.batch_size,
            jobs=jobs,
            progress=progress,
            write_size=write_size(settings),
            max_files=settings.max_files,
            max_records_per_file=settings.max_records_per_file,
            curations=load_curations(curations_path(args, settings)),
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


def cmd_embed(args: argparse.Namespace) -> int:
    from extractors.embedding import Embedder
    from kg.ingest.embed_missing import embed_missing
    from kg.ingest.extract_pool import default_jobs

    store = _open_store(_settings(args))
    try:
        report = embed_missing(store, Embedder(threads=args.threads or default_jobs()))
    finally:
        store.close()
    rate = report.papers / report.seconds if report.seconds > 0 else 0.0
    _out(f"{report.papers} paper(s) embedded in {report.seconds:.1f} s ({rate:.0f} papers/s)")
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
    """Write as the store is read, into ``FILE.part`` renamed to ``FILE`` once complete (a failed
    or interrupted export never leaves a truncated file under the name asked for)."""
    if args.top < 0 or (args.min_weight is not None and args.min_weight < 1):
        raise ConfigError("--top must be 0 (all) or more and --min-weight 1 or more")
    if args.output:
        _check_output(args.output)
    store = _open_store(_settings(args))
    try:
        if args.output is None:
            said = _export_to(store, args, sys.stdout)
        else:
            part = args.output.with_name(args.output.name + ".part")
            try:
                with part.open("w", encoding="utf-8") as out:
                    said = _export_to(store, args, out)
                part.replace(args.output)
            finally:
                part.unlink(missing_ok=True)
    finally:
        store.close()
    if args.output:  # on stdout the data is the output: stderr stays for notices and errors
        _err(f"wrote {said} to {args.output}")
    return 0


def _export_to(store: ReadStore, args: argparse.Namespace, out: Any) -> str:
    """Write one export to ``out``; what was written (and left out), for the closing line."""
    from kg.export import write_cypher, write_graphml, write_json
    from kg.export_network import read_network, write_gexf, write_vosviewer

    if args.format in ("gexf", "vosviewer"):
        network = read_network(store, args.network, top=args.top, min_weight=args.min_weight)
        (write_gexf if args.format == "gexf" else write_vosviewer)(network, out)
        return f"{len(network.items)} items and {len(network.links)} links: {network.left_out()}"
    if args.format == "graphml":
        done = write_graphml(store.iter_nodes, store.iter_relationships, out)
    else:
        done = (write_json if args.format == "json" else write_cypher)(
            store.iter_nodes(), store.iter_relationships(), out
        )
    return f"{done.nodes} nodes and {done.relationships} relationships"


def cmd_query(args: argparse.Namespace) -> int:
    from api.execute import execute_query

    document = args.query
    if document.startswith("@"):
        document = _read_argument_file(Path(document[1:]), "query file")
    variables = _json_variables(args.variables) if args.variables else None
    settings = _settings(args)
    _legacy_notice(settings)
    _require_store(settings)
    result = execute_query(document, variables, settings=settings)
    _out(json.dumps(result, indent=2, ensure_ascii=False))
    return 0 if not result.get("errors") else 1


def _check_output(path: Path) -> None:
    """Refuse an output file that cannot be written, before any work is done for it."""
    folder = path.parent
    if path.is_dir():
        raise ConfigError(f"cannot write {path}: it is a folder (name a file, e.g. {path / 'graph.json'})")
    if not folder.exists():
        raise ConfigError(f"cannot write {path}: the folder {folder} does not exist (create it first)")
    if not folder.is_dir():
        raise ConfigError(f"cannot write {path}: {folder} is a file, not a folder")
    if not os.access(folder, os.W_OK):
        raise ConfigError(f"cannot write {path}: no permission to write in {folder}")


def _json_variables(text: str) -> dict[str, Any]:
    """``--variables``: a JSON object, or a ConfigError saying where the JSON broke."""
    try:
        value = json.loads(text)
    except json.JSONDecodeError as e:
        raise ConfigError(f"--variables is not valid JSON: {e.msg} at column {e.colno}") from None
    except RecursionError:
        raise ConfigError("--variables is nested too deeply") from None
    if not isinstance(value, dict):
        raise ConfigError(
            f"--variables must be a JSON object such as '{{\"n\": 5}}', got {type(value).__name__}"
        )
    return value


def cmd_serve(args: argparse.Namespace) -> int:
    import uvicorn

    from api.app import create_app

    settings = _settings(args)
    _legacy_notice(settings)
    _require_store(settings)
    if settings.backend != "neo4j":
        from kg.stores.sqlite.check import refuse_damaged

        if refuse_damaged(settings.data_dir):
            _note_checked_in_part(settings)
    if args.workers < 1:
        raise ConfigError(f"--workers must be at least 1 (got {args.workers})")
    _err(f"GraphQL (GraphiQL in a browser) at http://{args.host}:{args.port}/graphql")
    if args.workers == 1:
        uvicorn.run(
            create_app(settings, stop_work_on_shutdown=True),
            host=args.host,
            port=args.port,
            log_level="info",
            timeout_graceful_shutdown=SHUTDOWN_GRACE_S,
        )
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
        timeout_graceful_shutdown=SHUTDOWN_GRACE_S,
    )
    return 0


# Seconds ``kg serve`` lets requests in flight finish after SIGTERM before it cancels them and
# stops the store work they started (api.app.create_app's stop_work_on_shutdown).
SHUTDOWN_GRACE_S = 2

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
    from api.concept_eval import run
    from kg.eval.cli import quality_lines
    from kg.eval.evaluation import load_eval_papers

    for f in args.file:
        if not f.is_file():
            what = "is a folder, not a file" if f.is_dir() else "does not exist"
            raise ConfigError(f"{f} {what} (a JSONL file of papers with abstracts and keywords)")
    if args.limit is not None and args.limit < 1:
        raise ConfigError(f"--limit must be a positive number of papers, got {args.limit}")
    sets = {f.name: load_eval_papers(f, limit=args.limit) for f in args.file}
    result = run(sets, sys.stdout, mode=args.mode)
    if not args.no_quality:
        for dev in result.devs:
            sys.stdout.write(
                "\n".join(quality_lines(dev.papers, dev.records, f"{dev.label} extractor")) + "\n"
            )
    return 0


def cmd_check(args: argparse.Namespace) -> int:
    from kg.stores.sqlite.check import full_check

    settings = _settings(args)
    if settings.backend == "neo4j":
        raise ConfigError(
            "kg check checks the embedded store; Neo4j has its own (neo4j-admin database check)"
        )
    _require_store(settings)  # a typo in --data-dir is an error, not an empty store that checks out
    if args.repair:
        from kg.stores.sqlite.repair import repair

        return repair(settings.data_dir, _confirmer(args.yes), _out)
    if args.yes:
        raise ConfigError("--yes goes with --repair")
    lines, ok = full_check(settings.data_dir)
    for line in lines:
        _out(line)
    return 0 if ok else 2


def _confirmer(yes: bool) -> Callable[[str], bool]:
    """``--yes``: always yes; a terminal: ask; otherwise no (with how to say yes)."""

    def confirm(question: str) -> bool:
        if yes:
            return True
        if not sys.stdin.isatty():
            _out("not asked (stdin is not a terminal): add --yes to replace without asking")
            return False
        try:
            answer = input(f"{question} [y/N] ")
        except EOFError:
            return False
        return answer.strip().lower() in ("y", "yes")

    return confirm


def cmd_curate(args: argparse.Namespace) -> int:
    from api.curate_cli import run

    settings = _settings(args)
    _require_store(settings)  # decisions are keyed by the store's ids and applied to it at once
    return run(args, settings, _open_store, _out)


COMMANDS = {
    "curate": cmd_curate,
    "ingest": cmd_ingest,
    "stats": cmd_stats,
    "analyze": cmd_analyze,
    "embed": cmd_embed,
    "export": cmd_export,
    "query": cmd_query,
    "serve": cmd_serve,
    "eval-concepts": cmd_eval_concepts,
    "check": cmd_check,
}


# Exit codes (README, "Exit codes"): what a script calling ``kg`` can rely on.
EXIT_OK = 0
EXIT_PARTIAL = 1  # kg ingest skipped something; kg query's response has errors
EXIT_ERROR = 2  # nothing done: a usage mistake, a missing/unwritable path, no store, bad settings
EXIT_BUG = 3  # an unexpected error inside kg (KG_DEBUG=1 shows its traceback)
EXIT_INTERRUPTED = 130


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``kg`` console script; errors are one clear line, not a traceback.

    The one place that turns an expected error into a line and an exit code: commands raise
    (:class:`KGError` for what they check, :class:`OSError` for a path the system refused) and
    never print errors themselves.
    """
    args = build_parser().parse_args(argv)
    name = f"kg {args.command}"
    try:
        return COMMANDS[args.command](args)
    except KGError as e:
        _err(f"{name}: error: {e}")
        return EXIT_ERROR
    except BrokenPipeError:
        # The reader of stdout went away (``kg export | head``): nothing more to say, to anyone.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_PARTIAL
    except OSError as e:
        _err(f"{name}: error: {_describe_os_error(e)}")
        return EXIT_ERROR
    except KeyboardInterrupt:
        _err(f"{name}: interrupted; the stored graph is unchanged since the last flush")
        return EXIT_INTERRUPTED
    except Exception as e:
        if os.environ.get("KG_DEBUG"):
            raise
        first = str(e).splitlines()[0] if str(e) else ""
        _err(f"{name}: internal error: {type(e).__name__}: {first} (a bug; KG_DEBUG=1 shows the traceback)")
        return EXIT_BUG


def _describe_os_error(e: OSError) -> str:
    """``PATH: reason`` for an error the system raised on a path, without errno decoration."""
    reason = e.strerror or str(e)
    return f"{e.filename}: {reason}" if e.filename else reason


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
