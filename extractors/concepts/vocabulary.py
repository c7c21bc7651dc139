"""The curated concept vocabulary (``extractors/data/concepts.json``) and its phrase index.

Names and aliases are keyed with the same token stream and :func:`token_key` as the text, so
"multi-armed bandits", "Multi armed bandit" and "MABs" all land on one concept. Matching is
longest-first and never starts inside a hyphenated compound ("semi-supervised learning" is not
a mention of "supervised learning", "non-convex optimization" not one of "convex optimization").
"""

from __future__ import annotations

import json
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from spacy.tokenizer import Tokenizer

from extractors import DATA_DIR
from extractors.concepts import key_cache
from extractors.concepts.specificity import load_general_english
from extractors.concepts.tokens import HYPHENS, Lexicon, TokenStream, positions, stream_from_doc
from kg.core.collector import collector_paused
from kg.core.errors import ExtractionError
from kg.core.ids import concept_id
from kg.core.models import CONCEPT_KINDS, ConceptKind, Node, Relationship
from kg.core.normalize import token_key

__all__ = [
    "DEFAULT_VOCABULARY",
    "SKIP_TOKENS",
    "VocabConcept",
    "Vocabulary",
    "default_vocabulary",
    "is_a_kinds",
    "load_vocabulary_entries",
    "match_stream",
    "needs_context",
    "phrase_key",
    "token_key",
]

DEFAULT_VOCABULARY = DATA_DIR / "concepts.json"
# Acronyms whose reading is settled in ML papers: they resolve without supporting context.
WELL_KNOWN_ACRONYMS = frozenset(
    """AI ML NLP RL LLM LM GAN VAE CNN RNN GNN LSTM MLP GRU SGD MCMC MDP POMDP RLHF DPO PPO PCA SVD SVM
    ViT NeRF MoE CoT RAG PEFT LoRA ELBO PDE ODE SDE KL MSE MLE VQA NLI NER OOD DNN DRL MARL ICL VLM
    MLLM VLA GCN GAT NTK RKHS GP HMM CRF MAML NAS BERT GPT SFT RLAIF""".split()
)
# Shortened aliases that mean the concept wherever they occur ("bandits": a multi-armed bandit
# problem). Every other alias that drops words of the name ("distillation" for "knowledge
# distillation", "attention" for "attention mechanism") needs the name or an unambiguous alias
# elsewhere in the same paper.
SAFE_SHORTENINGS = frozenset(
    w.strip()
    for w in """bandits|bandit|Gaussian splatting|actor-critic|actor critic|BatchNorm|LayerNorm|GroupNorm|
    finetuning|metalearning|radiance fields|time series|time-series|unlearning|oversmoothing|
    oversquashing|coreference|lottery ticket|policy gradient|policy-gradient|sim-to-real|sim2real|
    autodiff|BayesOpt|expressivity|expressiveness|Monte Carlo|Monte-Carlo|NeRF|NeRFs|seq2seq|
    sequence-to-sequence|self-supervised|semi-supervised|retrieval-augmented|text-to-image|
    maximum likelihood|membership inference|model inversion|model extraction|backdoor|backdoors|
    Wasserstein|Kullback-Leibler|Gromov-Wasserstein|Gromov–Wasserstein|sliced Wasserstein|
    sliced-Wasserstein|Weisfeiler-Leman|Weisfeiler–Leman|heavy-tailed|heavy tailed|Hebbian|
    lottery ticket|Bradley-Terry|Plackett-Luce|quasi-Newton|primal-dual|augmented Lagrangian|
    rate-distortion|rate distortion|random matrix|stochastic gradient|projected gradient|
    natural gradient|architecture search|neural translation|view synthesis|image-to-image|
    image translation|entity recognition|multinomial logit|mixed precision|LLM-as-judge|LLM judge|
    Llama2|Llama3|DALL·E|CIFAR100|FashionMNIST|TinyImageNet|Kinetics400|WikiText103|UNet|
    Frank–Wolfe|Metropolis–Hastings|MetaWorld|MTBench|NaturalQuestions|CommonCrawl|tSNE|
    Polyak–Łojasiewicz|follow the leader|follow-the-leader|descent-ascent|last-iterate|
    infinite width|deferral|learning-augmented|best-of-N|best of N|sharpness-aware|StableDiffusion|
    bimanual|cross-embodiment|score distillation""".split("|")
)
# Tokens dropped before matching, so "multi-armed" equals "multi armed" (kept for v1 callers).
SKIP_TOKENS = HYPHENS | {"—"}
_PLAIN = Lexicon()


