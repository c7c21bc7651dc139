"""Registered concept extractors.

* ``kg.concepts.v1``: vocabulary matching only (kept addressable; superseded).
* ``kg.concepts.v2``: vocabulary + open discovery, ranked ``MENTIONS`` with evidence.
* ``kg.introduces.v1``: ``INTRODUCES`` for the names a paper introduces.

The v2 extractors share one cached :func:`~extractors.concepts.analysis.analyse` per paper.
"""

from __future__ import annotations

import math
from bisect import bisect_right
from dataclasses import dataclass, field

from spacy.tokens import Doc

from extractors.concepts.about_model import about_features, about_model_of
from extractors.concepts.analysis import ABOUT_THRESHOLD, CACHE_KEY, Analysis, Candidate, analyse
from extractors.concepts.analysis.candidate import kind_for_head
from extractors.concepts.analysis.names import variant_id
from extractors.concepts.analysis.senses import stays_below
from extractors.concepts.background import Background, load_background
from extractors.concepts.predicted import SCORE_SCALE, doc_mentions, predictor_of
from extractors.concepts.vocabulary import SKIP_TOKENS, Vocabulary, token_key
from extractors.registry import ExtractInput, Parts, register
from extractors.text import MATH_PLACEHOLDER, math_snippets, restore_math, sentence_spans, title_length
from kg.core.merge import DISCOVERED, normalize_properties
from kg.core.models import Node, Properties, Relationship, trusted_node, trusted_relationship

MAX_EVIDENCE = 2
MAX_EVIDENCE_CHARS = 400


@dataclass
class Mention:
    """All occurrences of one concept in one text (role: extractor output)."""

    concept_id: str
    count: int = 0
    first_char: int = 0
    spans: list[tuple[int, int]] = field(default_factory=list)


def doc_keys(doc: Doc) -> list[tuple[str, int, int]]:
    """(key, start char, end char) of every matchable token; hyphens dropped, math kept as a wall."""
    out: list[tuple[str, int, int]] = []
    for t in doc:
        if t.text in SKIP_TOKENS:
            continue
        key = "\0" if t.text == MATH_PLACEHOLDER else token_key(t.text)
        out.append((key, t.idx, t.idx + len(t.text)))
    return out


def match_vocabulary(doc: Doc, vocab: Vocabulary) -> dict[str, Mention]:
    """Longest-first matches of vocabulary phrases; overlapping shorter matches are not counted."""
    keys = doc_keys(doc)
    found: dict[str, Mention] = {}
    i, n = 0, len(keys)
    while i < n:
        matched = 0
        for length in range(min(vocab.max_len, n - i), 0, -1):
            cid = vocab.index.get(tuple(k for k, _, _ in keys[i : i + length]))
            k0, start, end = keys[i]
            if (
                cid is not None
                and length == 1
                and k0 in vocab.cased
                and doc.text[start:end] not in vocab.cased[k0]
            ):
                cid = None  # a common word, not the mixed-case name it folds to ("rope", "RoPE")
            if cid is not None:
                m = found.get(cid)
                if m is None:
                    m = found[cid] = Mention(cid, first_char=keys[i][1])
                m.count += 1
                m.spans.append((keys[i][1], keys[i + length - 1][2]))
                matched = length
                break
        i += matched or 1
    return found


def evidence(text: str, spans: list[tuple[int, int]]) -> list[str]:
    """The sentences holding the first mentions, trimmed for storage."""
    sentences = sentence_spans(text)
    out: list[str] = []
    for start, _ in spans:
        for a, b in sentences:
            if a <= start < b:
                sentence = text[a:b].strip()
                if len(sentence) > MAX_EVIDENCE_CHARS:
                    sentence = sentence[: MAX_EVIDENCE_CHARS - 1].rstrip() + "…"
                if sentence not in out:
                    out.append(sentence)
                break
        if len(out) >= MAX_EVIDENCE:
            break
    return out


def mention_score(m: Mention, text_len: int, phrase_tokens: int) -> float:
    """Higher for repeated, early and multi-word mentions; comparable within one paper."""
    position = 1.0 - 0.5 * (m.first_char / max(text_len, 1))
    return round((1.0 + math.log(m.count)) * position * (1.0 + 0.2 * (phrase_tokens - 1)), 4)


