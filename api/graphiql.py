"""GraphiQL served from the package: the IDE page references only this server's own URLs.

strawberry's stock page loads React, GraphiQL and the explorer plugin from a CDN, so on a
machine without internet it stays on "Loading..." with no error (strawberry declined to bundle
the assets: strawberry #1160, #3826). The same builds (graphiql 3.8.3, @graphiql/plugin-explorer
1.0.2, React 18.2.0, byte-identical to the ones strawberry pins by hash) are committed under
``api/static/vendor/graphiql/`` by ``tools/web-vendor/build.sh`` and mounted by
:func:`api.static_files.install`; :class:`GraphiQLRouter` renders the page that points at them.

The page also sends a Content-Security-Policy that allows only this origin (and inline styles,
which React sets), so a stray external reference fails loudly in the browser console instead of
silently waiting on the network.
"""

from __future__ import annotations

from html import escape
from typing import Any

from starlette.requests import Request
from starlette.responses import HTMLResponse
from strawberry.fastapi import GraphQLRouter

from api.static_files import STATIC_PREFIX

# Where the files are below the static mount: the third-party builds under vendor/ (with their
# LICENSES.txt), the page's own script and style (graphiql-init.js, graphiql-page.css) apart.
ASSET_DIR = "graphiql"
VENDOR_DIR = "vendor/graphiql"
CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; font-src 'self' data:; connect-src 'self' ws: wss:; "
    "base-uri 'none'; frame-ancestors 'self'"
)

_PAGE = """<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <title>paperkg GraphiQL</title>
    <link rel="icon" href="data:," />
    <link rel="stylesheet" href="{vendor}/graphiql.min.css" />
    <link rel="stylesheet" href="{vendor}/plugin-explorer.css" />
    <link rel="stylesheet" href="{base}/graphiql-page.css" />
    <script src="{vendor}/react.production.min.js"></script>
    <script src="{vendor}/react-dom.production.min.js"></script>
    <script src="{vendor}/graphiql.min.js"></script>
    <script src="{vendor}/plugin-explorer.umd.js"></script>
  </head>
  <body>
    <div id="graphiql" data-endpoint="{endpoint}">Loading GraphiQL...</div>
    <noscript>GraphiQL needs JavaScript. The API itself answers POST {endpoint}.</noscript>
    <script src="{base}/graphiql-init.js"></script>
  </body>
</html>
"""


def graphiql_html(root_path: str = "", endpoint: str = "/graphql") -> str:
    """The IDE page for a server mounted at ``root_path`` (behind a proxy prefix, say).

    Args:
        root_path: the ASGI ``root_path`` ("" when served at the root); the assets are below it.
        endpoint: the absolute path of the GraphQL endpoint the page queries.

    Returns:
        HTML whose every script, style and request URL is on this server.

    Example:
        >>> 'src="/static/vendor/graphiql/graphiql.min.js"' in graphiql_html()
        True
    """
    static = f"{root_path.rstrip('/')}{STATIC_PREFIX}"
    return _PAGE.format(
        base=escape(f"{static}/{ASSET_DIR}", quote=True),
        vendor=escape(f"{static}/{VENDOR_DIR}", quote=True),
        endpoint=escape(endpoint, quote=True),
    )


class GraphiQLRouter(GraphQLRouter[Any, None]):
    """strawberry's FastAPI GraphQL router whose IDE is the locally served GraphiQL.

    Only the IDE rendering differs (``render_graphql_ide``, the router's hook for it); queries,
    GET/POST handling and subscriptions are strawberry's. The endpoint the page queries is the
    path it was served at, as in strawberry's page.
    """

    async def render_graphql_ide(self, request: Request) -> HTMLResponse:
        page = graphiql_html(request.scope.get("root_path", ""), request.url.path)
        return HTMLResponse(page, headers={"Content-Security-Policy": CONTENT_SECURITY_POLICY})
