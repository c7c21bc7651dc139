"""Token normal forms: the cheap, tagger-free lemma both matching modes agree on.

The vocabulary and the text go through the same function, so "Nash equilibria", "LLMs" and
"multi-armed" meet "Nash equilibrium", "LLM" and "multi armed" without a part-of-speech tagger
(which would cost the fast mode most of its speed).
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

IRREGULAR: dict[str, str] = {
    "equilibria": "equilibrium",
    "hypotheses": "hypothesis",
    "analyses": "analysis",
    "matrices": "matrix",
    "vertices": "vertex",
    "indices": "index",
    "criteria": "criterion",
    "phenomena": "phenomenon",
    "maxima": "maximum",
    "minima": "minimum",
    "optima": "optimum",
    "corpora": "corpus",
    "radii": "radius",
    "foci": "focus",
    "lemmata": "lemma",
    "simplices": "simplex",
    "children": "child",
    "people": "person",
    "bases": "basis",
    "axes": "axis",
    "heuristics": "heuristic",
}
# Words ending in "s" that are not plurals (kept as they are).
NOT_PLURAL = frozenset(
    """bias class process gradients? mathematics physics dynamics statistics economics robotics
    linguistics genomics lens chaos gas plus thus this its his us bus focus corpus consensus
    status census analysis synthesis hypothesis basis thesis diagnosis axis emphasis series
    species always perhaps whereas across less unless across various previous numerous
    continuous ambiguous autonomous heterogeneous homogeneous simultaneous anomalous analogous
    cross loss boss mass pass gauss gaussian kernels? atlas alias canvas lasso yes news
    was has does is as""".split()
)
_DASHES = re.compile(r"[\u2010-\u2015\u2212]")


@lru_cache(maxsize=200_000)
def norm_token(token: str) -> str:
    """Normal form of one token: accents and case folded, plural stripped.

    >>> [norm_token(t) for t in ["Equilibria", "LLMs", "policies", "losses", "bandits", "Bias"]]
    ['equilibrium', 'llm', 'policy', 'loss', 'bandit', 'bias']
    """
    t = unicodedata.normalize("NFKC", token)
    t = _DASHES.sub("-", t).casefold()
    if t in IRREGULAR:
        return IRREGULAR[t]
    if len(t) <= 3 or not t[-1] == "s" or t in NOT_PLURAL or not t.isalpha() and not t[:-1].isalnum():
        return t
    if t.endswith("ies") and len(t) > 4 and t not in ("series", "species"):
        return t[:-3] + "y"
    if t.endswith(("sses", "shes", "ches", "xes", "zes")):
        return t[:-2]
    if t.endswith(("ss", "us", "is", "ous")):
        return t
    return t[:-1]


def is_acronym(surface: str) -> bool:
    """Short all-caps forms (``SGD``, ``MAB``, ``LLMs``) that are matched case-sensitively.

    >>> is_acronym("SGD"), is_acronym("LLMs"), is_acronym("Adam"), is_acronym("ImageNet")
    (True, True, False, False)
    """
    core = surface[:-1] if surface.endswith("s") and len(surface) > 2 else surface
    letters = [c for c in core if c.isalpha()]
    return 2 <= len(core) <= 6 and bool(letters) and all(c.isupper() for c in letters)


def acronym_key(surface: str) -> str:
    """The case-preserving key of an acronym token, plural ``s`` dropped.

    >>> acronym_key("LLMs"), acronym_key("SGD")
    ('LLM', 'SGD')
    """
    return surface[:-1] if surface.endswith("s") and len(surface) > 2 and surface[-2].isupper() else surface
