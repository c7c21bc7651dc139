"""The curated concept vocabulary (``extractors/data/concepts.json``) and its phrase index."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from spacy.tokenizer import Tokenizer

from extractors.concepts.normalize import acronym_key, is_acronym, norm_token
from kg.errors import ExtractionError
from kg.ids import concept_id
from kg.models import CONCEPT_KINDS, ConceptKind

DEFAULT_VOCABULARY = Path(__file__).resolve().parent.parent / "data" / "concepts.json"
# Tokens dropped before matching, so "multi-armed" equals "multi armed".
SKIP_TOKENS = frozenset({"-", "–", "—", "‐"})


@dataclass(frozen=True)
class VocabConcept:
    """One curated concept (role: vocabulary entry)."""

    id: str
    name: str
    kind: ConceptKind
    aliases: tuple[str, ...]
    broader: tuple[str, ...]  # concept ids


def token_key(text: str) -> str:
    """Matching key of one token: acronyms keep their case, everything else is normalised."""
    if is_acronym(text):
        return "A:" + acronym_key(text)
    return norm_token(text)


def phrase_key(tokenizer: Tokenizer, phrase: str) -> tuple[str, ...]:
    """Matching key of a whole phrase, tokenised exactly like the text will be."""
    return tuple(token_key(t.text) for t in tokenizer(phrase) if t.text not in SKIP_TOKENS)


@dataclass
class Vocabulary:
    """Concepts by id plus an index from phrase keys to concept ids."""

    concepts: dict[str, VocabConcept]
    index: dict[tuple[str, ...], str] = field(default_factory=dict)
    max_len: int = 1

    @classmethod
    def from_entries(cls, entries: Iterable[dict[str, Any]], tokenizer: Tokenizer) -> Vocabulary:
        """Build from raw entries; raises :class:`ExtractionError` on an inconsistent file."""
        concepts: dict[str, VocabConcept] = {}
        raw = list(entries)
        by_name = {str(e["name"]): concept_id(str(e["name"])) for e in raw}
        for e in raw:
            kind = str(e.get("kind", "CONCEPT"))
            if kind not in CONCEPT_KINDS:
                raise ExtractionError(f"vocabulary concept {e['name']!r} has unknown kind {kind!r}")
            missing = [b for b in e.get("broader", []) if b not in by_name]
            if missing:
                raise ExtractionError(f"vocabulary concept {e['name']!r}: unknown broader {missing}")
            cid = by_name[str(e["name"])]
            concepts[cid] = VocabConcept(
                id=cid,
                name=str(e["name"]),
                kind=kind,
                aliases=tuple(str(a) for a in e.get("aliases", [])),
                broader=tuple(by_name[b] for b in e.get("broader", [])),
            )
        vocab = cls(concepts=concepts)
        for c in concepts.values():
            for surface in (c.name, *c.aliases):
                key = phrase_key(tokenizer, surface)
                if key:
                    # The first concept to claim a surface form keeps it (curated order wins).
                    vocab.index.setdefault(key, c.id)
                    vocab.max_len = max(vocab.max_len, len(key))
        return vocab

    def ancestors(self, cid: str) -> list[str]:
        """Broader concepts, transitively, nearest first (the file is a DAG)."""
        seen: list[str] = []
        frontier = list(self.concepts[cid].broader)
        while frontier:
            nxt = frontier.pop(0)
            if nxt not in seen:
                seen.append(nxt)
                frontier.extend(self.concepts[nxt].broader)
        return seen

    def lookup(self, tokenizer: Tokenizer, text: str) -> VocabConcept | None:
        """The concept a name or alias denotes, if any."""
        cid = self.index.get(phrase_key(tokenizer, text))
        return self.concepts[cid] if cid else None


def load_vocabulary_entries(path: Path = DEFAULT_VOCABULARY) -> list[dict[str, Any]]:
    """Raw entries of a vocabulary file."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as e:
        raise ExtractionError(f"cannot read concept vocabulary {path}: {e}") from e
    entries = data.get("concepts") if isinstance(data, dict) else None
    if not isinstance(entries, list):
        raise ExtractionError(f"{path}: expected {{'concepts': [...]}}")
    return entries


@lru_cache(maxsize=4)
def _cached(path: Path, tokenizer_id: int, tokenizer: Tokenizer) -> Vocabulary:
    return Vocabulary.from_entries(load_vocabulary_entries(path), tokenizer)


def default_vocabulary(tokenizer: Tokenizer, path: Path = DEFAULT_VOCABULARY) -> Vocabulary:
    """The shipped vocabulary, built once per tokenizer."""
    return _cached(path, id(tokenizer), tokenizer)
