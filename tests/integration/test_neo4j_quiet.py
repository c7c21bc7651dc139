"""Neo4j notifications never reach a user's terminal: debug level only.

The first ingest into an empty database printed ``GqlStatusObject ... 01N52 ... property key
does not exist`` on stderr (the driver logs warning-severity notifications as warnings, and
Python's last-resort handler prints them).
"""

from __future__ import annotations

import logging
import subprocess
import uuid

import neo4j
import pytest

from kg.core.config import Settings
from kg.stores.neo4j.bulk import driver_for
from kg.stores.neo4j.notifications import NOTIFICATION_LOGGER
from kg.stores.neo4j.store import Neo4jStore
from tests.conftest import EXAMPLES, neo4j_uri
from tests.integration.test_neo4j_store import kg_command, neo4j_store, store_flags, subprocess_env

pytestmark = pytest.mark.neo4j


def test_the_does_not_exist_class_is_not_even_sent() -> None:
    with driver_for(Settings(backend="neo4j", neo4j_uri=neo4j_uri())) as driver:
        key = f"noSuchKey_{uuid.uuid4().hex}"
        summary = driver.execute_query(f"MATCH (n:NoSuchLabel{key[10:]}) WHERE n.{key} = 1 RETURN n").summary
    assert [s for s in summary.gql_status_objects if s.is_notification] == []


def test_other_notifications_are_logged_at_debug_level(caplog: pytest.LogCaptureFixture) -> None:
    with driver_for(Settings(backend="neo4j", neo4j_uri=neo4j_uri())) as driver:
        with caplog.at_level(logging.DEBUG, logger=NOTIFICATION_LOGGER):
            # id() is deprecated in Neo4j 5: a WARNING-severity notification
            summary = driver.execute_query("MATCH (n) RETURN id(n) AS i LIMIT 1").summary
        notes = [s for s in summary.gql_status_objects if s.is_notification]
        assert any(n.severity == neo4j.NotificationSeverity.WARNING for n in notes)
        records = [r for r in caplog.records if r.name == NOTIFICATION_LOGGER]
        assert records and {r.levelno for r in records} == {logging.DEBUG}
        caplog.clear()
        with caplog.at_level(logging.INFO):  # not debugging: nothing at all
            driver.execute_query("MATCH (n) RETURN id(n) AS i LIMIT 1")
        assert [r for r in caplog.records if r.name == NOTIFICATION_LOGGER] == []


__all__ = ["neo4j_store"]  # the fixture: an empty database before, cleared after


def test_an_ingest_into_neo4j_prints_no_notification(neo4j_store: Neo4jStore) -> None:
    seed = sorted(EXAMPLES.glob("*.txt"))[0]
    argv = kg_command("ingest", "--no-progress", *store_flags(), str(seed))
    r = subprocess.run(argv, env=subprocess_env(), capture_output=True, text=True, timeout=600)
    neo4j_store.clear()
    assert r.returncode == 0, r.stderr
    assert "GqlStatusObject" not in r.stderr and "notification" not in r.stderr.lower(), r.stderr
