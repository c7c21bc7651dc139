"""Token normal forms: the cheap, tagger-free lemma both matching modes agree on.

The vocabulary, the background statistics and the text all go through :func:`token_key`, so
"Nash equilibria", "LLMs" and "multi-armed" meet "Nash equilibrium", "LLM" and "multi armed"
without a part-of-speech tagger (which would cost the fast mode most of its speed). Keys are
only compared with each other, never shown: a crude but *consistent* singular is what matters.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

__all__ = [
    "acronym_key",
    "display_singular",
    "is_acronym",
    "is_name_like",
    "norm_token",
    "token_key",
]

IRREGULAR: dict[str, str] = {
    "equilibria": "equilibrium",
    "hypotheses": "hypothesis",
    "analyses": "analysis",
    "syntheses": "synthesis",
    "theses": "thesis",
    "matrices": "matrix",
    "vertices": "vertex",
    "indices": "index",
    "appendices": "appendix",
    "criteria": "criterion",
    "phenomena": "phenomenon",
    "automata": "automaton",
    "maxima": "maximum",
    "minima": "minimum",
    "optima": "optimum",
    "extrema": "extremum",
    "corpora": "corpus",
    "radii": "radius",
    "foci": "focus",
    "stimuli": "stimulus",
    "nuclei": "nucleus",
    "lemmata": "lemma",
    "schemata": "schema",
    "formulae": "formula",
    "simplices": "simplex",
    "children": "child",
    "people": "person",
    "bases": "basis",
    "axes": "axis",
    "biases": "bias",
    "aliases": "alias",
    "caches": "cache",
    "niches": "niche",
    "data": "data",
    "media": "medium",
    "strata": "stratum",
    "mice": "mouse",
    "geese": "goose",
    "teeth": "tooth",
    "men": "man",
    "women": "woman",
}
# Words ending in "s" that are not plurals (kept as they are).
NOT_PLURAL = frozenset(
    """bias class process mathematics physics dynamics statistics economics robotics linguistics
    genomics proteomics semantics pragmatics ethics optics analytics informatics graphics
    electronics kinematics kinetics mechanics thermodynamics logistics phonetics acoustics
    lens chaos gas plus thus this its his us bus focus corpus consensus status census analysis
    synthesis hypothesis basis thesis diagnosis axis emphasis series species always perhaps
    whereas across less unless various previous numerous continuous ambiguous autonomous
    heterogeneous homogeneous simultaneous anomalous analogous cross loss boss mass pass gauss
    atlas alias canvas lasso yes news was has does is as bayes naive-bayes wikipedia towards
    afterwards besides sometimes nevertheless regardless progress access success express
    stress address chess glass grass moss ass dress witness fitness robustness awareness
    effectiveness thickness sparseness calculus stimulus radius nucleus modulus virus bonus
    campus census sinus tensorflow pytorch keras""".split()
)
_DASHES = re.compile(r"[\u2010-\u2015\u2212]")


@lru_cache(maxsize=200_000)
def norm_token(token: str) -> str:
    """Normal form of one token: accents and case folded, plural stripped.

    >>> [norm_token(t) for t in ["Equilibria", "LLMs", "policies", "losses", "bandits", "Bias"]]
    ['equilibrium', 'llm', 'policy', 'loss', 'bandit', 'bias']
    >>> [norm_token(t) for t in ["approaches", "caches", "processes", "biases", "dynamics", "series"]]
    ['approach', 'cache', 'process', 'bias', 'dynamics', 'series']
    """
    t = unicodedata.normalize("NFKC", token)
    t = _DASHES.sub("-", t).casefold()
    if t in IRREGULAR:
        return IRREGULAR[t]
    if len(t) <= 3 or t[-1] != "s" or t in NOT_PLURAL or not t[:-1].replace("-", "").isalnum():
        return t
    if t.endswith("ies") and len(t) > 4:
        return t[:-3] + "y"
    if t.endswith(("sses", "shes", "ches", "xes", "zes")):
        return t[:-2]
    if t.endswith(("ss", "us", "is", "ous", "'s")):
        return t
    return t[:-1]


def is_acronym(surface: str) -> bool:
    """Short all-caps forms (``SGD``, ``MAB``, ``LLMs``) that are matched case-sensitively.

    >>> is_acronym("SGD"), is_acronym("LLMs"), is_acronym("Adam"), is_acronym("ImageNet")
    (True, True, False, False)
    """
    core = surface[:-1] if surface.endswith("s") and len(surface) > 2 else surface
    if not 2 <= len(core) <= 6:
        return False
    has_letter = False
    for c in core:
        if c.isalpha():
            if not c.isupper():
                return False
            has_letter = True
    return has_letter


def acronym_key(surface: str) -> str:
    """The case-preserving key of an acronym token, plural ``s`` dropped.

    >>> acronym_key("LLMs"), acronym_key("SGD")
    ('LLM', 'SGD')
    """
    return surface[:-1] if surface.endswith("s") and len(surface) > 2 and surface[-2].isupper() else surface


@lru_cache(maxsize=200_000)
def token_key(text: str) -> str:
    """Matching key of one token: acronyms keep their case, everything else is normalised.

    >>> token_key("LLMs"), token_key("llms"), token_key("Networks")
    ('A:LLM', 'llm', 'network')
    """
    if is_acronym(text):
        return "A:" + acronym_key(text)
    return norm_token(text)


def is_name_like(surface: str) -> bool:
    """A token that looks like a proper name of a method, model or dataset.

    Capitals after the first character (``GRAPE``, ``InstructAV``, ``xLSTM``, ``SMoE``) or
    letters mixed with digits (``GSM8K``, ``Qwen2.5``); plain capitalised words are not.

    >>> [is_name_like(t) for t in ["GRAPE", "InstructAV", "xLSTM", "Qwen2.5", "Transformer", "2024"]]
    [True, True, True, True, False, False]
    """
    if len(surface) < 2:
        return False
    has_alpha = has_digit = inner_upper = False
    for i, c in enumerate(surface):
        if c.isalpha():
            has_alpha = True
            if i > 0 and c.isupper():
                inner_upper = True
        elif c.isdigit():
            has_digit = True
    if not has_alpha:
        return False
    return inner_upper or (has_digit and surface[0].isalpha())


def display_singular(word: str) -> str:
    """Singular of a display word, keeping its case (for canonical concept names).

    >>> display_singular("Networks"), display_singular("LLMs"), display_singular("equilibria")
    ('Network', 'LLM', 'equilibrium')
    """
    if is_acronym(word):
        return acronym_key(word)
    key = norm_token(word)
    if key == word.casefold():
        return word
    if word[:1].isupper() and word[1:].islower():
        return key.capitalize()
    return key
