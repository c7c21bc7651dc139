"""Derived display titles for papers listed without one (``titleSource: "DERIVED"``).

Preference order:

1. the name the paper introduces with its expansion: "GRAPE: Group RepresentAtional Position
   Encoding" (from "We present GRAPE (Group RepresentAtional Position Encoding)") or
   "NAMEx: Nash Merging of Experts" (from "we introduce Nash Merging of Experts (NAMEx)");
2. an introduced name with the paper's study phrase: "OMG: Two-player zero-sum Matrix games";
3. the study phrase alone, from "We study X" / "In this paper, we investigate X" / "This paper
   proposes X": "Equilibrium finding in polymatrix games under differential privacy constraints";
4. the two best-ranked concepts: "Averaging complexity and approximate symmetry".

The merge rule in :mod:`kg.core.merge` keeps a listing title over a derived one.
"""

from __future__ import annotations

import re

from extractors.concepts.analysis import Analysis
from extractors.concepts.candidates import WEAK_MODIFIERS
from extractors.concepts.junk import GENERIC_WORDS
from extractors.registry import ExtractInput, Parts, register

__all__ = ["MAX_TITLE_CHARS", "appositive", "derive_title", "extract_title", "study_phrase"]

MAX_TITLE_CHARS = 90
_SMALL = frozenset(
    {"a", "an", "and", "as", "at", "by", "for", "from", "in", "of", "on", "or", "the", "to", "via", "with"}
)
_STUDY = re.compile(
    r"(?:^|[.!?]\s+)"
    r"(?:(?:In|Here,?|Here in)\s+(?:this|our)\s+(?:paper|work),?\s+|Here,?\s+|In this paper,?\s+)?"
    r"(?:we|this (?:paper|work))\s+(?:first\s+)?"
    r"(?:study|studies|investigate|investigates|consider|considers|analy[sz]e|analy[sz]es|"
    r"explore|explores|examine|examines|focus on|focuses on)\s+(?:both\s+)?(?P<rest>[^.;:!?]+)",
    re.I,
)
_LEADING = re.compile(r"^(?:the\s+)?(?:(?:problem|question|task|setting|challenge|use)\s+of\s+|how\s+)", re.I)
_CUT = re.compile(
    r",?\s(?:where|which|whereby|that is|in which|and show|and propose|and prove|and find|that|asking|"
    r"showing|while|whose|by|through|using|via|also known as|i\.e\.|e\.g\.|namely)\s|\s\(",
    re.I,
)


def _cap_first(s: str) -> str:
    return s[:1].upper() + s[1:] if s else s


def _title_case(s: str) -> str:
    """Title case for an all-lowercase expansion; anything with capitals is kept as written.

    >>> _title_case("mean-field continuous sequence predictors")
    'Mean-Field Continuous Sequence Predictors'
    >>> _title_case("Group RepresentAtional Position Encoding")
    'Group RepresentAtional Position Encoding'
    """
    if any(c.isupper() for c in s):
        return s
    words = s.split(" ")
    out = []
    for i, w in enumerate(words):
        if i > 0 and w in _SMALL:
            out.append(w)
        else:
            out.append("-".join(p[:1].upper() + p[1:] for p in w.split("-")))
    return " ".join(out)


def _shorten(s: str, limit: int = MAX_TITLE_CHARS) -> str:
    s = re.sub(r"\s+", " ", s).strip(" ,;:")
    if len(s) <= limit:
        return s
    cut = s[:limit].rsplit(" ", 1)[0].rstrip(",;:")
    return cut + "…"


_VAGUE = GENERIC_WORDS | WEAK_MODIFIERS | {"a", "an", "the", "algorithm", "algorithms", "methods", "models"}
_APPOSITIVE_END = re.compile(
    r"[,.;:()]|\s(?:that|which|who|to|for|with|by|and|where|designed|built|trained|based)\s"
)


def appositive(text: str, name: str) -> str | None:
    """The description right after a name: "xLSTM 7B, a 7-billion-parameter LLM that ...".

    >>> appositive("We introduce xLSTM 7B, a 7-billion-parameter LLM that combines x.", "xLSTM 7B")
    'A 7-billion-parameter LLM'
    """
    for marker in (f"{name}, a ", f"{name}, an ", f"{name}, the "):
        at = text.find(marker)
        if at >= 0:
            rest = text[at + len(name) + 2 :]
            rest = _APPOSITIVE_END.split(rest, maxsplit=1)[0].strip()
            words = rest.split()
            specific = [w for w in words if w.lower().strip("-") not in _VAGUE]
            if 2 <= len(words) <= 10 and specific and "§" not in rest:
                return _cap_first(rest)
    return None


def study_phrase(text: str) -> str | None:
    """The object of "We study ...", cut before its first clause break.

    >>> study_phrase("We study equilibrium finding in polymatrix games under privacy, which is hard.")
    'Equilibrium finding in polymatrix games under privacy'
    >>> study_phrase("We study the problem of learning utility functions in games.")
    'Learning utility functions in games'
    >>> study_phrase("Transformers are great.") is None
    True
    """
    m = _STUDY.search(text)
    if not m:
        return None
    rest = _LEADING.sub("", m.group("rest").strip())
    rest = _CUT.split(rest, maxsplit=1)[0].strip()
    if len(rest.split()) < 2 or "§" in rest:
        return None
    return _shorten(_cap_first(rest))


def derive_title(analysis: Analysis) -> str:
    """A display title for a paper without one (see the module docstring for the order)."""
    for item in analysis.introduced:
        name = item.acronym or (item.surface if item.expansion else None)
        expansion = item.expansion if item.expansion else (item.surface if item.acronym else None)
        if name and expansion and name.casefold() != expansion.casefold():
            return _shorten(f"{name}: {_title_case(expansion)}")
    study = study_phrase(analysis.text)
    for item in analysis.introduced:
        if any(c.isupper() for c in item.surface) and len(item.surface) <= 30:
            tail = (
                appositive(analysis.text, item.surface)
                or study
                or next((c.name for c in analysis.top(3) if c.name != item.surface), None)
            )
            if tail:
                return _shorten(f"{item.surface}: {_cap_first(tail)}")
    if study:
        return study
    introduced = [i.surface for i in analysis.introduced if not any(ch.isupper() for ch in i.surface)]
    names = introduced[:1] + [c.name for c in analysis.top(3) if c.name not in introduced[:1]]
    names = names[:2]
    if len(names) == 2:
        return _shorten(_cap_first(f"{names[0]} and {names[1]}"))
    if names:
        return _shorten(_cap_first(names[0]))
    first = analysis.text.split(". ", 1)[0]
    return _shorten(first.rstrip("."))


@register("kg.titles.v1")
def extract_title(x: ExtractInput) -> Parts:
    """``title`` + ``titleSource: "DERIVED"`` for a paper whose listing has no title."""
    from extractors.concepts.extract import paper_analysis

    parts = Parts()
    if x.paper.title:
        return parts
    analysis = paper_analysis(x)
    if analysis is None or not analysis.text:
        return parts
    parts.paper_properties["title"] = derive_title(analysis)
    parts.paper_properties["titleSource"] = "DERIVED"
    return parts
