"""The pages and browser files ``kg serve`` ships: ``/static/**`` and the ``/explore`` page.

Everything a page loads is package data under ``api/static/`` (the pages' own files in
``graphiql/`` and ``explore/``; third-party builds with their ``LICENSES.txt`` in ``vendor/``, which
tools such as ``duplicates`` skip), so the pages work on a machine without internet.
Files are served with a validator (ETag/Last-Modified) so a browser re-checks instead of
re-downloading the 3.5 MB GraphiQL bundle on every visit.
"""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI
from starlette.responses import FileResponse
from starlette.staticfiles import StaticFiles

STATIC_DIR = Path(__file__).parent / "static"
STATIC_PREFIX = "/static"
EXPLORE_PATH = "/explore"
# The explorer only talks to this server; the policy makes any other request fail visibly.
EXPLORE_CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data: blob:; connect-src 'self'; base-uri 'none'; frame-ancestors 'self'"
)


def install(app: FastAPI) -> None:
    """Serve ``/static`` from the package and ``/explore`` (the graph explorer page).

    Args:
        app: the paperkg app; its ``/graphql`` endpoint is what the explorer reads from.
    """
    app.mount(STATIC_PREFIX, StaticFiles(directory=STATIC_DIR), name="static")

    @app.get(EXPLORE_PATH, include_in_schema=False)
    async def explore() -> FileResponse:
        """The explorer: search, the concept graph and the co-author network (api/static/explore)."""
        return FileResponse(
            STATIC_DIR / "explore" / "index.html",
            media_type="text/html",
            headers={"Content-Security-Policy": EXPLORE_CSP},
        )
