"""One token stream for both modes: surface, matching key, offsets and a coarse word class.

spaCy's tokenizer keeps some hyphenated words whole (``E(3)-equivariant``) and splits others
(``multi - armed``); the stream splits every internal hyphen and remembers which pieces were
glued, so "multi-armed" and "multi armed" get the same keys and a model name such as
``Qwen2.5-7B`` can be reassembled from its pieces.

Word classes (one character each) drive candidate chunking:

``N`` noun-like (can head a phrase), ``A`` modifier only (adjectives, participles, non-final
parts of a hyphenated compound), ``D`` number, ``V`` verb, ``R`` adverb, ``F`` function word,
``.`` punctuation, ``M`` the math placeholder. In *accurate* mode classes come from the
tagger; in *fast* mode from a word-class lexicon shipped in ``background_df.json`` (the tagger's
majority class per word on the background corpus, stored only where it differs from the
suffix rules of :func:`fallback_class`), so no model runs.

Speed: the fast mode must stay near the tokenizer's own speed, so everything that depends
only on a token's text (key, class, shape) is computed once per distinct string and cached
in the :class:`Lexicon`.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Container, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import compress, repeat
from operator import and_
from typing import cast

from spacy.lang.en.stop_words import STOP_WORDS
from spacy.tokens import Doc

from extractors.text import MATH_PLACEHOLDER
from kg.core.normalize import is_name_like, token_key

__all__ = [
    "BREAK_CLASSES",
    "HYPHENS",
    "Lexicon",
    "TokenStream",
    "fallback_class",
    "positions",
    "stream_from_doc",
    "tag_class",
]

HYPHENS = frozenset({"-", "–", "‐", "‑", "‒"})
BREAK_CLASSES = frozenset({"V", "R", "F", ".", "M"})
_ADJ_SUFFIXES = ("ous", "ive", "ful", "less", "able", "ible", "ical", "istic")
_VERB_SUFFIXES = ("izes", "ises", "ifies", "yzes", "ize", "ify", "yze")
_PIECE = re.compile(r"[^-/]+|/")
_CACHE_LIMIT = 400_000
_ORTH_IDX: list[int | str] = ["ORTH", "IDX"]

# Shape flags of a token text.
NAME = 1  # looks like a proper name: GRAPE, InstructAV, Qwen2.5
CAPS = 2  # two or more capitals
DIGIT = 4  # contains a digit
ALPHA = 8  # starts with a letter
SPLIT = 16  # needs splitting (inner hyphen or slash, or a trailing period)
TRIGGER = 32  # a word that can introduce a name ("propose", "called")
PAREN = 64  # "("
MODEL_WORD = 128  # a model family written as a plain word ("Llama")
FUNC_FIRST = 256  # first word of a known keyphrase with a function word ("mixture" of experts)
HYPHEN = 512  # a hyphen token
_HYPHEN_OR_SPLIT = HYPHEN | SPLIT
# Tokens worth a look by the discovery passes; they are indexed in ``TokenStream.marked``.
MARKS = NAME | CAPS | DIGIT | TRIGGER | PAREN | MODEL_WORD | FUNC_FIRST

INTRO_VERBS = frozenset(
    """propose proposes introduce introduces present presents develop develops design designs
    build builds release releases construct constructs create creates devise devises curate
    curates unveil unveils contribute contributes offer offers""".split()
)
NAMING_WORDS = frozenset({"called", "dubbed", "named", "termed", "coined", "nicknamed"})
# Families whose names are ordinary capitalised words, accepted without digits or inner capitals.
PLAIN_MODEL_NAMES = frozenset(
    """llama alpaca vicuna qwen mistral mixtral gemma gemini claude deepseek falcon pythia
    chinchilla gopher mamba olmo baichuan zephyr""".split()
)


@dataclass(slots=True)
class TokenStream:
    """Parallel sequences, one entry per token (role: the shared input of every matcher).

    ``glued[i]`` is true when token ``i`` is joined to token ``i-1`` by a hyphen with no spaces
    (``multi-armed``); ``tight[i]`` when no whitespace separates them (``Qwen2.5`` ``-`` ``7B``).
    """

    text: Sequence[str] = ()
    keys: Sequence[str] = ()
    starts: Sequence[int] = ()
    ends: Sequence[int] = ()
    cls: list[str] = field(default_factory=list)
    glued: Sequence[bool] = ()
    tight: Sequence[bool] = ()
    flags: Sequence[int] = ()
    marked: list[int] = field(default_factory=list)  # indices of tokens with a MARKS flag
    # The Doc's ORTH hashes, one per spaCy token (not per stream token: the stream splits
    # hyphens), read once here and shared with the PREDICTED stage's features
    # (:class:`extractors.concepts.term_rows.TermRows`).
    doc_orths: Sequence[int] = ()

    def __len__(self) -> int:
        return len(self.keys)


def fallback_class(lower: str, is_stop: bool, is_punct: bool, num: bool) -> str:
    """The class of a word the lexicon does not list: stop words, suffix rules, else noun.

    >>> words = ["tractable", "quickly", "pruned", "expressing", "minimizes"]
    >>> [fallback_class(w, False, False, False) for w in words]
    ['A', 'R', 'A', 'V', 'V']
    """
    if is_punct:
        return "."
    if is_stop:
        return "F"
    if num:
        return "D"
    n = len(lower)
    if n > 4 and lower.endswith("ly"):
        return "R"
    if n > 5 and lower.endswith(_ADJ_SUFFIXES):
        return "A"
    if n > 4 and lower.endswith("ed"):
        return "A"
    if n > 5 and lower.endswith(_VERB_SUFFIXES):
        return "V"
    if n > 5 and lower.endswith("ing"):
        return "V"  # "expressing"; gerund nouns ("clustering", "pruning") are in the lexicon
    return "N"


def tag_class(pos: str, tag: str) -> str:
    """The class of a tagged token (accurate mode).

    >>> tag_class("VERB", "VBN"), tag_class("PROPN", "NNP"), tag_class("ADP", "IN")
    ('A', 'N', 'F')
    """
    if pos in ("NOUN", "PROPN"):
        return "N"
    if pos == "ADJ":
        return "A"
    if pos == "VERB":
        return "A" if tag == "VBN" else "V"
    if pos == "NUM":
        return "D"
    if pos == "ADV":
        return "R"
    if pos in ("PUNCT", "SYM", "SPACE"):
        return "."
    if pos == "X":
        return "N"
    return "F"


def _like_num(text: str) -> bool:
    """Digits, possibly with separators or a fraction ("1,000", "3.5", "1/2")."""
    t = text.replace(",", "").replace(".", "").replace("/", "")
    return t.isdigit()


def _is_punct(text: str) -> bool:
    return all(unicodedata.category(c).startswith(("P", "S")) for c in text)


def _shape(text: str, function_firsts: frozenset[str] = frozenset(), key: str = "") -> int:
    flags = 0
    lower = text.lower()
    if lower in INTRO_VERBS or lower in NAMING_WORDS:
        flags |= TRIGGER
    if lower in PLAIN_MODEL_NAMES:
        flags |= MODEL_WORD
    if text == "(":
        flags |= PAREN
    if key and key in function_firsts:
        flags |= FUNC_FIRST
    if is_name_like(text):
        flags |= NAME
    if sum(c.isupper() for c in text) >= 2:
        flags |= CAPS
    if any(c.isdigit() for c in text):
        flags |= DIGIT
    if text[:1].isalpha():
        flags |= ALPHA
    if len(text) > 2 and ("-" in text[1:-1] or "/" in text[1:-1]):
        flags |= SPLIT
    elif len(text) > 1 and (text[0] == "-" or text[-1] == "-") and text.strip("-"):
        flags |= SPLIT  # "-equivariant" after a formula, "pre-" in "pre- and post-training"
    elif len(text) > 2 and text[-1] == "." and "." not in text[:-1] and text[-2].isalnum():
        flags |= SPLIT
    return flags


class Lexicon:
    """Word classes plus a cache of everything derived from a token's text.

    Example:
        >>> lex = Lexicon({"using": "V"})
        >>> lex.info("Using")[:2], lex.info("LLMs")[:2]
        (('using', 'V'), ('A:LLM', 'N'))
    """

    def __init__(
        self, classes: Mapping[str, str] | None = None, function_firsts: frozenset[str] = frozenset()
    ) -> None:
        self.classes: Mapping[str, str] = classes or {}
        self.function_firsts = function_firsts
        self.cache: dict[str, tuple[str, str, int]] = {}
        self.by_orth: dict[int, tuple[str, str, str, int]] = {}

    def word_class(self, text: str) -> str:
        """The fast-mode class of a word."""
        if text == MATH_PLACEHOLDER:
            return "M"
        if _is_punct(text) or text.isspace():
            return "."  # the tagger calls "%" a noun; for chunking it is punctuation, like a line break
        lower = text.lower()
        cls = self.classes.get(lower)
        if cls is not None:
            return cls
        cls = fallback_class(lower, lower in STOP_WORDS, False, _like_num(text))
        if cls in ("V", "R") and text[:1].isupper():
            return "N"  # an unknown capitalised word is a name ("Turing"), not a verb
        return cls

    def orth_info(self, orth: int, text: str) -> tuple[str, str, str, int]:
        """``(text, key, fast class, flags)`` of a token by its spaCy ``ORTH`` hash, cached."""
        if len(self.by_orth) > _CACHE_LIMIT:
            self.by_orth.clear()
        key, cls, flags = self.info(text)
        if text in HYPHENS:
            flags |= HYPHEN
        hit = self.by_orth[orth] = (text, key, cls, flags)
        return hit

    def info(self, text: str) -> tuple[str, str, int]:
        """``(key, fast class, shape flags)`` of a token text, cached."""
        hit = self.cache.get(text)
        if hit is None:
            if len(self.cache) > _CACHE_LIMIT:
                self.cache.clear()
            key = "\0" if text == MATH_PLACEHOLDER else token_key(text)
            hit = self.cache[text] = (key, self.word_class(text), _shape(text, self.function_firsts, key))
        return hit


Row = tuple[str, str, int, int, str, bool, bool, int]


def stream_from_doc(
    doc: Doc, lexicon: Lexicon, title_end: int = 0, tagged: bool | None = None
) -> TokenStream:
    """The token stream of a Doc; tagged Docs (accurate mode) use the tagger's classes.

    The tagger reads Title Case as proper nouns, so title tokens (before ``title_end``) keep
    the lexicon's classes in both modes. ``tagged=False`` says the Doc comes from the
    tokenizer alone, sparing a scan of every token (``Doc.has_annotation``).
    """
    return _stream_loop(doc, lexicon, doc.has_annotation("TAG") if tagged is None else tagged, title_end)


def _mark_compounds(out: TokenStream) -> None:
    """In a hyphenated compound every part but the last is a modifier ("multi-armed", "in-context")."""
    cls_l = out.cls
    for i in compress(range(len(out.glued)), out.glued):
        if i:
            if cls_l[i - 1] not in (".", "M"):
                cls_l[i - 1] = "A"
            if cls_l[i] in ("F", "V", "R"):
                cls_l[i] = "A"


def _stream_loop(doc: Doc, lexicon: Lexicon, tagged: bool, title_end: int = 0) -> TokenStream:
    """Build the stream from the Doc's token arrays.

    Tokens are read as integer arrays (``ORTH`` hashes and offsets) rather than as spaCy
    ``Token`` objects, and everything derived from a token's text is looked up by its hash in
    the lexicon's cache; this keeps the fast mode close to the tokenizer's own speed.

    Tried and not kept: building the columns with C-level ``zip``/``map``/slices and handling
    only hyphens and split tokens one by one was 10% slower than this loop (the intermediate
    columns cost more than one tuple per token).
    """
    # One call for both columns: each ``to_array`` call has a fixed cost of a few microseconds.
    orths: list[int]
    idxs: list[int]
    orths, idxs = doc.to_array(_ORTH_IDX).T.tolist()
    by_orth = lexicon.by_orth
    found = list(map(by_orth.get, orths))
    if None in found:
        strings = doc.vocab.strings
        hits = [
            h if h is not None else lexicon.orth_info(o, strings[o])
            for h, o in zip(found, orths, strict=True)
        ]
    else:
        hits = cast(list[tuple[str, str, str, int]], found)
    if tagged:
        rows = _tagged_rows(hits, idxs, _tagged_classes(doc), lexicon, title_end)
    else:
        rows = _rows(hits, idxs, lexicon)
    if not rows:
        return TokenStream(doc_orths=orths)
    # Every row has the 8 fields of ``Row``; a strict zip would check 8 x len(rows) lengths.
    texts, keys, starts, ends, classes, glued_col, tight_col, flags_col = zip(*rows, strict=False)
    marked = _marked(flags_col)
    out = TokenStream(
        texts, keys, starts, ends, list(classes), glued_col, tight_col, flags_col, marked, orths
    )
    if True in glued_col:
        _mark_compounds(out)
    return out


def _rows(hits: list[tuple[str, str, str, int]], idxs: list[int], lexicon: Lexicon) -> list[Row]:
    """The rows of an untagged Doc (fast mode): :func:`_tagged_rows` without the tagger's classes.

    A loop of its own because it runs for every token of every paper: most tokens are plain
    words that need one test of their flags and one tuple (the tagged loop tests four more
    conditions per token).
    """
    rows: list[Row] = []
    append = rows.append
    prev_end = -10  # end of the previous token (a hyphen included)
    hyphen_end = -10  # end of a hyphen that touches the previous word
    for (text, key, cls, flags), idx in zip(hits, idxs, strict=True):
        if flags & _HYPHEN_OR_SPLIT:
            end = idx + len(text)
            if flags & HYPHEN:
                hyphen_end = end if idx == prev_end else -10
                prev_end = end
                continue
            _append_split(rows, lexicon, text, idx, cls, idx == hyphen_end, idx == prev_end)
            prev_end = end
            hyphen_end = -10
            continue
        end = idx + len(text)
        append((text, key, idx, end, cls, idx == hyphen_end, idx == prev_end, flags))
        prev_end = end
        hyphen_end = -10
    return rows


def _tagged_rows(
    hits: list[tuple[str, str, str, int]],
    idxs: list[int],
    classes_by_tag: list[str],
    lexicon: Lexicon,
    title_end: int,
) -> list[Row]:
    """The rows of a tagged Doc (accurate mode): the tagger's classes after the title."""
    rows: list[Row] = []
    append = rows.append
    prev_end = -10  # end of the previous token (a hyphen included)
    hyphen_end = -10  # end of a hyphen that touches the previous word
    for n, (hit, idx) in enumerate(zip(hits, idxs, strict=True)):
        text, key, cls, flags = hit
        end = idx + len(text)
        if flags & HYPHEN:
            hyphen_end = end if idx == prev_end else -10
            prev_end = end
            continue
        if cls != "M" and idx >= title_end:
            tagged_cls = classes_by_tag[n]
            # Gerunds that head keyphrases ("clustering", "prompting") stay nouns, as in fast mode.
            if not (tagged_cls == "V" and cls == "N" and text.endswith("ing")):
                cls = tagged_cls
        glued = idx == hyphen_end
        tight = idx == prev_end
        if flags & SPLIT:
            _append_split(rows, lexicon, text, idx, cls, glued, tight)
        else:
            append((text, key, idx, end, cls, glued, tight, flags))
        prev_end = end
        hyphen_end = -10
    return rows


