"""The lower-case cue patterns match exactly where the case-insensitive ones do (ASCII text).

``extractors.concepts.analysis.cue_text`` searches lower-cased ASCII text with the cue patterns
compiled without IGNORECASE; that is only the same as the original search if no pattern has an
upper-case letter of its own.
"""

from __future__ import annotations

import re

import pytest

from extractors.concepts.analysis import _ANY_CASE_CUES, _LOWER_CASE_CUES, Cues, cue_text
from extractors.text import sentence_spans

FIELDS = ("contribution", "claim", "experiments", "contrast")
SENTENCES = (
    "In This Paper, WE Propose a Framework for X. Our Method outperforms GNNs on Y.",
    "We STUDY bandits; this work Introduces DMNL. Unlike prior methods, we validate it.",
    "THE PROPOSED NOVEL APPROACH beats baselines vs. RL without Tuning. Well Established methods.",
    "We carefully run extensive experiments. This Study characterizes, re-proposes and Frames it.",
    "Compared to SVMs, our new model is better than CNNs, which in turn... We showcase nothing.",
)


@pytest.mark.parametrize("field", FIELDS)
def test_patterns_have_no_upper_case_letters(field: str) -> None:
    pattern = getattr(_ANY_CASE_CUES, field).pattern
    literal = re.sub(r"\\.|\(\?P<\w+>", "", pattern)  # escapes (\b, \w) and group names
    assert not any(c.isupper() for c in literal), field


def _matches(
    cues: Cues, text: str, sentences: list[tuple[int, int]]
) -> list[tuple[str, int, int, tuple[int, int] | None]]:
    out: list[tuple[str, int, int, tuple[int, int] | None]] = []
    for a, b in sentences:
        for field in FIELDS:
            for m in getattr(cues, field).finditer(text, a, b):
                out.append((field, m.start(), m.end(), m.span("scope") if field == "contrast" else None))
    return out


@pytest.mark.parametrize("text", SENTENCES)
def test_lower_case_search_equals_case_insensitive_search(text: str) -> None:
    lowered, cues = cue_text(text)
    assert cues is _LOWER_CASE_CUES
    sentences = sentence_spans(text)  # of the original text, as Analysis splits it
    found = _matches(cues, lowered, sentences)
    assert found and found == _matches(_ANY_CASE_CUES, text, sentences)


def test_non_ascii_text_keeps_the_case_insensitive_patterns() -> None:
    text = "We proſe – this paper studies X."
    assert cue_text(text) == (text, _ANY_CASE_CUES)
