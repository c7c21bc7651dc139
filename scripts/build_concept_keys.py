"""Regenerate ``extractors/data/concepts.keys.json``, the vocabulary's precomputed phrase keys.

Run after editing ``concepts.json`` or the key code (``tests/unit/test_concept_keys.py`` says
when): every process that extracts loads these instead of tokenising ~10,000 names and aliases
(``extractors/concepts/key_cache.py`` says why).

Usage::

    python scripts/build_concept_keys.py
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from extractors.concepts.key_cache import write_keys  # noqa: E402
from extractors.concepts.vocabulary import DEFAULT_VOCABULARY  # noqa: E402
from kg.ingest.nlp import load_nlp  # noqa: E402

if __name__ == "__main__":
    print(write_keys(DEFAULT_VOCABULARY, load_nlp(mode="fast").tokenizer))