def positions(keys: Sequence[str], wanted: Container[str]) -> Iterator[int]:
    """Indices of the keys in ``wanted``, in order, found by C-level ``map``/``compress``.

    The matchers visit only such positions; a per-token Python comprehension to find them
    cost as much as the visit itself.

    >>> list(positions(("a", "the", "b", "the"), {"the"}))
    [1, 3]
    """
    return compress(range(len(keys)), map(wanted.__contains__, keys))


def _marked(flags: Sequence[int]) -> list[int]:
    """Indices of the tokens with a :data:`MARKS` flag (C-level, no per-token Python code)."""
    return list(compress(range(len(flags)), map(and_, flags, repeat(MARKS))))


_TAG_CLASSES: dict[tuple[int, int], str] = {}


def _tagged_classes(doc: Doc) -> list[str]:
    """Word classes from the tagger's coarse and fine tags (accurate mode)."""
    pos_ids: list[int] = doc.to_array("POS").tolist()
    tag_ids: list[int] = doc.to_array("TAG").tolist()
    out: list[str] = []
    strings = doc.vocab.strings
    for pos, tag in zip(pos_ids, tag_ids, strict=True):
        cls = _TAG_CLASSES.get((pos, tag))
        if cls is None:
            pos_name = strings[pos] if pos else ""
            cls = _TAG_CLASSES[(pos, tag)] = tag_class(pos_name, strings[tag] if tag else "")
        out.append(cls)
    return out