@dataclass(frozen=True)
class VocabConcept:
    """One curated concept (role: vocabulary entry)."""

    id: str
    name: str
    kind: ConceptKind
    aliases: tuple[str, ...]
    broader: tuple[str, ...]  # concept ids


def phrase_key(tokenizer: Tokenizer, phrase: str) -> tuple[str, ...]:
    """Matching key of a whole phrase, tokenised exactly like the text will be.

    Trailing punctuation is dropped; inner punctuation (``k-means``, ``Q-learning``) follows
    the text's own splitting.
    """
    stream = stream_from_doc(tokenizer(phrase), _PLAIN)
    keys = list(stream.keys)
    while keys and stream.cls[len(keys) - 1] == "." and keys[-1] in (".", ",", ";", ":"):
        keys.pop()
    return tuple(keys)


@dataclass
class Vocabulary:
    """Concepts by id plus an index from phrase keys to concept ids.

    Example:
        >>> import spacy
        >>> nlp = spacy.blank("en")
        >>> v = Vocabulary.from_entries(
        ...     [{"name": "multi-armed bandits", "kind": "CONCEPT", "aliases": ["MAB"], "broader": []}],
        ...     nlp.tokenizer)
        >>> v.lookup(nlp.tokenizer, "Multi armed bandit").name, v.lookup(nlp.tokenizer, "MABs").name
        ('multi-armed bandits', 'multi-armed bandits')
    """

    concepts: dict[str, VocabConcept]
    index: dict[tuple[str, ...], str] = field(default_factory=dict)
    max_len: int = 1
    first_keys: frozenset[str] = frozenset()
    name_keys: dict[str, tuple[str, ...]] = field(default_factory=dict)  # concept id -> key of its name
    surface_keys: dict[str, list[tuple[str, ...]]] = field(default_factory=dict)  # id -> name + alias keys
    # First key -> the phrase lengths that start with it, longest first (prunes the matcher).
    lengths: dict[str, tuple[int, ...]] = field(default_factory=dict)
    prefixes: frozenset[tuple[str, str]] = frozenset()  # first two keys of every multi-word phrase
    # Concept id -> alias keys that count only with supporting context (see :func:`needs_context`).
    ambiguous: dict[str, frozenset[tuple[str, ...]]] = field(default_factory=dict)
    # Concept id -> content words of its name; an ambiguous *acronym* resolves when all occur.
    context_words: dict[str, frozenset[str]] = field(default_factory=dict)
    # Graph objects of curated concepts (identical for every paper), built once; treat as immutable.
    graph_cache: dict[str, tuple[Node, list[Relationship]]] = field(default_factory=dict, repr=False)
    ancestor_cache: dict[str, list[str]] = field(default_factory=dict, repr=False)
    narrower_counts: dict[str, int] = field(default_factory=dict, repr=False)
    descendant_cache: dict[str, frozenset[str]] = field(default_factory=dict, repr=False)
    # One-token key -> the only spellings that match it (see :func:`cased_spellings`).
    cased: dict[str, frozenset[str]] = field(default_factory=dict)

    @classmethod
    def from_entries(
        cls,
        entries: Iterable[dict[str, Any]],
        tokenizer: Tokenizer,
        known_keys: Mapping[str, tuple[str, ...]] | None = None,
        common_words: Collection[str] | None = None,
    ) -> Vocabulary:
        """Build from raw entries; raises :class:`ExtractionError` on an inconsistent file.

        ``known_keys`` are precomputed :func:`phrase_key` results by surface
        (:mod:`extractors.concepts.key_cache`); a surface missing from them is tokenised.
        ``common_words`` (word keys; default: general English, ``specificity.load_general_english``)
        make mixed-case names that spell a common word case-sensitive (:func:`cased_spellings`).
        """
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
                kind=kind,  # narrowed by the CONCEPT_KINDS check above
                aliases=tuple(str(a) for a in e.get("aliases", [])),
                broader=tuple(by_name[b] for b in e.get("broader", [])),
            )
        vocab = cls(concepts=concepts)
        keys: dict[str, tuple[str, ...]] = dict(known_keys or {})  # each surface tokenised once at most

        def key_of(surface: str) -> tuple[str, ...]:
            hit = keys.get(surface)
            if hit is None:
                hit = keys[surface] = phrase_key(tokenizer, surface)
            return hit

        firsts: set[str] = set()
        # Names first, then aliases: a concept's own name beats another concept's alias.
        for pass_names in (True, False):
            for c in concepts.values():
                for surface in (c.name,) if pass_names else c.aliases:
                    key = key_of(surface)
                    if pass_names:
                        vocab.name_keys[c.id] = key
                    if key and key not in vocab.surface_keys.setdefault(c.id, []):
                        vocab.surface_keys[c.id].append(key)
                    if key:
                        # The first concept to claim a surface form keeps it (curated order wins).
                        vocab.index.setdefault(key, c.id)
                        vocab.max_len = max(vocab.max_len, len(key))
                        firsts.add(key[0])
        vocab.first_keys = frozenset(firsts)
        for c in concepts.values():
            name_key = vocab.name_keys.get(c.id, ())
            amb = frozenset(
                key
                for alias in c.aliases
                if (key := key_of(alias)) and vocab.index.get(key) == c.id
                if needs_context(alias, key, name_key)
            )
            if amb:
                vocab.ambiguous[c.id] = amb
                vocab.context_words[c.id] = frozenset(
                    k for k in name_key if k not in CONTEXT_STOP and not k.startswith("A:")
                )
        by_first: dict[str, set[int]] = {}
        for key in vocab.index:
            by_first.setdefault(key[0], set()).add(len(key))
        vocab.lengths = {k: tuple(sorted(v, reverse=True)) for k, v in by_first.items()}
        vocab.prefixes = frozenset((k[0], k[1]) for k in vocab.index if len(k) > 1)
        common = load_general_english().keys() if common_words is None else common_words
        if common:
            spellings: dict[str, set[str]] = {}
            for c in concepts.values():
                for surface in (c.name, *c.aliases):
                    key = key_of(surface)
                    if len(key) == 1 and vocab.index.get(key) == c.id:
                        spellings.setdefault(key[0], set()).add(surface)
            vocab.cased = cased_spellings(spellings, common)
        return vocab

    def ancestors(self, cid: str) -> list[str]:
        """Broader concepts, transitively, nearest first (the file is a DAG)."""
        hit = self.ancestor_cache.get(cid)
        if hit is not None:
            return hit
        seen: list[str] = []
        frontier = list(self.concepts[cid].broader)
        while frontier:
            nxt = frontier.pop(0)
            if nxt not in seen:
                seen.append(nxt)
                frontier.extend(self.concepts[nxt].broader)
        self.ancestor_cache[cid] = seen
        return seen

    def narrower_count(self, cid: str) -> int:
        """How many concepts are narrower than ``cid``, transitively (computed once for all)."""
        if not self.narrower_counts:
            counts = dict.fromkeys(self.concepts, 0)
            for other in self.concepts:
                for a in self.ancestors(other):
                    counts[a] += 1
            self.narrower_counts.update(counts)
        return self.narrower_counts.get(cid, 0)

    def descendants(self, cid: str) -> frozenset[str]:
        """Every concept below ``cid``, transitively (computed once for all concepts)."""
        if not self.descendant_cache:
            below: dict[str, set[str]] = {c: set() for c in self.concepts}
            for other in self.concepts:
                for a in self.ancestors(other):
                    below[a].add(other)
            self.descendant_cache.update({c: frozenset(v) for c, v in below.items()})
        return self.descendant_cache.get(cid, frozenset())

    def lookup(self, tokenizer: Tokenizer, text: str) -> VocabConcept | None:
        """The concept a name or alias denotes, if any."""
        cid = self.index.get(phrase_key(tokenizer, text))
        return self.concepts[cid] if cid else None


