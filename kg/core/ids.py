"""Deterministic ids and name normalisation, so re-ingesting is a no-op.

The same abstract in two listings, or the same author spelled with and without accents, must
land on one node; every id is derived from a normalised key, never from ingest order.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata

_NON_ALNUM = re.compile(r"[^0-9a-z]+")
_ALNUM_RUNS = re.compile(r"[0-9a-z]+")
_SPACES = re.compile(r"\s+")
_QUOTED_NICKNAME = re.compile(r"\s*[\"“”„«»'‘’]([^\"“”„«»'‘’]+)[\"“”„«»'‘’]\s*")
_PAREN_NICKNAME = re.compile(r"\s*\(([^)]+)\)\s*")


def fold(text: str) -> str:
    """Case-fold and strip accents: the comparison form of a name.

    >>> fold("Korbinian Pöppel")
    'korbinian poppel'
    """
    return _SPACES.sub(" ", _fold_chars(text)).strip()


def _fold_chars(text: str) -> str:
    """Case folded and accents stripped, whitespace as it is (the part :func:`fold` and
    :func:`text_key` share)."""
    if text.isascii():  # most names and every abstract in English: no accents to strip
        return text.lower()
    decomposed = unicodedata.normalize("NFKD", text)
    # Combining marks are never ASCII: only the non-ASCII runs (a few curly quotes, dashes and
    # accented letters in an abstract) are looked at character by character.
    return _NON_ASCII.sub(_without_combining, decomposed).casefold()


_NON_ASCII = re.compile(r"[^\x00-\x7f]+")


def _without_combining(match: re.Match[str]) -> str:
    return "".join(c for c in match.group() if not unicodedata.combining(c))


def slug(text: str) -> str:
    """A readable id fragment: folded, non-alphanumerics collapsed to ``-``.

    Non-Latin scripts have no ASCII form, so they fall back to a short hash.

    >>> slug("Deep Learning · Large Language Models")
    'deep-learning-large-language-models'
    """
    s = _NON_ALNUM.sub("-", fold(text)).strip("-")
    if s:
        return s
    return hashlib.sha1(text.encode("utf-8")).hexdigest()[:12]


def text_key(text: str) -> str:
    """Whitespace-, case- and punctuation-insensitive form of a title or abstract.

    The same as ``_NON_ALNUM.sub(" ", fold(text)).strip()`` (whitespace is non-alphanumeric,
    so :func:`fold`'s own whitespace pass changes nothing here), in one pass over the text:
    every paper id reads the whole abstract. The alphanumeric runs joined by single spaces
    are that string (each non-alphanumeric run between two of them becomes one space, the
    ones at the ends are stripped), and a quarter cheaper to build than by substitution,
    which replaced every single space with a space.

    >>> text_key("  Équilibres  de Nash: (un) résumé ")
    'equilibres de nash un resume'
    """
    return " ".join(_ALNUM_RUNS.findall(_fold_chars(text)))


def paper_id(abstract: str | None, title: str | None) -> str:
    """Id of a paper: from its abstract when it has one, else from its title.

    >>> paper_id("We study  bandits.", None) == paper_id("we study bandits", "Other")
    True
    """
    basis = text_key(abstract or "") or text_key(title or "")
    if not basis:
        raise ValueError("a paper needs a title or an abstract to get an id")
    return "paper:" + hashlib.sha1(basis.encode("utf-8")).hexdigest()[:16]


def split_nickname(name: str) -> tuple[str, str | None]:
    """Separate a quoted or bracketed nickname from a person's name.

    >>> split_nickname("Zhangyang “Atlas” Wang")
    ('Zhangyang Wang', 'Atlas')
    >>> split_nickname("Pan Xu")
    ('Pan Xu', None)
    """
    for pattern in (_QUOTED_NICKNAME, _PAREN_NICKNAME):
        match = pattern.search(name)
        if match:
            plain = _SPACES.sub(" ", pattern.sub(" ", name, count=1)).strip()
            if plain:
                return plain, match.group(1).strip()
    return _SPACES.sub(" ", name).strip(), None


def author_id(name: str) -> str:
    """Id of an author from the plain (nickname-free) name.

    >>> author_id("Korbinian Pöppel") == author_id("korbinian poppel")
    True
    """
    return "author:" + slug(split_nickname(name)[0])


def external_author_id(key: str) -> str:
    """Id of an author known by an external id (``openreview:~Ada_Lovelace1``, ``orcid:…``).

    The id keeps the external id verbatim (OpenReview ids are case-sensitive), so two people
    with one name but different ids stay two Authors, and one id under two spellings is one.

    >>> external_author_id("openreview:~Junzhe_Zhu1")
    'author:openreview:~Junzhe_Zhu1'
    """
    return "author:" + key


def author_node_id(name: str, keys: tuple[str, ...] = ()) -> str:
    """The Author id for one author slot: from its strongest external id, else from the name.

    ``keys`` are normalised external ids (:func:`kg.readers.paperlists.author_key`); the
    strongest is the first kind in :data:`AUTHOR_ID_KINDS` present.

    >>> author_node_id("Ada Lovelace", ("orcid:0000-0001-2345-6789", "openreview:~Ada_Lovelace1"))
    'author:openreview:~Ada_Lovelace1'
    >>> author_node_id("Ada Lovelace")
    'author:ada-lovelace'
    """
    for kind in AUTHOR_ID_KINDS:
        for key in keys:
            if key.startswith(kind + ":"):
                return external_author_id(key)
    return author_id(name)


# Strongest first: every author of an OpenReview venue has a profile id, while ORCID and DBLP
# are optional there, so keying by an optional id would split a person between papers.
AUTHOR_ID_KINDS: tuple[str, ...] = ("openreview", "orcid", "dblp", "acl", "ieee", "email")


def venue_id(series: str, year: int | None) -> str:
    """Id of a venue edition, e.g. ``venue:iclr-2026``."""
    return "venue:" + slug(series if year is None else f"{series} {year}")


def topic_id(path: list[str]) -> str:
    """Id of a topic from its full path, so ``Theory › Optimization`` differs from ``Optimization``."""
    return "topic:" + "/".join(slug(p) for p in path)


_STEM_SUFFIXES = ("ings", "ing", "ed", "es", "s")


def _stem(word: str) -> str:
    """A crude, dependency-free stem: enough to meet "prompt"/"prompting", "model"/"models"."""
    for suffix in _STEM_SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word


def concept_id(name: str, variants: bool = False) -> str:
    """Id of a concept from its canonical name.

    Curated concepts use the name itself. Discovered phrases pass ``variants=True``: words are
    stemmed first, so spellings that stem alike ("prompt tuning", "prompt-tunings") are one
    node, the other spellings becoming its aliases (kept by the store's merge).

    >>> concept_id("multi-armed bandits")
    'concept:multi-armed-bandits'
    >>> concept_id("prompt tuning", variants=True) == concept_id("Prompt-Tunings", variants=True)
    True
    """
    if not variants:
        return "concept:" + slug(name)
    return "concept:" + "-".join(_stem(w) for w in slug(name).split("-"))
