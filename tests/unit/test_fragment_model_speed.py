"""The fragment model's fast score equals the sum over its named features, bit for bit."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from extractors.concepts.background import load_background
from extractors.concepts.fragment_model import features, load_fragment_model
from extractors.concepts.tokens import stream_from_doc
from extractors.text import extraction_parts

DATA = Path(__file__).resolve().parents[1] / "data" / "iclr2018.jsonl"


def test_decision_equals_the_sum_of_the_feature_weights(nlp_fast: Any) -> None:
    model = load_fragment_model()
    assert model is not None  # shipped: extractors/data/fragment_model.json
    lexicon = load_background().lexicon
    rows = [json.loads(line) for line in DATA.read_text(encoding="utf-8").splitlines()[:40]]
    compared = 0
    for row in rows:
        text, title_end = extraction_parts(row.get("title"), row.get("abstract", ""))
        stream = stream_from_doc(nlp_fast.tokenizer(text), lexicon, title_end, tagged=False)
        n = len(stream)
        for start in range(n):
            for end in range(start + 1, min(start + 4, n + 1)):
                for known in (False, True):
                    z = model.bias
                    for name in features(stream, start, end, known, title_end):
                        z += model.weights.get(name, 0.0)
                    assert model.decision(stream, start, end, known, title_end) == z  # exact
                    compared += 1
    assert compared > 10_000


def test_every_feature_prefix_has_a_table() -> None:
    model = load_fragment_model()
    assert model is not None
    named = {name.partition("=")[0] for name in model.weights}
    assert named <= set(model.by_prefix)
