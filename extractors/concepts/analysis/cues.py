"""The sentence-cue patterns: what marks a contribution, a claim, an experiments report, a
contrast, and an aside (auxiliary loss, baseline, regulariser).

Why a module of their own: they are regular expressions tuned on real abstracts and tested on
their own (``tests/unit/test_cue_patterns.py``); :mod:`.about` decides with them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# The verbs that cue a contribution ("we propose", "this paper studies").
_CUE_VERBS = (
    "propose introduce present develop design show study investigate consider analy[sz]e prove "
    "demonstrate address tackle focus establish derive provide characteri[sz]e formali[sz]e formulate "
    "frame cast model revisit explore examine extend generali[sz]e leverage"
).split()
_CONTRIBUTION = re.compile(
    r"\b(?:we|this (?:paper|work|study))\b[^.;]{0,60}?\b"
    "(?:" + "|".join(_CUE_VERBS) + ")"
    # A sentence about the paper's own method ("Our method can ...", "This approach exploits ...").
    r"|\b(?:this|our|the proposed) (?:method|approach|framework|model|algorithm|technique|system)s?\b",
    re.I,
)

# The contribution cue of salience (:meth:`Analysis.claimed`): the verbs of _CUE_VERBS as
# whole words in a verb form ("proposes", "introduced"; not "framework", "showcase",
# "considerations", "human-designed", "well established"), and "our proposed method" as well as
# "our method".
_CLAIM_VERBS = (
    "(?:" + "|".join({"show": "show(?:case)?", "study": "stud(?:y|ie)"}.get(v, v) for v in _CUE_VERBS) + ")"
)
# A participle after "well" or an -ly adverb modifies a noun ("on well established algorithms").
_PARTICIPLE = rf"(?<!well )(?<!ly ){_CLAIM_VERBS}(?:d|ed|n)\b"
_CLAIM = re.compile(
    # After "we" the bare form ("we propose"; "models" in "we train models" is a noun) ...
    rf"\bwe\b[^.;]{{0,60}}?(?<![-\w])(?:re-?)?(?:{_CLAIM_VERBS}\b|{_PARTICIPLE})"
    # ... after "this paper" also the third person ("this paper studies"; "in this paper, we propose").
    rf"|\bthis (?:paper|work|study)\b[^.;]{{0,60}}?(?<![-\w])(?:re-?)?"
    rf"(?:{_CLAIM_VERBS}(?:s|es)?\b|{_PARTICIPLE})"
    r"|\b(?:this|our|the proposed)(?: (?:proposed|new|novel))? "
    r"(?:method|approach|framework|model|algorithm|technique|system)s?\b"
    # What the paper's own method is built from ("we begin by training a diffusion policy", "we
    # distill the teacher into a student policy"): a claim cue, but not a contribution cue (the
    # ranker's feature, :data:`_CONTRIBUTION`).
    r"|\bwe (?:\w+ ){0,3}?(?:train|distill)(?:ing)?\b",
    re.I,
)
# Where a sentence turns to its experiments: what follows is the testbed, not the contribution
# ("We validate the effectiveness of our system by ... training imitation learning policies",
# "With our framework, we run three experiments on an LLM trained with Constitutional AI").
_EXPERIMENTS = re.compile(
    r"\b(?:in (?:the|our) experiments|we (?:\w+ly )?(?:validate|evaluate|test|benchmark)\b"
    r"|we (?:\w+ly )?(?:run|conduct|perform|carry out)\b[^.;]{0,30}?\b(?:experiments|evaluations?)\b)",
    re.I,
)
# A contrast cue and the phrase it governs, up to a clause boundary or the preposition of a
# setting ("outperforms prior methods | on image retrieval", "by 8.8% | in caption retrieval"):
# the concept there is a baseline or something the paper does without, not its contribution
# ("still cannot beat Nash-Equilibrium algorithms", "unlike prior GNN-based methods", "without
# reinforcement learning").
_CONTRAST = re.compile(
    r"\b(?:unlike|compared (?:to|with)|in contrast to|as opposed to|instead of|rather than|than|"
    r"outperform(?:s|ed|ing)?|beat(?:s|ing)?|surpass(?:es|ed|ing)?|without|beyond|versus|vs\.?)\b"
    r"(?P<scope>(?:(?!\b(?:and|but|while|whereas|which|that|on|in|at|by|for|across|under|with)\b)[^,;:()]){0,80})",
    re.I,
)


# Asides (:meth:`Analysis.aside`): a cue at most ASIDE_WINDOW characters before a mention, in
# its clause, or right after it.
ASIDE_WINDOW = 60
_ASIDE_BEFORE = re.compile(
    r"(?:\b(?:auxiliary|baselines?|regulari[sz]ers?|regulari[sz]ation terms?|additional (?:loss|objective)"
    r"|(?:compare|compared|comparing|comparison) (?:against|with|to)"
    # What the paper measures itself against ("better than X", "outperforms X", "the same
    # training complexity as X") and examples ("pipelines such as X", "(e.g., X)").
    r"|than|outperform(?:s|ed|ing)?|surpass(?:es|ed|ing)?|(?:the )?same (?:[\w-]+ ){0,3}as"
    r"|such as|for (?:example|instance))\b|\be\.g\.)(?:(?![.;:!?]).)*$",
    re.I,
)
_ASIDE_AFTER = re.compile(
    r"[\s-]*(?:[\w-]+\s+)?(?:baselines?|regulari[sz]ers?|regulari[sz]ation term|(?:as an? )?auxiliary"
    r" (?:loss|task|objective))\b"
    # "X as a baseline", "X as the strong baselines", "X for comparison".
    r"|\s+(?:as (?:an? |the |our )?(?:[\w-]+ )?baselines?|for comparison)\b",
    re.I,
)
_OWN = re.compile(r"\b(?:we|our|ours|this paper|this work)\b", re.I)


@dataclass(frozen=True, slots=True)
class Cues:
    """The four sentence-cue patterns, compiled for one kind of text (see :func:`cue_text`)."""

    contribution: re.Pattern[str]
    claim: re.Pattern[str]
    experiments: re.Pattern[str]
    contrast: re.Pattern[str]


def _case_sensitive(pattern: re.Pattern[str]) -> re.Pattern[str]:
    return re.compile(pattern.pattern, pattern.flags & ~re.IGNORECASE)


_ANY_CASE_CUES = Cues(_CONTRIBUTION, _CLAIM, _EXPERIMENTS, _CONTRAST)
# The same patterns without IGNORECASE, for lower-cased ASCII text. Their letters are all lower
# case (``tests/unit/test_cue_patterns.py`` checks it), so on ASCII text they match exactly
# where the case-insensitive ones match in the original: lower-casing ASCII maps A-Z to a-z one
# for one, and keeps every offset, letter class and word boundary.
_LOWER_CASE_CUES = Cues(*map(_case_sensitive, (_CONTRIBUTION, _CLAIM, _EXPERIMENTS, _CONTRAST)))


def cue_text(text: str) -> tuple[str, Cues]:
    """The text to search for sentence cues and the patterns to search it with.

    Why: case-insensitive matching compares every character through its case folds; the cue
    patterns ran over every sentence of every paper and were a twentieth of the fast mode's
    time. ASCII text (most abstracts) is lower-cased once and searched case-sensitively,
    a third cheaper; other text keeps the case-insensitive patterns (Unicode case folding
    has one-to-many and cross-script cases that lower-casing would not reproduce).

    >>> text, cues = cue_text("In This Paper, WE Propose X.")
    >>> text, cues.contribution.search(text).group()
    ('in this paper, we propose x.', 'this paper, we propose')
    """
    if text.isascii():
        return text.lower(), _LOWER_CASE_CUES
    return text, _ANY_CASE_CUES


# Words written with a hyphen before the next word in a canonical name ("multi-armed",
# "self-supervised", "few-shot"); every other pair is joined by a space, whatever the paper did,
