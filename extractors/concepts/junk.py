"""Generic phrases that must never be a paper's concept ("this paper", "results", "approach").

A phrase is junk when every word of it is generic: a generic head ("method", "performance",
"results") with nothing but weak or generic modifiers ("novel method", "extensive
experiments", "state-of-the-art performance"). "kernel method" or "sample complexity" are
fine: one specific word is enough. Keys are normalised (:func:`~kg.core.normalize.token_key`).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from extractors.concepts.candidates import WEAK_MODIFIERS

__all__ = [
    "GENERIC_WORDS",
    "HEAD_JUNK",
    "TITLE_TOPICS",
    "VACUOUS_HEADS",
    "VACUOUS_WORDS",
    "is_junk",
    "is_vacuous",
]

GENERIC_WORDS = frozenset(
    """paper work approach method methodology model framework result performance problem task data
    datum experiment experimentation state art sota technique way number set use usage case term
    order type form part example effect fact lot variety range study application system baseline
    improvement efficiency effectiveness evaluation benchmark dataset setting scenario challenge
    issue question goal aim idea insight property advantage limitation gain cost quality impact
    step stage aspect area field domain level degree extent amount kind sort manner respect
    contribution strategy solution analysis design structure process procedure component module
    mechanism architecture tool toolkit algorithm implementation version variant alternative
    literature researcher research community practitioner user people person human time year
    today end means focus attention-free purpose direction future trend topic subject point
    thing something anything everything one none other others lack need ability capability
    capacity power potential success failure error accuracy score metric measure
    finding observation evidence demonstration explanation conclusion discussion overview
    survey review introduction understanding knowledge information detail details context
    situation condition assumption setup configuration instance sample input output value
    size length scale factor rate percent percentage magnitude fraction proportion ratio
    code repository github project resource release addition combination comparison language
    difference similarity relationship connection link role importance significance
    implication consequence behavior behaviour phenomenon trade-off tradeoff practice
    principle paradigm perspective view notion concept category class family group
    collection suite line lines body plenty host wide real world real-world world new novel
    art-of-the state-of-the-art x y z i ii iii iv
    """.split()
) | {"A:SOTA", "A:LLM-based"}
# Words that say nothing even together ("novel approach", "experimental results").
VACUOUS_WORDS = frozenset(
    """paper work approach method methodology framework result performance problem task
    experiment experimentation state art sota technique way number set use usage case term
    order type form part example effect fact lot variety range improvement baseline
    effectiveness setting scenario challenge issue question goal aim idea insight property
    advantage limitation gain aspect area field level degree extent amount kind sort manner
    respect contribution solution step stage thing something one other lack need ability
    finding observation evidence demonstration explanation conclusion discussion overview
    literature researcher practitioner plenty host today purpose direction future trend
    version variant alternative""".split()
)
# Generic alone, except in the title, where they say what kind of paper it is ("... Evaluation",
# "A Benchmark for ...").
TITLE_TOPICS = frozenset({("evaluation",), ("benchmark",), ("dataset",), ("efficiency",)})
# Words that make a phrase generic when they stand alone but are fine as modifiers.
_ALWAYS_JUNK_PHRASES = frozenset(
    {
        ("state", "of", "the", "art"),
        ("real", "world"),
        ("large", "number"),
        ("wide", "range"),
        ("wide", "variety"),
        ("broad", "range"),
        ("first", "time"),
        ("best", "knowledge"),
        ("recent", "year"),
        ("recent", "advance"),
        ("recent", "work"),
        ("prior", "work"),
        ("previous", "work"),
        ("extensive", "experiment"),
        ("experimental", "result"),
        ("empirical", "result"),
        ("numerical", "experiment"),
        ("numerical", "result"),
        ("theoretical", "result"),
        ("theoretical", "analysis"),
        ("empirical", "evaluation"),
        ("empirical", "study"),
        ("empirical", "evidence"),
        ("key", "insight"),
        ("main", "result"),
        ("code",),
        ("open", "source"),
        ("source", "code"),
        ("github",),
        ("this", "paper"),
        ("our", "method"),
        ("proposed", "method"),
        ("human", "being"),
        ("order", "of", "magnitude"),
        ("same", "time"),
        ("other", "hand"),
        ("lower", "bound"),
        ("upper", "bound"),
        ("significant", "improvement"),
        ("significant", "gain"),
        ("superior", "performance"),
        ("competitive", "performance"),
        ("strong", "baseline"),
        ("downstream", "task"),
        ("various", "task"),
        ("wide", "range", "of", "task"),
        ("real", "world", "application"),
        ("real", "world", "dataset"),
        ("real", "world", "data"),
        ("benchmark", "dataset"),
        ("public", "dataset"),
        ("synthetic", "data"),
        ("synthetic", "dataset"),
        ("simulation", "result"),
        ("computational", "cost"),
        ("training", "data"),
        ("training", "set"),
        ("test", "set"),
        ("test", "time"),
        ("training", "time"),
        ("key", "component"),
        ("key", "challenge"),
        ("main", "challenge"),
        ("new", "method"),
        ("new", "approach"),
        ("simple", "method"),
        ("art", "method"),
        ("art", "performance"),
        ("art", "result"),
    }
)


# Heads that make any phrase junk ("minimum number", "main use", "a lot").
HEAD_JUNK = frozenset(
    """use usage way lot number kind type sort variety range part case form amount plenty host
    deal bunch couple handful majority minority fraction percentage extent degree""".split()
)
# Heads that are vacuous when only adjectives qualify them ("listed methods", "formal
# perspective", "meaningful categories"); a noun modifier makes them specific ("kernel methods").
VACUOUS_HEADS = frozenset(
    """approach method methodology technique framework perspective strategy solution idea insight
    result performance improvement contribution issue challenge question setting scenario
    aspect manner effort attempt step property advantage limitation finding observation
    evidence study work paper category tool procedure component module mechanism benchmark
    experiment application task problem variant alternative version analysis design
    architecture system practice principle paradigm view notion concept family class group
    collection fashion direction future trend topic subject point thing regime condition phase
    period stage""".split()
)


def is_vacuous(key: tuple[str, ...], word_class: Callable[[str], str]) -> bool:
    """Adjectives only, on a vacuous head ("listed methods", "formal perspective").

    >>> is_vacuous(("formal", "perspective"), lambda w: "A"), is_vacuous(("kernel", "method"), lambda w: "N")
    (True, False)
    """
    if len(key) < 2:
        return False
    if key[-1] in HEAD_JUNK:
        return True
    return key[-1] in VACUOUS_HEADS and all(word_class(k) == "A" for k in key[:-1])


def is_junk(key: tuple[str, ...]) -> bool:
    """Whether a normalised phrase is too generic to be a concept.

    One word: junk if generic ("results", "model", "data"). Several words: junk if every word
    is vacuous or a weak modifier ("novel method", "extensive experiments"), or the phrase is a
    known boilerplate phrase ("state of the art"); "topic model" or "world model" are fine.

    >>> is_junk(("novel", "method")), is_junk(("kernel", "method")), is_junk(("result",))
    (True, False, True)
    >>> is_junk(("state", "of", "the", "art", "performance")), is_junk(("world", "model"))
    (True, False)
    """
    if not key or key in _ALWAYS_JUNK_PHRASES:
        return True
    if "al" in key or "et" in key or "\0" in key:
        return True  # "Luo et al": a citation, not a concept
    if len(key) == 1:
        k = key[0]
        return k in GENERIC_WORDS or k in WEAK_MODIFIERS or len(k) < 2 or k.isdigit() or bool(_SIZE.match(k))
    return all(k in VACUOUS_WORDS or k in WEAK_MODIFIERS or k in _FUNCTION for k in key)


_SIZE = re.compile(r"^(?:A:)?\d+(?:\.\d+)?[BMKbmk]$")  # "7B", "350M": a size, not a concept
_FUNCTION = frozenset({"of", "the", "a", "an", "and", "or", "for", "in", "on", "to", "with", "our", "this"})
