"""Cleaning abstracts for extraction while the stored abstract keeps the original.

LaTeX math becomes a neutral placeholder (so nothing inside ``$...$`` turns into a concept),
``\\texttt{NAME}``-style names survive as plain words, LaTeX emphasis (``\\emph{x}``,
``{\\em x}``) and markdown emphasis (``*x*``, ``**x**``, ``_x_``, ```x```) keep their text,
markdown links keep their label, URLs and citations go, TeX quotes become plain quotes,
Unicode hyphens become ``-`` and run-together sentences (``results.We``) are split.
"""

from __future__ import annotations

import re

__all__ = [
    "MATH_PLACEHOLDER",
    "clean_text",
    "extraction_parts",
    "extraction_text",
    "math_snippets",
    "restore_math",
    "sentence_spans",
    "title_length",
]

MATH_PLACEHOLDER = "§"

# $\texttt{OFU-DMNL}$ or $\mathrm{GRAPE}$: a name typeset as math, not math.
_MATH_NAME = re.compile(
    r"\$\s*\\(?:texttt|textsc|textbf|textit|textrm|mathrm|mathsf|mathtt|mathbf|text|operatorname)"
    r"\{([A-Za-z][A-Za-z0-9\-_.+]{1,40})\}\s*\$"
)
_DISPLAY_MATH = re.compile(r"\$\$.+?\$\$|\\\[.+?\\\]|\\\(.+?\\\)", re.S)
_INLINE_MATH = re.compile(r"(?<!\\)\$[^$]{0,400}?(?<!\\)\$", re.S)
# {\em text}, {\it text}, {\bf text}: old-style font switches.
_TEX_GROUP_SWITCH = re.compile(r"\{\\(?:em|it|bf|sc|tt|sl|rm)\s+([^{}]*)\}")
_TEX_WRAPPER = re.compile(
    r"\\(?:emph|textit|textbf|texttt|textsc|textrm|textsl|underline|text|enquote|mbox|textup)\{([^{}]*)\}"
)
_TEX_DROP = re.compile(r"\\(?:cite[pt]?|citeauthor|ref|eqref|label|footnote|url|href)\{[^{}]*\}")
_TEX_ACCENT = re.compile(r"\{?\\[\"'`^~=.][{]?([A-Za-z])[}]?\}?")
_TEX_ESCAPED = re.compile(r"\\([%&#_{}$])")
_TEX_COMMAND = re.compile(r"\\[A-Za-z]+\*?(?:\{\})?")
_URL = re.compile(r"(?:https?://|www\.)\S+")
_MD_LINK = re.compile(r"\[([^\]\n]{1,200})\]\((?:[^)\s]+)\)")
_MD_EMPHASIS = re.compile(r"(\*{1,2}|(?<![A-Za-z0-9])_{1,2}|`+)(?=\S)(.+?)(?<=\S)\1")
_HTML_TAG = re.compile(r"</?[a-zA-Z][a-zA-Z0-9]*(?:\s[^<>]*)?/?>")
_TEX_QUOTES = re.compile(r"``|''")
_TEX_DASHES = re.compile(r"(?<=\S)---(?=\S)|\s---\s")
_HYPHENS = re.compile(r"[\u2010\u2011\u2012\u2013\u2212\u00ad]|(?<=\w)--(?=\w)")
_RUN_TOGETHER = re.compile(r"(?<=[a-z0-9\)\]]{2})([.!?])(?=[A-Z][a-z])")
_RUN_TOGETHER_HINT = re.compile(r"[.!?][A-Z][a-z]")
_SPACES = re.compile(r"[\t\r\f\v\n~][ \t\r\f\v\n~]*| [ \t\r\f\v\n~]+")
_BOUNDARY = re.compile(r"(?<=[.!?。])\s+(?=[A-Z0-9§(\[\"“])")
_SPACE_BEFORE_PUNCT = re.compile(r" +([,.;:!?])")
# What _SPACES can match: one of its characters other than a space, or two spaces (a text
# without any of these is its own result; substituting over it cost more than these searches).
_SPACING = ("\t", "\r", "\f", "\v", "\n", "~", "  ")
_SPACE_PUNCT = tuple(f" {p}" for p in ",.;:!?")  # what _SPACE_BEFORE_PUNCT can match
_MATH_RUNS = re.compile(rf"{MATH_PLACEHOLDER}(\s*{MATH_PLACEHOLDER})+")
_ABBREVIATIONS = ("e.g.", "i.e.", "etc.", "vs.", "al.", "fig.", "eq.", "cf.", "resp.", "approx.", "w.r.t.")
# Characters enough to see any abbreviation at a sentence's end (one more than the longest).
_ABBREVIATION_TAIL = max(map(len, _ABBREVIATIONS)) + 1


