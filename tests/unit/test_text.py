"""Cleaning abstracts for extraction: LaTeX, markdown, URLs, run-together sentences."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from extractors.text import (
    MATH_PLACEHOLDER,
    clean_text,
    extraction_parts,
    extraction_text,
    math_snippets,
    restore_math,
    sentence_spans,
    title_length,
)


@pytest.mark.parametrize(
    ("raw", "clean"),
    [
        ("regret $\\tilde{O}(\\sqrt{T})$ bound", f"regret {MATH_PLACEHOLDER} bound"),
        ("display $$\\sum_i x_i$$ math", f"display {MATH_PLACEHOLDER} math"),
        ("and \\(a+b\\) inline", f"and {MATH_PLACEHOLDER} inline"),
        ("the $\\texttt{OFU-DMNL}$ algorithm", "the OFU-DMNL algorithm"),
        ("a $\\mathrm{GRAPE}$ model", "a GRAPE model"),
        ("*diversified multinomial logit* (DMNL)", "diversified multinomial logit (DMNL)"),
        ("**T**uring m**A**chine (**TAIL**)", "Turing mAchine (TAIL)"),
        ("a `code_name` and _emph_", "a code_name and emph"),
        ("\\emph{Nash gap} and {\\em global optimality}", "Nash gap and global optimality"),
        ("see [the repo](https://github.com/x/y) now", "see the repo now"),
        ("code at https://github.com/x/y.", "code at"),
        ("``pricing with an oracle,''", '"pricing with an oracle,"'),
        ("rank\u20112 and log\u2011uniform", "rank-2 and log-uniform"),
        ("relevance--diversity", "relevance-diversity"),
        ("results.We show", "results. We show"),
        ("snake_case_name stays", "snake_case_name stays"),
    ],
)
def test_clean_text(raw: str, clean: str) -> None:
    assert clean_text(raw) == clean


def test_nothing_inside_math_survives() -> None:
    cleaned = clean_text("We bound $\\mathcal{O}(\\sqrt{d \\log T} \\cdot \\text{bandits})$ here.")
    assert "bandit" not in cleaned and "log" not in cleaned
    assert cleaned == f"We bound {MATH_PLACEHOLDER} here."


def test_extraction_text_joins_title_and_abstract() -> None:
    text = extraction_text("Deep Bandits", "We study *bandits*.")
    assert text == "Deep Bandits. We study bandits."
    assert text[: title_length("Deep Bandits")] == "Deep Bandits"
    assert extraction_text("Why Bandits?", "We study bandits.") == "Why Bandits? We study bandits."
    assert extraction_text(None, "Only an abstract.") == "Only an abstract."
    assert extraction_text("Only a title", None) == "Only a title"


def test_all_caps_titles_are_not_read_as_acronyms() -> None:
    assert extraction_text("DEEPCAST : UNIVERSAL TIME-SERIES FORECASTER", "x").startswith(
        "Deepcast: Universal Time-Series Forecaster"
    )
    assert extraction_text("GRAPE: Group Position Encoding", "x").startswith("GRAPE: Group")


def test_sentence_spans_respect_abbreviations() -> None:
    text = "We use SGD, e.g. Adam. It works! Third (i.e. last) one"
    assert [text[a:b] for a, b in sentence_spans(text)] == [
        "We use SGD, e.g. Adam.",
        "It works!",
        "Third (i.e. last) one",
    ]


@pytest.mark.parametrize(
    "title",
    [
        None,
        "",
        "   ",
        "A Title",
        "Why Bandits?",
        "DEEPCAST : UNIVERSAL TIME-SERIES FORECASTER",
        "Ça $x$ marche.",
    ],
)
@pytest.mark.parametrize("abstract", [None, "", "We study *bandits*.", "Élève naïve $\\alpha$ café."])
def test_extraction_parts_is_text_and_title_length(title: str | None, abstract: str | None) -> None:
    """The pipeline's one-pass helper agrees with the two functions other callers use."""
    assert extraction_parts(title, abstract) == (extraction_text(title, abstract), title_length(title))


def _reference_sentence_spans(text: str) -> list[tuple[int, int]]:
    """The former splitter, which lower-cased the whole sentence at every boundary."""
    import re

    boundary = re.compile(r"(?<=[.!?。])\s+(?=[A-Z0-9§(\[\"“])")
    abbreviations = ("e.g.", "i.e.", "etc.", "vs.", "al.", "fig.", "eq.", "cf.", "resp.", "approx.", "w.r.t.")
    # The boundaries kept, as (end of a sentence, start of the next): one is passed over when
    # the sentence so far ends with an abbreviation; the last sentence runs to the text's end.
    kept: list[tuple[int, int]] = []
    for m in boundary.finditer(text):
        since = kept[-1][1] if kept else 0
        if not text[since : m.start()].lower().endswith(abbreviations):
            kept.append((m.start(), m.end()))
    starts = [0] + [nxt for _, nxt in kept]
    ends = [end for end, _ in kept] + [len(text.rstrip())]
    spans = list(zip(starts, ends, strict=True))
    return spans if starts[-1] < ends[-1] else spans[:-1]


