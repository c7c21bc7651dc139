"""A read-only data dir: ``kg serve`` serves reads, ``kg ingest`` is refused in one line.

Before, ``kg serve`` on a data dir it could not write printed two tracebacks and exited. The
commands run as the user runs them (the console script in a subprocess). The folder is made
read-only with ``chmod`` for an ordinary user; root ignores permission bits, so as root the
folder is a read-only bind mount in a private mount namespace (``unshare -m``) instead.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import socket
import stat
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from api.cli import main
from tests.conftest import TEST_DATA

KG = str(Path(sys.executable).with_name("kg"))


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    root = tmp_path_factory.mktemp("readonly")
    listing = root / "papers.jsonl"
    lines = (TEST_DATA / "iclr2018.jsonl").read_text(encoding="utf-8").splitlines()[:5]
    listing.write_text("\n".join(lines) + "\n", encoding="utf-8")
    folder = root / "kg"
    assert main(["ingest", "--no-progress", "--jobs", "1", "--data-dir", str(folder), str(listing)]) == 0
    if os.geteuid() != 0:
        for path in [folder, *folder.iterdir()]:
            path.chmod(path.stat().st_mode & ~(stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH))
    yield folder
    if os.geteuid() != 0:
        folder.chmod(0o755)


def _read_only(data_dir: Path, argv: list[str]) -> list[str]:
    """``argv`` run where ``data_dir`` cannot be written (see the module docstring)."""
    if os.geteuid() != 0:
        return argv
    assert shutil.which("unshare"), "as root the test needs unshare (util-linux) for a read-only mount"
    folder = shlex.quote(str(data_dir))
    script = f"mount --bind {folder} {folder} && mount -o remount,ro,bind {folder} && exec {shlex.join(argv)}"
    return ["unshare", "-m", "sh", "-c", script]


def test_ingest_into_a_read_only_store_is_one_line(data_dir: Path, tmp_path: Path) -> None:
    listing = tmp_path / "new.jsonl"
    listing.write_text('{"title": "A new paper", "abstract": "We study bandits."}\n', encoding="utf-8")
    argv = [KG, "ingest", "--no-progress", "--jobs", "1", "--data-dir", str(data_dir), str(listing)]
    r = subprocess.run(_read_only(data_dir, argv), capture_output=True, text=True, timeout=120)
    assert r.returncode == 2, (r.stdout, r.stderr)
    assert "Traceback" not in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert "read-only" in r.stderr and "writes are refused" in r.stderr


def test_stats_of_a_read_only_store(data_dir: Path) -> None:
    argv = [KG, "stats", "--json", "--data-dir", str(data_dir)]
    r = subprocess.run(_read_only(data_dir, argv), capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["nodes"]["Paper"] == 5


def test_serve_answers_reads_from_a_read_only_store(data_dir: Path) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    argv = [KG, "serve", "--data-dir", str(data_dir), "--port", str(port)]
    server = subprocess.Popen(
        _read_only(data_dir, argv), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    try:
        deadline = time.monotonic() + 60
        health = None
        while time.monotonic() < deadline and server.poll() is None:
            try:
                health = httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=2)
                break
            except httpx.TransportError:
                time.sleep(0.3)
        assert health is not None and health.status_code == 200, server.poll()
        r = httpx.post(
            f"http://127.0.0.1:{port}/graphql",
            json={"query": "{ stats { nodes { label count } } }"},
            timeout=30,
        )
        counts = {n["label"]: n["count"] for n in r.json()["data"]["stats"]["nodes"]}
        assert counts["Paper"] == 5
    finally:
        server.terminate()
        output, _ = server.communicate(timeout=30)
    assert "Traceback" not in output, output