@register("kg.concepts.v1")
def extract_concepts(x: ExtractInput) -> Parts:
    """Vocabulary concepts of a paper, their broader concepts, and scored ``MENTIONS``."""
    vocab = x.context["vocabulary"]
    assert isinstance(vocab, Vocabulary)
    parts = Parts()
    if x.doc is None:
        return parts
    mentions = match_vocabulary(x.doc, vocab)
    lengths = {cid: len(k) for k, cid in vocab.index.items()}
    added: set[str] = set()
    for cid, m in sorted(mentions.items(), key=lambda kv: kv[1].first_char):
        parts.relationships.append(
            Relationship(
                type="MENTIONS",
                start=x.paper_id,
                end=cid,
                properties={
                    "count": m.count,
                    "score": mention_score(m, len(x.text), lengths.get(cid, 1)),
                    "evidence": evidence(x.text, m.spans),
                },
            )
        )
        for node_id in [cid, *vocab.ancestors(cid)]:
            if node_id in added:
                continue
            added.add(node_id)
            c = vocab.concepts[node_id]
            parts.nodes.append(
                Node(
                    id=c.id,
                    label="Concept",
                    properties={
                        "name": c.name,
                        "kind": c.kind,
                        "aliases": list(c.aliases),
                        "source": "vocabulary",
                    },
                )
            )
            for b in c.broader:
                parts.relationships.append(Relationship(type="BROADER", start=c.id, end=b))
    return parts


# --------------------------------------------------------------------------- v2

MAX_MENTIONS = 20
MAX_VOCABULARY_MENTIONS = 40


def paper_analysis(x: ExtractInput) -> Analysis | None:
    """The shared, cached concept analysis of a paper (``None`` without a Doc)."""
    if x.doc is None:
        return None
    cached = x.doc.user_data.get(CACHE_KEY)
    if isinstance(cached, Analysis):
        return cached
    vocab = x.context["vocabulary"]
    assert isinstance(vocab, Vocabulary)
    background = _background(x)
    title_end = title_length(x.paper.title) if x.title_end is None else x.title_end
    return analyse(x.doc, x.text, title_end, vocab, background, x.tokens_only)


def paper_math(x: ExtractInput) -> list[str] | None:
    """The math behind each placeholder of the paper's text (``None``: the text has none).

    Evidence is stored as the paper wrote it: matching sees math as a wall (a placeholder),
    the stored sentence gets the LaTeX back (:func:`extractors.text.restore_math`).
    """
    if MATH_PLACEHOLDER not in x.text:
        return None
    snippets = math_snippets(x.paper.title, x.paper.abstract)
    return snippets if snippets is not None and len(snippets) == x.text.count(MATH_PLACEHOLDER) else None


def _evidence(
    analysis: Analysis, c: Candidate, limit: int = MAX_EVIDENCE, math: list[str] | None = None
) -> list[str]:
    """The sentences holding the first mentions of a concept, trimmed for storage.

    With ``math`` (:func:`paper_math`) a sentence's placeholders become the LaTeX they stand
    for, after trimming, so the trim never cuts a formula in half.
    """
    firsts = analysis.sentence_starts
    token_starts = analysis.stream.starts
    texts = analysis.sentence_texts
    out: list[str] = []
    for s, _ in c.spans:
        k = bisect_right(firsts, token_starts[s]) - 1
        if k < 0:
            continue
        sentence = texts.get(k)
        if sentence is None:
            a, b = analysis.sentences[k]
            sentence = analysis.text[a:b].strip()
            if len(sentence) > MAX_EVIDENCE_CHARS:
                sentence = sentence[: MAX_EVIDENCE_CHARS - 1].rstrip() + "…"
            if math is not None and MATH_PLACEHOLDER in sentence:
                sentence = restore_math(sentence, analysis.text.count(MATH_PLACEHOLDER, 0, a), math)
            texts[k] = sentence
        if sentence not in out:
            out.append(sentence)
            if len(out) >= limit:
                break
    return out


def _node(node_id: str, properties: Properties) -> Node:
    """A ``Concept`` node built without re-validation (see :func:`kg.core.models.trusted_node`).

    The values are built here from already-typed data, and a unit test checks that the result
    equals the validated model.
    """
    return trusted_node(node_id, "Concept", properties)