def clean_text(text: str) -> str:
    """Text fit for extraction (:func:`_clean` without keeping the math it replaces).

    >>> clean_text("We show $\\\\tilde{O}(\\\\sqrt{T})$ regret for *contextual* bandits.See https://x.y/z")
    'We show § regret for contextual bandits. See'
    >>> clean_text("the $\\\\texttt{OFU-DMNL}$ algorithm, {\\\\em Neuron as an Agent} and ``oracle''")
    'the OFU-DMNL algorithm, Neuron as an Agent and "oracle"'
    >>> clean_text("a rank\\u20112 map; **bold** [label](http://a.b) relevance--diversity")
    'a rank-2 map; bold label relevance-diversity'
    """
    return _clean(text, None)


def _spaced(m: re.Match[str], body: str | None = None) -> str:
    """A match (or ``body`` in its place) with a space on each side where the author wrote one."""
    a, b, s = m.start(), m.end(), m.string
    lead = " " if a > 0 and s[a - 1].isspace() else ""
    return f"{lead}{m.group(0) if body is None else body}{' ' if b < len(s) and s[b].isspace() else ''}"


class _MathLog:
    """The math a cleaning replaced, one entry per placeholder of the text, in text order.

    A substitution callback: each match becomes a placeholder and its text is filed at the
    index of that placeholder among all placeholders of the string being substituted (those
    of earlier passes, literal ``§`` of the abstract, and this pass's so far), so two passes
    that replace different delimiters still leave the log in text order. A match that holds
    placeholders of an earlier pass (``$x$$y$$z$``: ``$$y$$`` first, then ``$x § z$``) takes
    their entries into its own.
    """

    __slots__ = ("shift", "snippets")

    def __init__(self, text: str) -> None:
        # A literal § of the text stands for itself.
        self.snippets = [_spaced(m) for m in re.finditer(MATH_PLACEHOLDER, text)]
        self.shift = 0  # entries added (or merged away) by this pass so far

    def _file(self, m: re.Match[str], body: str) -> None:
        i = m.string.count(MATH_PLACEHOLDER, 0, m.start()) + self.shift
        k = m.group(0).count(MATH_PLACEHOLDER)
        self.snippets[i : i + k] = [body]
        self.shift += 1 - k

    def __call__(self, m: re.Match[str]) -> str:
        k = m.group(0).count(MATH_PLACEHOLDER)
        i = m.string.count(MATH_PLACEHOLDER, 0, m.start()) + self.shift
        inner = restore_math(m.group(0), 0, self.snippets[i : i + k]) if k else None
        self._file(m, _spaced(m, inner))
        return f" {MATH_PLACEHOLDER} "

    def next_pass(self) -> _MathLog:
        self.shift = 0
        return self

    def sub(self, pattern: re.Pattern[str], repl: str, text: str) -> str:
        """``pattern.sub(repl, text)``, dropping the entries of the placeholders it removes
        (``\\footnote{§ hides log factors}`` goes whole, math included)."""
        self.shift = 0

        def drop(m: re.Match[str]) -> str:
            out = m.expand(repl)
            k_in, k_out = m.group(0).count(MATH_PLACEHOLDER), out.count(MATH_PLACEHOLDER)
            if k_out < k_in:
                i = m.string.count(MATH_PLACEHOLDER, 0, m.start()) + self.shift
                del self.snippets[i : i + k_in - k_out]  # same count out: nothing lost, order kept
                self.shift -= k_in - k_out
            return out

        return pattern.sub(drop, text)

    def merge_run(self, m: re.Match[str]) -> str:
        """One placeholder for a run of them (``$a$ $b$``): their snippets joined by a space."""
        i = m.string.count(MATH_PLACEHOLDER, 0, m.start()) + self.shift
        run = self.snippets[i : i + m.group(0).count(MATH_PLACEHOLDER)]
        self._file(m, " ".join([run[0].rstrip(), *(x.strip() for x in run[1:-1]), run[-1].lstrip()]))
        return MATH_PLACEHOLDER


