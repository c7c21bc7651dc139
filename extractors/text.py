"""Cleaning abstracts for extraction while the stored abstract keeps the original.

LaTeX math becomes a neutral placeholder (so nothing inside ``$...$`` turns into a concept),
``\\texttt{NAME}``-style names survive as plain words, markdown emphasis and URLs go, and
run-together sentences (``results.We``) are split.
"""

from __future__ import annotations

import re

MATH_PLACEHOLDER = "§"

# $\texttt{OFU-DMNL}$ or $\mathrm{GRAPE}$: a name typeset as math, not math.
_MATH_NAME = re.compile(
    r"\$\s*\\(?:texttt|textsc|textbf|textit|mathrm|mathsf|mathtt|text|operatorname)"
    r"\{([A-Za-z][A-Za-z0-9\-_.+]{1,40})\}\s*\$"
)
_DISPLAY_MATH = re.compile(r"\$\$.+?\$\$|\\\[.+?\\\]|\\\(.+?\\\)", re.S)
_INLINE_MATH = re.compile(r"(?<!\\)\$[^$]{0,400}?(?<!\\)\$", re.S)
_TEX_WRAPPER = re.compile(r"\\(?:emph|textit|textbf|texttt|textsc|underline|text)\{([^{}]*)\}")
_TEX_DROP = re.compile(r"\\(?:cite[pt]?|ref|eqref|footnote|url|href)\{[^{}]*\}")
_TEX_COMMAND = re.compile(r"\\[A-Za-z]+\*?")
_URL = re.compile(r"(?:https?://|www\.)\S+")
_MD_EMPHASIS = re.compile(r"(\*{1,2}|_{1,2}|`+)(?=\S)(.+?)(?<=\S)\1")
_RUN_TOGETHER = re.compile(r"(?<=[a-z0-9\)\]]{2})([.!?])(?=[A-Z][a-z])")
_SPACES = re.compile(r"[ \t\r\f\v]+")
_BOUNDARY = re.compile(r"(?<=[.!?。])\s+(?=[A-Z0-9§(\[\"“])")
_ABBREVIATIONS = ("e.g.", "i.e.", "etc.", "vs.", "al.", "fig.", "eq.", "cf.", "resp.", "approx.")


def clean_text(text: str) -> str:
    """Text fit for extraction.

    >>> clean_text("We show $\\\\tilde{O}(\\\\sqrt{T})$ regret for *contextual* bandits.See https://x.y/z")
    'We show § regret for contextual bandits. See'
    >>> clean_text("the $\\\\texttt{OFU-DMNL}$ algorithm")
    'the OFU-DMNL algorithm'
    """
    t = _MATH_NAME.sub(r"\1", text)
    t = _DISPLAY_MATH.sub(f" {MATH_PLACEHOLDER} ", t)
    t = _INLINE_MATH.sub(f" {MATH_PLACEHOLDER} ", t)
    t = _URL.sub(" ", t)
    t = _TEX_DROP.sub(" ", t)
    t = _TEX_WRAPPER.sub(r"\1", t)
    t = _TEX_COMMAND.sub(" ", t)
    t = _MD_EMPHASIS.sub(r"\2", t)
    t = _RUN_TOGETHER.sub(r"\1 ", t)
    t = _SPACES.sub(" ", t)
    t = re.sub(r"\s+([,.;:!?])", r"\1", t)
    t = re.sub(rf"{MATH_PLACEHOLDER}(\s*{MATH_PLACEHOLDER})+", MATH_PLACEHOLDER, t)
    return t.strip()


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """Character spans of sentences: a cheap splitter for the parser-free fast mode.

    >>> t = "First one. Second (e.g. This) one! Third"
    >>> [t[a:b] for a, b in sentence_spans(t)]
    ['First one.', 'Second (e.g. This) one!', 'Third']
    """
    spans: list[tuple[int, int]] = []
    start = 0
    for m in _BOUNDARY.finditer(text):
        if text[start : m.start()].lower().endswith(_ABBREVIATIONS):
            continue
        spans.append((start, m.start()))
        start = m.end()
    if start < len(text.rstrip()):
        spans.append((start, len(text.rstrip())))
    return spans