_rel = trusted_relationship  # a relationship built without re-validation, like :func:`_node`


ABOUT_TOP_RANK = 7  # a concept outside the paper's best 7 is about it only from its title or a definition


def is_about(c: Candidate, salience: float, rank: int, aside: bool = False) -> bool:
    """Whether the paper is about a concept, not just mentioning it (``MENTIONS.about``).

    Salience at least ``ABOUT_THRESHOLD`` and, unless the title names it or the paper defines
    or introduces it, a place among the paper's best :data:`ABOUT_TOP_RANK` concepts and at
    least one mention that is not an ``aside`` (an auxiliary loss, a regulariser, a baseline:
    :meth:`~extractors.concepts.analysis.Analysis.aside`): tools a paper uses ("we train the
    SVM with an imitation learning framework", "an auxiliary contrastive loss") and what it
    compares against rank below its topic.
    """
    if salience < ABOUT_THRESHOLD:
        return False
    if c.in_title or c.defined or c.introduced:
        return True
    return rank < ABOUT_TOP_RANK and not aside


def is_provisional(c: Candidate) -> bool:
    """A discovered phrase that has not earned a node on its own (record contract).

    Not an acronym definition, not introduced by the paper, not a named model or dataset, not
    in the vocabulary: stores keep it as a keyphrase of the paper and show it as a Concept
    node only once at least 2 papers carry the same concept id.
    """
    return c.source == "discovered" and not (c.defined or c.introduced or c.named)


def concept_node(c: Candidate) -> Node:
    """The ``Concept`` node of an analysed (finalized) concept (``provisional: true`` if so).

    Its properties are built in merge normal form, so the pipeline need not normalise them:
    what :func:`kg.core.merge.normalize_properties` makes of ``{name, kind, aliases, source}`` (plus
    ``provisional``), key order included (``tests/unit/test_concept_nodes.py`` compares them).
    """
    props: Properties = {"name": c.name, "kind": c.kind, "aliases": list(c.aliases), "source": c.source}
    if is_provisional(c):
        props["provisional"] = True
    if c.source != DISCOVERED or not c.name:
        return _node(c.id, normalize_properties(props))  # curated or nameless: the general rule
    del props["name"], props["kind"], props["aliases"]  # placed after the others, as merges do
    props["kind"] = c.kind
    props["name"] = c.name
    props["aliases"] = sorted({a for a in c.aliases if a != c.name})
    return _node(c.id, props)


def _vocab_graph(vocab: Vocabulary, cid: str) -> tuple[Node, list[Relationship]]:
    """The node of a curated concept and its outgoing ``BROADER`` links, built once per vocabulary.

    Every paper that mentions the concept carries the same objects; stores and the pipeline
    copy properties before merging, never mutating them in place.
    """
    hit = vocab.graph_cache.get(cid)
    if hit is None:
        v = vocab.concepts[cid]
        node = Node(
            id=v.id,
            label="Concept",
            properties={"name": v.name, "kind": v.kind, "aliases": list(v.aliases), "source": "vocabulary"},
        )
        node = _node(node.id, normalize_properties(node.properties))  # validated, then normal form
        rels = [Relationship(type="BROADER", start=v.id, end=b) for b in v.broader]
        hit = vocab.graph_cache[cid] = (node, rels)
    return hit


def _add_hierarchy(parts: Parts, vocab: Vocabulary, c: Candidate, added: set[str]) -> None:
    """BROADER links of a concept and the vocabulary concepts above it (with their nodes)."""
    todo: list[str] = []
    if c.source == "vocabulary":
        todo.extend(c.broader)
        parts.relationships.extend(_vocab_graph(vocab, c.id)[1])
    else:
        for b in c.broader:
            if b != c.id:
                parts.relationships.append(_rel("BROADER", c.id, b, {}))
                todo.append(b)
    while todo:
        cid = todo.pop()
        if cid in added or cid not in vocab.concepts:
            continue
        added.add(cid)
        node, rels = _vocab_graph(vocab, cid)
        parts.nodes.append(node)
        parts.relationships.extend(rels)
        todo.extend(r.end for r in rels)