def _clean(text: str, log: _MathLog | None) -> str:
    """:func:`clean_text`, filing each replaced piece of math in ``log`` when one is given."""
    t = text

    def math() -> str | _MathLog:  # what a math pass puts in place of each piece of math
        return f" {MATH_PLACEHOLDER} " if log is None else log.next_pass()

    def sub(pattern: re.Pattern[str], repl: str, t: str) -> str:  # a pass that may drop math
        return pattern.sub(repl, t) if log is None else log.sub(pattern, repl, t)

    # Each pass runs only when its trigger character occurs (most abstracts need few of them).
    if "$" in t:
        t = _MATH_NAME.sub(r"\1", t)
        t = _DISPLAY_MATH.sub(math(), t)
        t = _INLINE_MATH.sub(math(), t)
    if "\\" in t:
        t = _DISPLAY_MATH.sub(math(), t)
    if "](" in t:
        t = sub(_MD_LINK, r"\1", t)
    if "http" in t or "www." in t:
        t = sub(_URL, " ", t)
    if "\\" in t:
        t = sub(_TEX_DROP, " ", t)
        for _ in range(2):  # nested wrappers: \emph{\textbf{N}eural}
            t = _TEX_GROUP_SWITCH.sub(r"\1", t)
            t = _TEX_WRAPPER.sub(r"\1", t)
        t = _TEX_ACCENT.sub(r"\1", t)
        t = _TEX_ESCAPED.sub(r"\1", t)
        t = _TEX_COMMAND.sub(" ", t)
    if "<" in t:
        t = sub(_HTML_TAG, " ", t)
    if "*" in t or "_" in t or "`" in t:
        t = _MD_EMPHASIS.sub(r"\2", t)
    if "``" in t or "''" in t:
        t = _TEX_QUOTES.sub('"', t)
    if "---" in t:
        t = _TEX_DASHES.sub(" — ", t)
    if not t.isascii() or "--" in t:
        t = _HYPHENS.sub("-", t)
    if _RUN_TOGETHER_HINT.search(t):
        t = _RUN_TOGETHER.sub(r"\1 ", t)
    if any(s in t for s in _SPACING):
        t = _SPACES.sub(" ", t)
    if any(s in t for s in _SPACE_PUNCT):
        t = _SPACE_BEFORE_PUNCT.sub(r"\1", t)
    if MATH_PLACEHOLDER in t:
        t = _MATH_RUNS.sub(log.next_pass().merge_run if log else MATH_PLACEHOLDER, t)
    return t.strip()


def math_snippets(title: str | None, abstract: str | None) -> list[str] | None:
    """The original text of each placeholder of :func:`extraction_text`, in order.

    Evidence sentences are cut from the cleaned text, where math is a wall for matching; this
    map lets them be stored as the paper wrote them (:func:`restore_math`). ``None`` when the
    map would not line up with the text (a cleaning pass removed a placeholder it made, which
    a URL glued to math can do): the caller then keeps the placeholders.

    >>> math_snippets("On $k$-means", "We get $O(1)$ and $a$ $b$ here.")
    [' $k$', ' $O(1)$ ', ' $a$ $b$ ']
    """
    logs = [_MathLog(part) for part in (title or "", abstract or "")]
    head = _clean(_tame_case(title.strip()), logs[0]).strip() if title and title.strip() else ""
    body = _clean(abstract, logs[1]) if abstract else ""
    if head.count(MATH_PLACEHOLDER) != len(logs[0].snippets) or body.count(MATH_PLACEHOLDER) != len(
        logs[1].snippets
    ):
        return None
    return logs[0].snippets + logs[1].snippets


