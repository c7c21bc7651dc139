// paperkg: Cypher for exploring the graph in Neo4j Browser (http://127.0.0.1:7474/browser/).
//
// Start a server with scripts/neo4j/start (no auth by default: choose "No authentication" in the
// Browser login form) or with `docker compose up` (user neo4j, password $KG_NEO4J_PASSWORD,
// default paperkg-dev-password).
//
// Style and guide: nothing to do. Both servers set browser.post_connect_cmd, so connecting runs
//   :style http://127.0.0.1:7474/paperkg/paperkg.grass
//   :guide http://127.0.0.1:7474/paperkg/guide.html
// (the paperkg extension serves both files from the Neo4j HTTP server itself). Run those two
// lines yourself after `:style reset`, or on a server started another way: the one way to load
// the style is `:style <url of paperkg.grass>`. The guide has these queries with names taken
// from your graph (python -m kg.browser.guide); the defaults below are names in examples/listings.
//
// Usage: each block below is one `:param` set-up plus one query. Run the `:param` lines first
// (one by one, or paste a whole block: Browser's multi-statement mode splits on `;`), then edit
// the values. `:params` lists the current parameters, `:params {}` clears them.
//
// Pictures equal results. Graph-view queries end with the same "picture tail": it returns
// virtual copies (APOC) of exactly the nodes and relationships the query selected, so
// Browser's "Connect result nodes" setting cannot add edges the query filtered out, and the
// copies carry neither the internal __KGNode__ label nor the internal _aliasText property.
// (Virtual nodes cannot be expanded by double-click; run query 1 for a node instead.)
//
// Graph model:
//   (:Paper {id, title, abstract, year, shortTitle})   (:Author {id, name})
//   (:Venue {id, name, series, year})   (:Topic {id, name, path})
//   (:Concept {id, name, kind, aliases}), with a second label per kind except CONCEPT:
//   :Method, :Task, :Dataset, :Model, :Metric
//   (Author)-[:AUTHORED {position}]->(Paper)          (Paper)-[:PUBLISHED_IN]->(Venue)
//   (Paper)-[:HAS_TOPIC]->(Topic)                     (Topic)-[:SUBTOPIC_OF]->(Topic)
//   (Paper)-[:MENTIONS {count, score, evidence}]->(Concept)
//   (Paper)-[:INTRODUCES]->(Concept)                  (Concept)-[:BROADER]->(Concept)
//   (Author)-[:COAUTHOR {papers}]->(Author)           (Concept)-[:CO_OCCURS {papers}]->(Concept)
// COAUTHOR and CO_OCCURS are stored once per pair, so the queries below match them with a
// direction (->) when they list every pair, to avoid showing each pair twice.


// ---------------------------------------------------------------------------------------------
// 0. Find a concept by name or alias (table view).
//    Case-insensitive, on names and aliases; use it to get the exact name query 1 needs.
//    `papers` is the explorer's and the API's count (`paperCount`): papers about the concept or
//    a narrower one, each once; `mentionedIn` counts every paper that names the concept itself,
//    passing mentions included.
// ---------------------------------------------------------------------------------------------
:param name => 'language model';

MATCH (c:Concept)
WHERE toLower(c.name) CONTAINS toLower($name)
   OR any(alias IN coalesce(c.aliases, []) WHERE toLower(alias) CONTAINS toLower($name))
CALL (c) {
  MATCH (x:Concept)-[:BROADER*0..]->(c)
  WITH DISTINCT x
  MATCH (p:Paper)-[r:MENTIONS|INTRODUCES]->(x)
  WHERE type(r) = 'INTRODUCES'
     OR ((r.about IS NULL OR r.about <> false) AND (x = c OR r.climbs IS NULL OR r.climbs <> false))
  RETURN count(DISTINCT p) AS papers
}
RETURN c.name AS concept, c.kind AS kind, c.aliases AS aliases, papers,
       COUNT { (c)<-[:MENTIONS]-(:Paper) } AS mentionedIn
ORDER BY papers DESC, concept
LIMIT 25;