@pytest.mark.parametrize(
    "text",
    [
        "",
        "One. Two e.g. Three. Four i.e. Five approx. Six W.R.T. Seven.",
        "Et al. Smith et Al. Fig. 3 shows. ΣΑΣ. Next Σ. İ.e. Then vs. That. Xvs. Y",
        "A.B. C? D! (E) F. 2 G. “H” I.  J",
    ],
)
def test_sentence_spans_equal_the_reference(text: str) -> None:
    assert sentence_spans(text) == _reference_sentence_spans(text)


@settings(max_examples=400, deadline=None)
@given(
    st.lists(
        st.sampled_from([*"aegiIrtwxΣİ.,!? ", "e.g.", "i.e.", "al.", "approx.", " A", " 2"]), max_size=25
    )
)
def test_sentence_spans_equal_the_reference_on_generated_text(pieces: list[str]) -> None:
    text = "".join(pieces)
    assert sentence_spans(text) == _reference_sentence_spans(text)


def test_math_dropped_with_a_footnote_leaves_the_map_in_line() -> None:
    """``\\footnote{...}`` goes whole in cleaning, the math inside it too: the map follows."""
    abstract = "A rate of $O(T)$ \\footnote{$\\tilde O$ hides logs.} and $d$ here."
    text, _ = extraction_parts(None, abstract)
    snippets = math_snippets(None, abstract)
    assert snippets is not None
    assert restore_math(text, 0, snippets) == "A rate of $O(T)$ and $d$ here."


@pytest.mark.parametrize(
    "abstract",
    [
        "A rate of $O(1/\\sqrt{T})$. Next.",
        "The $k$-armed bandit ($d \\ge 2$) has regret $\\tilde{O}(d)$ $\\pm$ $\\epsilon$ here.",
        "Display $$\\sum_i x_i$$ and \\(a+b\\) and \\[c\\] then $e$ mixed.",
        "A section sign \u00a7 3 and math $x$ after it.",
        "$x$ starts it and ends with $y$",
        "no math at all.",
    ],
)
def test_restored_text_is_the_abstract_as_written(abstract: str) -> None:
    """Placeholders back in: the whole cleaned text restored is the abstract, spacing included."""
    text, _ = extraction_parts(None, abstract)
    snippets = math_snippets(None, abstract)
    assert snippets is not None
    assert len(snippets) == text.count(MATH_PLACEHOLDER)
    assert restore_math(text, 0, snippets) == abstract


def test_restored_sentences_count_the_placeholders_before_them() -> None:
    title, abstract = "On $k$-means", "First $a$ here. Then $b$ and $c$. Last $d$."
    text, _ = extraction_parts(title, abstract)
    snippets = math_snippets(title, abstract)
    assert snippets is not None
    restored = [
        restore_math(text[a:b], text.count(MATH_PLACEHOLDER, 0, a), snippets) for a, b in sentence_spans(text)
    ]
    assert restored == ["On $k$-means.", "First $a$ here.", "Then $b$ and $c$.", "Last $d$."]


ATOMS = [
    "word",
    " ",
    "$x$",
    "$\\alpha_1$",
    "$",
    "$$",
    "\\(",
    "\\)",
    ".",
    ",",
    "(",
    ")",
    "-",
    "\u00a7",
    "\\cite{a}",
    "\\footnote{$y$ hides logs}",
    "<b>$z$</b>",
    "[$w$](http://a.b)",
]


@given(st.lists(st.sampled_from(ATOMS), max_size=30))
@settings(max_examples=500, deadline=None)
def test_math_snippets_line_up_with_the_placeholders(parts: list[str]) -> None:
    """Whatever the text, the map has one entry per placeholder and gives every formula back."""
    abstract = "".join(parts)
    text, _ = extraction_parts(None, abstract)
    snippets = math_snippets(None, abstract)
    assert snippets is not None
    assert len(snippets) == text.count(MATH_PLACEHOLDER)
    restored = restore_math(text, 0, snippets)
    # No placeholder is left for a formula (a literal § of the text may stay, or go with a URL).
    assert restored.count(MATH_PLACEHOLDER) <= abstract.count(MATH_PLACEHOLDER), (abstract, restored)
    assert restored.count("$") <= abstract.count("$"), (
        abstract,
        restored,
    )  # math inside a dropped footnote goes
