"""Plain listings as people paste them: an abstract with hard line breaks is one abstract.

Why: an abstract copied from a PDF, an e-mail or a narrow terminal arrives wrapped at 60-100
columns; read line by line, each short line looked like a title or an author line, and the
paper was lost behind twenty "not followed by an abstract" lines. The seed listings, wrapped
at several widths, must read exactly as the unwrapped files do.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from kg.core.models import RawPaper
from kg.readers.listing import logical_lines, read_listing
from kg.readers.problems import ReadProblem
from tests.conftest import EXAMPLES

SEEDS = sorted(EXAMPLES.glob("*.txt"))


def _papers(text: str) -> list[tuple[str | None, ...]]:
    return [
        (p.abstract, p.title, "|".join(p.authors), p.topic, p.venue, str(p.year))
        for p in read_listing(text, "f")
        if isinstance(p, RawPaper)
    ]


def _wrap(text: str, width: int) -> str:
    # how editors and terminals wrap: at spaces, never inside a word
    lines = text.split("\n")
    return "\n".join("\n".join(textwrap.wrap(x, width, break_on_hyphens=False)) or x for x in lines)


@pytest.mark.parametrize("width", [60, 72, 80, 100, 150])
@pytest.mark.parametrize("seed", SEEDS, ids=lambda p: p.name)
def test_a_wrapped_listing_reads_as_the_unwrapped_one(seed: Path, width: int) -> None:
    text = seed.read_text(encoding="utf-8")
    wrapped = _wrap(text, width)
    assert wrapped.count("\n") > text.count("\n") * 2  # really wrapped
    expected = _papers(text)
    assert len(expected) >= 19
    assert _papers(wrapped) == expected
    assert not [p for p in read_listing(wrapped, "f") if isinstance(p, ReadProblem)]


def test_the_seeds_are_untouched_by_unwrapping() -> None:
    """No seed line is joined to another: each is already one logical line."""
    for seed in SEEDS:
        lines = seed.read_text(encoding="utf-8").split("\n")
        assert logical_lines(lines) == list(enumerate(lines, start=1))


def test_a_title_then_a_wrapped_abstract_then_the_next_paper() -> None:
    abstract = (
        "We study multi-armed bandits with heavy-tailed rewards and show that a median-of-means "
        "estimator attains the minimax regret up to logarithmic factors. Experiments on synthetic "
        "and real data confirm the bound."
    )
    text = "\n".join(
        ["ICLR 2026 Papers", "", "Robust Bandits for Heavy Tails", *textwrap.wrap(abstract, 44), ""]
        + [
            "Learning to Rank with Bandits",
            "A second abstract, on one line, long enough to be prose. It ends here.",
        ]
    )
    papers = _papers(text)
    assert [(p[0], p[1]) for p in papers] == [
        (abstract, "Robust Bandits for Heavy Tails"),
        (
            "A second abstract, on one line, long enough to be prose. It ends here.",
            "Learning to Rank with Bandits",
        ),
    ]


def test_a_wrap_at_a_hyphen_keeps_the_word_whole() -> None:
    text = "ICLR 2026 Papers\n\n" + "\n".join(
        [
            "We propose a new method for the high-",
            "dimensional optimisation of smooth losses",
            "that converges in few steps. It is simple.",
        ]
    )
    assert _papers(text)[0][0] == (
        "We propose a new method for the high-dimensional optimisation of smooth losses "
        "that converges in few steps. It is simple."
    )


def test_lines_without_an_abstract_are_one_problem_that_says_what_to_do() -> None:
    text = "ICLR 2026 Papers\n\n" + "\n".join(f"Short note {i}" for i in range(20))
    problems = [p for p in read_listing(text, "notes.txt") if isinstance(p, ReadProblem)]
    assert len(problems) == 1
    assert problems[0].line == 3
    assert problems[0].reason.startswith("20 lines up to line 22 are not followed by an abstract")
    assert "put a blank line between papers" in problems[0].reason
