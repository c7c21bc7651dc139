// paperkg explorer (/explore): the concept graph and the co-author network, drawn with sigma.js.
//
// It reads only through the GraphQL API (POST graphql, relative to this page) and stays inside
// the API's caps: maxNodes <= 1000, lists of at most 100 per request, at most 25 aliased fields
// per request (the server allows 30). The libraries come from vendor.min.js (window.KGVendor).
// window.kgExplorer exposes the graph and renderer for tests and for the console.
(function () {
  "use strict";

  var V = window.KGVendor;
  var ENDPOINT = new URL("graphql", document.baseURI).href;
  var MAX_NODES = 1000;
  var PAGE = 100; // the API's largest page (max_page_size)
  var ALIASES = 25; // aliased lookups per request (the API allows 30)
  var PAPERS_SHOWN = 20;

  var KIND_COLORS = {
    METHOD: "#4e79a7",
    TASK: "#f28e2b",
    MODEL: "#e15759",
    DATASET: "#59a14f",
    METRIC: "#b07aa1",
    CONCEPT: "#9c755f",
  };
  var HOP_COLORS = ["#e15759", "#4e79a7", "#76b7b2", "#a0a0a0"];
  var HOP_NAMES = ["searched author", "co-author", "2 hops", "3 hops"];

  var state = {
    mode: "concept",
    graph: null, // graphology graph on screen
    renderer: null,
    hovered: null,
    selected: null,
    network: null, // the API's answer for the co-author network (before the year filter)
    papersByAuthor: null, // author id -> [{id, year, authors}] for the year filter
    yearSpan: null,
    requests: 0,
  };

  // ---------------------------------------------------------------- GraphQL
  function gql(query, variables) {
    state.requests += 1;
    return fetch(ENDPOINT, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/graphql-response+json, application/json;q=0.9",
      },
      body: JSON.stringify({ query: query, variables: variables || {} }),
    }).then(function (res) {
      return res.json().then(function (body) {
        if (body.errors && body.errors.length) {
          throw new Error(body.errors.map(function (e) { return e.message; }).join("; "));
        }
        if (!res.ok) throw new Error("HTTP " + res.status);
        return body.data;
      });
    });
  }

  // One field per name, ALIASES per request (`k0: concept(name: $n0) { ... }`), at most
  // PARALLEL requests at a time, answers in the order of `names`.
  var PARALLEL = 3;
  function lookupMany(field, names, selection) {
    var chunks = [];
    for (var i = 0; i < names.length; i += ALIASES) chunks.push(names.slice(i, i + ALIASES));
    var results = new Array(chunks.length);
    var next = 0;
    function one(chunk) {
      var defs = chunk.map(function (_, j) { return "$n" + j + ": String!"; }).join(", ");
      var fields = chunk
        .map(function (_, j) { return "k" + j + ": " + field + "(name: $n" + j + ") " + selection; })
        .join("\n");
      var vars = {};
      chunk.forEach(function (name, j) { vars["n" + j] = name; });
      return gql("query Lookup(" + defs + ") {\n" + fields + "\n}", vars).then(function (data) {
        return chunk.map(function (_, j) { return data["k" + j]; });
      });
    }
    function worker() {
      if (next >= chunks.length) return Promise.resolve();
      var index = next++;
      return one(chunks[index]).then(function (part) { results[index] = part; return worker(); });
    }
    var workers = [];
    for (var w = 0; w < Math.min(PARALLEL, chunks.length); w++) workers.push(worker());
    return Promise.all(workers).then(function () { return [].concat.apply([], results); });
  }

  // ---------------------------------------------------------------- DOM helpers
  function $(sel) { return document.querySelector(sel); }
  function el(tag, attrs) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) {
      if (k === "text") node.textContent = attrs[k];
      else if (k === "onclick") node.addEventListener("click", attrs[k]);
      else node.setAttribute(k, attrs[k]);
    });
    for (var i = 2; i < arguments.length; i++) {
      var child = arguments[i];
      if (child == null) continue;
      node.appendChild(typeof child === "string" ? document.createTextNode(child) : child);
    }
    return node;
  }
  function clear(node) { while (node.firstChild) node.removeChild(node.firstChild); return node; }
  function setStatus(text, isError) {
    var s = $("#status");
    s.textContent = text;
    s.className = isError ? "error" : "";
  }
  function setBusy(busy) { document.body.dataset.state = busy ? "loading" : "ready"; }
  // The values actually asked for (within the API's caps) go back into the form.
  function showClamped(form, vars) {
    ["minWeight", "depth", "maxNodes"].forEach(function (k) {
      if (form[k] && vars[k] != null) form[k].value = vars[k];
    });
  }
  function clampInt(value, lo, hi, fallback) {
    var n = parseInt(value, 10);
    if (isNaN(n)) return fallback;
    return Math.max(lo, Math.min(hi, n));
  }

  // ---------------------------------------------------------------- drawing
  var STAGE_PADDING = 90;  // pixels sigma keeps free around the drawing
  var OPENING_RATIO = 1.2;  // the camera's zoom when a drawing opens (> 1: zoomed out)
  var LABEL_FONT = "system-ui, sans-serif", LABEL_SIZE = 13, LABEL_WEIGHT = "500";

  function draw(graph, legend) {
    if (state.renderer) state.renderer.kill();
    state.graph = graph;
    state.hovered = null;
    state.selected = null;
    var weights = graph.mapNodes(function (_, a) { return a.weight || 1; });
    var maxW = Math.max.apply(null, weights.concat([1]));
    var maxE = Math.max.apply(null, graph.mapEdges(function (_, a) { return a.weight; }).concat([1]));
    graph.forEachNode(function (node, a) {
      graph.mergeNodeAttributes(node, { size: 4 + 14 * Math.sqrt((a.weight || 1) / maxW) });
    });
    graph.forEachEdge(function (edge, a) {
      graph.mergeEdgeAttributes(edge, {
        size: 0.6 + 3.4 * (a.weight / maxE),
        label: String(a.weight),
        color: "#c9ccd1",
      });
    });
    if (graph.order > 0) {
      V.circular.assign(graph, { scale: 100 });
      // Strong gravity keeps small components near the middle instead of in the corners.
      var settings = V.forceAtlas2.inferSettings(graph);
      settings.barnesHutOptimize = graph.order > 300;
      settings.strongGravityMode = true;
      settings.gravity = 0.05;
      V.forceAtlas2.assign(graph, { iterations: graph.order > 400 ? 150 : 400, settings: settings });
      spreadOut(graph);
    }
    state.renderer = new V.Sigma(graph, $("#graph"), {
      renderEdgeLabels: true,
      edgeLabelSize: 11,
      edgeLabelColor: { color: "#6b7280" },
      labelFont: LABEL_FONT,
      labelSize: LABEL_SIZE,
      labelWeight: LABEL_WEIGHT,
      // Sigma shows the labels of the biggest nodes per grid cell: fewer on large graphs
      // (zooming in shows the rest). Small graphs show every label: spreadOut has made room.
      labelDensity: graph.order > 100 ? 0.25 : 50,
      labelGridCellSize: graph.order > 100 ? 110 : 70,
      labelRenderedSizeThreshold: 6,
      zIndex: true,
      stagePadding: STAGE_PADDING,
      nodeReducer: nodeReducer,
      edgeReducer: edgeReducer,
    });
    var r = state.renderer;
    // Labels are drawn to the right of their nodes: zoom out a little and move the picture left,
    // so that the labels of the rightmost nodes are not cut at the edge.
    r.getCamera().setState({ x: 0.6, ratio: OPENING_RATIO });
    r.on("clickNode", function (e) { select(e.node); });
    r.on("enterNode", function (e) { state.hovered = e.node; r.refresh({ skipIndexation: true }); });
    r.on("leaveNode", function () { state.hovered = null; r.refresh({ skipIndexation: true }); });
    r.on("clickStage", function () { state.selected = null; r.refresh({ skipIndexation: true }); });
    renderLegend(legend);
    document.body.dataset.graphOrder = String(graph.order);
  }

  // Pushes apart nodes whose circles or labels would overlap on screen: force-directed layouts
  // pack small components tightly. Each node is a box on screen: its circle plus its label,
  // drawn to its right (the width is measured with the label font). Overlapping boxes are
  // pushed apart along the axis where they overlap least, which for long, flat labels is
  // usually a few pixels up or down. graphology's noverlap treats nodes as circles, so a
  // circle wide enough for a label pushed vertical neighbours far away and still stalled with
  // labels crossing (26 overlapping pairs among 39 nodes on the example listings). Positions
  // are converted to screen pixels for the drawing's size on screen (the container less
  // sigma's stage padding, at the camera's opening zoom), and the drawing is kept at that size
  // while it is spread.
  function spreadOut(graph) {
    var el = $("#graph");
    var wide = Math.max((el.clientWidth - 2 * STAGE_PADDING) / OPENING_RATIO, 200);
    var high = Math.max((el.clientHeight - 2 * STAGE_PADDING) / OPENING_RATIO, 200);
    var ctx = document.createElement("canvas").getContext("2d");
    ctx.font = LABEL_WEIGHT + " " + LABEL_SIZE + "px " + LABEL_FONT;
    var ids = graph.nodes();
    var boxes = ids.map(function (id) {
      var a = graph.getNodeAttributes(id);
      var half = Math.max(a.size, LABEL_SIZE / 2 + 2);
      return { left: a.size, right: a.size + 4 + ctx.measureText(String(a.label || "")).width, half: half };
    });
    var xs = graph.mapNodes(function (_, a) { return a.x; });
    var ys = graph.mapNodes(function (_, a) { return a.y; });
    var extent = Math.max(Math.max.apply(null, xs) - Math.min.apply(null, xs),
      Math.max.apply(null, ys) - Math.min.apply(null, ys), 1);
    var scale = Math.min(wide, high) / extent;  // pixels per graph unit
    var px = xs.map(function (x) { return x * scale; });
    var py = ys.map(function (y) { return y * scale; });
    separate(px, py, boxes, wide, high);
    ids.forEach(function (id, i) { graph.mergeNodeAttributes(id, { x: px[i] / scale, y: py[i] / scale }); });
  }

  // Passes over every pair (n is at most a few hundred), moving both boxes of an overlapping
  // pair half the overlap plus a gap. After each pass the drawing is shrunk back to ``wide`` by
  // ``high`` pixels around its centre, as sigma will fit it on screen: separating at one scale and
  // letting sigma shrink the result made labels cross again (17 overlapping pairs among 40 nodes in
  // one run). The box is the container's own shape: labels are wide, and a square of its smaller
  // side left 9 pairs crossing among 40 nodes where the rectangle leaves 6.
  function separate(px, py, boxes, wide, high) {
    var GAP = 3;
    for (var pass = 0; pass < 400; pass++) {
      var clash = false;
      for (var i = 0; i < px.length; i++) {
        var a = boxes[i];
        for (var j = i + 1; j < px.length; j++) {
          var b = boxes[j];
          var dx = Math.min(px[i] + a.right, px[j] + b.right) - Math.max(px[i] - a.left, px[j] - b.left);
          var dy = Math.min(py[i] + a.half, py[j] + b.half) - Math.max(py[i] - a.half, py[j] - b.half);
          if (dx <= -GAP || dy <= -GAP) continue;
          clash = true;
          if (dy < dx) {
            var sy = (py[i] < py[j] || (py[i] === py[j] && i < j) ? -1 : 1) * (dy + GAP) / 2;
            py[i] += sy; py[j] -= sy;
          } else {
            var sx = (px[i] < px[j] || (px[i] === px[j] && i < j) ? -1 : 1) * (dx + GAP) / 2;
            px[i] += sx; px[j] -= sx;
          }
        }
      }
      if (!clash) return;
      fit(px, wide);
      fit(py, high);
    }
  }

  // Shrinks coordinates around their middle so that they span at most ``across`` pixels.
  function fit(v, across) {
    var lo = Math.min.apply(null, v), hi = Math.max.apply(null, v);
    var span = Math.max(hi - lo, across);
    var mid = (lo + hi) / 2, k = across / span;
    for (var i = 0; i < v.length; i++) v[i] = mid + (v[i] - mid) * k;
  }

  // Hovering a node dims everything but it and its neighbours; a clicked node keeps the rest of
  // the picture (its neighbours' labels and its links are brought forward).
  function nodeReducer(node, data) {
    var res = Object.assign({}, data);
    var g = state.graph;
    if (state.hovered) {
      if (node !== state.hovered && !g.areNeighbors(node, state.hovered)) {
        res.color = "#e5e7eb";
        res.label = "";
        res.zIndex = 0;
      } else {
        res.zIndex = 1;
        res.forceLabel = true;
      }
    } else if (state.selected && (node === state.selected || g.areNeighbors(node, state.selected))) {
      res.forceLabel = true;
      res.zIndex = 1;
    }
    if (node === state.selected) res.highlighted = true;
    return res;
  }

  function edgeReducer(edge, data) {
    var res = Object.assign({}, data);
    var focus = state.hovered || state.selected;
    if (focus && state.graph.hasExtremity(edge, focus)) {
      res.color = "#4b5563";
      res.forceLabel = true;
      res.zIndex = 1;
    } else if (state.hovered) {
      res.hidden = true;
    }
    return res;
  }

  function renderLegend(items) {
    var box = clear($("#legend"));
    items.forEach(function (item) {
      box.appendChild(
        el("span", { class: "legend-item" }, el("i", { style: "background:" + item.color }), item.name)
      );
    });
  }

  function buildGraph(network, colorOf, kindOf) {
    var g = new V.Graph({ type: "undirected" });
    network.nodes.forEach(function (n) {
      g.addNode(n.id, {
        label: n.name,
        name: n.name,
        weight: n.weight || 0,
        kind: kindOf(n),
        color: colorOf(n),
      });
    });
    network.edges.forEach(function (e) {
      if (g.hasNode(e.source) && g.hasNode(e.target) && !g.hasEdge(e.source, e.target)) {
        g.addEdge(e.source, e.target, { weight: e.weight });
      }
    });
    return g;
  }

  function describe(network, what, extra) {
    var text = network.nodes.length + " " + what + ", " + network.edges.length + " links";
    if (network.truncated) text += " (cut at maxNodes; raise it or narrow the query)";
    return text + (extra || "");
  }

  // ---------------------------------------------------------------- concept graph
  var CONCEPT_GRAPH = "query ConceptGraph($concept: String, $minWeight: Int!, $maxNodes: Int!, $depth: Int!) {\n" +
    "  conceptGraph(concept: $concept, minWeight: $minWeight, maxNodes: $maxNodes, depth: $depth) {\n" +
    "    truncated nodes { id name weight } edges { source target weight }\n  }\n}";

  function loadConceptGraph() {
    var form = $("#concept-form");
    var vars = {
      concept: form.concept.value.trim() || null,
      minWeight: clampInt(form.minWeight.value, 1, 100, 1),
      depth: clampInt(form.depth.value, 1, 3, 1),
      maxNodes: clampInt(form.maxNodes.value, 2, MAX_NODES, 120),
    };
    showClamped(form, vars);
    setBusy(true);
    setStatus("Loading the concept graph...");
    return gql(CONCEPT_GRAPH, vars)
      .then(function (data) {
        var network = data.conceptGraph;
        var names = network.nodes.map(function (n) { return n.name; });
        return lookupMany("concept", names, "{ kind }").then(function (kinds) {
          var kindByName = {};
          names.forEach(function (name, i) { kindByName[name] = kinds[i] ? kinds[i].kind : "CONCEPT"; });
          var kindOf = function (n) { return kindByName[n.name] || "CONCEPT"; };
          var present = {};
          network.nodes.forEach(function (n) { present[kindOf(n)] = true; });
          var legend = Object.keys(KIND_COLORS)
            .filter(function (k) { return present[k]; })
            .map(function (k) { return { name: k.toLowerCase(), color: KIND_COLORS[k] }; });
          draw(buildGraph(network, function (n) { return KIND_COLORS[kindOf(n)]; }, kindOf), legend);
          var around = vars.concept ? " around \u201c" + vars.concept + "\u201d" : "";
          setStatus(describe(network, "concepts" + around, ", min. " + vars.minWeight + " shared papers"));
          if (vars.concept && network.nodes.length) {
            var center = network.nodes.find(function (n) { return n.name === vars.concept; }) ||
              network.nodes.find(function (n) { return n.name.toLowerCase() === vars.concept.toLowerCase(); });
            if (center) select(center.id);
          }
        });
      })
      .catch(fail)
      .finally(function () { setBusy(false); });
  }

  // ---------------------------------------------------------------- co-author network
  var COAUTHORS = "query Coauthors($author: String!, $depth: Int!, $maxNodes: Int!) {\n" +
    "  coauthorNetwork(author: $author, depth: $depth, maxNodes: $maxNodes) {\n" +
    "    truncated nodes { id name weight } edges { source target weight }\n  }\n}";

  function topAuthor() {
    return gql("{ authors(first: 1, orderBy: PAPER_COUNT) { nodes { name } } }").then(function (d) {
      return d.authors.nodes.length ? d.authors.nodes[0].name : null;
    });
  }

  function loadCoauthors() {
    var form = $("#coauthor-form");
    var author = form.author.value.trim();
    setBusy(true);
    setStatus("Loading the co-author network...");
    var who = author ? Promise.resolve(author) : topAuthor();
    return who
      .then(function (name) {
        if (!name) throw new Error("the graph has no authors");
        form.author.value = name;
        var vars = {
          author: name,
          depth: clampInt(form.depth.value, 1, 3, 1),
          maxNodes: clampInt(form.maxNodes.value, 2, MAX_NODES, 150),
        };
        showClamped(form, vars);
        return gql(COAUTHORS, vars).then(function (data) {
          state.network = data.coauthorNetwork;
          state.papersByAuthor = null;
          state.centerName = name;
          var years = $("#years");
          years.disabled = true;
          form.yearFrom.value = "";
          form.yearTo.value = "";
          drawCoauthors();
          return loadAuthorYears(state.network);
        });
      })
      .catch(fail)
      .finally(function () { setBusy(false); });
  }

  function hops(network, centerId) {
    var adj = {};
    network.edges.forEach(function (e) {
      (adj[e.source] = adj[e.source] || []).push(e.target);
      (adj[e.target] = adj[e.target] || []).push(e.source);
    });
    var dist = {};
    dist[centerId] = 0;
    var queue = [centerId];
    while (queue.length) {
      var u = queue.shift();
      (adj[u] || []).forEach(function (v) {
        if (dist[v] === undefined) { dist[v] = dist[u] + 1; queue.push(v); }
      });
    }
    return dist;
  }

  // The network as drawn: the API's, or restricted to papers in the chosen years (computed
  // here from each author's papers: the API's coauthorNetwork has no year argument).
  function filteredNetwork() {
    var net = state.network;
    var range = yearRange();
    if (!range || !state.papersByAuthor) return { network: net, filtered: false };
    var inRange = {};
    net.nodes.forEach(function (n) {
      var ids = {};
      (state.papersByAuthor[n.id] || []).forEach(function (p) {
        if (p.year != null && p.year >= range[0] && p.year <= range[1]) ids[p.id] = true;
      });
      inRange[n.id] = ids;
    });
    var edges = [];
    net.edges.forEach(function (e) {
      var a = inRange[e.source] || {}, b = inRange[e.target] || {};
      var shared = Object.keys(a).filter(function (id) { return b[id]; }).length;
      if (shared > 0) edges.push({ source: e.source, target: e.target, weight: shared });
    });
    var linked = {};
    edges.forEach(function (e) { linked[e.source] = linked[e.target] = true; });
    var nodes = net.nodes
      .filter(function (n) { return linked[n.id] || Object.keys(inRange[n.id]).length > 0; })
      .map(function (n) { return Object.assign({}, n, { weight: Object.keys(inRange[n.id]).length }); });
    return { network: { nodes: nodes, edges: edges, truncated: net.truncated }, filtered: true, range: range };
  }

  function drawCoauthors() {
    var view = filteredNetwork();
    var net = view.network;
    var center = state.network.nodes.find(function (n) { return n.name === state.centerName; });
    var dist = center ? hops(net, center.id) : {};
    var hopOf = function (n) { return Math.min(dist[n.id] === undefined ? 3 : dist[n.id], 3); };
    var graph = buildGraph(
      net,
      function (n) { return HOP_COLORS[hopOf(n)]; },
      function () { return "AUTHOR"; }
    );
    var used = {};
    net.nodes.forEach(function (n) { used[hopOf(n)] = true; });
    var legend = HOP_NAMES.map(function (name, i) { return { name: name, color: HOP_COLORS[i] }; })
      .filter(function (_, i) { return used[i]; });
    draw(graph, legend);
    var extra = view.filtered ? ", papers of " + view.range[0] + "\u2013" + view.range[1] : "";
    setStatus(describe(net, "authors around " + state.centerName, extra));
    if (center && graph.hasNode(center.id)) select(center.id);
  }

  function loadAuthorYears(network) {
    var names = network.nodes.map(function (n) { return n.name; });
    var sel = "{ papers(first: " + PAGE + ") { totalCount nodes { id year } } }";
    return lookupMany("author", names, sel).then(function (authors) {
      var byId = {};
      var lo = Infinity, hi = -Infinity, capped = 0;
      network.nodes.forEach(function (n, i) {
        var a = authors[i];
        var papers = a ? a.papers.nodes : [];
        if (a && a.papers.totalCount > papers.length) capped += 1;
        byId[n.id] = papers;
        papers.forEach(function (p) {
          if (p.year != null) { lo = Math.min(lo, p.year); hi = Math.max(hi, p.year); }
        });
      });
      state.papersByAuthor = byId;
      var form = $("#coauthor-form");
      var note = $("#years-note");
      if (lo === Infinity) {
        note.textContent = "These papers have no years.";
        return;
      }
      state.yearSpan = [lo, hi];
      [form.yearFrom, form.yearTo].forEach(function (input) { input.min = lo; input.max = hi; });
      form.yearFrom.value = lo;
      form.yearTo.value = hi;
      $("#years").disabled = false;
      note.textContent = "Filtered here, from each author's papers" +
        (capped ? " (newest " + PAGE + " for " + capped + " prolific authors)" : "") +
        "; papers without a year count only when the whole span is chosen.";
    });
  }

  function yearRange() {
    var form = $("#coauthor-form");
    if (!state.yearSpan || $("#years").disabled) return null;
    var lo = clampInt(form.yearFrom.value, state.yearSpan[0], state.yearSpan[1], state.yearSpan[0]);
    var hi = clampInt(form.yearTo.value, state.yearSpan[0], state.yearSpan[1], state.yearSpan[1]);
    if (lo > hi) { var t = lo; lo = hi; hi = t; }
    if (lo === state.yearSpan[0] && hi === state.yearSpan[1]) return null;
    return [lo, hi];
  }

  // ---------------------------------------------------------------- details panel
  var CONCEPT_PAPERS = "query ConceptPapers($name: String!) {\n" +
    "  concept(name: $name) {\n    name kind aliases paperCount narrower { name }\n" +
    "    papers(first: " + PAPERS_SHOWN + ") { totalCount nodes { id title year venue { name }\n" +
    "      concepts { concept { name } evidence } } }\n  }\n}";
  var AUTHOR_PAPERS = "query AuthorPapers($name: String!) {\n" +
    "  author(name: $name) {\n    name paperCount coauthors(first: 8) { author { name } papers }\n" +
    "    papers(first: " + PAGE + ") { totalCount nodes { id title year venue { name } } }\n  }\n}";
  var PAPER = "query Paper($id: ID!) {\n  paper(id: $id) {\n    id title year url abstract venue { name }\n" +
    "    authors { name } concepts(first: 12) { concept { name kind } evidence }\n  }\n}";

  function select(node) {
    if (!state.graph || !state.graph.hasNode(node)) return;
    state.selected = node;
    state.renderer.refresh({ skipIndexation: true });
    var name = state.graph.getNodeAttribute(node, "name");
    if (state.graph.getNodeAttribute(node, "kind") === "AUTHOR") showAuthor(name);
    else showConcept(name);
  }

  function panel() { return clear($("#details")); }

  function paperItem(p, evidence) {
    var meta = [p.year, p.venue && p.venue.name].filter(Boolean).join(" \u00b7 ");
    return el(
      "li",
      { class: "paper" },
      el("a", { href: "#", class: "paper-title", onclick: function (e) { e.preventDefault(); showPaper(p.id); } },
        p.title),
      meta ? el("span", { class: "meta" }, " " + meta) : null,
      evidence ? el("blockquote", { class: "evidence" }, evidence) : null
    );
  }

  // The paper's evidence sentence for the concept itself, else for one of its narrower
  // concepts (a paper about contextual bandits is listed under bandits).
  function evidenceFor(paper, self, narrower) {
    var mentions = paper.concepts.filter(function (m) { return m.evidence.length; });
    var own = mentions.find(function (m) { return m.concept.name === self; });
    var via = own || mentions.find(function (m) { return narrower[m.concept.name]; });
    if (!via) return null;
    var sentence = via.evidence[0];
    if (sentence.length > 320) sentence = sentence.slice(0, 317) + "...";
    return "\u201c" + sentence + "\u201d" + (own ? "" : " (via " + via.concept.name + ")");
  }

  function showConcept(name) {
    var box = panel();
    box.appendChild(el("p", { class: "note" }, "Loading papers of " + name + "..."));
    return gql(CONCEPT_PAPERS, { name: name }).then(function (data) {
      var c = data.concept;
      box = panel();
      if (!c) { box.appendChild(el("p", { class: "note" }, "No concept " + name + ".")); return; }
      var narrower = {};
      c.narrower.forEach(function (n) { narrower[n.name] = true; });
      box.appendChild(el("h2", {}, c.name));
      box.appendChild(el("p", { class: "meta" },
        el("span", { class: "kind", style: "background:" + (KIND_COLORS[c.kind] || "#999") }, c.kind.toLowerCase()),
        " " + c.paperCount + " paper" + (c.paperCount === 1 ? "" : "s") +
          (c.aliases.length ? " \u00b7 also: " + c.aliases.slice(0, 4).join(", ") : "")));
      var list = el("ol", { class: "papers", id: "paper-list" });
      c.papers.nodes.forEach(function (p) { list.appendChild(paperItem(p, evidenceFor(p, c.name, narrower))); });
      box.appendChild(el("h3", {}, "Papers" + more(c.papers)));
      box.appendChild(list);
    }).catch(fail);
  }

  function showAuthor(name) {
    var box = panel();
    box.appendChild(el("p", { class: "note" }, "Loading papers of " + name + "..."));
    return gql(AUTHOR_PAPERS, { name: name }).then(function (data) {
      var a = data.author;
      box = panel();
      if (!a) { box.appendChild(el("p", { class: "note" }, "No author " + name + ".")); return; }
      var range = state.mode === "coauthor" ? yearRange() : null;
      var papers = a.papers.nodes.filter(function (p) {
        return !range || (p.year != null && p.year >= range[0] && p.year <= range[1]);
      });
      box.appendChild(el("h2", {}, a.name));
      box.appendChild(el("p", { class: "meta" }, a.paperCount + " paper" + (a.paperCount === 1 ? "" : "s") +
        (range ? " (" + papers.length + " in " + range[0] + "\u2013" + range[1] + ")" : "")));
      var list = el("ol", { class: "papers", id: "paper-list" });
      papers.slice(0, PAPERS_SHOWN).forEach(function (p) { list.appendChild(paperItem(p, null)); });
      box.appendChild(el("h3", {}, "Papers" + (papers.length > PAPERS_SHOWN ? " (newest " + PAPERS_SHOWN + ")" : "")));
      box.appendChild(list);
      if (a.coauthors.length) {
        var co = el("ul", { class: "chips" });
        a.coauthors.forEach(function (c) {
          co.appendChild(el("li", {}, el("a", { href: "#", onclick: function (e) {
            e.preventDefault(); openAuthor(c.author.name);
          } }, c.author.name + " (" + c.papers + ")")));
        });
        box.appendChild(el("h3", {}, "Co-authors (shared papers)"));
        box.appendChild(co);
      }
    }).catch(fail);
  }

  function showPaper(id) {
    return gql(PAPER, { id: id }).then(function (data) {
      var p = data.paper;
      var box = panel();
      if (!p) { box.appendChild(el("p", { class: "note" }, "No paper " + id + ".")); return; }
      box.appendChild(el("h2", {}, p.title));
      box.appendChild(el("p", { class: "meta" }, [p.year, p.venue && p.venue.name].filter(Boolean).join(" \u00b7 ")));
      var authors = el("ul", { class: "chips" });
      p.authors.forEach(function (a) {
        authors.appendChild(el("li", {}, el("a", { href: "#", onclick: function (e) {
          e.preventDefault(); openAuthor(a.name);
        } }, a.name)));
      });
      box.appendChild(authors);
      if (p.abstract) box.appendChild(el("p", { class: "abstract" }, p.abstract));
      var concepts = el("ul", { class: "mentions" });
      p.concepts.forEach(function (m) {
        concepts.appendChild(el("li", {},
          el("a", { href: "#", style: "color:" + (KIND_COLORS[m.concept.kind] || "#333"), onclick: function (e) {
            e.preventDefault(); openConcept(m.concept.name);
          } }, m.concept.name),
          m.evidence.length ? el("blockquote", { class: "evidence" }, "\u201c" + m.evidence[0] + "\u201d") : null));
      });
      box.appendChild(el("h3", {}, "Concepts"));
      box.appendChild(concepts);
    }).catch(fail);
  }

  function more(conn) {
    return conn.totalCount > conn.nodes.length ? " (newest " + conn.nodes.length + " of " + conn.totalCount + ")" : "";
  }

  // ---------------------------------------------------------------- search
  // Concepts by name (substring) and by full-text relevance (aliases too), authors by name,
  // papers by full-text relevance over titles and abstracts.
  var SEARCH = "query Search($text: String!) {\n" +
    "  concepts(search: $text, first: 8) { nodes { name kind paperCount } }\n" +
    "  search(text: $text, first: 8) { concept { name kind paperCount } }\n" +
    "  authors(search: $text, first: 8, orderBy: PAPER_COUNT) { nodes { name paperCount } }\n" +
    "  papers(where: { text: $text }, first: 8) { nodes { id title year } }\n}";

  function searchConcepts(d) {
    var seen = {};
    var out = [];
    d.concepts.nodes.concat(d.search.map(function (h) { return h.concept; })).forEach(function (c) {
      if (c && !seen[c.name] && out.length < 10) { seen[c.name] = true; out.push(c); }
    });
    return out;
  }

  function runSearch(text) {
    var box = $("#results");
    clear(box);
    if (!text) { box.hidden = true; return Promise.resolve(); }
    box.hidden = false;
    box.appendChild(el("p", { class: "note" }, "Searching..."));
    return gql(SEARCH, { text: text }).then(function (d) {
      clear(box);
      var close = el("button", { type: "button", class: "close", "aria-label": "Close",
        onclick: function () { box.hidden = true; } }, "\u00d7");
      box.appendChild(close);
      var groups = [
        ["Concepts", searchConcepts(d), function (c) {
          return el("a", { href: "#", onclick: function (e) { e.preventDefault(); box.hidden = true; openConcept(c.name); } },
            el("i", { class: "dot", style: "background:" + (KIND_COLORS[c.kind] || "#999") }),
            c.name + " (" + c.paperCount + ")");
        }],
        ["Authors", d.authors.nodes, function (a) {
          return el("a", { href: "#", onclick: function (e) { e.preventDefault(); box.hidden = true; openAuthor(a.name); } },
            a.name + " (" + a.paperCount + ")");
        }],
        ["Papers", d.papers.nodes, function (p) {
          return el("a", { href: "#", onclick: function (e) { e.preventDefault(); box.hidden = true; showPaper(p.id); } },
            p.title + (p.year ? " (" + p.year + ")" : ""));
        }],
      ];
      var any = false;
      groups.forEach(function (g) {
        if (!g[1].length) return;
        any = true;
        var list = el("ul", {});
        g[1].forEach(function (item) { list.appendChild(el("li", {}, g[2](item))); });
        box.appendChild(el("div", { class: "group" }, el("h3", {}, g[0]), list));
      });
      if (!any) box.appendChild(el("p", { class: "note" }, "Nothing found for \u201c" + text + "\u201d."));
    }).catch(fail);
  }

  // ---------------------------------------------------------------- modes and wiring
  function setMode(mode) {
    state.mode = mode;
    document.querySelectorAll(".tabs button").forEach(function (b) {
      b.setAttribute("aria-selected", String(b.dataset.mode === mode));
    });
    document.querySelectorAll(".mode-form").forEach(function (f) { f.hidden = f.dataset.mode !== mode; });
  }

  function openConcept(name) {
    setMode("concept");
    $("#concept-form").concept.value = name;
    $("#concept-form").minWeight.value = 1;
    updateHash();
    return loadConceptGraph();
  }

  function openAuthor(name) {
    setMode("coauthor");
    $("#coauthor-form").author.value = name;
    updateHash();
    return loadCoauthors();
  }

  function load() {
    updateHash();
    return state.mode === "concept" ? loadConceptGraph() : loadCoauthors();
  }

  function updateHash() {
    var p = new URLSearchParams();
    p.set("mode", state.mode);
    var form = state.mode === "concept" ? $("#concept-form") : $("#coauthor-form");
    var key = state.mode === "concept" ? "concept" : "author";
    if (form[key].value.trim()) p.set(key, form[key].value.trim());
    history.replaceState(null, "", "#" + p.toString());
  }

  function fail(err) {
    setBusy(false);
    setStatus("Error: " + (err && err.message ? err.message : err), true);
    document.body.dataset.state = "error";
  }

  function init() {
    var params = new URLSearchParams(window.location.hash.slice(1));
    if (params.get("concept")) $("#concept-form").concept.value = params.get("concept");
    if (params.get("author")) $("#coauthor-form").author.value = params.get("author");
    if (params.get("maxNodes")) {
      $("#concept-form").maxNodes.value = params.get("maxNodes");
      $("#coauthor-form").maxNodes.value = params.get("maxNodes");
    }
    setMode(params.get("mode") === "coauthor" ? "coauthor" : "concept");
    document.querySelectorAll(".tabs button").forEach(function (b) {
      b.addEventListener("click", function () { setMode(b.dataset.mode); load(); });
    });
    $("#concept-form").addEventListener("submit", function (e) { e.preventDefault(); load(); });
    $("#coauthor-form").addEventListener("submit", function (e) { e.preventDefault(); load(); });
    ["yearFrom", "yearTo"].forEach(function (name) {
      $("#coauthor-form")[name].addEventListener("change", function () {
        if (state.network) drawCoauthors();
      });
    });
    $("#search-form").addEventListener("submit", function (e) {
      e.preventDefault();
      runSearch($("#search-input").value.trim());
    });
    load();
  }

  window.kgExplorer = {
    get graph() { return state.graph; },
    get renderer() { return state.renderer; },
    get requests() { return state.requests; },
    select: select,
    openConcept: openConcept,
    openAuthor: openAuthor,
    search: runSearch,
  };
  init();
})();
