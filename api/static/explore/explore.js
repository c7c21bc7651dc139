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

  var state = {
    mode: "concept",
    graph: null, // graphology graph on screen
    renderer: null,
    hovered: null,
    selected: null,
    network: null, // the API's answer for the co-author network (of the chosen years)
    coauthorVars: null, // the arguments it was asked with, but the years
    yearSpan: null, // the years of the graph's venues: the bounds of the year range
    requests: 0,
    focus: null, // the searched concept or author: marked and always labelled
    labelled: {}, // node -> true: the labels chooseLabels found room for
    showAll: false, // draw every link, not only the drawing budget
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

  // draw(graph, {focus, what}): graph holds every node and link the API gave; what is drawn
  // is a budget of them (drawingBudget), coloured by community (communities), laid out with the
  // communities apart (layOut), labelled where labels fit (chooseLabels), the focus (the
  // searched concept or author) marked and always labelled.
  function draw(graph, opts) {
    opts = opts || {};
    if (state.renderer) state.renderer.kill();
    state.graph = graph;
    state.hovered = null;
    state.selected = null;
    state.focus = opts.focus && graph.hasNode(opts.focus) ? opts.focus : null;
    state.showAll = false;
    state.labelled = {};
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
    var kept = drawingBudget(graph, state.focus);
    graph.forEachEdge(function (edge) { graph.setEdgeAttribute(edge, "drawn", !!kept[edge]); });
    var legend = colourCommunities(graph, communities(graph));
    if (graph.order > 0) layOut(graph);
    state.renderer = new V.Sigma(graph, $("#graph"), {
      renderEdgeLabels: true,
      edgeLabelSize: 11,
      edgeLabelColor: { color: "#6b7280" },
      labelFont: LABEL_FONT,
      labelSize: LABEL_SIZE,
      labelWeight: LABEL_WEIGHT,
      // Which labels show is decided here (chooseLabels): sigma's own grid would pick by
      // size only and let labels of neighbouring cells cross.
      labelDensity: 0,
      labelRenderedSizeThreshold: Infinity,
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
    r.on("clickStage", function () { state.selected = null; chooseLabels(); });
    r.getCamera().on("updated", labelsSoon);
    // The legend and the link toggle first: a longer legend can narrow the picture.
    renderLegend(legend);
    renderLinkToggle();
    chooseLabels();
    // Once more after sigma's first frame: labels chosen before it crossed in 5 pairs of 35
    // on the 10k-paper landing view (the picture's frame is only final once drawn).
    labelsSoon();
    document.body.dataset.graphOrder = String(graph.order);
  }

  // ---------------------------------------------------------------- drawing budget
  // At most LINKS_PER_NODE drawn links per drawn node: at real size the API's answer is a
  // hairball (120 concepts and 4,213 links on a 17k-paper store), in which no tie can be
  // followed. The rest stay in the graph, hidden, and "show all N links" draws them.
  var LINKS_PER_NODE = 2;

  // The links to draw, as {edgeKey: true}, in this order until the budget is spent:
  // 1. a maximum spanning forest (Kruskal, heaviest first): every node keeps its strongest tie
  //    and the picture stays as connected as the data is;
  // 2. every link of the focus node (the view is about it; at most nodes - 1 links);
  // 3. the remaining links by their best rank among their two ends' ties (a node's strongest
  //    ties first, so a small node's few ties are not crowded out by a hub's), heaviest first.
  // 1 and 2 are at most 2 (n - 1) links, within the budget of 2n.
  function drawingBudget(graph, focus) {
    var budget = LINKS_PER_NODE * graph.order;
    var kept = {};
    var count = 0;
    function take(edge) { if (!kept[edge]) { kept[edge] = true; count += 1; } }
    var edges = graph.edges().slice().sort(function (x, y) {
      return graph.getEdgeAttribute(y, "weight") - graph.getEdgeAttribute(x, "weight") || (x < y ? -1 : x > y ? 1 : 0);
    });
    var parent = {};
    function root(n) {
      while (parent[n] !== undefined && parent[n] !== n) { parent[n] = parent[parent[n]] || parent[n]; n = parent[n]; }
      return n;
    }
    edges.forEach(function (edge) {
      var a = root(graph.source(edge)), b = root(graph.target(edge));
      if (a !== b) { parent[a] = b; take(edge); }
    });
    if (focus) graph.forEachEdge(focus, function (edge) { take(edge); });
    var rankAt = {};  // node -> edge -> rank among the node's ties (0 = strongest)
    graph.forEachNode(function (node) {
      rankAt[node] = {};
      graph.edges(node).slice().sort(function (x, y) {
        return graph.getEdgeAttribute(y, "weight") - graph.getEdgeAttribute(x, "weight") || (x < y ? -1 : x > y ? 1 : 0);
      }).forEach(function (edge, i) { rankAt[node][edge] = i; });
    });
    var rest = edges.filter(function (edge) { return !kept[edge]; }).map(function (edge, order) {
      var rank = Math.min(rankAt[graph.source(edge)][edge], rankAt[graph.target(edge)][edge]);
      return { edge: edge, rank: rank, order: order };
    });
    rest.sort(function (x, y) { return x.rank - y.rank || x.order - y.order; });
    for (var i = 0; i < rest.length && count < budget; i++) take(rest[i].edge);
    return kept;
  }

  function drawnLinks() {
    var g = state.graph;
    if (!g) return 0;
    if (state.showAll) return g.size;
    return g.filterEdges(function (_, a) { return a.drawn; }).length;
  }

  // The button under the picture that draws every link, or only the budget again.
  function renderLinkToggle() {
    var box = $("#links");
    if (!box) return;
    clear(box);
    var g = state.graph;
    var hidden = g.size - g.filterEdges(function (_, a) { return a.drawn; }).length;
    if (!hidden) { box.hidden = true; return; }
    box.hidden = false;
    var text = state.showAll
      ? "Draw only the strongest " + (g.size - hidden) + " links"
      : "Show all " + g.size + " links";
    box.appendChild(el("span", { class: "note" }, state.showAll
      ? "All " + g.size + " links drawn. "
      : (g.size - hidden) + " of " + g.size + " links drawn (each node's strongest ties). "));
    box.appendChild(el("button", { type: "button", id: "all-links", onclick: function () {
      state.showAll = !state.showAll;
      renderLinkToggle();
      state.renderer.refresh({ skipIndexation: true });
    } }, text));
  }

  // ---------------------------------------------------------------- communities
  var COMMUNITY_COLORS = ["#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948",
    "#b07aa1", "#ff9da7", "#9c755f"];
  var OTHER_COLOR = "#bab0ac";

  // The drawn links only (what the eye sees), as a graph of their own.
  function drawnGraph(graph) {
    var g = new V.Graph({ type: "undirected" });
    graph.forEachNode(function (node, a) { g.addNode(node, { x: a.x, y: a.y, size: a.size }); });
    graph.forEachEdge(function (edge, a, s, t) { if (a.drawn) g.addEdge(s, t, { weight: a.weight }); });
    return g;
  }

  // Louvain communities of the drawn picture (weighted by shared papers), with a fixed random
  // seed so the same query draws the same colours. Returns node -> community number.
  function communities(graph) {
    var g = drawnGraph(graph);
    if (g.size === 0) {
      var alone = {};
      g.forEachNode(function (node, i) { alone[node] = 0; });
      return alone;
    }
    return V.louvain(g, { getEdgeWeight: "weight", rng: seededRandom(29) });
  }

  function seededRandom(seed) {  // mulberry32
    return function () {
      seed |= 0; seed = (seed + 0x6d2b79f5) | 0;
      var t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
  }

  // The biggest communities (by papers) get a colour each, the rest share grey; the legend
  // names each by its heaviest node. Nodes get `community` (0 = biggest) and `color`.
  function colourCommunities(graph, of) {
    var groups = {};
    graph.forEachNode(function (node, a) {
      var c = of[node];
      var g = groups[c] || (groups[c] = { members: [], weight: 0, top: null });
      g.members.push(node);
      g.weight += a.weight || 1;
      if (!g.top || (a.weight || 0) > (graph.getNodeAttribute(g.top, "weight") || 0)) g.top = node;
    });
    var ranked = Object.keys(groups).map(function (k) { return groups[k]; }).sort(function (x, y) {
      return y.weight - x.weight || y.members.length - x.members.length;
    });
    var legend = [];
    var rest = 0;
    ranked.forEach(function (g, i) {
      var color = i < COMMUNITY_COLORS.length && g.members.length > 1 ? COMMUNITY_COLORS[i] : OTHER_COLOR;
      g.members.forEach(function (node) { graph.mergeNodeAttributes(node, { community: i, color: color }); });
      if (color === OTHER_COLOR) rest += g.members.length;
      else legend.push({ name: graph.getNodeAttribute(g.top, "name") + " (" + g.members.length + ")", color: color });
    });
    if (rest) legend.push({ name: "smaller groups (" + rest + ")", color: OTHER_COLOR });
    return legend;
  }

  // ---------------------------------------------------------------- layout
  // Each community starts on its own spot of a circle, its nodes around it; ForceAtlas2 on the
  // drawn links (LinLog mode, which pulls a community together and pushes communities apart)
  // then settles it; spreadOut finally removes overlapping circles at the size on screen.
  function layOut(graph) {
    var g = drawnGraph(graph);
    var members = {};
    graph.forEachNode(function (node, a) { (members[a.community] = members[a.community] || []).push(node); });
    var keys = Object.keys(members).sort(function (x, y) { return members[y].length - members[x].length; });
    keys.forEach(function (k, i) {
      var angle = (2 * Math.PI * i) / keys.length;
      var far = keys.length > 1 ? 100 : 0;
      var cx = far * Math.cos(angle), cy = far * Math.sin(angle);
      var spread = 8 * Math.sqrt(members[k].length);
      members[k].forEach(function (node, j) {
        var t = (2 * Math.PI * j) / members[k].length;
        g.mergeNodeAttributes(node, { x: cx + spread * Math.cos(t), y: cy + spread * Math.sin(t) });
      });
    });
    var settings = V.forceAtlas2.inferSettings(g);
    settings.barnesHutOptimize = g.order > 300;
    settings.linLogMode = true;
    settings.outboundAttractionDistribution = true;
    settings.strongGravityMode = true;
    settings.gravity = 0.5;
    V.forceAtlas2.assign(g, { iterations: g.order > 400 ? 200 : 500, settings: settings });
    g.forEachNode(function (node, a) { graph.mergeNodeAttributes(node, { x: a.x, y: a.y }); });
    pullApart(graph);
    spreadOut(graph);
  }

  // Moves each community away from the picture's centre by half its centroid's distance, so
  // that communities sit apart with a gap between them (ForceAtlas2 leaves them touching).
  // The focus stays where it is: at the centre of its own neighbourhood.
  var PULL_APART = 0.5;
  function pullApart(graph) {
    var sums = {};
    var mx = 0, my = 0;
    graph.forEachNode(function (node, a) {
      var c = sums[a.community] || (sums[a.community] = { x: 0, y: 0, n: 0 });
      c.x += a.x; c.y += a.y; c.n += 1; mx += a.x; my += a.y;
    });
    if (Object.keys(sums).length < 2) return;
    mx /= graph.order; my /= graph.order;
    graph.forEachNode(function (node, a) {
      if (node === state.focus) return;
      var c = sums[a.community];
      graph.mergeNodeAttributes(node, {
        x: a.x + PULL_APART * (c.x / c.n - mx),
        y: a.y + PULL_APART * (c.y / c.n - my),
      });
    });
  }

  // ---------------------------------------------------------------- labels
  // A label is shown where it fits: nodes in order of importance (the focus, the selected node,
  // its neighbours, then by papers) each get their label unless its box (circle plus label, in
  // screen pixels at the current zoom) would overlap one already shown or leave the picture.
  // Zooming in makes room, so more labels show; it is redone when the camera moves.
  var LABEL_GAP = 2;
  var labelTimer = null;
  function labelsSoon() {
    document.body.dataset.labels = "pending";
    if (labelTimer) clearTimeout(labelTimer);
    labelTimer = setTimeout(function () { labelTimer = null; chooseLabels(); }, 60);
  }

  var measureCtx = null;
  function labelWidth(text) {
    if (!measureCtx) {
      measureCtx = document.createElement("canvas").getContext("2d");
      measureCtx.font = LABEL_WEIGHT + " " + LABEL_SIZE + "px " + LABEL_FONT;
    }
    return measureCtx.measureText(String(text || "")).width;
  }

  function labelBox(r, node, label) {
    var d = r.getNodeDisplayData(node);
    if (!d) return null;
    var v = r.framedGraphToViewport(d);
    var s = r.scaleSize ? r.scaleSize(d.size) : d.size;
    var h = Math.max(s, LABEL_SIZE / 2 + 2);
    return { x0: v.x - s, x1: v.x + s + 3 + labelWidth(label), y0: v.y - h, y1: v.y + h };
  }

  function labelPriority(g) {
    var first = {};
    if (state.focus) first[state.focus] = 3;
    if (state.selected) {
      first[state.selected] = Math.max(first[state.selected] || 0, 2);
      g.forEachNeighbor(state.selected, function (n) { first[n] = Math.max(first[n] || 0, 1); });
    }
    return g.nodes().sort(function (x, y) {
      return (first[y] || 0) - (first[x] || 0) ||
        (g.getNodeAttribute(y, "weight") || 0) - (g.getNodeAttribute(x, "weight") || 0) || (x < y ? -1 : 1);
    });
  }

  function chooseLabels() {
    var r = state.renderer, g = state.graph;
    if (!r || !g) return;
    var dims = r.getDimensions();
    var shown = [];
    var labelled = {};
    labelPriority(g).forEach(function (node) {
      var label = g.getNodeAttribute(node, "label");
      if (!label) return;
      var b = labelBox(r, node, label);
      if (!b) return;
      var must = node === state.focus || node === state.selected;
      if (!must) {
        if (b.x1 > dims.width || b.x0 < 0 || b.y0 < 0 || b.y1 > dims.height) return;
        for (var i = 0; i < shown.length; i++) {
          var o = shown[i];
          if (b.x0 < o.x1 + LABEL_GAP && o.x0 < b.x1 + LABEL_GAP && b.y0 < o.y1 + LABEL_GAP && o.y0 < b.y1 + LABEL_GAP) return;
        }
      }
      shown.push(b);
      labelled[node] = true;
    });
    state.labelled = labelled;
    r.refresh({ skipIndexation: true });
    if (!labelTimer) document.body.dataset.labels = "done";
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
  var LABEL_ROOM_NODES = 60;
  function spreadOut(graph) {
    var el = $("#graph");
    var wide = Math.max((el.clientWidth - 2 * STAGE_PADDING) / OPENING_RATIO, 200);
    var high = Math.max((el.clientHeight - 2 * STAGE_PADDING) / OPENING_RATIO, 200);
    var ctx = document.createElement("canvas").getContext("2d");
    ctx.font = LABEL_WEIGHT + " " + LABEL_SIZE + "px " + LABEL_FONT;
    var ids = graph.nodes();
    // Small pictures make room for every label; on larger ones there is no room for all of
    // them, and pushing every label box apart tore the communities up: only circles are
    // separated, and chooseLabels shows the labels that fit.
    var withLabels = ids.length <= LABEL_ROOM_NODES;
    var boxes = ids.map(function (id) {
      var a = graph.getNodeAttributes(id);
      if (!withLabels) return { left: a.size + 1, right: a.size + 1, half: a.size + 1 };
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
    var passes = px.length > 300 ? 30 : 400;  // each pass is n^2 / 2 comparisons
    for (var pass = 0; pass < passes; pass++) {
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

  // Labels: those chooseLabels picked (they fit), and the hovered node's. Hovering a node dims
  // everything but it and its neighbours. The focus (the searched concept or author) and the
  // clicked node are highlighted: a boxed label, drawn above the rest.
  function nodeReducer(node, data) {
    var res = Object.assign({}, data);
    var g = state.graph;
    var labelled = !!state.labelled[node];
    res.label = labelled ? data.label : "";
    res.forceLabel = labelled;
    if (state.hovered) {
      if (node !== state.hovered && !g.areNeighbors(node, state.hovered)) {
        res.color = "#e5e7eb";
        res.label = "";
        res.zIndex = 0;
      } else {
        res.zIndex = 1;
        if (node === state.hovered) { res.label = data.label; res.forceLabel = true; }
      }
    } else if (state.selected && (node === state.selected || g.areNeighbors(node, state.selected))) {
      res.zIndex = 1;
    }
    if (node === state.focus) {
      res.searched = true;
      res.highlighted = true;
      res.zIndex = 2;
    }
    if (node === state.selected) res.highlighted = true;
    return res;
  }

  // Links outside the drawing budget are hidden unless "show all" is on; those of the hovered
  // or clicked node are always drawn, so a node's every tie is one click away.
  function edgeReducer(edge, data) {
    var res = Object.assign({}, data);
    // The weights of the hovered node's links only: on every link they covered the labels.
    res.label = state.hovered && state.graph.hasExtremity(edge, state.hovered) ? data.label : "";
    // The focus is selected when a view opens: its links (all drawn) keep their colour.
    var focus = state.hovered || (state.selected !== state.focus ? state.selected : null);
    if (focus && state.graph.hasExtremity(edge, focus)) {
      res.color = "#4b5563";
      res.forceLabel = focus === state.hovered;
      res.zIndex = 1;
    } else if (state.hovered || (!data.drawn && !state.showAll)) {
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
    var loosened = false;
    return gql(CONCEPT_GRAPH, vars)
      .then(function (data) {
        // A rare concept shares no paper count as high as the form asks with any other: draw
        // its ties of 1 paper rather than a lone dot, and say so (the form keeps its value).
        if (vars.concept && vars.minWeight > 1 && !data.conceptGraph.edges.length) {
          loosened = true;
          return gql(CONCEPT_GRAPH, Object.assign({}, vars, { minWeight: 1 }));
        }
        return data;
      })
      .then(function (data) {
        var network = data.conceptGraph;
        var names = network.nodes.map(function (n) { return n.name; });
        return lookupMany("concept", names, "{ kind }").then(function (kinds) {
          var kindByName = {};
          names.forEach(function (name, i) { kindByName[name] = kinds[i] ? kinds[i].kind : "CONCEPT"; });
          var kindOf = function (n) { return kindByName[n.name] || "CONCEPT"; };
          var center = vars.concept ? network.nodes.find(function (n) { return n.name === vars.concept; }) ||
            network.nodes.find(function (n) { return n.name.toLowerCase() === vars.concept.toLowerCase(); }) : null;
          draw(buildGraph(network, function (n) { return KIND_COLORS[kindOf(n)]; }, kindOf),
            { focus: center ? center.id : null });
          var around = vars.concept ? " around \u201c" + vars.concept + "\u201d" : "";
          setStatus(describe(network, "concepts" + around, loosened
            ? ", min. 1 shared paper (none shares " + vars.minWeight + ")"
            : ", min. " + vars.minWeight + " shared papers"));
          if (center) select(center.id, !state.paper);
        });
      })
      .catch(fail)
      .finally(function () { setBusy(false); });
  }

  // ---------------------------------------------------------------- co-author network
  var COAUTHORS = "query Coauthors($author: String!, $depth: Int!, $maxNodes: Int!, $years: YearRange) {\n" +
    "  coauthorNetwork(author: $author, depth: $depth, maxNodes: $maxNodes, years: $years) {\n" +
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
        rememberView(true);
        var vars = {
          author: name,
          depth: clampInt(form.depth.value, 1, 3, 1),
          maxNodes: clampInt(form.maxNodes.value, 2, MAX_NODES, 150),
        };
        showClamped(form, vars);
        state.coauthorVars = vars;
        state.centerName = name;
        return loadYearSpan().then(function () {
          return gql(COAUTHORS, Object.assign({ years: yearsArg() }, vars));
        }).then(function (data) {
          state.network = data.coauthorNetwork;
          drawCoauthors();
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

  // A new year range: the server answers for the papers of those years (coauthorNetwork(years:)).
  function redrawCoauthorYears() {
    if (!state.coauthorVars) return Promise.resolve();
    setBusy(true);
    setStatus("Loading the co-author network of the chosen years...");
    rememberView(true);
    return gql(COAUTHORS, Object.assign({ years: yearsArg() }, state.coauthorVars))
      .then(function (data) {
        state.network = data.coauthorNetwork;
        drawCoauthors();
      })
      .catch(fail)
      .finally(function () { setBusy(false); });
  }

  function drawCoauthors() {
    var net = state.network;
    var range = yearRange();
    var center = state.network.nodes.find(function (n) { return n.name === state.centerName; });
    var dist = center ? hops(net, center.id) : {};
    var graph = buildGraph(
      net,
      function () { return OTHER_COLOR; },
      function () { return "AUTHOR"; }
    );
    graph.forEachNode(function (node) {
      graph.setNodeAttribute(node, "hops", dist[node] === undefined ? null : dist[node]);
    });
    draw(graph, { focus: center && graph.hasNode(center.id) ? center.id : null });
    var extra = range ? ", papers of " + range[0] + "\u2013" + range[1] : "";
    setStatus(describe(net, "authors around " + state.centerName, extra));
    if (center && graph.hasNode(center.id)) select(center.id, !state.paper);
  }

  // The bounds of the year range: the years of the graph's venues, asked once. The range
  // itself is applied by the server, to the network and to an author's papers alike.
  function loadYearSpan() {
    if (state.yearSpan) return Promise.resolve(state.yearSpan);
    return gql("{ venues { year } }").then(function (data) {
      var years = data.venues.map(function (v) { return v.year; }).filter(function (y) { return y != null; });
      var form = $("#coauthor-form");
      var note = $("#years-note");
      if (!years.length) {
        note.textContent = "The graph's papers have no years.";
        return null;
      }
      var lo = Math.min.apply(null, years), hi = Math.max.apply(null, years);
      state.yearSpan = [lo, hi];
      [form.yearFrom, form.yearTo].forEach(function (input) { input.min = lo; input.max = hi; });
      if (!form.yearFrom.value) form.yearFrom.value = lo;
      if (!form.yearTo.value) form.yearTo.value = hi;
      $("#years").disabled = false;
      note.textContent = "Ties count only the papers of these years (" + lo + "\u2013" + hi +
        ": every year; papers without a year count only then).";
      return state.yearSpan;
    });
  }

  function yearsArg() {
    var range = yearRange();
    return range ? { from: range[0], to: range[1] } : null;
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

  // ---------------------------------------------------------------- text as written
  // Titles, abstracts and evidence sentences keep the LaTeX their authors wrote
  // ("$\\texttt{SPIN}$: ..."); KaTeX (katex/, served from here) typesets it in place. Text
  // without delimiters, or with a formula KaTeX cannot read, is left as it is.
  var MATH_DELIMITERS = [
    { left: "$$", right: "$$", display: false },
    { left: "\\(", right: "\\)", display: false },
    { left: "\\[", right: "\\]", display: false },
    { left: "$", right: "$", display: false },
  ];
  function withMath(node) {
    if (window.renderMathInElement && /\$|\\\(|\\\[/.test(node.textContent)) {
      window.renderMathInElement(node, { delimiters: MATH_DELIMITERS, throwOnError: false });
    }
    return node;
  }

  // The first `length` characters of `text`, moved back to before an unclosed `$`: cutting a
  // formula in half would show its LaTeX raw.
  function cutOutsideMath(text, length) {
    var cut = text.slice(0, length);
    var dollars = (cut.match(/(^|[^\\])\$/g) || []).length;
    if (dollars % 2 === 1) cut = cut.slice(0, cut.lastIndexOf("$"));
    return cut;
  }

  // ---------------------------------------------------------------- details panel
  var CONCEPT_PAPERS = "query ConceptPapers($name: String!) {\n" +
    "  concept(name: $name) {\n    name kind aliases paperCount narrower { name }\n" +
    "    trend(includeNarrower: true) { year papers }\n" +
    "    papers(first: " + PAPERS_SHOWN + ") { totalCount nodes { id title year venue { name }\n" +
    "      concepts { concept { name } evidence } } }\n  }\n}";
  var AUTHOR_PAPERS = "query AuthorPapers($name: String!) {\n" +
    "  author(name: $name) {\n    name paperCount coauthors(first: 8) { author { name } papers }\n" +
    "    papers(first: " + PAPERS_SHOWN + ") { totalCount nodes { id title year venue { name } } }\n  }\n}";
  var PAPER = "query Paper($id: ID!) {\n  paper(id: $id) {\n    id title year url abstract venue { name }\n" +
    "    authors { name } concepts(first: 12) { concept { name kind } evidence }\n  }\n}";

  function select(node, withPanel) {
    if (!state.graph || !state.graph.hasNode(node)) return;
    state.selected = node;
    chooseLabels();
    if (withPanel === false) return;
    state.paper = null;
    rememberView();
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
      withMath(el("a", { href: "#", class: "paper-title", onclick: function (e) { e.preventDefault(); showPaper(p.id); } },
        p.title)),
      meta ? el("span", { class: "meta" }, " " + meta) : null,
      evidence ? withMath(el("blockquote", { class: "evidence" }, evidence)) : null
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
    if (sentence.length > 320) sentence = cutOutsideMath(sentence, 317) + "...";
    return "\u201c" + sentence + "\u201d" + (own ? "" : " (via " + via.concept.name + ")");
  }

  // A concept's papers per year (Concept.trend, counted as paperCount counts them) as a small
  // bar chart: one bar a year from the first to the last year with papers, empty years
  // included, so a gap reads as a gap. Each bar carries its year and count (data-*, <title>).
  var SVG = "http://www.w3.org/2000/svg";
  function svg(tag, attrs, text) {
    var node = document.createElementNS(SVG, tag);
    Object.keys(attrs).forEach(function (k) { node.setAttribute(k, attrs[k]); });
    if (text != null) node.textContent = text;
    return node;
  }

  function trendChart(trend, total) {
    if (!trend.length) return null;
    var byYear = {};
    trend.forEach(function (t) { byYear[t.year] = t.papers; });
    var first = trend[0].year, last = trend[trend.length - 1].year;
    var years = [];
    for (var y = first; y <= last; y++) years.push(y);
    var top = Math.max.apply(null, trend.map(function (t) { return t.papers; }));
    var W = 300, H = 64, PAD = 14, slot = (W - 2) / years.length;
    var bars = svg("svg", { id: "trend-chart", width: W, height: H + PAD, viewBox: "0 0 " + W + " " + (H + PAD),
      role: "img", "aria-label": "papers per year" });
    years.forEach(function (year, i) {
      var n = byYear[year] || 0;
      var h = n ? Math.max(2, Math.round((H - 12) * n / top)) : 0;
      var bar = svg("rect", { class: "bar", x: (1 + i * slot + slot * 0.1).toFixed(1), y: H - h,
        width: Math.max(1, slot * 0.8).toFixed(1), height: h, "data-year": year, "data-papers": n });
      bar.appendChild(svg("title", {}, year + ": " + n + " paper" + (n === 1 ? "" : "s")));
      bars.appendChild(bar);
    });
    bars.appendChild(svg("text", { x: 1, y: H + PAD - 2, class: "axis" }, String(first)));
    if (last !== first) bars.appendChild(svg("text", { x: W - 1, y: H + PAD - 2, class: "axis", "text-anchor": "end" }, String(last)));
    bars.appendChild(svg("text", { x: 1, y: 10, class: "axis" }, "max " + top));
    var dated = trend.reduce(function (n, t) { return n + t.papers; }, 0);
    return el("figure", { class: "trend", id: "trend" }, bars,
      el("figcaption", { class: "note" }, "Papers per year (" + dated + " of the " + total + " have a year)"));
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
      var chart = trendChart(c.trend, c.paperCount);
      if (chart) box.appendChild(chart);
      var list = el("ol", { class: "papers", id: "paper-list" });
      c.papers.nodes.forEach(function (p) { list.appendChild(paperItem(p, evidenceFor(p, c.name, narrower))); });
      box.appendChild(el("h3", {}, "Papers" + more(c.papers)));
      box.appendChild(list);
    }).catch(fail);
  }

  // An author's papers of some years, as the server counts them: one aliased papers(where:
  // {author, year}) per year (newest year first), each with its total. At most ALIASES years
  // a request.
  function authorPapersInYears(name, range) {
    var years = [];
    for (var y = range[1]; y >= range[0]; y--) years.push(y);
    var chunks = [];
    for (var i = 0; i < years.length; i += ALIASES) chunks.push(years.slice(i, i + ALIASES));
    return Promise.all(chunks.map(function (chunk) {
      var fields = chunk.map(function (year) {
        return "y" + year + ": papers(where: { author: $a, year: " + year + " }, first: " + PAPERS_SHOWN +
          ") { totalCount nodes { id title year venue { name } } }";
      }).join("\n");
      return gql("query AuthorYears($a: String!) {\n" + fields + "\n}", { a: name }).then(function (data) {
        return chunk.map(function (year) { return data["y" + year]; });
      });
    })).then(function (parts) {
      var perYear = [].concat.apply([], parts);
      return {
        totalCount: perYear.reduce(function (n, c) { return n + c.totalCount; }, 0),
        nodes: [].concat.apply([], perYear.map(function (c) { return c.nodes; })).slice(0, PAPERS_SHOWN),
      };
    });
  }

  function showAuthor(name) {
    var box = panel();
    box.appendChild(el("p", { class: "note" }, "Loading papers of " + name + "..."));
    var range = state.mode === "coauthor" ? yearRange() : null;
    return gql(AUTHOR_PAPERS, { name: name }).then(function (data) {
      var a = data.author;
      if (!a) return { author: null };
      var papers = range ? authorPapersInYears(a.name, range) : Promise.resolve(a.papers);
      return papers.then(function (conn) { return { author: a, papers: conn }; });
    }).then(function (found) {
      var a = found.author;
      box = panel();
      if (!a) { box.appendChild(el("p", { class: "note" }, "No author " + name + ".")); return; }
      var conn = found.papers;
      box.appendChild(el("h2", {}, a.name));
      box.appendChild(el("p", { class: "meta" }, a.paperCount + " paper" + (a.paperCount === 1 ? "" : "s") +
        (range ? " (" + conn.totalCount + " in " + range[0] + "\u2013" + range[1] + ")" : "")));
      var list = el("ol", { class: "papers", id: "paper-list" });
      conn.nodes.slice(0, PAPERS_SHOWN).forEach(function (p) { list.appendChild(paperItem(p, null)); });
      box.appendChild(el("h3", {}, "Papers" + (range ? " of " + range[0] + "\u2013" + range[1] : "") +
        (conn.totalCount > PAPERS_SHOWN ? " (newest " + PAPERS_SHOWN + " of " + conn.totalCount + ")" : "")));
      box.appendChild(list);
      if (a.coauthors.length) {
        var co = el("ul", { class: "chips" });
        a.coauthors.forEach(function (c) {
          co.appendChild(el("li", {}, el("a", { href: "#", onclick: function (e) {
            e.preventDefault(); openAuthor(c.author.name);
          } }, c.author.name + " (" + c.papers + ")")));
        });
        box.appendChild(el("h3", {}, "Co-authors (shared papers" + (range ? ", all years" : "") + ")"));
        box.appendChild(co);
      }
    }).catch(fail);
  }

  function showPaper(id) {
    state.paper = id;
    rememberView();
    return gql(PAPER, { id: id }).then(function (data) {
      var p = data.paper;
      var box = panel();
      if (!p) { box.appendChild(el("p", { class: "note" }, "No paper " + id + ".")); return null; }
      box.appendChild(withMath(el("h2", {}, p.title)));
      box.appendChild(el("p", { class: "meta" }, [p.year, p.venue && p.venue.name].filter(Boolean).join(" \u00b7 ")));
      var authors = el("ul", { class: "chips" });
      p.authors.forEach(function (a) {
        authors.appendChild(el("li", {}, el("a", { href: "#", onclick: function (e) {
          e.preventDefault(); openAuthor(a.name);
        } }, a.name)));
      });
      box.appendChild(authors);
      if (p.abstract) box.appendChild(withMath(el("p", { class: "abstract" }, p.abstract)));
      var concepts = el("ul", { class: "mentions" });
      p.concepts.forEach(function (m) {
        concepts.appendChild(el("li", {},
          el("a", { href: "#", style: "color:" + (KIND_COLORS[m.concept.kind] || "#333"), onclick: function (e) {
            e.preventDefault(); openConcept(m.concept.name);
          } }, m.concept.name),
          m.evidence.length ? withMath(el("blockquote", { class: "evidence" }, "\u201c" + m.evidence[0] + "\u201d")) : null));
      });
      box.appendChild(el("h3", {}, "Concepts"));
      box.appendChild(concepts);
      return p;
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
          return withMath(el("a", { href: "#", onclick: function (e) { e.preventDefault(); box.hidden = true; showPaper(p.id); } },
            p.title + (p.year ? " (" + p.year + ")" : "")));
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

  // Opening a concept or an author: its mode, the name in that mode's form, then load() draws
  // (and remembers) the mode's graph; one path for both, so they cannot drift apart. The form's
  // "Min. shared papers" stays as it is (opening a concept used to reset it to 1, which drew
  // 120 nodes and 3,958 links around "reinforcement learning" on 17k papers).
  function openNamed(mode, field, name) {
    setMode(mode);
    $("#" + mode + "-form")[field].value = name;
    state.paper = null;
    return load();
  }

  function openConcept(name) { return openNamed("concept", "concept", name); }

  function openAuthor(name) { return openNamed("coauthor", "author", name); }

  function load() {
    rememberView();
    return state.mode === "concept" ? loadConceptGraph() : loadCoauthors();
  }

  // ---------------------------------------------------------------- deep links
  // The address says what is on screen, so a picture can be shared: /explore?concept=NAME,
  // ?author=NAME (the co-author network), ?paper=ID (its details, the graph around its first
  // concept), with the form's other values when they differ from its defaults
  // (?concept=bandits&minWeight=3). Each view the user opens is a history entry (Back works).
  var FORM_KEYS = { concept: ["minWeight", "depth", "maxNodes"], coauthor: ["depth", "maxNodes"] };

  function viewQuery() {
    var p = new URLSearchParams();
    var form = state.mode === "concept" ? $("#concept-form") : $("#coauthor-form");
    var key = state.mode === "concept" ? "concept" : "author";
    var value = form[key].value.trim();
    if (value) p.set(key, value);
    else if (state.mode === "coauthor") p.set("mode", "coauthor");
    FORM_KEYS[state.mode].forEach(function (k) {
      var input = form[k];
      if (input.value !== "" && input.value !== input.defaultValue) p.set(k, input.value);
    });
    var range = state.mode === "coauthor" ? yearRange() : null;
    if (range) { p.set("yearFrom", range[0]); p.set("yearTo", range[1]); }
    if (state.paper) p.set("paper", state.paper);
    var text = p.toString();
    return text ? "?" + text : "";
  }

  function rememberView(replace) {
    var url = window.location.pathname + viewQuery();
    if (url === window.location.pathname + window.location.search && !window.location.hash) return;
    if (replace || !state.started) history.replaceState(null, "", url);
    else history.pushState(null, "", url);
  }

  // The view an address asks for: the query string, or the hash of older links (#mode=...).
  function applyAddress() {
    var params = new URLSearchParams(window.location.search);
    if (!["concept", "author", "paper", "mode"].some(function (k) { return params.has(k); })) {
      params = new URLSearchParams(window.location.hash.slice(1));
    }
    var mode = params.has("author") || params.get("mode") === "coauthor" ? "coauthor" : "concept";
    setMode(mode);
    var cform = $("#concept-form"), aform = $("#coauthor-form");
    cform.concept.value = params.get("concept") || "";
    aform.author.value = params.get("author") || "";
    [cform, aform].forEach(function (form) {
      var keys = FORM_KEYS[form === cform ? "concept" : "coauthor"];
      keys.forEach(function (k) { form[k].value = params.get(k) || form[k].defaultValue; });
    });
    aform.yearFrom.value = params.get("yearFrom") || "";
    aform.yearTo.value = params.get("yearTo") || "";
    state.paper = params.get("paper") || null;
    return params;
  }

  // Draws what the address asks for. A paper alone: its details, and the concept graph around
  // its first concept (the strongest), marked.
  function openAddress() {
    applyAddress();
    if (state.paper && state.mode === "concept" && !$("#concept-form").concept.value.trim()) {
      return showPaper(state.paper).then(function (p) {
        if (p && p.concepts.length) $("#concept-form").concept.value = p.concepts[0].concept.name;
        rememberView(true);
        return loadConceptGraph();
      });
    }
    var drawn = state.mode === "concept" ? loadConceptGraph() : loadCoauthors();
    if (state.paper) showPaper(state.paper);
    return drawn;
  }

  function fail(err) {
    setBusy(false);
    setStatus("Error: " + (err && err.message ? err.message : err), true);
    document.body.dataset.state = "error";
  }

  function init() {
    document.querySelectorAll(".tabs button").forEach(function (b) {
      b.addEventListener("click", function () { setMode(b.dataset.mode); state.paper = null; load(); });
    });
    $("#concept-form").addEventListener("submit", function (e) { e.preventDefault(); state.paper = null; load(); });
    $("#coauthor-form").addEventListener("submit", function (e) { e.preventDefault(); state.paper = null; load(); });
    ["yearFrom", "yearTo"].forEach(function (name) {
      $("#coauthor-form")[name].addEventListener("change", function () {
        if (state.network) redrawCoauthorYears();
      });
    });
    $("#search-form").addEventListener("submit", function (e) {
      e.preventDefault();
      runSearch($("#search-input").value.trim());
    });
    window.addEventListener("popstate", function () { openAddress(); });
    // Labels are chosen for the picture's size on screen: again when it changes.
    if (window.ResizeObserver) new ResizeObserver(labelsSoon).observe($("#graph"));
    openAddress().then(function () { state.started = true; }, function () { state.started = true; });
    rememberView(true);
  }

  window.kgExplorer = {
    get graph() { return state.graph; },
    get renderer() { return state.renderer; },
    get requests() { return state.requests; },
    select: select,
    get labelled() { return Object.keys(state.labelled); },
    get focus() { return state.focus; },
    relabel: chooseLabels,
    openConcept: openConcept,
    openAuthor: openAuthor,
    showPaper: showPaper,
    search: runSearch,
  };
  init();
})();