def is_mixed_case(surface: str) -> bool:
    """A word spelt with capitals inside it and lower-case letters: ``RoPE``, ``PaLM``, ``GloVe``.

    >>> [is_mixed_case(s) for s in ["RoPE", "GloVe", "Rope", "ROPE", "rope", "Qwen2"]]
    [True, True, False, False, False, False]
    """
    return surface.isalpha() and any(c.isupper() for c in surface[1:]) and any(c.islower() for c in surface)


def cased_spellings(
    spellings: Mapping[str, set[str]], common_words: Collection[str]
) -> dict[str, frozenset[str]]:
    """The one-token keys that match only their own spellings (and those plus "s").

    Why: keys fold case, so "RoPE" (rotary position embedding) and the robot's "rope", "PaLM"
    and a hand's "palm", "GloVe" and a tactile "glove" shared a key and a rope-manipulation
    paper was filed under positional encodings. A key is case-sensitive when every vocabulary
    spelling of it is mixed-case and the folded word is common English; "LoRA" ("Lora" is no
    English word) and "Llama" (also spelt "Llama") stay case-blind.

    >>> sorted(cased_spellings({"rope": {"RoPE"}, "lora": {"LoRA"}, "llama": {"LLaMA", "Llama"}},
    ...                        {"rope", "llama"}))
    ['rope']
    >>> sorted(cased_spellings({"rope": {"RoPE"}}, {"rope"})["rope"])
    ['RoPE', 'RoPEs']
    """
    return {
        key: frozenset(found | {s + "s" for s in found})
        for key, found in spellings.items()
        if key in common_words and all(is_mixed_case(s) for s in found)
    }


