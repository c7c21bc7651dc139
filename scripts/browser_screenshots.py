"""Screenshots of the Neo4j Browser pictures, from a real Browser in headless Chromium.

Why a script: the README's pictures must be what a user gets, so they are taken the way a user
gets them. It opens Neo4j Browser, connects (which loads the paperkg style and guide through
``browser.post_connect_cmd``), clicks each graph-view block of the guide and runs it, and
saves the result frame as a PNG. Needs a server started by ``scripts/neo4j/start`` with the
examples ingested and the guide generated (README, "Neo4j Browser"), Playwright
(``pip install playwright``) and a Chromium (Debian: ``apt-get install chromium``).

    python scripts/browser_screenshots.py --http-port 7474 --bolt-port 7687 --out docs/browser
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from playwright.sync_api import Locator, Page, sync_playwright

# Guide blocks to photograph: (file name, number of the documented query, keep the legend).
# The co-occurrence graph has many small components: without the legend panel it gets the
# whole width, so its captions stay readable.
PICTURES: tuple[tuple[str, str, bool], ...] = (
    ("guide", "", True),
    ("1-concept-neighbourhood", "1", True),
    ("2-co-occurrence", "2", False),
    ("3-coauthors", "3", True),
    ("4-topic-tree", "4", True),
    ("4c-topic-subtree", "4c", True),
    ("5b-venue", "5b", True),
)


def connect(page: Page, http_port: int, bolt_port: int, password: str | None) -> None:
    """Open Browser and connect over bolt:// (no auth unless a password is given)."""
    page.goto(f"http://127.0.0.1:{http_port}/browser/")
    page.wait_for_selector("[data-testid=authenticationMethod]")
    page.wait_for_timeout(2500)  # Browser re-renders the connect frame once after discovery
    page.locator("[data-testid=bolt-scheme-select]").last.select_option("bolt://")
    page.locator("[data-testid=boltaddress]").last.fill(f"127.0.0.1:{bolt_port}")
    if password:
        page.locator("[data-testid=username]").last.fill("neo4j")
        page.locator("[data-testid=password]").last.fill(password)
    else:
        page.locator("[data-testid=authenticationMethod]").last.select_option(label="No authentication")
    page.locator("[data-testid=connect]").last.click()
    # post_connect_cmd: the guide opens in the sidebar
    page.wait_for_selector("[data-testid=guidesDrawer] >> text=paperkg", timeout=60_000)
    page.wait_for_timeout(1000)


def guide_block(page: Page, number: str) -> Locator:
    """The runnable block of documented query ``number``, on whichever slide it is."""
    heading = re.compile(rf"^{re.escape(number)}\. ")
    pages = page.locator("[data-testid^=pagination-]").count()
    for i in range(1, pages + 1):
        page.locator(f"[data-testid=pagination-{i}]").click()
        page.wait_for_timeout(300)
        drawer = page.locator("[data-testid=guidesDrawer]")
        h = drawer.locator("h4", has_text=heading)
        if h.count():
            return h.first.locator("xpath=following-sibling::pre[1]")
    raise SystemExit(f"no block for query {number} in the guide")


def run_block(page: Page, block: Locator) -> Locator:
    """Click a guide block (fills the editor), run it, and return the new result frame."""
    before = page.locator("[data-testid=frame]").count()
    block.scroll_into_view_if_needed()
    block.click()
    page.wait_for_timeout(500)
    page.locator("[data-testid=editor-Run]").first.click()
    page.wait_for_function(
        f"document.querySelectorAll('[data-testid=frame]').length > {before}", timeout=30_000
    )
    frame = page.locator("[data-testid=frame]").first
    frame.locator("svg .node").first.wait_for(timeout=30_000)
    return frame


def _overflowing(page: Page, frame: Locator, legend: bool) -> bool:
    """Whether a node lies outside the visible drawing (under the legend or past an edge)."""
    area = frame.locator("svg:has(g.node)").first.bounding_box()  # the drawing, not an icon
    assert area is not None
    right = area["x"] + area["width"]
    if legend:
        overview = frame.locator("text=Overview").first.bounding_box()
        if overview is not None:
            right = overview["x"] - 16
    boxes = frame.locator("svg g.node").evaluate_all(
        "ns => ns.map(n => n.getBoundingClientRect()).map(r => [r.left, r.top, r.right, r.bottom])"
    )
    bottom = area["y"] + area["height"]
    return any(x0 < area["x"] or y0 < area["y"] or x1 > right or y1 > bottom for x0, y0, x1, y1 in boxes)


def _wait_still(page: Page, frame: Locator, timeout_ms: int = 15_000) -> None:
    """Wait until the drawing's zoom transform and node positions stop changing."""
    script = """el => [...el.querySelectorAll('svg g.node, svg g[transform*=scale]')].slice(0, 40)
        .map(g => g.getAttribute('transform')).join('|')"""
    last, waited = None, 0
    while waited < timeout_ms:
        now = frame.evaluate(script)
        if now == last:
            return
        last = now
        page.wait_for_timeout(400)
        waited += 400


def photograph(page: Page, frame: Locator, path: Path, legend: bool) -> None:
    """The frame in fullscreen, guide closed, at the largest zoom step showing every node."""
    page.locator("[data-testid=navigationGuides]").click()  # close the sidebar
    frame.locator("button[title^=Fullscreen]").click(force=True)
    if not legend:
        frame.locator("button[title='Collapse the node properties display']").click(force=True)
    page.wait_for_timeout(5000)  # the force layout settles
    # Browser's zoom-to-fit does not zoom out on these layouts; zoom-out steps do.
    zoom_in = frame.locator("button[aria-label=zoom-in]")
    zoom_out = frame.locator("button[aria-label=zoom-out]")
    for _ in range(6):  # out until every node is in view
        _wait_still(page, frame)
        if not _overflowing(page, frame, legend):
            break
        zoom_out.click(force=True)
    for _ in range(6):  # then in, as far as every node stays in view
        zoom_in.click(force=True)
        _wait_still(page, frame)
        if _overflowing(page, frame, legend):
            zoom_out.click(force=True)
            _wait_still(page, frame)
            break
    page.wait_for_timeout(700)
    page.screenshot(path=str(path))
    if not legend:
        frame.locator("button[title='Expand the node properties display']").click(force=True)
    frame.locator("button[title^='Close fullscreen']").click(force=True)
    page.locator("[data-testid=navigationGuides]").click()  # the guide again
    page.wait_for_timeout(500)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--http-port", type=int, default=7474)
    p.add_argument("--bolt-port", type=int, default=7687)
    p.add_argument("--password", default=None, help="password of user neo4j (default: no auth)")
    p.add_argument("--chromium", default="/usr/bin/chromium")
    p.add_argument("--out", type=Path, default=Path("docs/browser"))
    p.add_argument("--only", nargs="*", help="names from PICTURES to take (default: all)")
    args = p.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=args.chromium, args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 1440, "height": 1080}, device_scale_factor=1.5)
        connect(page, args.http_port, args.bolt_port, args.password)
        for name, number, legend in PICTURES:
            if args.only and name not in args.only:
                continue
            path = args.out / f"{name}.png"
            if not number:
                page.screenshot(path=str(path))
            else:
                photograph(page, run_block(page, guide_block(page, number)), path, legend)
            print(f"wrote {path}", file=sys.stderr)
        browser.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
