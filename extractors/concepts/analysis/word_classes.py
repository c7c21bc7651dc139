"""Stage 0: word classes the lexicon gets wrong, fixed from the words around them.

The fast mode has no tagger: each word gets its majority class from a lexicon
(:mod:`extractors.concepts.tokens`). Verbs read as nouns glue noun phrases together ("we *frame*
question answering", "a framework that *automates* document editing"), so before any phrase is
cut out this stage turns such words into verbs by cue words (a subject, a modal, "to" after a
verb that takes an infinitive, a determiner after a noun run, a clause-opening gerund, a
Title Case title). It only changes ``stream.cls``.
"""

from __future__ import annotations

from itertools import compress
from operator import methodcaller

from extractors.concepts.background import Background
from extractors.concepts.tokens import CAPS, DIGIT, NAME, Lexicon, TokenStream, positions


def fix_word_classes(stream: TokenStream, title_end: int, background: Background) -> None:
    """Run the word-class rules below, in order (each reads the classes the previous ones set)."""
    if title_end:
        _title_verbs(stream, title_end, background.lexicon)
    _clause_gerunds(stream, background.gerund_pairs)
    _verb_cues(stream)
    _verbs_before_determiners(stream)
    _finite_verbs(stream, background.lexicon)


def _title_verbs(stream: TokenStream, title_end: int, lexicon: Lexicon) -> None:
    """Verbs and adverbs of a Title Case title, which the capitals hide.

    A title that opens with a gerund opens with a verb ("Solving Offline RL with ...",
    "Detecting ChatGPT Imposters", "Boosting the Actor ..."): the gerund is not part of the
    noun phrase after it. The same after a colon ("GRAPE: Learning ..."). And a capitalised
    word is read as a name only outside the title: in "Recursively Self-Improving Code
    Generation" or "Refuse Unknown Questions" the capital is Title Case, so "Recursively"
    keeps the adverb class and "Refuse" the verb class of its suffix rule.
    """
    text, cls, starts = stream.text, stream.cls, stream.starts
    n = len(text)
    for i in range(n):
        if starts[i] >= title_end:
            break
        t = text[i]
        if not t[:1].isupper():
            continue
        if (
            (i == 0 or text[i - 1] in (":", "—"))
            and len(t) > 4
            and t.endswith("ing")
            and i + 1 < n
            and (cls[i + 1] in ("N", "A") or stream.keys[i + 1] in _DETERMINERS)
            and starts[i + 1] < title_end
        ):
            cls[i] = "V"
        elif cls[i] == "N" and not stream.flags[i] & (NAME | CAPS | DIGIT):
            lower = t.lower()
            plain = lexicon.info(lower)[1]
            if plain == "R" or (plain == "V" and not lower.endswith("ing") and lower not in lexicon.classes):
                cls[i] = plain


_DETERMINERS = frozenset({"the", "a", "an", "your", "their", "our", "its", "this", "these", "my"})


# Words after which a gerund opens a clause ("for *learning* policies", "by solving video games").
CLAUSE_OPENERS = frozenset(
    """for of by in on via through without with from into towards toward when while after before
    about upon at to . : ; ( —""".split()
)


# Nouns that a gerund qualifies rather than takes as an object ("training iterations",
# "learning objectives", "pretraining data"): what the activity uses or goes through.
PURPOSE_HEADS = frozenset(
    """data datum set iteration objective strategy effort time loss procedure process regime
    pipeline dynamics signal sample example stage phase step scheme method algorithm framework
    paradigm rate curve cost budget speed corpus dataset recipe instance epoch run schedule
    protocol setup setting environment technique approach performance efficiency stability
    trajectory token compute""".split()
)


def _clause_gerunds(stream: TokenStream, pairs: frozenset[tuple[str, str]]) -> None:
    """A gerund that opens a clause and takes an object is a verb ("for *teaching* robots",
    "Learning complex locomotion is ...", "of planning flexible behavior"), so the phrase after
    it is the noun phrase ("robots"), not "teaching robots".

    It opens a clause after a preposition or at a sentence start; it is still a noun when it
    and the next word open a known term (``pairs``: "learning rate", "training data").
    """
    text, cls, keys, glued = stream.text, stream.cls, stream.keys, stream.glued
    last = len(text) - 1
    for i in compress(range(len(text)), map(methodcaller("endswith", "ing"), text)):
        if (
            0 < i < last
            and cls[i] == "N"
            and cls[i + 1] in ("N", "A")
            and not glued[i]
            and not glued[i + 1]
            and len(text[i]) > 4
            and keys[i - 1] in CLAUSE_OPENERS
            and (keys[i], keys[i + 1]) not in pairs
            and keys[i + 1] not in PURPOSE_HEADS
        ):
            cls[i] = "V"


