"""Noun-phrase candidates: chunks of a token stream and the sub-phrases a keyphrase can be.

Fast mode chunks on word classes (maximal runs of modifiers and nouns); accurate mode takes
spaCy's ``noun_chunks`` (needs the parser). Both then enumerate the same sub-phrases of each
chunk: every contiguous span of up to :data:`MAX_PHRASE_TOKENS` tokens that ends on a noun,
does not start with a weak modifier ("novel", "proposed", ...) and does not cut a hyphenated
compound. So "conditional generative adversarial networks" offers "generative adversarial
network" and "adversarial network" too, and the ranker picks.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Sequence

from spacy.tokens import Doc

from extractors.concepts.tokens import CAPS, DIGIT, NAME, TokenStream

NAMES = NAME | CAPS  # a name inside a longer phrase is a concept of its own ("RASP" in "RASP variant")
NAME_PARTS = NAMES | DIGIT  # tokens a name is made of ("GPT" "4", "3D")

__all__ = [
    "MAX_PHRASE_TOKENS",
    "WEAK_COMPOUNDS",
    "WEAK_MODIFIERS",
    "chunks_fast",
    "chunks_parsed",
    "collect_plain",
    "compound_end",
    "cut_after_modifier",
    "name_only",
    "sub_phrases",
    "weak_start",
]

MAX_PHRASE_TOKENS = 5
CONTENT = frozenset({"N", "A", "D"})
STARTS = frozenset({"N", "A"})  # a keyphrase does not start with a number ("20 question-answer pairs")
# Modifiers that never start a keyphrase (keys, i.e. normalised forms).
WEAK_MODIFIERS = frozenset(
    """novel new proposed propose existing different various several many such other same previous
    recent prior current simple specific certain particular given respective corresponding
    overall entire whole numerous extensive comprehensive significant substantial superior
    competitive promising remarkable impressive strong effective powerful challenging important
    key main major crucial first second third final further additional both each much more most
    less few modern well-known so-called resulting underlying desired original initial potential
    possible good better best great consistent wide broad diverse rich natural unified
    principled practical theoretical empirical experimental excellent favorable favourable
    fewer lower higher larger smaller faster slower stronger weaker typical
    conventional classical popular common widely usual standard general generic improved
    improve enhanced robust-er open notable considerable inherent intrinsic related similar
    specifically various vast huge tremendous fundamental critical essential relevant
    crucially appropriate suitable better-performing state-of-the-art sota art multiple single
    respective certain overall specific particular various numerous latter former
    """.split()
)


# Hyphenated modifiers that never start a keyphrase ("state-of-the-art attacks").
WEAK_COMPOUNDS = frozenset(
    tuple(c.split())
    for c in """state of the art|well known|so called|real world|long standing|widely used|off the shelf|
    cutting edge|first of it kind|easy to use|plug and play|high quality|non trivial|hand crafted|
    hand designed|carefully designed|well designed|task specific|domain specific|general purpose|
    large scale|small scale|fine grained|coarse grained|data driven|learning based|model based|
    newly proposed|recently proposed|above mentioned|aforementioned|wide ranging|far reaching|
    high level|low level|top performing|best performing|better performing|state of art|
    commonly used|popular|standard""".replace("\n", " ").split("|")
)


def compound_end(stream: TokenStream, i: int, limit: int) -> int:
    """End of the hyphenated compound that starts at ``i`` (``i + 1`` for a plain word)."""
    glued = stream.glued
    j = i + 1
    while j < limit and glued[j]:
        j += 1
    return j


def weak_start(stream: TokenStream, i: int, limit: int) -> bool:
    """Whether a keyphrase may not start at ``i``: a weak modifier ("novel") or compound
    ("state-of-the-art"), or the inside of a hyphenated word ("supervised" in "self-supervised")."""
    keys = stream.keys
    glued = stream.glued
    if glued[i] and stream.text[i - 1].isalpha():
        return True
    if i + 1 < limit and glued[i + 1]:
        return tuple(keys[i : compound_end(stream, i, limit)]) in WEAK_COMPOUNDS
    return keys[i] in WEAK_MODIFIERS


# Generic heads of "<noun> <head>" phrases ("search algorithm", "learning method"): after an
# adjective the adjective may qualify the noun ("efficient [search] algorithm", "numerical
# [integration] technique"), so "search algorithm" there is a piece, not a phrase.
CUT_HEADS = frozenset(
    """method approach technique algorithm scheme framework module mechanism procedure strategy
    design solution pipeline paradigm formulation""".split()
)


def cut_after_modifier(stream: TokenStream, i: int, cs: int, pairs: frozenset[tuple[str, str]]) -> bool:
    """Whether a phrase of two or more words starting at ``i`` would be cut out of a term that
    starts with the adjective before it.

    "deep *learning methods*", "natural *language prompts*", "Large *Scale Multi-task
    Learning*", "maximum *likelihood estimation*": the adjective just before ``i`` in the same
    chunk and the word at ``i`` open a known term (``pairs``: first two words of author
    keywords and of frequent background phrases), so the adjective modifies that word, not the
    phrase's head, and the phrase is a piece of a longer term. "long-horizon task planning" or
    "robust tactile sensing" are not cut: the adjective qualifies the whole phrase.
    """
    if i <= cs or stream.flags[i] & NAMES:
        return False
    keys = stream.keys
    return (keys[i - 1], keys[i]) in pairs


def name_only(flags: Sequence[int], i: int, j: int) -> bool:
    """Whether tokens ``[i, j)`` are all parts of a name ("RASP", "GPT-4", "SE(3)").

    A name inside a longer noun phrase is a concept of its own ("RASP" in "RASP variant"), but
    the name and the common nouns after it are not: "3D object" in "3D object detection",
    "LiDAR point" in "LiDAR point clouds", "BEV representation" in "BEV representation
    learning" are cut out of the phrase.
    """
    for t in range(i, j):
        if not flags[t] & NAME_PARTS:
            return False
    return True


def chunks_fast(stream: TokenStream, skip: frozenset[int] = frozenset()) -> list[tuple[int, int]]:
    """Maximal content runs ``[start, end)`` ending on a noun; ``skip`` indices are transparent.

    ``skip`` holds the tokens of an inline acronym definition, so "diversified multinomial
    logit (DMNL) contextual bandit" stays one chunk. The runs are found by a regular
    expression over the string of word classes (one character per token), which is much
    quicker than a Python loop over tokens: the pattern itself trims a run to its content
    (greedy up to the run's last noun; skipped tokens at its start left out of the group).
    """
    if skip:
        chars = list(stream.cls)
        for i in skip:
            chars[i] = "s"
        return [m.span(1) for m in _RUN_WITH_SKIP.finditer("".join(chars))]
    return [m.span() for m in _RUN.finditer("".join(stream.cls))]


# A run of content classes up to its last noun: the part of a maximal [NAD]+ run that a chunk
# keeps (what follows its last noun cannot start another match before the run ends).
_RUN = re.compile(r"[NAD]*N")
# The same with skipped tokens ("s"), which a chunk may neither start nor end with.
_RUN_WITH_SKIP = re.compile(r"s*([NADs]*N)")


def chunks_parsed(doc: Doc, stream: TokenStream, skip: frozenset[int] = frozenset()) -> list[tuple[int, int]]:
    """spaCy noun chunks mapped onto the stream, cut at punctuation and trimmed to content."""
    starts = stream.starts
    cls = stream.cls
    out: list[tuple[int, int]] = []
    for span in doc.noun_chunks:
        a = bisect_left(starts, span.start_char)
        b = bisect_left(starts, span.end_char)
        i = a
        while i < b:
            if cls[i] not in CONTENT and i not in skip:
                i += 1
                continue
            j = i
            while j < b and (cls[j] in CONTENT or j in skip):
                j += 1
            e = j
            while e > i and (cls[e - 1] != "N" or (e - 1) in skip):
                e -= 1
            s = i
            while s < e and s in skip:
                s += 1
            if e > s:
                out.append((s, e))
            i = j
    return out


def phrase_ends(ends: list[int], start: int) -> list[int]:
    """The ends (of ascending ``ends``) a phrase starting at ``start`` may have: from ``start``
    on, while it stays under :data:`MAX_PHRASE_TOKENS` tokens. Both the sub-phrases of a chunk
    and the plain phrases bound their ends by this one rule."""
    return ends[bisect_left(ends, start) : bisect_left(ends, start + MAX_PHRASE_TOKENS)]


def sub_phrases(
    stream: TokenStream,
    chunk: tuple[int, int],
    skip: frozenset[int] = frozenset(),
    inner_ok: frozenset[tuple[str, ...]] | None = None,
    units: frozenset[tuple[str, str]] = frozenset(),
    modifier_pairs: frozenset[tuple[str, str]] = frozenset(),
) -> list[tuple[int, int, tuple[str, ...]]]:
    """Candidate spans ``(start, end, key)`` inside one chunk (``skip`` tokens left out of keys).

    A phrase that ends before the chunk's head must be a known keyphrase (``inner_ok``; all
    are allowed when it is ``None``): "attention" inside "attention heads" is a concept,
    "language" inside "language models" and "large language" inside "large language models"
    are fragments. A phrase may not start between the two words of a unit (``units``:
    "Monte Carlo"), so "carlo sampling" is not offered.
    """
    s, e = chunk
    keys = stream.keys
    cls = stream.cls
    glued = stream.glued
    out: list[tuple[int, int, tuple[str, ...]]] = []
    if skip and any(i in skip for i in range(s, e)):
        idx = [i for i in range(s, e) if i not in skip]
    else:
        idx = list(range(s, e))
    m = len(idx)
    # Possible ends: nouns not followed by a glued part ("multi-armed" ends at "armed" only).
    ends = [k for k in range(m) if cls[idx[k]] == "N" and not (k + 1 < m and glued[idx[k + 1]])]
    if not ends:
        return out
    last = m - 1
    for a in range(m):
        i = idx[a]
        if cls[i] not in STARTS or weak_start(stream, i, e):
            continue
        if a and (keys[idx[a - 1]], keys[i]) in units:
            continue
        after_noun = bool(a) and cls[idx[a - 1]] == "N" and inner_ok is not None
        # A two-word or longer phrase right after a modifier ("deep [learning methods]").
        after_adj = (
            bool(a)
            and inner_ok is not None
            and idx[a - 1] == i - 1
            and cls[i - 1] == "A"
            and not stream.flags[i] & NAMES
        )
        after_mod = after_adj and cut_after_modifier(stream, i, s, modifier_pairs)
        for k in phrase_ends(ends, a):
            j = idx[k]
            if j - i == k - a:
                key = tuple(keys[i : j + 1])
            else:
                key = tuple(keys[t] for t in idx[a : k + 1])
            if after_noun and key not in inner_ok_or_empty(inner_ok) and not stream.flags[i] & NAMES:
                continue  # "distillation sampling" cut out of "score distillation sampling"
            if (
                after_adj
                and k > a
                and (after_mod or keys[j] in CUT_HEADS)
                and key not in inner_ok_or_empty(inner_ok)
            ):
                continue  # "learning methods" cut out of "deep learning methods"
            if (
                k != last
                and inner_ok is not None
                and key not in inner_ok
                and not (stream.flags[i] & NAMES and name_only(stream.flags, i, j + 1))
            ):
                continue
            out.append((i, j + 1, key))
    return out


def inner_ok_or_empty(inner_ok: frozenset[tuple[str, ...]] | None) -> frozenset[tuple[str, ...]]:
    """``inner_ok``, or the empty set when every phrase is allowed."""
    return inner_ok if inner_ok is not None else frozenset()


def collect_plain(
    stream: TokenStream,
    chunks: list[tuple[int, int]],
    index: dict[tuple[str, ...], str],
    plain: dict[tuple[str, ...], list[tuple[int, int]]],
    inner_ok: frozenset[tuple[str, ...]],
    skip: frozenset[int] = frozenset(),
    units: frozenset[tuple[str, str]] = frozenset(),
    modifier_pairs: frozenset[tuple[str, str]] = frozenset(),
) -> None:
    """:func:`sub_phrases` of every chunk into ``plain`` (key -> spans), skipping vocabulary keys.

    The same enumeration as :func:`sub_phrases`, fused into one loop because it runs for
    every chunk of every paper; chunks with ``skip`` tokens inside take the general path.
    """
    keys = stream.keys
    cls = stream.cls
    glued = stream.glued
    text = stream.text
    flags = stream.flags
    weak = WEAK_MODIFIERS
    get = plain.get
    for cs, ce in chunks:
        if ce - cs == 1:
            key: tuple[str, ...] = (keys[cs],)
            if key not in index and not (glued[cs] and text[cs - 1].isalpha()):
                spans = get(key)
                if spans is None:
                    plain[key] = [(cs, ce)]
                else:
                    spans.append((cs, ce))
            continue
        if skip and not skip.isdisjoint(range(cs, ce)):
            for s, e, key in sub_phrases(stream, (cs, ce), skip, inner_ok, units, modifier_pairs):
                if key not in index:
                    plain.setdefault(key, []).append((s, e))
            continue
        ends = [k for k in range(cs, ce) if cls[k] == "N" and not (k + 1 < ce and glued[k + 1])]
        head = ce - 1
        for i in range(cs, ce):
            if cls[i] == "D" or (glued[i] and text[i - 1].isalpha()):
                continue
            if i + 1 < ce and glued[i + 1]:
                if tuple(keys[i : compound_end(stream, i, ce)]) in WEAK_COMPOUNDS:
                    continue
            elif keys[i] in weak:
                continue
            if i > cs and (keys[i - 1], keys[i]) in units:
                continue
            after_noun = i > cs and cls[i - 1] == "N" and not flags[i] & NAMES
            after_adj = i > cs and cls[i - 1] == "A" and not flags[i] & NAMES
            after_mod = after_adj and cut_after_modifier(stream, i, cs, modifier_pairs)
            for j in phrase_ends(ends, i):
                key = tuple(keys[i : j + 1])
                if key in index or (
                    (j != head or after_noun)
                    and key not in inner_ok
                    and not (flags[i] & NAMES and (j == head or name_only(flags, i, j + 1)))
                ):
                    continue
                if after_adj and j > i and (after_mod or keys[j] in CUT_HEADS) and key not in inner_ok:
                    continue  # "learning methods" cut out of "deep learning methods"
                spans = get(key)
                if spans is None:
                    plain[key] = [(i, j + 1)]
                else:
                    spans.append((i, j + 1))
