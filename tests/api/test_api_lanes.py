"""The lookup lane is sized for the backend: one thread on the embedded store, several on Neo4j."""

from __future__ import annotations

import threading
import time

from api import lanes


def _threads_used(jobs: int) -> int:
    names: set[str] = set()
    hold_s = 0.05

    def job() -> None:
        names.add(threading.current_thread().name)
        time.sleep(hold_s)  # long enough that a second thread, if any, takes the next job

    futures = [lanes.light().submit(job) for _ in range(jobs)]
    for f in futures:
        f.result(timeout=10)
    return len(names)


def test_light_lane_has_one_thread_for_sqlite_and_more_for_neo4j() -> None:
    try:
        lanes.size_for("sqlite")
        assert _threads_used(4) == 1
        lanes.size_for("neo4j")
        assert _threads_used(4) == lanes.LIGHT_THREADS["neo4j"]
    finally:
        lanes.size_for("neo4j")  # the import-time default, for the tests that follow
