"""One paper's concept analysis: candidates from every source, merged, scored and ranked.

:func:`analyse` is shared by the ``kg.concepts.v2``, ``kg.introduces.v1`` and ``kg.titles.v1``
extractors and cached on the Doc (``doc.user_data``), so it runs once per paper. It runs these
stages in order (:func:`.pipeline.run_stages`), each a module with one job, passing a typed
:class:`~.context.PaperContext`:

0. :mod:`.word_classes`: verbs the fast mode's lexicon reads as nouns, told by cue words;
1. :mod:`.acronyms`: acronym definitions, whose short form then counts as a mention of the long
   form, and phrases with a defined acronym inside counted under their spelt-out form;
2. :mod:`.vocabulary_match`: curated concepts (longest-first matches on normalised keys), with
   support required for ambiguous aliases;
3. :mod:`.phrases`: noun-phrase candidates (fast: word-class chunks; accurate: parser noun
   chunks) and their sub-phrases, keyword adjectives, known phrases spanning a function word
   ("mixture of experts");
4. :mod:`.introductions`: introduced names ("we propose X") and named models/datasets;
5. :mod:`.scoring`: junk removed, hand-set scores from the paper and the static background;
6. :mod:`.ranking` and :mod:`.demotions`: the learned re-ranking of the top, generic and broad
   concepts, near-duplicates and fragments demoted, introduced names first.

The result, :class:`~.result.Analysis`, names candidates lazily (:mod:`.names`: only kept ones
need a name and id) and answers how central each is to the paper (:mod:`.about`, with the
sentence cues of :mod:`.cues`). Everything depends only on the paper itself and static tables,
so a paper's record is the same alone or in any batch (see
:mod:`extractors.concepts.background`).

Every public name of the stage modules is importable from here. Setting a tuning constant or
switch here (``analysis.FRAGMENT_MODEL_ENABLED = False``, ``monkeypatch.setattr(analysis,
"FRAGMENT_FACTOR", 1.0)``) sets it in the stage module that reads it.
"""

from __future__ import annotations

import sys
import types

from extractors.concepts.analysis import (
    about,
    acronyms,
    candidate,
    cues,
    demotions,
    names,
    phrases,
    ranking,
    scoring,
    word_classes,
)
from extractors.concepts.analysis.about import ABOUT_THRESHOLD, OPENING_CHARS, SALIENCE_WEIGHTS
from extractors.concepts.analysis.acronyms import spells_concept
from extractors.concepts.analysis.candidate import STATIC_CACHE_LIMIT, Candidate, kind_for_head
from extractors.concepts.analysis.context import PaperContext
from extractors.concepts.analysis.cues import _ANY_CASE_CUES, _LOWER_CASE_CUES, ASIDE_WINDOW, Cues, cue_text
from extractors.concepts.analysis.demotions import (
    DUPLICATE_FACTOR,
    FRAGMENT_CHECKS,
    FRAGMENT_FACTOR,
    FRAGMENT_MODEL_ENABLED,
    FRAGMENT_SURE,
    INTRODUCED_TOP,
    SURFACE_TOP,
    is_known_term,
)
from extractors.concepts.analysis.names import (
    HYPHEN_PREFIXES,
    display_name,
    fold_wording,
    is_noun_phrase,
    spell_out_acronyms,
    wording,
)
from extractors.concepts.analysis.pipeline import CACHE_KEY, analyse
from extractors.concepts.analysis.ranking import (
    BROAD_PARENT,
    KEY_TERMS_LIMIT,
    PARENT_FACTOR,
    RANKER_ENABLED,
    RANKER_SCALE,
    RERANK_TOP,
    SPECIFIC_FACTOR,
    RankTerms,
    rank_terms,
)
from extractors.concepts.analysis.result import Analysis
from extractors.concepts.analysis.scoring import (
    DATASET_FACTOR,
    DEFINED_BOOST,
    GENERIC_FACTOR,
    IDF_CAP,
    IDF_FLOOR,
    INTRODUCED_BOOST,
    KEYWORD_WEIGHT,
    NAMED_BOOST,
    PLAIN_KEEP,
    QUANTIFIERS,
    SINGLE_MIN_KEYWORD,
    TF_WEIGHT,
    TITLE_BOOST,
    UNIGRAM_FACTOR,
    USED_ARTIFACT_FACTOR,
    VERB_HEADS,
    VOCAB_BOOST,
    is_filler,
    score_candidate,
    static_part,
)
from extractors.concepts.analysis.word_classes import (
    CLAUSE_OPENERS,
    INFINITIVE_CUES,
    NAMING_VERBS,
    PURPOSE_HEADS,
    SUBJECTS_AND_MODALS,
)

__all__ = [
    "ABOUT_THRESHOLD",
    "ASIDE_WINDOW",
    "BROAD_PARENT",
    "CACHE_KEY",
    "CLAUSE_OPENERS",
    "DATASET_FACTOR",
    "DEFINED_BOOST",
    "DUPLICATE_FACTOR",
    "FRAGMENT_CHECKS",
    "FRAGMENT_FACTOR",
    "FRAGMENT_MODEL_ENABLED",
    "FRAGMENT_SURE",
    "GENERIC_FACTOR",
    "HYPHEN_PREFIXES",
    "IDF_CAP",
    "IDF_FLOOR",
    "INFINITIVE_CUES",
    "INTRODUCED_BOOST",
    "INTRODUCED_TOP",
    "KEYWORD_WEIGHT",
    "KEY_TERMS_LIMIT",
    "NAMED_BOOST",
    "NAMING_VERBS",
    "OPENING_CHARS",
    "PARENT_FACTOR",
    "PLAIN_KEEP",
    "PURPOSE_HEADS",
    "QUANTIFIERS",
    "RANKER_ENABLED",
    "RANKER_SCALE",
    "RERANK_TOP",
    "SALIENCE_WEIGHTS",
    "SINGLE_MIN_KEYWORD",
    "SPECIFIC_FACTOR",
    "STATIC_CACHE_LIMIT",
    "SUBJECTS_AND_MODALS",
    "SURFACE_TOP",
    "TF_WEIGHT",
    "TITLE_BOOST",
    "UNIGRAM_FACTOR",
    "USED_ARTIFACT_FACTOR",
    "VERB_HEADS",
    "VOCAB_BOOST",
    "_ANY_CASE_CUES",
    "_LOWER_CASE_CUES",
    "Analysis",
    "Candidate",
    "Cues",
    "PaperContext",
    "RankTerms",
    "analyse",
    "cue_text",
    "display_name",
    "fold_wording",
    "is_filler",
    "is_known_term",
    "is_noun_phrase",
    "kind_for_head",
    "rank_terms",
    "score_candidate",
    "spell_out_acronyms",
    "spells_concept",
    "static_part",
    "wording",
]

# The modules holding each tuning constant and switch (the one defining it, and those importing
# it): setting it on this package sets it in all of them.
_STAGES = (about, acronyms, candidate, cues, demotions, names, phrases, ranking, scoring, word_classes)
_HOLDERS: dict[str, tuple[types.ModuleType, ...]] = {
    name: tuple(m for m in _STAGES if name in vars(m)) for name in __all__ if name.isupper()
}


class _Package(types.ModuleType):
    """This package, with constants and switches set through to the stage modules that read them.

    Why: tests and training scripts switch a model off or change a factor on
    ``extractors.concepts.analysis`` (written when it was one module); without this, the
    assignment would only rebind the package's copy and silently change nothing.
    """

    def __setattr__(self, name: str, value: object) -> None:
        for module in _HOLDERS.get(name, ()):
            setattr(module, name, value)
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package