def selected_mentions(analysis: Analysis) -> list[Candidate]:
    """The concepts a paper ``MENTIONS``, best score first.

    The top :data:`MAX_MENTIONS` by score, plus every vocabulary concept the paper names (up
    to :data:`MAX_VOCABULARY_MENTIONS`), so a query for a curated concept ("papers about Nash
    equilibria") never misses a paper because of the cap.
    """
    out: list[Candidate] = []
    seen: set[str] = set()
    vocab_count = 0
    for c in analysis.candidates:
        if len(out) >= MAX_MENTIONS and c.source != "vocabulary":
            continue
        analysis.finalize(c)
        if c.id in seen:
            continue
        if len(out) >= MAX_MENTIONS and (c.source != "vocabulary" or vocab_count >= MAX_VOCABULARY_MENTIONS):
            continue
        seen.add(c.id)
        out.append(c)
        vocab_count += c.source == "vocabulary"
    return out


@register("kg.concepts.v2")
def extract_concepts_v2(x: ExtractInput) -> Parts:
    """Vocabulary and discovered concepts with scored ``MENTIONS``.

    Record contract: ``MENTIONS {count, score, evidence, surface, salience, about[, climbs]}``, where
    ``surface`` is the paper's own wording ("LLMs" next to the canonical "large language
    models"), ``salience`` in [0, 1] comes from where and how often the concept occurs
    (:meth:`Analysis.salience`) and ``about`` is ``salience >= ABOUT_THRESHOLD`` (the paper is
    about the concept, not a passing mention); ``climbs: false`` marks an about link that counts
    for its own concept only, not for the concepts above it (:mod:`.analysis.senses`).
    Discovered phrases that have not earned a node carry ``provisional: true`` on their Concept
    node (:func:`is_provisional`).

    Discovered concepts carry ``source: "discovered"`` and a ``BROADER`` link to the
    vocabulary concept that is their head ("diversified multinomial logit bandit" ->
    bandits). Works on a tokenised Doc (fast mode) or a parsed one (accurate mode); both give
    the same kinds of nodes, relationships and properties.
    """
    parts = Parts(normal_nodes=True)  # concept_node and _vocab_graph build normal forms
    analysis = paper_analysis(x)
    if analysis is None:
        return parts
    vocab = analysis.vocab
    added: set[str] = set()
    parents: list[tuple[str, tuple[str, ...]]] = []  # (concept id, head parent key): .heads
    math = paper_math(x)
    model = about_model_of(x.context)
    background = _background(x) if model is not None else None
    for rank, c in enumerate(selected_mentions(analysis)):
        salience = analysis.salience(c)
        if model is None or background is None:
            about = salience >= ABOUT_THRESHOLD and is_about(c, salience, rank, analysis.aside(c))
        else:  # the learned decision (.about_model), the hand-set one among its features
            aside = analysis.aside(c)
            about = model.decide(
                about_features(
                    analysis,
                    c,
                    background,
                    salience=salience,
                    rank=rank,
                    aside=aside,
                    rule=salience >= ABOUT_THRESHOLD and is_about(c, salience, rank, aside),
                    threshold=ABOUT_THRESHOLD,
                    top_rank=ABOUT_TOP_RANK,
                )
            )
        parents.extend((c.id, h) for h in c.parents)
        props: Properties = {
            "count": c.count,
            "score": c.score,
            "evidence": _evidence(analysis, c, math=math),
            "surface": c.surface,
            "salience": salience,
            "about": about,
        }
        if about and stays_below(analysis, c, salience):
            props["climbs"] = False  # about its own concept only (analysis.senses)
        parts.relationships.append(_rel("MENTIONS", x.paper_id, c.id, props))
        if c.id not in added:
            added.add(c.id)
            parts.nodes.append(_vocab_graph(vocab, c.id)[0] if c.source == "vocabulary" else concept_node(c))
        _add_hierarchy(parts, vocab, c, added)
    _add_parents(parts, parents, added)
    _add_predicted(parts, x, analysis, added)
    return parts


def _background(x: ExtractInput) -> Background:
    background = x.context.get("background")
    return background if isinstance(background, Background) else load_background()


