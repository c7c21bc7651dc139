"""The PREDICTED model's feature rows of a Doc, read from its ``ORTH`` hashes without building strings.

Why: :func:`extractors.concepts.predicted.doc_terms` builds every token's key, every adjacent
pair ``"prev key"`` as a new string and a set of them, then looks each up in the model's term
table; the stage cost about as much as the tokenizer (``bench/concepts.py``, "PREDICTED stage
alone": 1.03-1.69x before, 0.49-0.57x after). Only the ~8,000 terms the model knows can change its
output, so this index maps each distinct token (by its spaCy ``ORTH`` hash, cached) to a small
integer: the model's id of its key, :data:`NO_TERM` for a non-word (punctuation, math: it
breaks pairs) and for a word the model has no unigram or pair with (no pair through it is
known, so it acts as the same break), and :data:`SKIP` for a hyphen (ignored, like the
matcher). Unigram rows are then a list lookup and pair rows one dict
lookup of ``prev << 32 | id``. The Doc's hashes come from the token stream, which reads them
anyway (:attr:`~extractors.concepts.tokens.TokenStream.doc_orths`).

The result is exactly ``sorted(row of t for t in doc_terms(doc) if t is known)``:
``tests/unit/test_term_rows.py`` compares both on real papers, and
:meth:`ConceptPredictor.decision_rows` sums the same rows in the same order as
:meth:`ConceptPredictor.decision`, so the probabilities are bit for bit the same.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

import numpy as np
import numpy.typing as npt
from spacy.tokens import Doc

from extractors.concepts.vocabulary import SKIP_TOKENS
from extractors.text import MATH_PLACEHOLDER
from kg.core.normalize import token_key

__all__ = ["NO_TERM", "SKIP", "TermRows"]

SKIP = -2  # a hyphen: not a feature and no break between its neighbours
NO_TERM = -1  # punctuation, math, or a word in no term of the model: no feature, no known pair
_SHIFT = 32
_ORTH_CACHE_LIMIT = 400_000


def _is_word(key: str) -> bool:
    return any(ch.isalnum() for ch in key)


class TermRows:
    """Maps Docs to the sorted row indices of a term table (unigram keys and ``"a b"`` pairs).

    Args:
        terms: the model's term → row table (:attr:`ConceptPredictor.terms`). A term with a
            space is a pair of two keys; token keys never contain a space (spaCy splits on
            whitespace, and whitespace tokens are not words).
    """

    def __init__(self, terms: dict[str, int]) -> None:
        ids: dict[str, int] = {}

        def key_id(key: str) -> int:
            return ids.setdefault(key, len(ids))

        unigram: dict[int, int] = {}
        self._pairs: dict[int, int] = {}
        for term, row in terms.items():
            first, space, second = term.partition(" ")
            if space:
                self._pairs[key_id(first) << _SHIFT | key_id(second)] = row
            else:
                unigram[key_id(term)] = row
        self._ids = ids
        self._unigram = [unigram.get(kid, -1) for kid in range(len(ids))]  # -1: a key only in pairs
        self._by_orth: dict[int, int] = {}

    def _learn(self, orth: int, doc: Doc) -> int:
        """The id of one token, cached by its ``ORTH`` hash."""
        text = doc.vocab.strings[orth]
        if text in SKIP_TOKENS:
            kid = SKIP
        else:
            key = "\0" if text == MATH_PLACEHOLDER else token_key(text)
            kid = self._ids.get(key, NO_TERM) if _is_word(key) else NO_TERM
        if len(self._by_orth) > _ORTH_CACHE_LIMIT:
            self._by_orth.clear()
        self._by_orth[orth] = kid
        return kid

    def rows(self, doc: Doc, orths: Sequence[int] | None = None) -> npt.NDArray[np.int64]:
        """The sorted, distinct rows of the Doc's unigram and adjacent-pair terms the table knows.

        ``orths``: the Doc's ``ORTH`` hashes when the caller has read them already
        (:attr:`TokenStream.doc_orths`); a plain loop, as fast here as numpy's masks were.
        """
        if orths is None:
            orths = doc.to_array("ORTH").tolist()
        cached = list(map(self._by_orth.get, orths))
        if None in cached:
            found = [k if k is not None else self._learn(o, doc) for k, o in zip(cached, orths, strict=True)]
        else:
            found = cast(list[int], cached)
        unigram = self._unigram
        pairs = self._pairs
        out: set[int] = set()
        add = out.add
        prev = NO_TERM
        for kid in found:
            if kid < 0:
                if kid == NO_TERM:
                    prev = NO_TERM
                continue  # SKIP: a hyphen joins its neighbours
            row = unigram[kid]
            if row >= 0:
                add(row)
            if prev >= 0:
                pair = pairs.get(prev << _SHIFT | kid)
                if pair is not None:
                    add(pair)
            prev = kid
        return np.array(sorted(out), dtype=np.int64)
