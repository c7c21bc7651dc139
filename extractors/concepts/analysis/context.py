"""The typed context one paper's analysis passes from stage to stage (:class:`PaperContext`).

Why: each stage reads what earlier stages found and adds its own, and nothing else; the fields
below are that contract. A stage that needs something new adds a field here, so the data flow
of :func:`.pipeline.analyse` stays readable in one place.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from spacy.tokens import Doc

from extractors.concepts.analysis.candidate import Candidate, curated_candidate, kind_for_head
from extractors.concepts.background import Background
from extractors.concepts.discovery import Acronym, Introduced
from extractors.concepts.tokens import TokenStream
from extractors.concepts.vocabulary import Vocabulary

Span = tuple[int, int]  # a token span [start, end)


@dataclass
class PaperContext:
    """One paper under analysis: its inputs, and the candidates found so far, merged by concept."""

    # Inputs (set by the pipeline).
    doc: Doc
    text: str
    title_end: int  # where the title ends in ``text``
    vocab: Vocabulary
    background: Background
    stream: TokenStream
    parsed: bool  # the Doc has a dependency parse (accurate mode)

    # Candidates, merged by concept: curated ones by vocabulary id, discovered ones by key.
    by_vocab: dict[str, Candidate] = field(default_factory=dict)
    by_key: dict[tuple[str, ...], Candidate] = field(default_factory=dict)
    # Plain noun phrases (the bulk) stay as key -> spans until they are scored.
    plain: dict[tuple[str, ...], list[Span]] = field(default_factory=dict)

    # Acronyms (stage :mod:`.acronyms`).
    acronyms: list[Acronym] = field(default_factory=list)
    skip: frozenset[int] = frozenset()  # "( SF )" tokens of definitions, transparent to chunking
    acronym_target: dict[str, Candidate] = field(default_factory=dict)  # short-form key -> concept
    # Short-form key -> (spelt-out key, name), for acronyms the vocabulary does not know.
    expansion: dict[str, tuple[tuple[str, ...], str]] = field(default_factory=dict)
    redefined: set[str] = field(default_factory=set)  # the paper's own meaning of a known acronym

    # Vocabulary ids matched only through ambiguous aliases without support (stage :mod:`.vocabulary_match`).
    unsupported: frozenset[str] = frozenset()

    # Introduced names ("we propose X"), in order (stage :mod:`.introductions`).
    introduced: list[Introduced] = field(default_factory=list)
    introduced_keys: list[tuple[str, ...]] = field(default_factory=list)

    def vocab_candidate(self, cid: str) -> Candidate:
        """The paper's candidate for a curated concept, created on first use."""
        c = self.by_vocab.get(cid)
        if c is None:
            c = self.by_vocab[cid] = curated_candidate(self.vocab, cid)
        return c

    def discovered(self, key: tuple[str, ...]) -> Candidate:
        """The paper's candidate for a discovered phrase (by its key), created on first use."""
        c = self.by_key.get(key)
        if c is None:
            c = self.by_key[key] = Candidate(key=key, source="discovered", kind=kind_for_head(key))
        return c
