"""The shipped phrase keys of the concept vocabulary (``extractors/data/concepts.keys.json``).

Why: every extracting process used to tokenise the vocabulary's ~10,000 names and aliases
(0.8 s of a ten-paper ``kg ingest``). The keys are now read from a file, which must be current
(else the speed-up is silently lost), give the identical vocabulary, and be ignored whenever it
no longer matches the vocabulary or the tokenizer.
"""

from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path
from typing import Any, cast

import spacy
from spacy.tokenizer import Tokenizer

from extractors.concepts import key_cache
from extractors.concepts.vocabulary import (
    DEFAULT_VOCABULARY,
    Vocabulary,
    default_vocabulary,
    load_vocabulary_entries,
    phrase_key,
)
from kg.ingest.nlp import load_nlp

STALE = "the shipped keys are stale: run python scripts/build_concept_keys.py and commit the file"


class CountingTokenizer:
    """A tokenizer that counts the phrases it is asked to tokenise."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.calls = 0

    def __call__(self, text: str) -> Any:
        self.calls += 1
        return self.inner(text)

    def to_bytes(self, **kwargs: Any) -> bytes:
        return bytes(self.inner.to_bytes(**kwargs))


def _fields(v: Vocabulary) -> dict[str, Any]:
    skip = {"graph_cache", "ancestor_cache"}
    return {f.name: getattr(v, f.name) for f in dataclasses.fields(v) if f.name not in skip}


def test_shipped_keys_are_current_and_complete() -> None:
    tokenizer = load_nlp(mode="fast").tokenizer
    keys = key_cache.load_keys(DEFAULT_VOCABULARY, DEFAULT_VOCABULARY.read_bytes(), tokenizer)
    assert keys is not None, STALE
    entries = load_vocabulary_entries()
    assert set(keys) == set(key_cache.surfaces(entries)), STALE
    wrong = [s for s, k in keys.items() if k != phrase_key(tokenizer, s)]
    assert not wrong, f"{STALE}; e.g. {wrong[:5]}"


def test_default_vocabulary_reads_the_keys_and_equals_a_fresh_build() -> None:
    tokenizer = load_nlp(mode="fast").tokenizer
    counting = CountingTokenizer(tokenizer)
    # a duck-typed stand-in: it has the only methods the vocabulary calls (__call__, to_bytes)
    from_file = default_vocabulary(cast(Tokenizer, counting))
    assert counting.calls == 0  # the fast path: no phrase was tokenised
    fresh = Vocabulary.from_entries(load_vocabulary_entries(), tokenizer)
    assert _fields(from_file) == _fields(fresh)


def _copy_vocabulary(tmp_path: Path) -> Path:
    path = tmp_path / "concepts.json"
    shutil.copy(DEFAULT_VOCABULARY, path)
    shutil.copy(key_cache.keys_path(DEFAULT_VOCABULARY), key_cache.keys_path(path))
    return path


def test_keys_of_another_vocabulary_are_ignored(tmp_path: Path) -> None:
    path = _copy_vocabulary(tmp_path)
    data = json.loads(path.read_text(encoding="utf-8"))
    data["concepts"][0]["aliases"].append("Zorbulated Banditry")
    path.write_text(json.dumps(data), encoding="utf-8")
    tokenizer = load_nlp(mode="fast").tokenizer
    assert key_cache.load_keys(path, path.read_bytes(), tokenizer) is None
    counting = CountingTokenizer(tokenizer)
    vocab = default_vocabulary(cast(Tokenizer, counting), path)  # duck-typed, as above
    assert counting.calls > 1000  # computed, as before the file existed
    hit = vocab.lookup(tokenizer, "zorbulated banditry")
    assert hit is not None and hit.name == data["concepts"][0]["name"]


def test_keys_of_another_tokenizer_are_ignored(tmp_path: Path) -> None:
    path = _copy_vocabulary(tmp_path)
    blank = spacy.blank("en")  # the model's rules are English's own: the keys hold for it
    tokenizer = blank.tokenizer  # typed as any Callable[[str], Doc] by spaCy
    assert isinstance(tokenizer, Tokenizer)
    assert key_cache.load_keys(path, path.read_bytes(), tokenizer) is not None
    tokenizer.add_special_case("GNNs", [{"ORTH": "GNNs"}])
    assert key_cache.load_keys(path, path.read_bytes(), tokenizer) is None


def test_unreadable_keys_are_ignored(tmp_path: Path) -> None:
    path = _copy_vocabulary(tmp_path)
    tokenizer = load_nlp(mode="fast").tokenizer
    for body in ("{not json", "[]", '{"fingerprint": 3}', ""):
        key_cache.keys_path(path).write_text(body, encoding="utf-8")
        assert key_cache.load_keys(path, path.read_bytes(), tokenizer) is None
    key_cache.keys_path(path).unlink()
    assert key_cache.load_keys(path, path.read_bytes(), tokenizer) is None
    assert default_vocabulary(tokenizer, path).lookup(tokenizer, "MABs") is not None
