// paperkg's GraphiQL page (api/graphiql.py): GraphiQL with the explorer plugin, querying the
// endpoint the page was served from. Everything it loads is on this server (api/static/graphiql, api/static/vendor/graphiql).
(function () {
  "use strict";
  var mount = document.getElementById("graphiql");
  var endpoint = new URL(mount.dataset.endpoint || "/graphql", window.location.href);
  var wsEndpoint = new URL(endpoint.href);
  wsEndpoint.protocol = endpoint.protocol === "https:" ? "wss:" : "ws:";

  var EXAMPLE_QUERY = [
    "# paperkg: Ctrl-Enter runs the query.",
    "# Left bar: Docs, History, Explorer.",
    "{",
    "  stats { nodes { label count } }",
    '  concepts(first: 5, orderBy: PAPER_COUNT) { nodes { name kind paperCount } }',
    "}",
    "",
  ].join("\n");

  // Query text and variables are kept in the URL so a query can be shared as a link ("q", not
  // "query": a GET with a query parameter is executed by the endpoint instead of showing the IDE).
  var params = new URLSearchParams(window.location.search);
  function updateURL(key, value) {
    if (value) params.set(key, value);
    else params.delete(key);
    var search = params.toString();
    history.replaceState(null, "", search ? "?" + search : window.location.pathname);
  }

  var fetcher = GraphiQL.createFetcher({
    url: endpoint.href,
    subscriptionUrl: wsEndpoint.href,
  });
  var explorer = GraphiQLPluginExplorer.explorerPlugin();

  function App() {
    return React.createElement(GraphiQL, {
      fetcher: fetcher,
      plugins: [explorer],
      visiblePlugin: explorer,
      defaultQuery: EXAMPLE_QUERY,
      query: params.get("q") || undefined,
      variables: params.get("variables") || undefined,
      onEditQuery: function (q) { updateURL("q", q); },
      onEditVariables: function (v) { updateURL("variables", v); },
      defaultEditorToolsVisibility: true,
      inputValueDeprecation: true,
      isHeadersEditorEnabled: true,
    });
  }

  ReactDOM.createRoot(mount).render(React.createElement(App));
})();