def parent_node(key: tuple[str, ...]) -> Node:
    """The node of a head parent (:mod:`.analysis.heads`): a discovered concept named by its one
    word, never provisional (it is a node from its first child, as a curated ancestor is)."""
    name = key[-1]
    c = Candidate(key=key, source=DISCOVERED, name=name, id=variant_id(name), kind=kind_for_head(key))
    node = concept_node(c)
    return _node(node.id, {k: v for k, v in node.properties.items() if k != "provisional"})


def _add_parents(parts: Parts, parents: list[tuple[str, tuple[str, ...]]], added: set[str]) -> None:
    """``BROADER`` links from concepts to their head parents, with the parents' nodes; a parent
    the paper also mentions loses its ``provisional`` mark (a link needs a node at each end)."""
    linked: set[tuple[str, str]] = set()
    for child, key in parents:
        node = parent_node(key)
        if child == node.id or (child, node.id) in linked:
            continue
        linked.add((child, node.id))
        parts.relationships.append(_rel("BROADER", child, node.id, {}))
        if node.id not in added:
            added.add(node.id)
            parts.nodes.append(node)
            continue
        for i, n in enumerate(parts.nodes):
            if n.id == node.id and n.properties.get("provisional") is True:
                parts.nodes[i] = _node(n.id, {k: v for k, v in n.properties.items() if k != "provisional"})


def _add_predicted(parts: Parts, x: ExtractInput, analysis: Analysis, added: set[str]) -> None:
    """``MENTIONS {predicted: true}`` of the vocabulary concepts the text implies but never names
    (:mod:`extractors.concepts.predicted`); a concept the text mentions keeps its text mention."""
    model = predictor_of(x.context)
    if model is None or x.doc is None:
        return
    mentioned = {r.end for r in parts.relationships if r.type == "MENTIONS"}
    mentioned.update(c.vocab_id for c in analysis.candidates if c.vocab_id)
    for pred, score, about in doc_mentions(model, x.doc, mentioned, SCORE_SCALE, analysis.stream.doc_orths):
        if pred.concept_id not in analysis.vocab.concepts:
            continue  # a model trained on another vocabulary
        name = analysis.vocab.concepts[pred.concept_id].name
        props: Properties = {"count": 0, "score": score, "evidence": [], "surface": name, "salience": 0.0}
        parts.relationships.append(
            _rel("MENTIONS", x.paper_id, pred.concept_id, {**props, "about": about, "predicted": True})
        )
        if pred.concept_id not in added:
            added.add(pred.concept_id)
            parts.nodes.append(_vocab_graph(analysis.vocab, pred.concept_id)[0])
            broader = list(analysis.vocab.concepts[pred.concept_id].broader)
            implied = Candidate(key=(), source="vocabulary", id=pred.concept_id, broader=broader)
            _add_hierarchy(parts, analysis.vocab, implied, added)


def introduced_concepts(analysis: Analysis) -> list[Candidate]:
    """The discovered concepts the paper introduces, in order of appearance, finalized."""
    by_key = {c.key: c for c in analysis.candidates if c.source == "discovered"}
    out: list[Candidate] = []
    for key in analysis.introduced_keys:
        c = by_key.get(key)
        if c is not None:
            analysis.finalize(c)
            if c.source == "discovered" and c not in out:
                out.append(c)
    return out


@register("kg.introduces.v1")
def extract_introduced(x: ExtractInput) -> Parts:
    """``(Paper)-[:INTRODUCES {evidence, score}]->(Concept {kind: METHOD, source: discovered})``.

    ``score`` equals the introduced concept's ``MENTIONS.score``, which is the paper's highest
    (see ``analysis.demotions.introduced_first``), so score-ranked views put the paper's own method first.
    """
    parts = Parts(normal_nodes=True)  # concept_node and _vocab_graph build normal forms
    analysis = paper_analysis(x)
    if analysis is None:
        return parts
    added: set[str] = set()
    math = paper_math(x)
    for c in introduced_concepts(analysis):
        parts.nodes.append(concept_node(c))
        added.add(c.id)
        parts.relationships.append(
            _rel(
                "INTRODUCES",
                x.paper_id,
                c.id,
                {"evidence": _evidence(analysis, c, 1, math), "score": c.score},
            )
        )
        _add_hierarchy(parts, analysis.vocab, c, added)
    return parts
