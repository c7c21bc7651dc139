"""The vocabulary's phrase keys, computed once and shipped (``extractors/data/concepts.keys.json``).

Every process that extracts builds the concept vocabulary, and tokenising its ~10,000 names
and aliases is most of that: 0.8 s of a 3 s ``kg ingest`` of ten papers. The keys depend only
on the vocabulary file, the tokenizer's rules and the key code, so they are computed once and
stored with a fingerprint of all three. A stale or unreadable file is ignored and the keys are
computed as before: the file is a speed-up, never a source of truth. A unit test rebuilds the
shipped file and fails when it is stale; regenerate it with::

    python scripts/build_concept_keys.py
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from spacy.tokenizer import Tokenizer

__all__ = ["KEY_FORMAT", "fingerprint", "keys_path", "load_keys", "surfaces", "write_keys"]

# Bump when phrase_key, token_key or the token stream change what they return.
KEY_FORMAT = 1


def keys_path(vocabulary: Path) -> Path:
    """Where a vocabulary file's keys live: ``concepts.json`` → ``concepts.keys.json``."""
    return vocabulary.with_name(vocabulary.stem + ".keys.json")


def fingerprint(vocabulary_bytes: bytes, tokenizer: Tokenizer) -> str:
    """What the keys were computed from: the vocabulary, the tokenizer's rules (affix patterns,
    special cases; ``to_bytes`` takes 3 ms) and :data:`KEY_FORMAT`."""
    h = hashlib.sha256()
    h.update(f"format {KEY_FORMAT}\n".encode())
    h.update(hashlib.sha256(vocabulary_bytes).digest())
    h.update(hashlib.sha256(tokenizer.to_bytes(exclude=["vocab"])).digest())
    return h.hexdigest()


def surfaces(entries: Iterable[Mapping[str, Any]]) -> list[str]:
    """Every name and alias of the entries, once each, in file order."""
    seen: dict[str, None] = {}
    for e in entries:
        seen.setdefault(str(e["name"]), None)
        for a in e.get("aliases", []):
            seen.setdefault(str(a), None)
    return list(seen)


def load_keys(
    vocabulary: Path, vocabulary_bytes: bytes, tokenizer: Tokenizer
) -> dict[str, tuple[str, ...]] | None:
    """The stored keys when they were computed from exactly these inputs, else ``None``."""
    try:
        data = json.loads(keys_path(vocabulary).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("fingerprint") != fingerprint(vocabulary_bytes, tokenizer):
        return None
    keys = data.get("keys")
    if not isinstance(keys, dict):
        return None
    return {str(s): tuple(str(k) for k in key) for s, key in keys.items() if isinstance(key, list)}


def write_keys(vocabulary: Path, tokenizer: Tokenizer) -> Path:
    """Compute and store the keys of every surface of a vocabulary file."""
    from extractors.concepts.vocabulary import load_vocabulary_entries, phrase_key

    raw = vocabulary.read_bytes()
    keys = {s: list(phrase_key(tokenizer, s)) for s in surfaces(load_vocabulary_entries(vocabulary))}
    out = keys_path(vocabulary)
    # One surface per line, so a vocabulary edit shows as a small diff.
    lines = [
        f"{json.dumps(s, ensure_ascii=False)}: {json.dumps(k, ensure_ascii=False)}"
        for s, k in sorted(keys.items())
    ]
    head = f'{{"fingerprint": "{fingerprint(raw, tokenizer)}",\n"keys": {{\n'
    out.write_text(head + ",\n".join(lines) + "\n}}\n", encoding="utf-8")
    return out
