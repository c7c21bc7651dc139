"""The result of one paper's analysis: :class:`Analysis`, what every concept extractor reads.

It holds the ranked candidates and the paper's text and tokens, and answers per candidate: its
canonical name and id (:meth:`Analysis.finalize`, lazily: only kept candidates need one) and how
central it is to the paper (:meth:`Analysis.salience`, :meth:`Analysis.aside`; see :mod:`.about`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from extractors.concepts.analysis import about
from extractors.concepts.analysis.candidate import Candidate
from extractors.concepts.analysis.names import (
    cached_concept_id,
    display_name,
    name_key_of,
    shortened_aliases,
    spell_out_acronyms,
    variant_id,
    wording,
)
from extractors.concepts.discovery import Acronym, Introduced
from extractors.concepts.tokens import TokenStream
from extractors.concepts.vocabulary import Vocabulary
from extractors.text import sentence_spans


@dataclass
class Analysis:
    """Everything the concept extractors need about one paper (role: shared analysis)."""

    text: str
    stream: TokenStream
    candidates: list[Candidate]  # ranked, best first, junk removed; not yet finalized
    acronyms: list[Acronym]
    introduced: list[Introduced]
    introduced_keys: list[tuple[str, ...]]
    title_end: int
    vocab: Vocabulary
    unsupported: frozenset[str] = frozenset()  # vocabulary ids matched only by unsupported aliases
    matched: frozenset[str] = frozenset()  # vocabulary ids the paper mentions (with support)
    _sentences: list[tuple[int, int]] | None = None
    _sentence_starts: list[int] = field(default_factory=list)
    sentence_texts: dict[int, str] = field(default_factory=dict)  # evidence strings, by sentence
    _finalized: set[int] = field(default_factory=set)
    about_cache: about.AboutCache = field(default_factory=about.AboutCache)

    @property
    def sentences(self) -> list[tuple[int, int]]:
        """Character spans of the sentences (computed on first use)."""
        if self._sentences is None:
            self._sentences = sentence_spans(self.text)
            self._sentence_starts = [a for a, _ in self._sentences]
        return self._sentences

    @property
    def sentence_starts(self) -> list[int]:
        """First character of each sentence, ascending."""
        if self._sentences is None:
            _ = self.sentences
        return self._sentence_starts

    def finalize(self, c: Candidate) -> Candidate:
        """Fill in the display name and id of a candidate (idempotent)."""
        if id(c) in self._finalized:
            return c
        self._finalized.add(id(c))
        if not c.surface:
            c.surface = wording(
                c, self.stream, self.text, shortened_aliases(c, self.vocab), name_key_of(c, self.vocab)
            )
        if c.source == "vocabulary":
            vc = self.vocab.concepts[c.vocab_id]
            c.id, c.name = vc.id, vc.name
            return c
        if not c.name:
            s, e = c.spans[0]
            c.name = display_name(self.stream, s, e)
        # A plain phrase only: a defined, introduced or named concept keeps its name as written.
        plain = not (c.defined or c.introduced or c.named)
        spelt = spell_out_acronyms(c.name, self.vocab, {a.key for a in self.acronyms}) if plain else c.name
        if spelt != c.name:
            if c.name not in c.aliases:
                c.aliases.append(c.name)  # "constrained RL" -> "constrained reinforcement learning"
            c.name = spelt
        c.id = cached_concept_id(c.name)
        curated = self.vocab.concepts.get(c.id)
        if curated is None:
            c.id = variant_id(c.name)  # spellings that stem alike share one node
            curated = self.vocab.concepts.get(c.id)
        if curated is not None:  # a discovered spelling of a curated concept
            c.source, c.vocab_id, c.name, c.kind = "vocabulary", curated.id, curated.name, curated.kind
            c.aliases = list(curated.aliases)
            c.broader = list(curated.broader)
        elif not c.broader and len(c.key) >= 2:
            # The longest vocabulary suffix is the head: "... multinomial logit bandit" -> bandits.
            index = self.vocab.index
            for cut in range(1, len(c.key)):
                head = index.get(c.key[cut:])
                if (
                    head is not None
                    and head not in self.matched
                    and (head in self.unsupported or c.key[cut:] in self.vocab.ambiguous.get(head, ()))
                ):
                    break  # "score distillation" is not a kind of knowledge distillation
                if head is not None:
                    c.broader.append(head)
                    break
        c.spans.sort()
        return c

    def where(self, c: Candidate) -> tuple[bool, bool]:
        """(in the abstract's first sentence, in a contribution sentence): :func:`.about.where`."""
        return about.where(self, c)

    def aside(self, c: Candidate) -> bool:
        """Whether every mention is an aside (auxiliary loss, baseline): :func:`.about.aside`."""
        return about.aside(self, c)

    def claimed(self, c: Candidate) -> bool:
        """Whether the paper claims the concept as its own: :func:`.about.claimed`."""
        return about.claimed(self, c)

    def salience(self, c: Candidate) -> float:
        """How much the paper is about the concept, in [0, 1]: :func:`.about.salience`."""
        return about.salience(self, c)

    def top(self, k: int | None = None) -> list[Candidate]:
        """The best ``k`` candidates, finalized, one per concept id."""
        out: list[Candidate] = []
        seen: set[str] = set()
        for c in self.candidates:
            self.finalize(c)
            if c.id in seen:
                continue
            seen.add(c.id)
            out.append(c)
            if k is not None and len(out) >= k:
                break
        return out
