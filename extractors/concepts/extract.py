"""Vocabulary matching over a tokenised abstract: mentions with counts, scores and evidence."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from spacy.tokens import Doc

from extractors.concepts.vocabulary import SKIP_TOKENS, Vocabulary, token_key
from extractors.registry import ExtractInput, Parts, register
from extractors.text import MATH_PLACEHOLDER, sentence_spans
from kg.models import Node, Relationship

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
