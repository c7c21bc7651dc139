// paperkg: Cypher for exploring the graph in Neo4j Browser (http://127.0.0.1:7474/browser/).
//
// Start a server with scripts/neo4j/start (no auth by default: choose "No authentication" in the
// Browser login form) or with `docker compose up neo4j` (user neo4j, password
// $KG_NEO4J_PASSWORD, default paperkg-dev-password).
//
// Styling: drag neo4j-browser/paperkg.grass onto the Browser window, or type `:style ` followed by the
// file's content in the editor (`:style reset` restores the default). Papers are captioned with
// {shortTitle}, other nodes with {name}, COAUTHOR / CO_OCCURS edges with their {papers} weight.
//
// Usage: each block below is one `:param` set-up plus one query. Run the `:param` lines first
// (one by one, or paste a whole block: Browser's multi-statement mode splits on `;`), then edit
// the values. `:params` lists the current parameters, `:params {}` clears them.
//
// Graph model:
//   (:Paper {id, title, abstract, year, shortTitle})   (:Author {id, name})
//   (:Venue {id, name, year})   (:Topic {id, name, path})   (:Concept {id, name, kind, aliases})
//   (Author)-[:AUTHORED {position}]->(Paper)          (Paper)-[:PUBLISHED_IN]->(Venue)
//   (Paper)-[:HAS_TOPIC]->(Topic)                     (Topic)-[:SUBTOPIC_OF]->(Topic)
//   (Paper)-[:MENTIONS {count, score, evidence}]->(Concept)
//   (Paper)-[:INTRODUCES]->(Concept)                  (Concept)-[:BROADER]->(Concept)
//   (Author)-[:COAUTHOR {papers}]->(Author)           (Concept)-[:CO_OCCURS {papers}]->(Concept)
// COAUTHOR and CO_OCCURS are stored once per pair, so the queries below match them with a
// direction (->) when they list every pair, to avoid showing each pair twice.


// ---------------------------------------------------------------------------------------------
// 0. Find a concept by name or alias (case-insensitive) before exploring it.
// ---------------------------------------------------------------------------------------------
:param name => 'knowledge graph';

MATCH (c:Concept)
WHERE toLower(c.name) CONTAINS toLower($name)
   OR any(alias IN coalesce(c.aliases, []) WHERE toLower(alias) CONTAINS toLower($name))
RETURN c.name AS concept, c.kind AS kind, c.aliases AS aliases,
       COUNT { (c)<-[:MENTIONS]-(:Paper) } AS papers
ORDER BY papers DESC, concept
LIMIT 25;


// ---------------------------------------------------------------------------------------------
// 1. A concept's neighbourhood (graph view).
//    The concept with: the papers that mention it (highest score first) or introduce it, its
//    broader and narrower concepts, and the concepts it co-occurs with most often.
//    $name must be the exact Concept.name (use query 0 to find it); $limit caps each part.
// ---------------------------------------------------------------------------------------------
:param name => 'knowledge graph';
:param limit => 25;

MATCH (c:Concept {name: $name})
CALL (c) {
  MATCH path = (c)<-[m:MENTIONS]-(:Paper)
  RETURN path ORDER BY m.score DESC LIMIT $limit
  UNION
  MATCH path = (c)<-[:INTRODUCES]-(:Paper)
  RETURN path LIMIT $limit
  UNION
  MATCH path = (c)-[:BROADER]-(:Concept)
  RETURN path
  UNION
  MATCH path = (c)-[co:CO_OCCURS]-(:Concept)
  RETURN path ORDER BY co.papers DESC LIMIT $limit
}
RETURN path;


// ---------------------------------------------------------------------------------------------
// 2. The concept co-occurrence graph above a weight (graph view).
//    Only pairs of concepts that appear together in at least $minWeight papers; the heaviest
//    $limit edges. Raise $minWeight if the picture is a hairball.
// ---------------------------------------------------------------------------------------------
:param minWeight => 3;
:param limit => 300;

MATCH path = (:Concept)-[co:CO_OCCURS]->(:Concept)
WHERE co.papers >= $minWeight
RETURN path
ORDER BY co.papers DESC
LIMIT $limit;


// ---------------------------------------------------------------------------------------------
// 3. An author's co-author network (graph view).
//    The author, their co-authors, and every COAUTHOR edge among that circle (so you also see
//    which co-authors work with each other), keeping edges with at least $minPapers joint papers.
// ---------------------------------------------------------------------------------------------
:param author => 'Jane Doe';
:param minPapers => 1;

MATCH (a:Author {name: $author})
OPTIONAL MATCH (a)-[:COAUTHOR]-(co:Author)
WITH a, collect(DISTINCT co) + [a] AS circle
UNWIND circle AS x
MATCH path = (x)-[r:COAUTHOR]->(y:Author)
WHERE y IN circle AND r.papers >= $minPapers
RETURN path;

// 3b. The same as a table: co-authors by number of joint papers.
MATCH (a:Author {name: $author})-[r:COAUTHOR]-(co:Author)
RETURN co.name AS coauthor, r.papers AS jointPapers
ORDER BY jointPapers DESC, coauthor;


// ---------------------------------------------------------------------------------------------
// 4. The topic tree.
//    4a (graph view): every SUBTOPIC_OF edge, child -> parent.
// ---------------------------------------------------------------------------------------------
MATCH path = (:Topic)-[:SUBTOPIC_OF]->(:Topic)
RETURN path;

//    4b (table view): one row per topic, indented by depth below its root, with the number of
//    papers tagged with it. Roots are topics without a parent.
MATCH trail = (t:Topic)-[:SUBTOPIC_OF*0..]->(root:Topic)
WHERE NOT (root)-[:SUBTOPIC_OF]->(:Topic)
RETURN root.name AS root,
       length(trail) AS depth,
       substring('                    ', 0, 2 * length(trail)) + t.name AS topic,
       t.path AS path,
       COUNT { (t)<-[:HAS_TOPIC]-(:Paper) } AS papers
ORDER BY root, t.path, t.name;

//    4c (graph view): the subtree under one topic, with up to $limit of its papers.
:param topic => 'Machine Learning';
:param limit => 50;

MATCH (top:Topic {name: $topic})
CALL (top) {
  MATCH path = (:Topic)-[:SUBTOPIC_OF*1..]->(top)
  RETURN path
  UNION
  MATCH path = (:Paper)-[:HAS_TOPIC]->(:Topic)-[:SUBTOPIC_OF*0..]->(top)
  RETURN path LIMIT $limit
}
RETURN path;


// ---------------------------------------------------------------------------------------------
// 5. Papers of a venue.
//    A Venue node is one edition (name + year), so a venue name can match several nodes.
//    5a (table view): papers with their authors in author order, newest first.
// ---------------------------------------------------------------------------------------------
:param venue => 'NeurIPS';
:param limit => 100;

MATCH (v:Venue {name: $venue})<-[:PUBLISHED_IN]-(p:Paper)
CALL (p) {
  OPTIONAL MATCH (a:Author)-[au:AUTHORED]->(p)
  WITH a, au ORDER BY au.position
  RETURN collect(a.name) AS authors
}
RETURN v.year AS edition, p.year AS year, p.title AS title, authors, p.id AS id
ORDER BY edition DESC, year DESC, title
LIMIT $limit;

//    5b (graph view): the venue's editions, their papers and the papers' authors.
MATCH path = (v:Venue {name: $venue})<-[:PUBLISHED_IN]-(:Paper)<-[:AUTHORED]-(:Author)
RETURN path
LIMIT $limit;
