"""Names to nodes: concepts by name, alias, plural, acronym or head noun; authors; venues; topics.

Each lookup is a key query in the store (:mod:`kg.core.names` keys are written with the nodes), so
resolving a name costs the same at 100 papers and at 100,000. Venues and topics are few; their
small tables are read whole and cached per store version by the service.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field

from kg.core.ids import author_id, fold
from kg.core.models import Node
from kg.core.names import author_query_key, query_keys, query_loose_key, words
from kg.core.topics import topic_path
from kg.read.errors import UnknownName
from kg.stores.protocol import CLOSURE_LIMIT, ReadStore

# The head-noun rule looks at this many concepts ending in the asked-for words.
HEAD_NOUN_CANDIDATES = 200


def display(node: Node) -> str:
    """A node's name for messages and sorting."""
    value = node.properties.get("name") or node.properties.get("title") or node.id
    return str(value)


def _strings(value: object) -> list[str]:
    return [str(v) for v in value] if isinstance(value, list) else []


def resolve_concept(store: ReadStore, name: str) -> Node | None:
    """The concept a name denotes: exact name or alias, any case, plural or acronym form.

    Tried in order: the strict key (acronyms case-sensitive, so ``LP`` is not ``lp``), the
    loose key (case folded, plurals stripped), the head-noun rule (``bandits`` is the one
    concept ending in "bandit(s)" that the other such concepts are narrower than), the
    modifier rule (``3D`` is "3D vision", the one concept starting with "3D" that most other
    such concepts are narrower than: :func:`_modifier_concept`), an id.
    """
    if not name.strip():
        return None
    keys = query_keys(name)
    found = [c for c in store.concepts_by_keys(keys) if c is not None]
    loose = query_loose_key(name)
    cid = found[0] if found else _head_noun_concept(store, loose) or _modifier_concept(store, loose)
    if cid is None:
        cid = name
    node = store.get_nodes([cid])[0]
    return node if node is not None and node.label == "Concept" else None


