"""``kg ingest --backend neo4j --bulk``: a first load with ``neo4j-admin database import full``.

The transactional store pays per statement and per commit; the offline importer writes the
store files directly and is several times faster for a first load. It needs the server
stopped and overwrites the database, so it runs only into an EMPTY database, and only on the
server the project's scripts run (``scripts/neo4j/start``) in ``KG_NEO4J_HOME``.

Steps (:func:`bulk_load`):

1. start the server if needed (``scripts/neo4j/start`` is idempotent) and refuse, with one
   line, unless the database holds no nodes (the store version node aside);
2. merge the records exactly like the transactional store (:mod:`kg.stores.neo4j.bulk_csv`);
3. stop the server (``scripts/neo4j/stop``) while the CSV files are written;
4. ``org.neo4j.cli.AdminTool database import full`` with the server's own jars and config;
5. start it again with the same ports, give back the empty lists the importer cannot write,
   create the store's constraints and indexes in one transaction (populated together) and
   wait until they are ONLINE (``db.awaitIndexes``).

The new store version is the old one plus one, so caches keyed on it see the load.

``KG_NEO4J_HOME`` names the server home (default ``<repo>/.neo4j``, as ``scripts/neo4j/start``);
the Bolt URI (``KG_NEO4J_URI``) must point at that server. The records come from the ingest
(:mod:`kg.ingest.bulk`: readers, author resolution, curations, extraction workers); this module
only loads them.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlparse

import neo4j
from neo4j.exceptions import DriverError, Neo4jError

from kg.core.config import Settings
from kg.core.errors import ConfigError, GraphStoreError
from kg.core.models import PaperRecord
from kg.ingest.extract_pool import default_jobs
from kg.stores.neo4j import queries as q
from kg.stores.neo4j import read_queries as rq
from kg.stores.neo4j import vectors
from kg.stores.neo4j.bulk_csv import IMPORT_OPTIONS, CsvSet, merge_records, write_csv
from kg.stores.neo4j.notifications import DRIVER_CONFIG as NOTIFICATIONS
from kg.stores.neo4j.notifications import quiet_notifications
from kg.stores.neo4j.store import Neo4jStore, translate_error

REPO_ROOT = Path(__file__).resolve().parents[3]
HOME_ENV = "KG_NEO4J_HOME"
ADMIN_MAIN = "org.neo4j.cli.AdminTool"


def default_home() -> Path:
    """``KG_NEO4J_HOME``, else ``<repo>/.neo4j`` (``scripts/neo4j/start``'s default)."""
    value = os.environ.get(HOME_ENV)
    return Path(value).expanduser() if value else REPO_ROOT / ".neo4j"


@dataclass
class BulkSummary:
    """What a bulk load did, with the seconds per phase (role: CLI/bench report)."""

    papers: int = 0
    nodes: int = 0
    relationships: int = 0
    version: int = 0
    seconds: dict[str, float] = field(default_factory=dict)
    # Of the merge phase, the seconds spent waiting for the next record: when the records come
    # from extraction workers (kg ingest --bulk), the part of the merge that extraction bounds.
    waited_s: float = 0.0

    @property
    def total_s(self) -> float:
        return sum(self.seconds.values())

    def lines(self) -> list[str]:
        rate = self.papers / self.total_s if self.total_s > 0 else 0.0
        phases = ", ".join(f"{k} {v:.1f} s" for k, v in self.seconds.items())
        waited = f" (merge waited {self.waited_s:.1f} s for records)" if self.waited_s >= 0.05 else ""
        return [
            f"bulk import: {self.papers} papers, {self.nodes} nodes, {self.relationships} relationships "
            f"in {self.total_s:.1f} s ({rate:.0f} papers/s; {phases}){waited}; store version {self.version}"
        ]


def _timed(records: Iterable[PaperRecord], summary: BulkSummary) -> Iterator[PaperRecord]:
    """``records``, adding the seconds each one took to arrive to ``summary.waited_s``."""
    it = iter(records)
    while True:
        t = time.perf_counter()
        record = next(it, None)
        summary.waited_s += time.perf_counter() - t
        if record is None:
            return
        yield record


class ServerControl:
    """The project's Neo4j server in one home: its scripts, ports, Java and admin tool."""

    def __init__(self, home: Path, scripts: Path = REPO_ROOT / "scripts" / "neo4j") -> None:
        self.home = home.resolve()
        self.scripts = scripts
        for name in ("start", "stop"):
            if not (scripts / name).is_file():
                raise ConfigError(f"--bulk needs {scripts / name} (the repository's Neo4j scripts)")

    @property
    def conf(self) -> Path:
        return self.home / "conf" / "neo4j.conf"

    def _conf_port(self, key: str) -> str | None:
        if not self.conf.is_file():
            return None
        found = re.findall(rf"^{re.escape(key)}=.*:(\d+)\s*$", self.conf.read_text(encoding="utf-8"), re.M)
        return found[-1] if found else None

    def bolt_port(self) -> str | None:
        return self._conf_port("server.bolt.listen_address")

    def _env(self, bolt_port: str | None) -> dict[str, str]:
        env = dict(os.environ)
        env["NEO4J_HOME"] = str(self.home)
        env.setdefault("NEO4J_PYTHON", sys.executable)  # the driver check needs the driver
        if bolt_port:
            env["NEO4J_BOLT_PORT"] = bolt_port
        http = self._conf_port("server.http.listen_address")
        if http:
            env["NEO4J_HTTP_PORT"] = http
        return env

    def _script(self, name: str, bolt_port: str | None) -> subprocess.Popen[str]:
        return subprocess.Popen(
            [str(self.scripts / name)],
            env=self._env(bolt_port),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )

    @staticmethod
    def _wait(proc: subprocess.Popen[str], what: str) -> None:
        out, err = proc.communicate()
        if proc.returncode != 0:
            tail = " | ".join(line for line in (err or out).strip().splitlines()[-3:])
            raise GraphStoreError(f"{what} failed (exit {proc.returncode}): {tail}")

    def start(self, bolt_port: str | None) -> None:
        self._wait(self._script("start", bolt_port), "scripts/neo4j/start")

    def stop_async(self) -> subprocess.Popen[str]:
        return self._script("stop", None)

    def wait(self, proc: subprocess.Popen[str], what: str) -> None:
        self._wait(proc, what)

    def java(self) -> str:
        """The running server's own java binary (the one ``start`` chose), else NEO4J_JAVA/JAVA_HOME/java."""
        pid_file = self.home / "run" / "neo4j.pid"
        try:
            exe = os.readlink(f"/proc/{pid_file.read_text().strip()}/exe")
            if Path(exe).is_file():
                return exe
        except (OSError, ValueError):
            pass
        for cand in (os.environ.get("NEO4J_JAVA"), os.environ.get("JAVA_HOME")):
            if cand:
                path = Path(cand) / "bin" / "java" if Path(cand).is_dir() else Path(cand)
                if path.is_file():
                    return str(path)
        found = shutil.which("java")
        if found is None:
            raise ConfigError("--bulk needs Java 17 or 21 (set NEO4J_JAVA or JAVA_HOME)")
        return found

    def admin_import(self, java: str, database: str, args: list[str], report: Path) -> None:
        """``neo4j-admin database import full`` into ``database`` (the server must be stopped)."""
        cmd = [
            java,
            "-cp",
            f"{self.home / 'plugins'}/*:{self.home / 'conf'}/*:{self.home / 'lib'}/*",
            f"-Dbasedir={self.home}",
            ADMIN_MAIN,
            "database",
            "import",
            "full",
            database,  # before the file lists: --nodes/--relationships take any number of values
            *IMPORT_OPTIONS,
            f"--report-file={report}",
            *args,
        ]
        env = dict(os.environ, NEO4J_HOME=str(self.home), NEO4J_CONF=str(self.home / "conf"))
        done = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            lines = [ln for ln in (done.stderr + done.stdout).splitlines() if ln.strip()]
            detail = " | ".join(lines[-4:]) or f"exit {done.returncode}"
            raise GraphStoreError(f"neo4j-admin database import failed: {detail} (report: {report})")


def _check_target(uri: str, control: ServerControl) -> str:
    """The Bolt port of the server in ``control.home``, which ``uri`` must point at."""
    port = control.bolt_port()
    parsed = urlparse(uri)
    if parsed.hostname not in ("127.0.0.1", "localhost") or (port and str(parsed.port or 7687) != port):
        raise ConfigError(
            f"--bulk imports into the server in {control.home} (Bolt port {port or '?'}), but "
            f"KG_NEO4J_URI is {uri}; point both at the same server ({HOME_ENV} names its home)"
        )
    return port or str(parsed.port or 7687)


def driver_for(settings: Settings) -> neo4j.Driver:
    password = settings.neo4j_password.get_secret_value()
    auth = (settings.neo4j_user, password) if password else None
    quiet_notifications()
    # labels that do not exist yet in an empty database are the normal case here
    return neo4j.GraphDatabase.driver(settings.neo4j_uri, auth=auth, **NOTIFICATIONS)


def _stored_state(settings: Settings) -> tuple[int, int]:
    """``(nodes other than the version node, store version)`` of the target database."""
    text = (
        f"CALL () {{ MATCH (n) WHERE NOT n:{q.META_LABEL} RETURN count(n) AS n }} "
        f"OPTIONAL MATCH (m:{q.META_LABEL} {{id: $id}}) RETURN n, coalesce(m.value, 0) AS version"
    )
    try:
        with driver_for(settings) as driver:
            records, _, _ = driver.execute_query(
                text, {"id": q.VERSION_ID}, database_=settings.neo4j_database, routing_="r"
            )
    except (Neo4jError, DriverError) as e:
        raise translate_error(e, settings.neo4j_uri, settings.neo4j_user) from e
    return int(records[0]["n"]), int(records[0]["version"])


def _refuse_unless_empty(settings: Settings) -> int:
    nodes, version = _stored_state(settings)
    if nodes:
        raise GraphStoreError(
            f"--bulk loads only into an empty database, and {settings.neo4j_uri} holds {nodes} nodes; "
            "run kg ingest without --bulk to add papers"
        )
    return version


def bulk_load(
    records: Iterable[PaperRecord],
    settings: Settings,
    *,
    home: Path | None = None,
    work_dir: Path | None = None,
    on_phase: Callable[[str], None] | None = None,
) -> BulkSummary:
    """Load ``records`` into the empty Neo4j database of the server in ``home`` with the importer.

    Args:
        records: extracted records, in ingest order (later ones merge into earlier ones).
        settings: Bolt URI, credentials and database of that server.
        home: the server home (default :func:`default_home`).
        work_dir: where the CSV files go (default ``<home>/import/paperkg-bulk``); removed after.
        on_phase: called with each phase name as it starts (progress output).

    Raises:
        GraphStoreError: the database is not empty, or a step failed (the server is started
            again whatever happened after it was stopped).
        ConfigError: the URI does not point at the server in ``home``, or scripts/Java are missing.
    """
    control = ServerControl(home or default_home())
    database = settings.neo4j_database or "neo4j"
    summary = BulkSummary()
    phase = _Phases(summary, on_phase)

    phase("check")
    port = _check_target(settings.neo4j_uri, control)
    control.start(port)
    port = _check_target(settings.neo4j_uri, control)
    old_version = _refuse_unless_empty(settings)

    phase("merge")
    graph = merge_records(_timed(records, summary))
    summary.papers = graph.papers
    directory = work_dir or control.home / "import" / "paperkg-bulk"
    shutil.rmtree(directory, ignore_errors=True)

    phase("csv+stop")
    old_version = max(old_version, _refuse_unless_empty(settings))  # nobody wrote meanwhile
    summary.version = old_version + 1
    java = control.java()
    stopping = control.stop_async()  # the stop's connection drain overlaps the CSV writing
    try:
        try:
            files = write_csv(graph, directory, summary.version, jobs=min(2, default_jobs()))
        finally:
            control.wait(stopping, "scripts/neo4j/stop")
        del graph
        summary.nodes, summary.relationships = files.nodes, files.relationships
        phase("import")
        report = control.home / "logs" / "paperkg-import.report"
        control.admin_import(java, database, files.admin_args(), report)
    finally:
        shutil.rmtree(directory, ignore_errors=True)
        phase("start")
        control.start(port)
    phase("schema")
    try:
        with driver_for(settings) as driver:
            _restore_empty_lists(driver, settings.neo4j_database, files)
            _create_schema(driver, settings.neo4j_database)
            Neo4jStore(driver, settings.neo4j_database).close()  # awaits them ONLINE
    except (Neo4jError, DriverError) as e:
        raise translate_error(e, settings.neo4j_uri, settings.neo4j_user) from e
    phase.end()
    return summary


def _restore_empty_lists(driver: neo4j.Driver, database: str | None, files: CsvSet) -> None:
    """Set the empty-list properties the importer cannot write (see :mod:`.bulk_csv`).

    Nodes first, before any index exists: a third of the concepts are rewritten here, and
    every index on them would be updated too. The relationships' ends are found by id, which
    needs the id constraints, so those (none from the extractors today) wait for the schema.
    """
    with driver.session(database=database) as session:
        for fix, keys in files.node_fixes.items():
            stmt = q.restore_empty_lists(fix, keys)
            session.run(stmt.text, stmt.params).consume()
    if files.rel_fixes:
        _create_schema(driver, database)
        with driver.session(database=database) as session:
            session.run(q.await_indexes().text, q.await_indexes().params).consume()
            for rtype, rows in files.rel_fixes.items():
                for i in range(0, len(rows), 1000):
                    session.execute_write(_run, q.restore_empty_rel_lists(rtype, rows[i : i + 1000]))


def _create_schema(driver: neo4j.Driver, database: str | None) -> None:
    """The store's constraints and indexes, created in ONE transaction.

    Indexes committed together are populated together, in one pass over the imported nodes
    and one over the relationships (the server log shows all of them starting within 0.4 s);
    created one per transaction, as the store does when it opens, each uniqueness constraint
    waits for its own pass before the next statement runs. The statements are the store's own
    (``IF NOT EXISTS``), so opening the store afterwards adds nothing.
    """
    with driver.session(database=database) as session, session.begin_transaction() as tx:
        for stmt in [*q.schema_statements(), *rq.schema_statements(), *vectors.schema_statements()]:
            tx.run(stmt.text, stmt.params).consume()
        tx.commit()


def _run(tx: neo4j.ManagedTransaction, stmt: q.Statement) -> None:
    tx.run(stmt.text, stmt.params).consume()


class _Phases:
    """Seconds per named phase into ``summary.seconds``; each call ends the previous phase."""

    def __init__(self, summary: BulkSummary, on_phase: Callable[[str], None] | None) -> None:
        self.summary = summary
        self.on_phase = on_phase
        self.name: str | None = None
        self.since = time.perf_counter()

    def __call__(self, name: str) -> None:
        self.end()
        self.name = name
        if self.on_phase is not None:
            self.on_phase(name)

    def end(self) -> None:
        now = time.perf_counter()
        if self.name is not None:
            self.summary.seconds[self.name] = round(now - self.since, 2)
        self.name, self.since = None, now