# Words of a concept name that say nothing about which concept an acronym stands for.
CONTEXT_STOP = frozenset(
    """of the a an and or for in on to with from by model network method learning system
    algorithm based""".split()
)


def needs_context(alias: str, key: tuple[str, ...], name_key: tuple[str, ...]) -> bool:
    """Whether an alias may stand for something else, so it counts only with support.

    Ambiguous: an acronym not in :data:`WELL_KNOWN_ACRONYMS` ("PRM": process reward model or
    patch-ranking map), and an alias that drops words of a multi-word name ("distillation"
    for "knowledge distillation", "attention" for "attention mechanism") unless it is one of
    the :data:`SAFE_SHORTENINGS`. Support is the name or an unambiguous alias elsewhere in the
    paper, or, for an acronym, every content word of the name.

    >>> needs_context("distillation", ("distillation",), ("knowledge", "distillation"))
    True
    >>> needs_context("PRM", ("A:PRM",), ("process", "reward", "model"))
    True
    >>> needs_context("LLMs", ("A:LLM",), ("large", "language", "model"))
    False
    >>> needs_context("bandits", ("bandit",), ("multi", "armed", "bandit"))
    False
    """
    if len(key) == 1 and key[0].startswith("A:"):
        return key[0][2:] not in WELL_KNOWN_ACRONYMS
    if alias in SAFE_SHORTENINGS or len(name_key) < 2:
        return False
    return len(key) < len(name_key) and set(key) < set(name_key)


