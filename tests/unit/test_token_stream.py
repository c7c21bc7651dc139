"""The column-wise token stream equals the token-by-token reference on tricky texts."""

from __future__ import annotations

from typing import Any

import pytest
from spacy.language import Language
from spacy.tokens import Doc

from extractors.concepts.background import load_background
from extractors.concepts.tokens import (
    HYPHEN,
    MARKS,
    SPLIT,
    Lexicon,
    Row,
    TokenStream,
    _append_split,
    _mark_compounds,
    _tagged_classes,
    stream_from_doc,
)
from extractors.text import extraction_text
from kg.ingest.nlp import load_nlp

TEXTS = [
    "",
    "-",
    "- - -",
    "multi-armed bandits and multi - armed bandits",
    "pre- and post-training of E(3)-equivariant networks",
    "We fine-tune Qwen2.5-7B and DeepSeek-R1 on GSM8K. Then a/b tests on CIFAR-10/100.",
    "-equivariant maps after § and §-equivariant maps",
    "Pöppel’s naïve-Bayes — über-fast state-of-the-art Ångström-scale models",
    "self-supervised in-context learning--with long-range, non-convex, ill-posed co-training",
    "A Title With Hyphen-Words: Learning X-Y-Z Maps",
    "end with a hyphen -",
    "GSM8K. MMLU. A.B. e.g. i.e.",
    "x –y and x – y and x– y: an en dash touching one side only (not cleaned below)",
]


def reference_stream(doc: Doc, lexicon: Lexicon, title_end: int = 0) -> TokenStream:
    """The stream by its rules, stated token by token (the specification of the stream): hyphen
    tokens drop out; a word is *tight* when it starts where the token before it ends, and
    *glued* when that token is a hyphen which itself touches the token before it ("multi-armed");
    in a tagged Doc the tagger's class wins after the title, except for marks, and except for
    gerunds the lexicon reads as nouns ("clustering")."""
    tags = _tagged_classes(doc) if doc.has_annotation("TAG") else None
    strings = doc.vocab.strings
    at = doc.to_array("IDX").tolist()
    infos = [lexicon.orth_info(orth, strings[orth]) for orth in doc.to_array("ORTH").tolist()]
    until = [start + len(info[0]) for start, info in zip(at, infos, strict=True)]

    def touches(n: int) -> bool:
        return n > 0 and at[n] == until[n - 1]

    rows: list[Row] = []
    for n, (text, key, cls, flags) in enumerate(infos):
        if flags & HYPHEN:
            continue
        tagged = tags[n] if tags is not None and cls != "M" and at[n] >= title_end else cls
        if not (tagged == "V" and cls == "N" and text.endswith("ing")):
            cls = tagged
        after_hyphen = n > 0 and bool(infos[n - 1][3] & HYPHEN)
        glued = after_hyphen and touches(n - 1) and touches(n)
        if flags & SPLIT:
            _append_split(rows, lexicon, text, at[n], cls, glued, touches(n))
        else:
            rows.append((text, key, at[n], until[n], cls, glued, touches(n), flags))
    if not rows:
        return TokenStream()
    texts, keys, starts, ends, classes, glued_col, tight_col, flags_col = zip(*rows, strict=True)
    marked = [i for i, f in enumerate(flags_col) if f & MARKS]
    out = TokenStream(texts, keys, starts, ends, list(classes), glued_col, tight_col, flags_col, marked)
    if True in glued_col:
        _mark_compounds(out)
    return out


def columns(stream: TokenStream) -> list[Any]:
    return [
        stream.text,
        stream.keys,
        stream.starts,
        stream.ends,
        stream.cls,
        stream.glued,
        stream.tight,
        stream.flags,
        stream.marked,
    ]


@pytest.mark.parametrize("mode", ["fast", "accurate"])
def test_stream_equals_the_reference(mode: str) -> None:
    nlp: Language = load_nlp(mode="fast") if mode == "fast" else load_nlp(mode="accurate")
    lexicon = load_background().lexicon
    for raw in TEXTS:
        for title in (None, "Hyphen-Words in a Title", ""):
            # the cleaned text, as the pipeline sees it, and the raw text (dashes kept)
            text = extraction_text(title, raw) if title != "" else raw
            doc = nlp.tokenizer(text) if mode == "fast" else nlp(text)
            title_end = len(title) if title else 0  # the title is not cleaned here
            got = stream_from_doc(doc, lexicon, title_end)
            want = reference_stream(doc, lexicon, title_end)
            assert columns(got) == columns(want), text
            assert [type(c) for c in columns(got)] == [type(c) for c in columns(want)], text


def test_hyphens_glue_words_and_split_tokens_are_split() -> None:
    lexicon = load_background().lexicon
    doc = load_nlp(mode="fast").tokenizer("multi-armed E(3)-equivariant GSM8K.")
    s = stream_from_doc(doc, lexicon)
    assert list(s.text) == ["multi", "armed", "E(3)", "equivariant", "GSM8K", "."]
    assert list(s.glued) == [False, True, False, True, False, False]
    assert s.cls[0] == "A"  # the first part of a compound is a modifier


def test_tokens_only_analysis_equals_the_annotation_checks() -> None:
    """``tokens_only`` (fast mode) skips two scans of the Doc and changes nothing, empty Docs included."""
    from extractors.concepts.analysis import analyse
    from extractors.concepts.vocabulary import default_vocabulary

    tokenizer = load_nlp(mode="fast").tokenizer
    vocab = default_vocabulary(tokenizer)
    background = load_background()
    for raw in [*TEXTS, "We propose GRAPE (Group RepresentAtional Position Encoding) for LLMs."]:
        text = extraction_text("Hyphen-Words in a Title", raw)
        results = []
        for tokens_only in (False, True):
            a = analyse(tokenizer(text), text, len("Hyphen-Words in a Title"), vocab, background, tokens_only)
            results.append([(c.key, c.score, c.spans, c.kind) for c in a.candidates] + [columns(a.stream)])
        assert results[0] == results[1], text
        empty = [analyse(tokenizer(""), "", 0, vocab, background, t).candidates for t in (False, True)]
        assert empty == [[], []]


def test_display_names_are_remembered_by_everything_they_read() -> None:
    """The same words, glued or not, keep their own names when the cache is warm."""
    from extractors.concepts.analysis import display_name

    tokenizer = load_nlp(mode="fast").tokenizer
    lexicon = load_background().lexicon
    glued = stream_from_doc(tokenizer("Qwen2.5-Coder Models"), lexicon)
    spaced = stream_from_doc(tokenizer("Qwen2.5 Coder Models"), lexicon)
    assert glued.text == spaced.text and glued.glued != spaced.glued
    for _ in range(2):  # cold, then warm
        assert display_name(glued, 0, len(glued)) == "Qwen2.5-coder model"
        assert display_name(spaced, 0, len(spaced)) == "Qwen2.5 coder model"
        assert display_name(spaced, 0, 0) == ""