// ---------------------------------------------------------------------------------------------
// 1. A concept's neighbourhood (graph view).
//    The concept with: the papers that mention it (highest score first) or introduce it, its
//    broader and narrower concepts (the most mentioned first), and the concepts it co-occurs
//    with most often. $name must be the exact Concept.name (use query 0 to find it); $limit
//    caps each part, so the picture has at most 4 x $limit + 1 nodes (on 10k papers "neural
//    networks" alone had 105 narrower concepts: 151 nodes before the cap).
// ---------------------------------------------------------------------------------------------
:param name => 'language models';
:param limit => 15;

MATCH (c:Concept {name: $name})
CALL (c) {
  MATCH path = (c)<-[m:MENTIONS]-(:Paper)
  RETURN path ORDER BY m.score DESC LIMIT $limit
  UNION
  MATCH path = (c)<-[:INTRODUCES]-(:Paper)
  RETURN path LIMIT $limit
  UNION
  MATCH path = (c)-[:BROADER]-(other:Concept)
  RETURN path ORDER BY COUNT { (other)<-[:MENTIONS]-(:Paper) } DESC, other.name LIMIT $limit
  UNION
  MATCH path = (c)-[co:CO_OCCURS]-(:Concept)
  RETURN path ORDER BY co.papers DESC LIMIT $limit
}
// picture tail (see the top of this file)
WITH collect(path) AS paths WHERE size(paths) > 0
WITH apoc.coll.toSet(apoc.coll.flatten([p IN paths | nodes(p)])) AS ns,
     apoc.coll.toSet(apoc.coll.flatten([p IN paths | relationships(p)])) AS rs
WITH rs, apoc.map.fromPairs([n IN ns | [elementId(n), apoc.create.vNode(
       [l IN labels(n) WHERE NOT l STARTS WITH '__'], apoc.map.removeKey(properties(n), '_aliasText'))]]) AS v
RETURN [k IN keys(v) | v[k]] AS nodes,
       [r IN rs | apoc.create.vRelationship(v[elementId(startNode(r))], type(r), properties(r),
                                            v[elementId(endNode(r))])] AS relationships;


// ---------------------------------------------------------------------------------------------
// 2. Concepts that occur together (graph view).
//    Only pairs of concepts that appear together in at least $minWeight papers; the heaviest
//    $limit edges. Raise $minWeight if the picture is a hairball.
// ---------------------------------------------------------------------------------------------
:param minWeight => 2;
:param limit => 300;

MATCH path = (:Concept)-[co:CO_OCCURS]->(:Concept)
WHERE co.papers >= $minWeight
WITH path ORDER BY co.papers DESC LIMIT $limit
// picture tail (see the top of this file)
WITH collect(path) AS paths WHERE size(paths) > 0
WITH apoc.coll.toSet(apoc.coll.flatten([p IN paths | nodes(p)])) AS ns,
     apoc.coll.toSet(apoc.coll.flatten([p IN paths | relationships(p)])) AS rs
WITH rs, apoc.map.fromPairs([n IN ns | [elementId(n), apoc.create.vNode(
       [l IN labels(n) WHERE NOT l STARTS WITH '__'], apoc.map.removeKey(properties(n), '_aliasText'))]]) AS v
RETURN [k IN keys(v) | v[k]] AS nodes,
       [r IN rs | apoc.create.vRelationship(v[elementId(startNode(r))], type(r), properties(r),
                                            v[elementId(endNode(r))])] AS relationships;


// ---------------------------------------------------------------------------------------------
// 3. An author's co-author network (graph view).
//    The author (marked: the Searched label, drawn larger and darker), their $limit co-authors
//    with the most joint papers, and among those co-authors each one's 2 strongest ties with at
//    least $minPapers joint papers (so you also see who works with whom). At most $limit + 1
//    nodes and 3 x $limit edges: readable at any size (on 10k papers the whole circle was 87
//    authors and 500 edges, and Browser cut the result at 500). Query 3b lists every co-author.
// ---------------------------------------------------------------------------------------------
:param author => 'Jonathan Berant';
:param minPapers => 1;
:param limit => 25;