def _head_noun_concept(store: ReadStore, key: str) -> str | None:
    """The concept a bare head noun denotes ("bandits": the one concept named "... bandits" that
    most of the others so named are narrower than).

    Only concepts whose own *name* ends in the asked-for words take part: an alias ending in them
    is often a variant's suffix, not a head noun ("BERT-large", "RoBERTa-large" would make
    "large" resolve to BERT, the broader of the two).
    """
    if not key:
        return None
    suffixed = store.get_nodes(store.concepts_with_key_suffix(key, HEAD_NOUN_CANDIDATES))
    candidates = {n.id for n in suffixed if n is not None and _ends_with(query_loose_key(display(n)), key)}
    if len(candidates) < 2:
        return None
    covered = {c: set(store.narrower_closure(c, CLOSURE_LIMIT)) & candidates for c in sorted(candidates)}
    best = max(candidates, key=lambda c: (len(covered[c]), c))
    ties = [c for c in candidates if len(covered[c]) == len(covered[best])]
    if len(ties) == 1 and len(covered[best]) >= max(2, len(candidates) // 2 + 1):
        return best
    return None


def _ends_with(loose_name: str, key: str) -> bool:
    return loose_name == key or loose_name.endswith(" " + key)


def _modifier_concept(store: ReadStore, key: str) -> str | None:
    """The concept a bare modifier denotes: of the curated concepts whose name or alias starts
    with the asked-for words ("3D" -> "3D vision", "3D reconstruction", "3D object detection",
    ...), the one whose narrower closure holds the most of them (itself included), when it
    holds at least two and at least half of them and no other holds as many.

    Why: authors list a modifier alone as a keyword ("3D" at 3DV, "multimodal" at COLM); the
    user asking for it expects the field it names, which is the concept those phrases sit
    under. The bare word is never an alias (it would link every paper that writes "3D"); it is
    resolved at read time from the store's own concepts, so it follows whatever the store
    holds. Discovered phrases ("3D garment stylization") are left out: they hang under their
    head noun, not under their modifier. A modifier of unrelated things ("neural": neural
    networks, neural radiance fields, neural network pruning) resolves to nothing.
    """
    if not key:
        return None
    found = store.get_nodes(store.concepts_with_key_prefix(key, HEAD_NOUN_CANDIDATES))
    curated = {n.id for n in found if n is not None and n.properties.get("source") == "vocabulary"}
    if len(curated) < 2:
        return None
    covered = {c: len(set(store.narrower_closure(c, CLOSURE_LIMIT)) & curated) for c in sorted(curated)}
    best = max(curated, key=lambda c: (covered[c], c))
    ties = [c for c in curated if covered[c] == covered[best]]
    if len(ties) == 1 and covered[best] >= 2 and 2 * covered[best] >= len(curated):
        return best
    return None


SUGGESTION_POOL = 50


def _suggest(store: ReadStore, label: str, name: str, limit: int) -> list[Node]:
    """Names containing ``name`` first (most papers first), then names sharing the start of one
    of its words, ranked by similarity, so a typo still finds its target. Every step is a
    bounded listing query; nothing scans every name in Python."""
    if not name.strip() or limit <= 0:
        return []

    def listing(text: str, n: int) -> list[str]:
        if label == "Concept":
            return store.list_concepts(text, None, "PAPER_COUNT", 0, n).ids
        return store.list_authors(text, "PAPER_COUNT", 0, n).ids

    ids = list(listing(name, limit))
    if len(ids) < limit:
        pool: dict[str, None] = {}
        for word in words(name):
            if len(word) >= 4:
                pool.update(dict.fromkeys(listing(word[:4], SUGGESTION_POOL)))
        nodes = [n for n in store.get_nodes([i for i in pool if i not in ids]) if n is not None]
        q = fold(name)
        scored = sorted(
            nodes, key=lambda n: (-difflib.SequenceMatcher(None, q, fold(display(n))).ratio(), n.id)
        )
        ids += [n.id for n in scored if difflib.SequenceMatcher(None, q, fold(display(n))).ratio() >= 0.6]
    return [n for n in store.get_nodes(ids[:limit]) if n is not None]


def suggest_concepts(store: ReadStore, name: str, limit: int = 5) -> list[Node]:
    """Concepts with names close to ``name`` (see :func:`_suggest`)."""
    return _suggest(store, "Concept", name, limit)


def require_concept(store: ReadStore, name: str) -> Node:
    """Like :func:`resolve_concept` but raises :class:`UnknownName` with suggestions."""
    node = resolve_concept(store, name)
    if node is None:
        raise UnknownName("concept", name, [display(n) for n in suggest_concepts(store, name, 5)])
    return node


def resolve_author(store: ReadStore, name: str) -> Node | None:
    """An author by id (``author:openreview:~Andy_Zeng3``), or by name (any case or accents, with
    or without a quoted nickname): of several people with that name, the one with the most
    papers (the others are its ``namesakes``)."""
    if not name.strip():
        return None
    node = store.get_nodes([name])[0]
    if node is not None and node.label == "Author":
        return node
    found = store.authors_named(author_query_key(name), 1)
    if not found:  # a name written as its id's slug ("jian-zhang")
        found = [
            i for i in [author_id(name)] if (n := store.get_nodes([i])[0]) is not None and n.label == "Author"
        ]
    return store.get_nodes(found[:1])[0] if found else None


MAX_NAMESAKES = 50


def namesakes(store: ReadStore, node: Node) -> list[str]:
    """Ids of the other people with this author's name, most papers first (at most
    :data:`MAX_NAMESAKES`)."""
    name = node.properties.get("name")
    if not isinstance(name, str) or not name.strip():
        return []
    return [i for i in store.authors_named(author_query_key(name), MAX_NAMESAKES + 1) if i != node.id][
        :MAX_NAMESAKES
    ]


def require_author(store: ReadStore, name: str) -> Node:
    """Like :func:`resolve_author` but raises :class:`UnknownName` with suggestions."""
    node = resolve_author(store, name)
    if node is None:
        raise UnknownName("author", name, [display(n) for n in _suggest(store, "Author", name, 5)])
    return node


def resolve_venues(venues: list[Node], name: str) -> list[str]:
    """Venue ids for a name (``ICLR 2026``) or a series (``ICLR``: every year); raises if none."""
    q = fold(name)
    exact = [v.id for v in venues if fold(display(v)) == q or v.id == name]
    if exact:
        return exact
    series = [v.id for v in venues if fold(str(v.properties.get("series") or "")) == q]
    if series:
        return series
    names = {fold(display(v)): display(v) for v in venues}
    close = difflib.get_close_matches(q, list(names), n=5, cutoff=0.5)
    raise UnknownName("venue", name, [names[c] for c in close])


@dataclass
class TopicTree:
    """Topics by id with parent/children links (the topic table is small)."""

    nodes: dict[str, Node]
    parent: dict[str, str] = field(default_factory=dict)
    children: dict[str, list[str]] = field(default_factory=dict)

    @classmethod
    def load(cls, store: ReadStore) -> TopicTree:
        nodes = {n.id: n for n in store.nodes_by_label("Topic")}
        tree = cls(nodes)
        ids = sorted(nodes)
        for tid, edges in zip(ids, store.neighbors_many(ids, "SUBTOPIC_OF", "out"), strict=True):
            for e in edges:
                if e.node.id in nodes:
                    tree.parent[tid] = e.node.id
                    tree.children.setdefault(e.node.id, []).append(tid)
        for kids in tree.children.values():
            kids.sort(key=lambda t: (fold(display(nodes[t])), t))
        return tree

    def subtree(self, tid: str) -> list[str]:
        """``tid`` and every topic below it, breadth first."""
        out = [tid]
        i = 0
        while i < len(out):
            out.extend(self.children.get(out[i], []))
            i += 1
        return out

    def resolve(self, name: str) -> list[str]:
        """Topic ids for a full path (``Deep Learning · LLMs``) or a leaf name; raises if none."""
        path = [fold(p) for p in topic_path(name)]
        by_path = [
            t for t, n in self.nodes.items() if [fold(p) for p in _strings(n.properties.get("path"))] == path
        ]
        if by_path:
            return sorted(by_path)
        by_name = sorted(t for t, n in self.nodes.items() if fold(display(n)) == fold(name))
        if by_name:
            return by_name
        if name in self.nodes:
            return [name]
        names = {fold(display(n)): display(n) for n in self.nodes.values()}
        close = difflib.get_close_matches(fold(name), list(names), n=5, cutoff=0.5)
        raise UnknownName("topic", name, [names[c] for c in close])

    def ordered(self) -> list[Node]:
        """Every topic in path order (parents before their subtopics)."""
        return sorted(
            self.nodes.values(), key=lambda n: ([fold(p) for p in _strings(n.properties.get("path"))], n.id)
        )
