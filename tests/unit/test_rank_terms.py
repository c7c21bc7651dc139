"""The re-ranker's precomputed addends give exactly the probability of the feature vector."""

from __future__ import annotations

import json
from pathlib import Path

from extractors.concepts.analysis import rank_terms, static_part
from extractors.concepts.background import load_background
from extractors.concepts.extract import paper_analysis
from extractors.concepts.ranker import FEATURES, features, load_ranker
from extractors.concepts.vocabulary import default_vocabulary
from extractors.registry import ExtractInput
from extractors.text import extraction_text
from kg.core.models import RawPaper
from kg.ingest.nlp import load_nlp

DATA = Path(__file__).resolve().parents[1] / "data" / "iclr2018.jsonl"


def test_rank_terms_equal_the_feature_vector_bit_for_bit() -> None:
    ranker = load_ranker()
    assert ranker is not None  # the shipped model (extractors/data/ranker.json)
    nlp = load_nlp(mode="fast")
    vocab = default_vocabulary(nlp.tokenizer)
    background = load_background()
    terms = rank_terms(ranker, background)
    rows = [json.loads(line) for line in DATA.read_text(encoding="utf-8").splitlines()[:60]]
    papers = [
        RawPaper(file="t", line=i, title=r.get("title"), abstract=r.get("abstract", ""))
        for i, r in enumerate(rows)
    ]
    papers.append(
        RawPaper(file="t", line=0, title="Ça marche", abstract="Élève naïve: GPT-4 (G4) and G4 on GSM8K.")
    )
    compared = 0
    for paper in papers:
        text = extraction_text(paper.title, paper.abstract)
        x = ExtractInput(
            paper=paper, paper_id="p", doc=nlp.tokenizer(text), text=text, context={"vocabulary": vocab}
        )
        analysis = paper_analysis(x)
        assert analysis is not None
        for c in analysis.candidates:
            vector = features(analysis, c, background, static_part(c.key, background))
            p, generic = terms.probability(analysis, c)
            assert p == ranker.probability(vector)  # exact, not approximate
            assert generic == bool(vector[FEATURES.index("generic")])
            compared += 1
    assert compared > 500
    assert rank_terms(ranker, background) is terms  # one table while ranker and background stay