def _append_split(
    rows: list[Row], lexicon: Lexicon, text: str, idx: int, cls: str, glued: bool, tight: bool
) -> None:
    """``E(3)-equivariant`` -> two glued pieces; ``a/b`` -> ``a``, ``/``, ``b``; ``GSM8K.`` -> two."""
    if text[-1] == "." and "." not in text[:-1]:
        key, _, flags = lexicon.info(text[:-1])
        rows.append(
            (text[:-1], key, idx, idx + len(text) - 1, cls if cls != "." else "N", glued, tight, flags)
        )
        rows.append((".", ".", idx + len(text) - 1, idx + len(text), ".", False, True, 0))
        return
    for m in _PIECE.finditer(text):
        piece = m.group(0)
        start = idx + m.start()
        key, _, flags = lexicon.info(piece)
        if piece == "/":
            rows.append((piece, key, start, start + 1, ".", False, True, 0))
            continue
        if m.start() == 0:
            g = glued
        elif m.start() == 1:
            g = text[0] == "-" and tight  # "§-equivariant": glued only if touching the previous token
        else:
            g = text[m.start() - 1] == "-"
        rows.append(
            (
                piece,
                key,
                start,
                start + len(piece),
                _piece_class(piece, cls, lexicon),
                g,
                tight or m.start() > 0,
                flags & ~SPLIT,
            )
        )


def _piece_class(piece: str, whole: str, lexicon: Lexicon) -> str:
    cls = lexicon.classes.get(piece.lower())
    if cls is not None:
        return cls
    if piece[:1].isdigit():
        return "D"
    return whole if whole not in BREAK_CLASSES else "N"
