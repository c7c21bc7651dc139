"""Screenshots of the pages ``kg serve`` ships, from a real run, for the README.

    python scripts/screenshots.py --listings DIR  # ingest DIR into a temp dir, serve, shoot
    python scripts/screenshots.py --url http://127.0.0.1:8000   # an already running kg serve

The README's pictures are taken from a store of >= 10,000 real papers (the explorer's drawing
budget and labels only matter at that size): unpack ``tests/data/paperlists-10k.tar.gz`` into
a folder and pass it as ``--listings`` (the default, examples/listings, has 58 papers).

Writes, each opened by its deep link: ``docs/explore.png`` (the concept graph around the
second most frequent concept, its papers listed), ``docs/explore-coauthors.png`` (the co-author
network of the author with most papers), ``docs/explore-paper.png`` (a paper whose title has a
formula, typeset by KaTeX) and ``docs/graphiql.png`` (GraphiQL with the explorer plugin),
using headless Chromium from the system (``--chromium``, default ``/usr/bin/chromium``)
through Playwright. Requests that would leave 127.0.0.1 are aborted, so the pictures show what
an offline machine shows.
"""

from __future__ import annotations

import argparse
import os
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import quote, urlsplit

import httpx
from playwright.sync_api import Page, Route, ViewportSize, sync_playwright

ROOT = Path(__file__).resolve().parents[1]
VIEWPORT: ViewportSize = {"width": 1400, "height": 850}


@contextmanager
def kg_serve(listings: Path) -> Iterator[str]:
    """Ingest ``listings`` into a temporary data dir and run ``kg serve`` on a free port."""
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "KG_DATA_DIR": str(Path(tmp) / "data"), "KG_BACKEND": "sqlite"}
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH", "")) if p)
        cli = [sys.executable, "-m", "api.cli"]
        subprocess.run([*cli, "ingest", str(listings), "--no-progress"], cwd=ROOT, env=env, check=True)
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        serve = [*cli, "serve", "--host", "127.0.0.1", "--port", str(port)]
        proc = subprocess.Popen(serve, cwd=ROOT, env=env)
        url = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + 120
            while True:
                try:
                    if httpx.get(f"{url}/healthz", timeout=2).status_code == 200:
                        break
                except httpx.HTTPError:
                    pass
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise SystemExit("kg serve did not start")
                time.sleep(0.3)
            yield url
        finally:
            proc.terminate()
            proc.wait(timeout=20)


def offline(route: Route) -> None:
    if urlsplit(route.request.url).hostname == "127.0.0.1":
        route.continue_()
    else:
        print(f"blocked: {route.request.url}", file=sys.stderr)
        route.abort()


def wait_ready(page: Page) -> None:
    page.wait_for_function(
        "() => document.body.dataset.state === 'ready' && document.body.dataset.labels === 'done'"
    )
    page.wait_for_timeout(800)  # sigma draws on the next animation frame


def first(url: str, query: str, *path: str | int) -> str:
    """One value of a GraphQL answer from the server being shot."""
    value: object = httpx.post(f"{url}/graphql", json={"query": query}, timeout=60).json()["data"]
    for key in path:
        value = value[key]  # type: ignore[index]
    return str(value)


def math_paper(url: str) -> str | None:
    """The id of the first paper whose title has an inline formula, if any."""
    after = None
    for _ in range(20):
        body = httpx.post(
            f"{url}/graphql",
            json={
                "query": "query($a: String) { papers(first: 100, after: $a) "
                "{ pageInfo { endCursor } nodes { id title } } }",
                "variables": {"a": after},
            },
            timeout=60,
        ).json()["data"]["papers"]
        for p in body["nodes"]:
            if p["title"].count("$") >= 2:
                return str(p["id"])
        after = body["pageInfo"]["endCursor"]
    return None


def explorer(page: Page, address: str, path: Path, ready: str | None = None) -> None:
    """One explorer picture: open ``address``, wait for the graph (and for ``ready``, a JS
    predicate, when given), move the pointer off the nodes so no hover dimming shows, shoot."""
    page.goto(address)
    wait_ready(page)
    if ready is not None:
        page.wait_for_function(ready)
    page.mouse.move(5, VIEWPORT["height"] - 5)
    page.wait_for_timeout(300)
    page.screenshot(path=str(path))


def shoot(url: str, out: Path, chromium: str) -> None:
    out.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        context = browser.new_context(viewport=VIEWPORT, device_scale_factor=1)
        context.route("**/*", offline)
        page = context.new_page()
        page.set_default_timeout(60_000)

        concept = first(
            url,
            "{ concepts(first: 2, orderBy: PAPER_COUNT) { nodes { name } } }",
            "concepts",
            "nodes",
            1,
            "name",
        )
        explorer(page, f"{url}/explore?concept={quote(concept)}", out / "explore.png")
        print(f"wrote {out / 'explore.png'} (concept graph around {concept!r})")

        author = first(
            url,
            "{ authors(first: 1, orderBy: PAPER_COUNT) { nodes { name } } }",
            "authors",
            "nodes",
            0,
            "name",
        )
        years_loaded = "() => !document.querySelector('#years-note').textContent.includes('Loading')"
        explorer(page, f"{url}/explore?author={quote(author)}", out / "explore-coauthors.png", years_loaded)
        print(f"wrote {out / 'explore-coauthors.png'} (co-author network of {author!r})")

        paper = math_paper(url)
        if paper:
            typeset = "() => document.querySelector('#details h2 .katex') !== null"
            explorer(page, f"{url}/explore?paper={quote(paper)}", out / "explore-paper.png", typeset)
            print(f"wrote {out / 'explore-paper.png'} (paper {paper}, its title typeset)")

        page.goto(f"{url}/graphql")
        page.wait_for_selector(".graphiql-explorer-root")
        page.click(".graphiql-execute-button")
        page.wait_for_function("() => document.querySelector('.result-window').innerText.includes('count')")
        page.screenshot(path=str(out / "graphiql.png"))
        print(f"wrote {out / 'graphiql.png'} (GraphiQL, offline)")
        browser.close()


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--url", help="a running kg serve (default: start one over --listings)")
    parser.add_argument("--listings", type=Path, default=ROOT / "examples" / "listings")
    parser.add_argument("--out", type=Path, default=ROOT / "docs")
    parser.add_argument("--chromium", default="/usr/bin/chromium")
    args = parser.parse_args()
    if args.url:
        shoot(args.url.rstrip("/"), args.out, args.chromium)
    else:
        with kg_serve(args.listings) as url:
            shoot(url, args.out, args.chromium)


if __name__ == "__main__":
    main()
