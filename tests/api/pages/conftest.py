"""A real ``kg serve`` for the page and GraphQL-over-HTTP tests, started as users start it.

``python -m api.cli ingest examples/listings`` into a temporary ``KG_DATA_DIR`` (plus a few
papers from other years, written here, so the co-author network's year range has something
to filter), then ``python -m api.cli serve --port <free port>`` in a subprocess, stopped after
the module. The examples have papers of 2026 only (or no year).
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import tarfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest
from playwright.sync_api import Browser, Page, Playwright, Request, Route, sync_playwright

ROOT = Path(__file__).resolve().parents[3]
START_TIMEOUT_S = 120
INGEST_TIMEOUT_S = 1800  # the 10k-paper store takes ~1-4 min on a shared 2-core machine
PAPERS_10K = ROOT / "tests" / "data" / "paperlists-10k.tar.gz"
CHROMIUM = "/usr/bin/chromium"
TIMEOUT_MS = 60_000

# Papers of earlier years by two authors of the examples and a third: in 2019 and 2021 the
# three wrote together, so the network around them changes with the year range.
EXTRA_PAPERS = [
    {
        "id": "extra-2019",
        "title": "Gradient descent on deep linear networks revisited",
        "authors": ["Sanjeev Arora", "Abhishek Panigrahi", "Ada Example"],
        "abstract": "We study gradient descent on deep linear networks and prove convergence rates.",
        "venue": "ICLR 2019",
        "year": 2019,
    },
    {
        "id": "extra-2021",
        "title": "Implicit regularization of gradient descent in matrix factorization",
        "authors": ["Sanjeev Arora", "Ada Example"],
        "abstract": "Gradient descent on matrix factorization is implicitly regularized toward low rank.",
        "venue": "ICLR 2021",
        "year": 2021,
    },
]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _env(data_dir: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["KG_DATA_DIR"] = str(data_dir)
    env["KG_BACKEND"] = "sqlite"
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    return env


def _ingest(env: dict[str, str], *paths: Path, exit_codes: tuple[int, ...] = (0,)) -> float:
    """``kg ingest PATHS`` as a user runs it; the seconds it took."""
    start = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "api.cli", "ingest", *map(str, paths), "--no-progress", "--no-embed"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=INGEST_TIMEOUT_S,
    )
    if done.returncode not in exit_codes:
        raise RuntimeError(f"kg ingest exited with {done.returncode}:\n{done.stdout}\n{done.stderr}")
    return time.monotonic() - start


def _papers(env: dict[str, str]) -> int:
    """How many papers ``kg stats`` counts in the store."""
    stats = [sys.executable, "-m", "api.cli", "stats"]
    out = subprocess.run(stats, cwd=ROOT, env=env, capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        if line.split()[:1] == ["Paper"]:
            return int(line.split()[1])
    raise RuntimeError(f"kg stats printed no Paper count: {out}")


def _serve(env: dict[str, str], tmp: Path) -> Iterator[str]:
    """``kg serve`` on a free port until the caller is done; yields its base URL."""
    port = free_port()
    log = (tmp / "serve.log").open("wb")
    proc = subprocess.Popen(
        [sys.executable, "-m", "api.cli", "serve", "--host", "127.0.0.1", "--port", str(port)],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + START_TIMEOUT_S
        while True:
            if proc.poll() is not None:
                raise RuntimeError(
                    f"kg serve exited with {proc.returncode}: {(tmp / 'serve.log').read_text()}"
                )
            try:
                if httpx.get(f"{url}/healthz", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"kg serve did not answer /healthz within {START_TIMEOUT_S} s")
            time.sleep(0.3)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()


@pytest.fixture(scope="package")
def kg_serve(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The base URL (``http://127.0.0.1:PORT``) of a ``kg serve`` over the example listings."""
    tmp = tmp_path_factory.mktemp("kg-serve")
    extra = tmp / "extra.jsonl"
    extra.write_text("".join(json.dumps(p) + "\n" for p in EXTRA_PAPERS), encoding="utf-8")
    env = _env(tmp / "data")
    _ingest(env, ROOT / "examples" / "listings", extra)
    yield from _serve(env, tmp)


@pytest.fixture(scope="package")
def kg_serve_10k(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A ``kg serve`` over 10,683 real paperlists records (tests/data/paperlists-10k.tar.gz): the
    pictures at the size users have, where the examples' 58 papers hide every hairball.

    Ingested once per session, as a user would (``kg ingest`` of the unpacked listing files);
    the time it took is written to ``ingest-seconds.txt`` beside the store and printed with -s.
    """
    tmp = tmp_path_factory.mktemp("kg-serve-10k")
    listings = tmp / "paperlists"
    listings.mkdir()
    with tarfile.open(PAPERS_10K) as archive:
        for member in archive.getmembers():
            if not member.isfile() or "/" in member.name or member.name.startswith("."):
                raise RuntimeError(f"{PAPERS_10K}: unexpected member {member.name!r}")
            source = archive.extractfile(member)
            assert source is not None
            (listings / member.name).write_bytes(source.read())
    env = _env(tmp / "data")
    # Exit code 1: real listings have records kg skips (18 here, e.g. the author "Anonymous"
    # of double-blind ICLR 2018 entries); the store must still hold >= 10,000 papers.
    seconds = _ingest(env, listings, exit_codes=(0, 1))
    papers = _papers(env)
    if papers < 10_000:
        raise RuntimeError(f"the 10k-paper store holds {papers} papers")
    (tmp / "ingest-seconds.txt").write_text(f"{seconds:.1f}\n", encoding="utf-8")
    print(f"\ningested {PAPERS_10K.name} in {seconds:.1f} s (load average {os.getloadavg()})")
    yield from _serve(env, tmp)


# ------------------------------------------------------------------ Chromium, network cut


@pytest.fixture(scope="module")
def playwright() -> Iterator[Playwright]:
    with sync_playwright() as pw:
        yield pw


@pytest.fixture(scope="module")
def browser(playwright: Playwright) -> Iterator[Browser]:
    # Playwright's own browser download cannot work here: the system Chromium from apt.
    browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
    yield browser
    browser.close()


class Traffic:
    """What a page asked for: requests to 127.0.0.1 (allowed), anything else (aborted)."""

    def __init__(self) -> None:
        self.local: list[Request] = []
        self.outside: list[str] = []
        self.errors: list[str] = []

    def route(self, route: Route) -> None:
        host = urlsplit(route.request.url).hostname
        if host == "127.0.0.1":
            self.local.append(route.request)
            route.continue_()
        else:
            self.outside.append(route.request.url)
            route.abort()

    def graphql_posts(self) -> list[dict[str, Any]]:
        bodies = []
        for r in self.local:
            if urlsplit(r.url).path == "/graphql" and r.method == "POST":
                bodies.append(json.loads(r.post_data or "{}"))
        return bodies


@pytest.fixture()
def page(browser: Browser) -> Iterator[tuple[Page, Traffic]]:
    context = browser.new_context(viewport={"width": 1400, "height": 850})
    traffic = Traffic()
    context.route("**/*", traffic.route)
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    page.on("pageerror", lambda e: traffic.errors.append(f"page error: {e}"))
    page.on("console", lambda m: traffic.errors.append(m.text) if m.type == "error" else None)
    yield page, traffic
    context.close()
    assert traffic.outside == [], f"requests left 127.0.0.1: {traffic.outside}"
    assert traffic.errors == [], f"errors in the page: {traffic.errors}"
