"""Canonical names: how a phrase is named (the same in every paper), spelt-out acronyms, and how
a concept is shown for one paper (its wording).

Why one module: ids are built from names (:func:`kg.core.ids.concept_id`), so every rule that makes
two papers' spellings give one name lives here, and a change here changes node ids.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import TYPE_CHECKING

from extractors.concepts.analysis.candidate import STATIC_CACHE_LIMIT, Candidate
from extractors.concepts.background import FUNCTION_WORDS
from extractors.concepts.tokens import CAPS, DIGIT, NAME, TokenStream
from kg.core.ids import concept_id
from kg.core.normalize import acronym_key, display_singular, is_acronym

if TYPE_CHECKING:
    from extractors.concepts.vocabulary import Vocabulary

cached_concept_id = lru_cache(maxsize=100_000)(concept_id)


@lru_cache(maxsize=100_000)
def variant_id(name: str) -> str:
    """The id shared by spellings that stem alike (``concept_id(name, variants=True)``)."""
    return concept_id(name, variants=True)


# Words written with a hyphen before the next word in a canonical name ("multi-armed",
# "self-supervised", "few-shot"); every other pair is joined by a space, whatever the paper did,
# so "mean-field" and "mean field" give one name.
HYPHEN_PREFIXES = frozenset(
    """multi self semi non pre post co re anti sub super inter intra cross meta fine few zero one
    two three single double in out off end long short well ill under over un bi tri uni
    quasi pseudo near""".split()
)


def display_name(stream: TokenStream, start: int, end: int) -> str:
    """The canonical name of a phrase: lower case except names and acronyms, head singular.

    It depends on the words only, not on where they stand or how the paper hyphenated them,
    so every paper that names a concept gives it the same name (re-ingesting is a no-op).
    Names are remembered by the tokens' texts, keys, flags and gluing (all it reads), as the
    same phrases recur from paper to paper.
    """
    parts = (
        tuple(stream.text[start:end]),
        tuple(stream.keys[start:end]),
        tuple(stream.flags[start:end]),
        tuple(stream.glued[start:end]),
    )
    hit = _DISPLAY_NAMES.get(parts)
    if hit is None:
        if len(_DISPLAY_NAMES) > STATIC_CACHE_LIMIT:
            _DISPLAY_NAMES.clear()
        hit = _DISPLAY_NAMES[parts] = _display_name(*parts)
    return hit


_DISPLAY_NAMES: dict[tuple[tuple[str, ...], tuple[str, ...], tuple[int, ...], tuple[bool, ...]], str] = {}


def _display_name(
    texts: tuple[str, ...], keys: tuple[str, ...], flags: tuple[int, ...], glued: tuple[bool, ...]
) -> str:
    words: list[str] = []
    has_function = False
    prev_name = False
    for i in range(len(texts)):
        t = texts[i]
        if t in ("(", ")"):
            continue
        name = bool(flags[i] & (NAME | CAPS | DIGIT))
        w = t if flags[i] & (NAME | CAPS) else t.lower()
        if keys[i] in FUNCTION_WORDS:
            has_function = True
        if words and ((glued[i] and (name or prev_name)) or words[-1].rsplit("-", 1)[-1] in HYPHEN_PREFIXES):
            words[-1] = words[-1] + "-" + w
        else:
            words.append(w)
        prev_name = name
    if words and not has_function:
        head, _, tail = words[-1].rpartition("-")
        words[-1] = (head + "-" if head else "") + display_singular(tail)
    return " ".join(words)


def spell_out_acronyms(name: str, vocab: Vocabulary, defined: set[str]) -> str:
    """A discovered name with its well-known acronyms spelt out as the vocabulary names them:
    "constrained RL" -> "constrained reinforcement learning", "LLM agents" -> "large language
    model agents" (a spelt-out name before the head is singular).

    Why: ids are built from the name (:func:`kg.core.ids.concept_id`), so the two spellings of one
    concept in two papers get one id, one node. Only acronyms that resolve without support
    (not :attr:`Vocabulary.ambiguous`) and that the paper does not define itself (``defined``,
    keys of its acronym definitions, which are expanded from the paper's own words) change.
    """
    words = name.split(" ")
    if len(words) < 2:
        return name
    changed = False
    for i, word in enumerate(words):
        if not is_acronym(word):
            continue
        key = "A:" + acronym_key(word)
        cid = vocab.index.get((key,))
        if cid is None or key in defined or (key,) in vocab.ambiguous.get(cid, ()):
            continue
        spelt = vocab.concepts[cid].name
        if i < len(words) - 1:
            head, _, last = spelt.rpartition(" ")
            spelt = f"{head} {display_singular(last)}" if head else display_singular(last)
        words[i] = spelt
        changed = True
    return " ".join(words) if changed else name


@lru_cache(maxsize=100_000)
def fold_wording(surface: str) -> tuple[str, ...]:
    """A crude stem of a wording, to spot near-duplicates ("prompt", "prompts", "prompting").

    >>> fold_wording("Language Modeling") == fold_wording("language models")
    True
    """
    out: list[str] = []
    for token in _WORD.findall(surface.lower()):
        for suffix in ("ings", "ing", "ed", "es", "s"):
            if token.endswith(suffix) and len(token) - len(suffix) >= 3:
                token = token[: -len(suffix)]
                break
        if token.endswith(("el", "er")) and len(token) > 5:
            token = token[:-2]  # "model"/"modeling": Porter-like, enough for near-duplicates
        out.append(token)
    return tuple(out)


def is_noun_phrase(stream: TokenStream, s: int, e: int) -> bool:
    """Whether tokens ``[s, e)`` read as a noun phrase: a noun last, no verb first.

    >>> from extractors.concepts.tokens import TokenStream
    >>> t = TokenStream(text=("self", "supervised"), cls=["A", "A"])
    >>> is_noun_phrase(t, 0, 2), is_noun_phrase(TokenStream(text=("pruning",), cls=["N"]), 0, 1)
    (False, True)
    """
    cls = stream.cls
    return cls[e - 1] == "N" and cls[s] != "V"


def wording(
    c: Candidate,
    stream: TokenStream,
    text: str,
    shortened: frozenset[tuple[str, ...]] = frozenset(),
    name_key: tuple[str, ...] = (),
) -> str:
    """How a concept is shown for this paper (``MENTIONS.surface``): the paper's first wording
    that is a noun phrase, or its wording of the concept's canonical name when it writes that too
    (as a mention, or inside a longer phrase: "Depth Estimation" in "Monocular Depth Estimation").

    Why the canonical name's wording first (``name_key``, a curated concept's name key): among
    the top-10 concepts whose first wording and canonical name differ, authors list either about
    as often ("Humanoid Locomotion" / locomotion, "LLMs" / large language models), but when the
    paper writes the name itself its wording of it matched author keywords more often on every
    dev set (bench/README.md, "What the concept targets can reach"); it is still the paper's
    own wording.

    A curated concept can be matched through an adjectival or verbal alias ("self-supervised",
    "fine-tuned", "LLM-based", "evaluating LLMs"); such a wording is not a name for the
    concept, so a curated concept the paper only writes that way is shown by its canonical
    name ("self-supervised learning"). Nor is a shortened alias that needs support in the
    paper (``shortened``: "Diffusion" for diffusion models, "attention" for attention
    mechanism; acronyms are names and stay): the first fuller wording is shown, or the
    canonical name. A discovered phrase keeps its first wording.
    """
    starts, ends = stream.starts, stream.ends
    if c.source == "vocabulary" and c.name:
        keys = stream.keys
        first: tuple[int, int] | None = None
        for s, e in c.spans:
            if is_noun_phrase(stream, s, e) and (not shortened or tuple(keys[s:e]) not in shortened):
                if first is None:
                    first = (s, e)
                if not name_key or tuple(keys[s:e]) == name_key:
                    break
        else:
            at = _written_at(stream, name_key) if name_key else -1
            if at >= 0:
                s, e = at, at + len(name_key)
            elif first is None:
                return c.name
            else:
                s, e = first
    else:
        s, e = c.spans[0]
    return " ".join(text[starts[s] : ends[e - 1]].split())


def _written_at(stream: TokenStream, key: tuple[str, ...]) -> int:
    """Where the paper first writes ``key`` as a noun phrase (token index), or -1."""
    keys, n = stream.keys, len(key)
    for i in range(len(keys) - n + 1):
        if keys[i] == key[0] and tuple(keys[i : i + n]) == key and is_noun_phrase(stream, i, i + n):
            return i
    return -1


def name_key_of(c: Candidate, vocab: Vocabulary) -> tuple[str, ...]:
    """The key of a curated concept's canonical name (``()`` for a discovered phrase): the
    wording :func:`wording` prefers."""
    return vocab.name_keys.get(c.vocab_id, ()) if c.source == "vocabulary" and c.vocab_id else ()


def shortened_aliases(c: Candidate, vocab: Vocabulary) -> frozenset[tuple[str, ...]]:
    """The keys of a curated concept's shortened aliases that need support (:func:`wording`),
    acronyms left out."""
    if c.source != "vocabulary":
        return frozenset()
    amb = vocab.ambiguous.get(c.vocab_id)
    if not amb:
        return frozenset()
    return frozenset(k for k in amb if not (len(k) == 1 and k[0].startswith("A:")))


_WORD = re.compile(r"[^\W_]+")