def _verbs_before_determiners(stream: TokenStream) -> None:
    """The last word of a noun run is a verb when a determiner follows it: "the framework
    *misses* an inverse mapping", "networks *interconnect* their layers", "their performance
    *costs* the experimenter time". Two noun phrases side by side are rare in abstracts (the
    ditransitive "give robots the ability" has a one-word run), so the run ends before it.
    """
    keys, cls, flags = stream.keys, stream.cls, stream.flags
    for i in positions(keys, _DETERMINERS):
        j = i - 1
        if j > 0 and cls[j] == "N" and cls[j - 1] in ("N", "A") and not flags[j] & (NAME | CAPS | DIGIT):
            cls[j] = "V"


# Participles that name what follows ("a model called FusionNet", "termed WSNet"): never part of
# a noun phrase. "named" is one only before a name ("named entities" is a term).
NAMING_VERBS = frozenset({"called", "dubbed", "termed", "coined", "nicknamed", "named", "dub"})


# Words after which "to" marks an infinitive, so the word after "to" is a verb ("learn to
# *reorient* objects", "in order to *map* latent codes", "prompting GPT-4 to *rank* responses").
INFINITIVE_CUES = frozenset(
    """learn learns learned learnt learning how where what whether when order able unable is are
    was were aim aims aiming seek seeks seeking try tries trying attempt attempts want wants need
    needs needed prompted prompt asked ask instructed trained designed tasked required allowed
    enabled encouraged""".split()
)


_TO = frozenset({"to"})


# A word right after these (an adverb between allowed) is a verb: "we *frame* question
# answering", "we currently *lack* quantitative methods", "GANs can accurately *model* complex
# distributions", "metrics do not *favour* networks".
SUBJECTS_AND_MODALS = frozenset("""we they can could may might will would should must cannot not""".split())


_VERB_CUES = NAMING_VERBS | _TO | SUBJECTS_AND_MODALS


def _verb_cues(stream: TokenStream) -> None:
    """Verbs the word-class lexicon reads as nouns or modifiers, told by a cue word (one scan
    of the keys for the three rules: a scan costs as much as the rules themselves).

    * A naming participle is a verb: "neural structure *called* FusionNet" is not a phrase,
      "FusionNet" is. "named" (and "dub") only before a name, so "named entity recognition"
      stays a noun phrase.
    * The word after an infinitive "to" is a verb. "to" is an infinitive marker after a cue
      that takes one (:data:`INFINITIVE_CUES`: "learns to *reorient* objects", "the practice
      is to *label* data"); elsewhere it is a preposition ("from images to text descriptions",
      "sequence to sequence"). A name after it stays a name, and so does a hyphenated compound
      ("learning-to-plan").
    * A noun-class word right after a subject pronoun, a modal or "not" (an adverb between
      allowed) is a verb: the lexicon reads "frame", "lack", "model", "map" or "support" as
      nouns (their majority class), so without a tagger "we frame question answering" chunks
      as one noun run. Only noun-class words change: an adjective after "not" stays one ("not
      robust to noise"), and so do names ("can LLMs ..." asks a question about a name).
    """
    keys, cls, flags, glued = stream.keys, stream.cls, stream.flags, stream.glued
    last = len(keys) - 1
    for i in positions(keys, _VERB_CUES):
        k = keys[i]
        if k in NAMING_VERBS:
            if k in ("named", "dub") and not (i < last and flags[i + 1] & (NAME | CAPS)):
                continue
            cls[i] = "V"
            continue
        j = i + 1
        if k == "to":
            if (
                0 < i < last
                and keys[i - 1] in INFINITIVE_CUES
                and cls[j] == "N"
                and not glued[i]
                and not glued[j]
                and not flags[j] & (NAME | CAPS | DIGIT)
            ):
                cls[j] = "V"
            continue
        if j < last and cls[j] == "R":
            j += 1
        if j <= last and cls[j] == "N" and not flags[j] & (NAME | CAPS | DIGIT) and not glued[j]:
            cls[j] = "V"


_PERFECT = frozenset({"have", "has", "had"})
_RELATIVE = frozenset({"that", "which", "who"})
_PERFECT_OR_RELATIVE = _PERFECT | _RELATIVE


def _finite_verbs(stream: TokenStream, lexicon: Lexicon) -> None:
    """Verb forms the lexicon reads as modifiers or nouns, told by the word before them.

    A participle after "have" is a verb ("prior works have *tackled* cloth manipulation",
    "LLMs have *sparked* concerns"), an adverb in between allowed. After a relative pronoun, an
    -s word whose singular is a verb and which has a noun after it is a verb ("a framework
    that *automates* document editing", "which *formulates* planning as ..."); a plural subject
    ("that robots need") has a noun singular, so it stays.
    """
    keys, cls, text = stream.keys, stream.cls, stream.text
    last = len(keys) - 1
    for i in positions(keys, _PERFECT_OR_RELATIVE):
        j = i + 1
        if j < last and cls[j] == "R":
            j += 1
        if j > last:
            continue
        t = text[j]
        if keys[i] in _PERFECT:
            if cls[j] == "A" and t.endswith("ed"):
                cls[j] = "V"
        elif (
            j == i + 1
            and j < last
            and cls[j] == "N"
            and t.endswith("s")
            and t.islower()
            and cls[j + 1] == "N"
            and lexicon.info(keys[j])[1] == "V"
        ):
            cls[j] = "V"