_AROUND_PLACEHOLDER = re.compile(rf" ?{MATH_PLACEHOLDER} ?")


def restore_math(sentence: str, first: int, snippets: list[str]) -> str:
    """A sentence of the cleaned text with its placeholders put back as the math they replaced.

    ``first`` is the index in ``snippets`` of the sentence's first placeholder (how many come
    before it in the whole text). A placeholder keeps a neighbouring space only where the
    original had one, so ``$k$-armed`` and ``($x$)`` come back as written.

    >>> restore_math("A § -armed bandit with rate §.", 0, [" $k$", " $O(1)$"])
    'A $k$-armed bandit with rate $O(1)$.'
    """
    k = first

    def put_back(m: re.Match[str]) -> str:
        nonlocal k
        if k >= len(snippets):
            return m.group(0)
        snippet = snippets[k]
        k += 1
        return snippet

    return _AROUND_PLACEHOLDER.sub(put_back, sentence).strip()


def _tame_case(title: str) -> str:
    """An all-caps title in sentence-friendly case, so its words are not read as acronyms.

    >>> _tame_case("DEEPCAST : UNIVERSAL TIME-SERIES FORECASTER")
    'Deepcast : Universal Time-Series Forecaster'
    >>> _tame_case("GRAPE: Group Position Encoding")
    'GRAPE: Group Position Encoding'
    """
    letters = "".join(filter(str.isalpha, title))
    if len(letters) < 12 or sum(map(str.isupper, letters)) < 0.8 * len(letters):
        return title
    return re.sub(r"[A-Za-z]+", lambda m: m.group(0).capitalize(), title)


def extraction_parts(title: str | None, abstract: str | None) -> tuple[str, int]:
    """:func:`extraction_text` and :func:`title_length` together, the title cleaned once.

    >>> extraction_parts("A Title", "We study bandits.")
    ('A Title. We study bandits.', 7)
    """
    head = _clean_title(title)
    body = clean_text(abstract) if abstract else ""
    if head and body:
        return (f"{head} {body}" if head.endswith((".", "?", "!")) else f"{head}. {body}"), len(head)
    return head or body, len(head)


def extraction_text(title: str | None, abstract: str | None) -> str:
    """The text extractors see: the (case-tamed) title, ``". "``, the cleaned abstract.

    >>> extraction_text("A Title", "We study *bandits*.")
    'A Title. We study bandits.'
    >>> extraction_text(None, "We study bandits.")
    'We study bandits.'
    """
    return extraction_parts(title, abstract)[0]


def title_length(title: str | None) -> int:
    """Characters of :func:`extraction_text` that belong to the title (0 without one).

    >>> t = extraction_text("A Title", "We study bandits.")
    >>> t[: title_length("A Title")]
    'A Title'
    """
    return len(_clean_title(title))


def _clean_title(title: str | None) -> str:
    """The title as :func:`extraction_text` starts with it ("" without one)."""
    return clean_text(_tame_case(title.strip())) if title and title.strip() else ""


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """Character spans of sentences: a cheap splitter for the parser-free fast mode.

    >>> t = "First one. Second (e.g. This) one! Third"
    >>> [t[a:b] for a, b in sentence_spans(t)]
    ['First one.', 'Second (e.g. This) one!', 'Third']
    """
    spans: list[tuple[int, int]] = []
    start = 0
    for m in _BOUNDARY.finditer(text):
        # Only the sentence's last characters can end with an abbreviation: lower-casing the
        # whole sentence at every boundary made this quadratic in the sentence length.
        if text[max(start, m.start() - _ABBREVIATION_TAIL) : m.start()].lower().endswith(_ABBREVIATIONS):
            continue
        spans.append((start, m.start()))
        start = m.end()
    if start < len(text.rstrip()):
        spans.append((start, len(text.rstrip())))
    return spans