MATCH (a:Author {name: $author})-[r0:COAUTHOR]-(co:Author)
WITH a, co ORDER BY r0.papers DESC, co.name LIMIT $limit
WITH a, collect(co) AS circle
CALL (a, circle) {
  UNWIND circle AS x
  MATCH path = (a)-[:COAUTHOR]-(x)
  RETURN path
  UNION
  UNWIND circle AS x
  MATCH (x)-[r:COAUTHOR]-(y:Author)
  WHERE y IN circle AND r.papers >= $minPapers
  WITH x, r ORDER BY r.papers DESC, elementId(r)
  WITH x, collect(r)[..2] AS strongest
  UNWIND strongest AS r
  MATCH path = ()-[r]->()
  RETURN path
}
// picture tail (see the top of this file); the searched author's copy also gets :Searched
WITH a, collect(path) AS paths WHERE size(paths) > 0
WITH a, apoc.coll.toSet(apoc.coll.flatten([p IN paths | nodes(p)])) AS ns,
     apoc.coll.toSet(apoc.coll.flatten([p IN paths | relationships(p)])) AS rs
WITH rs, apoc.map.fromPairs([n IN ns | [elementId(n), apoc.create.vNode(
       [l IN labels(n) WHERE NOT l STARTS WITH '__'] + CASE WHEN n = a THEN ['Searched'] ELSE [] END,
       apoc.map.removeKey(properties(n), '_aliasText'))]]) AS v
RETURN [k IN keys(v) | v[k]] AS nodes,
       [r IN rs | apoc.create.vRelationship(v[elementId(startNode(r))], type(r), properties(r),
                                            v[elementId(endNode(r))])] AS relationships;

// 3b. Co-authors by joint papers (table view).
//    Query 3 as a table: the author's co-authors, most joint papers first.
MATCH (a:Author {name: $author})-[r:COAUTHOR]-(co:Author)
RETURN co.name AS coauthor, r.papers AS jointPapers
ORDER BY jointPapers DESC, coauthor;


// ---------------------------------------------------------------------------------------------
// 4. The topic tree (graph view).
//    Every topic, with its SUBTOPIC_OF edge (child -> parent) if it has one. Topics are
//    captioned with their whole path ("Deep Learning, Theory"), so equal names under
//    different parents ("Theory, Optimization" / "Optimization") differ.
// ---------------------------------------------------------------------------------------------
MATCH path = (:Topic)-[:SUBTOPIC_OF*0..1]->(:Topic)
// picture tail (see the top of this file)
WITH collect(path) AS paths WHERE size(paths) > 0
WITH apoc.coll.toSet(apoc.coll.flatten([p IN paths | nodes(p)])) AS ns,
     apoc.coll.toSet(apoc.coll.flatten([p IN paths | relationships(p)])) AS rs
WITH rs, apoc.map.fromPairs([n IN ns | [elementId(n), apoc.create.vNode(
       [l IN labels(n) WHERE NOT l STARTS WITH '__'], apoc.map.removeKey(properties(n), '_aliasText'))]]) AS v
RETURN [k IN keys(v) | v[k]] AS nodes,
       [r IN rs | apoc.create.vRelationship(v[elementId(startNode(r))], type(r), properties(r),
                                            v[elementId(endNode(r))])] AS relationships;

// 4b. The topic tree as a table (table view).
//    One row per topic, indented by depth below its root, with the number of papers tagged
//    with it. Roots are topics without a parent.
MATCH trail = (t:Topic)-[:SUBTOPIC_OF*0..]->(root:Topic)
WHERE NOT (root)-[:SUBTOPIC_OF]->(:Topic)
RETURN root.name AS root,
       length(trail) AS depth,
       substring('                    ', 0, 2 * length(trail)) + t.name AS topic,
       t.path AS path,
       COUNT { (t)<-[:HAS_TOPIC]-(:Paper) } AS papers
ORDER BY root, t.path, t.name;