def match_stream(
    stream: TokenStream, vocab: Vocabulary, nested: list[tuple[int, int, str]] | None = None
) -> list[tuple[int, int, str]]:
    """Longest-first vocabulary matches as ``(start, end, concept id)``; the curated concepts
    inside each match ("reinforcement learning" in "deep reinforcement learning") are appended
    to ``nested`` when it is given.

    A match may not start on the second part of a hyphenated word whose first part is a plain
    word ("semi-supervised"), but may after a symbol-like part ("E(3)-equivariant").
    """
    keys = stream.keys
    glued = stream.glued
    text = stream.text
    index = vocab.index
    lengths = vocab.lengths
    prefixes = vocab.prefixes
    cased = vocab.cased
    out: list[tuple[int, int, str]] = []
    n = len(keys)
    free = 0  # first position not covered by an earlier match
    for i in positions(keys, lengths):
        if i < free or (glued[i] and text[i - 1].isalpha()):
            continue
        k0 = keys[i]
        multi = i + 1 < n and (k0, keys[i + 1]) in prefixes
        for length in lengths[k0]:
            if length > 1:
                if not multi or i + length > n:
                    continue
                cid = index.get(tuple(keys[i : i + length]))
            else:
                cid = index.get((k0,))
                if cid is not None and k0 in cased and text[i] not in cased[k0]:
                    cid = None  # "rope", not "RoPE"
            if cid is not None:
                out.append((i, i + length, cid))
                free = i + length
                if length > 1 and nested is not None:
                    _nested(keys, glued, text, index, i, i + length, cid, nested, cased)
                break
    return out


def _nested(
    keys: Sequence[str],
    glued: Sequence[bool],
    text: Sequence[str],
    index: dict[tuple[str, ...], str],
    start: int,
    end: int,
    outer: str,
    out: list[tuple[int, int, str]],
    cased: Mapping[str, frozenset[str]],
) -> None:
    """Curated concepts inside a longer match ("reinforcement learning" in "deep reinforcement
    learning"): the paper mentions them too."""
    for a in range(start, end):
        if glued[a] and text[a - 1].isalpha():
            continue
        for b in range(end if a > start else end - 1, a, -1):
            if b < end and glued[b]:
                continue  # would cut a hyphenated word
            cid = index.get(tuple(keys[a:b]))
            if cid is not None and b == a + 1 and keys[a] in cased and text[a] not in cased[keys[a]]:
                continue
            if cid is not None and cid != outer:
                out.append((a, b, cid))


def load_vocabulary_entries(path: Path = DEFAULT_VOCABULARY) -> list[dict[str, Any]]:
    """Raw entries of a vocabulary file."""
    return _parse_entries(path, _read(path))


def _read(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as e:
        raise ExtractionError(f"cannot read concept vocabulary {path}: {e}") from e


def _parse_entries(path: Path, raw: bytes) -> list[dict[str, Any]]:
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ExtractionError(f"cannot read concept vocabulary {path}: {e}") from e
    entries = data.get("concepts") if isinstance(data, dict) else None
    if not isinstance(entries, list):
        raise ExtractionError(f"{path}: expected {{'concepts': [...]}}")
    return entries


@lru_cache(maxsize=4)
def _cached(path: Path, tokenizer_id: int, tokenizer: Tokenizer) -> Vocabulary:
    raw = _read(path)
    with collector_paused():  # ~40k small objects that all live on: collections would halve the speed
        known = key_cache.load_keys(path, raw, tokenizer)
        return Vocabulary.from_entries(_parse_entries(path, raw), tokenizer, known)


def default_vocabulary(tokenizer: Tokenizer, path: Path = DEFAULT_VOCABULARY) -> Vocabulary:
    """The shipped vocabulary, built once per tokenizer, from the precomputed keys next to the
    file when they match it and the tokenizer."""
    return _cached(path, id(tokenizer), tokenizer)


def is_a_kinds(name: str, kind: str, parent_kind: str) -> bool:
    """Whether a ``kind -> parent_kind`` link can be is-a.

    Same kind; or under a CONCEPT (a field or paradigm) for a concept, method, task or a class
    of models ("autoencoders"), but not for a named model ("CLIP"), a dataset or a metric.

    >>> is_a_kinds("CLIP", "MODEL", "METHOD"), is_a_kinds("autoencoders", "MODEL", "CONCEPT")
    (False, True)
    """
    if kind == parent_kind:
        return True
    if parent_kind != "CONCEPT":
        return False
    named = any(ch.isdigit() or ch.isupper() for ch in name)
    return kind in ("CONCEPT", "METHOD", "TASK") or (kind == "MODEL" and not named)