// 4c. One root topic's subtree with papers (graph view).
//    The subtree under a root topic (one without a parent), with up to $limit of its papers.
:param topic => 'Deep Learning';
:param limit => 50;

MATCH (top:Topic {name: $topic})
WHERE NOT (top)-[:SUBTOPIC_OF]->(:Topic)
CALL (top) {
  MATCH path = (:Topic)-[:SUBTOPIC_OF*1..]->(top)
  RETURN path
  UNION
  MATCH path = (:Paper)-[:HAS_TOPIC]->(:Topic)-[:SUBTOPIC_OF*0..]->(top)
  RETURN path LIMIT $limit
}
// picture tail (see the top of this file)
WITH collect(path) AS paths WHERE size(paths) > 0
WITH apoc.coll.toSet(apoc.coll.flatten([p IN paths | nodes(p)])) AS ns,
     apoc.coll.toSet(apoc.coll.flatten([p IN paths | relationships(p)])) AS rs
WITH rs, apoc.map.fromPairs([n IN ns | [elementId(n), apoc.create.vNode(
       [l IN labels(n) WHERE NOT l STARTS WITH '__'], apoc.map.removeKey(properties(n), '_aliasText'))]]) AS v
RETURN [k IN keys(v) | v[k]] AS nodes,
       [r IN rs | apoc.create.vRelationship(v[elementId(startNode(r))], type(r), properties(r),
                                            v[elementId(endNode(r))])] AS relationships;


// ---------------------------------------------------------------------------------------------
// 5. Papers of a venue (table view).
//    A Venue node is one edition: name "ICLR 2026", series "ICLR", year 2026. $venue matches
//    the series (every edition) or one edition's name. Papers with their authors in author
//    order, newest first.
// ---------------------------------------------------------------------------------------------
:param venue => 'ICLR';
:param limit => 100;

MATCH (v:Venue)<-[:PUBLISHED_IN]-(p:Paper)
WHERE v.series = $venue OR v.name = $venue
CALL (p) {
  OPTIONAL MATCH (a:Author)-[au:AUTHORED]->(p)
  WITH a, au ORDER BY au.position
  RETURN collect(a.name) AS authors
}
RETURN v.name AS edition, p.year AS year, p.title AS title, authors, p.id AS id
ORDER BY edition DESC, year DESC, title
LIMIT $limit;

// 5b. A venue's papers, their authors and topics (graph view).
//    The venue's editions, up to $pictureLimit of their papers, and the papers' authors and
//    topics (listings without author names, such as ICLR's double-blind ones, show topics
//    only). Its own limit, smaller than the table's: 100 NeurIPS papers drew 300+ nodes and
//    Browser stopped at 300 ("Not all return nodes are being displayed").
:param pictureLimit => 20;

MATCH (v:Venue)<-[:PUBLISHED_IN]-(p:Paper)
WHERE v.series = $venue OR v.name = $venue
WITH v, p ORDER BY p.title LIMIT $pictureLimit
CALL (v, p) {
  MATCH path = (v)<-[:PUBLISHED_IN]-(p)
  RETURN path
  UNION
  MATCH path = (p)<-[:AUTHORED]-(:Author)
  RETURN path
  UNION
  MATCH path = (p)-[:HAS_TOPIC]->(:Topic)
  RETURN path
}
// picture tail (see the top of this file)
WITH collect(path) AS paths WHERE size(paths) > 0
WITH apoc.coll.toSet(apoc.coll.flatten([p IN paths | nodes(p)])) AS ns,
     apoc.coll.toSet(apoc.coll.flatten([p IN paths | relationships(p)])) AS rs
WITH rs, apoc.map.fromPairs([n IN ns | [elementId(n), apoc.create.vNode(
       [l IN labels(n) WHERE NOT l STARTS WITH '__'], apoc.map.removeKey(properties(n), '_aliasText'))]]) AS v
RETURN [k IN keys(v) | v[k]] AS nodes,
       [r IN rs | apoc.create.vRelationship(v[elementId(startNode(r))], type(r), properties(r),
                                            v[elementId(endNode(r))])] AS relationships;
