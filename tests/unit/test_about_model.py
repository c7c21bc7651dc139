"""The learned ``about`` decision (:mod:`extractors.concepts.about_model`): loading a model file,
falling back to the hand-set rule without one, and a decision it changes as ``concept(K).papers``
reads it through the GraphQL schema on a SQLite store."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from api.concept_eval import SchemaReader, concept_papers
from extractors.concepts.about_model import ABOUT_FEATURES, AboutModel, about_model_of, load_about_model
from kg.core.config import Settings
from kg.core.errors import ExtractionError
from kg.core.models import PaperRecord, RawPaper
from kg.ingest.pipeline import Pipeline
from kg.stores.sqlite import SQLiteStore

# "point clouds": once, in the abstract's first sentence (salience 0.15: passing by the rule);
# "knowledge distillation": once, in the last sentence (salience 0); "imitation learning" opens
# the abstract (about by the rule).
PAPER = (
    "Diffusion Policies for Deformable Object Manipulation",
    "Imitation learning from human demonstrations recorded as point clouds is a common way to teach "
    "robots new skills. We propose a diffusion policy that folds cloth and ropes from a few "
    "demonstrations. The policy denoises action sequences conditioned on the scene and runs at 10 Hz "
    "on a real robot. We compress the policy by knowledge distillation for deployment.",
)


def model_file(path: Path, *, salience_weight: float, bias: float, threshold: float = 0.5) -> Path:
    """A model whose probability depends on salience alone: sigmoid(w * salience + bias)."""
    n = len(ABOUT_FEATURES)
    weights = [salience_weight if f == "salience" else 0.0 for f in ABOUT_FEATURES]
    data = {
        "features": list(ABOUT_FEATURES),
        "mean": [0.0] * n,
        "scale": [1.0] * n,
        "weights": weights,
        "bias": bias,
        "threshold": threshold,
        "keep_threshold": threshold,
        "provenance": {"trainer": "tests/unit/test_about_model.py"},
    }
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def record(pipeline: Pipeline) -> PaperRecord:
    records, problems = pipeline.build([RawPaper(file="t.jsonl", line=1, title=PAPER[0], abstract=PAPER[1])])
    assert not problems
    return records[0]


def about_by_surface(r: PaperRecord) -> dict[str, bool]:
    return {
        str(rel.properties["surface"]): bool(rel.properties["about"])
        for rel in r.relationships
        if rel.type == "MENTIONS" and not rel.properties.get("predicted")
    }


def test_a_model_file_loads_with_its_thresholds(tmp_path: Path) -> None:
    model = load_about_model(model_file(tmp_path / "m.json", salience_weight=10.0, bias=-1.0, threshold=0.4))
    assert isinstance(model, AboutModel)
    assert (
        model.threshold == 0.4 and model.keep_threshold == 0.4 and len(model.weights) == len(ABOUT_FEATURES)
    )
    x = [0.0] * len(ABOUT_FEATURES)
    x[ABOUT_FEATURES.index("salience")] = 0.15
    assert model.probability(x) == pytest.approx(1 / (1 + 2.718281828459045**-0.5))


def test_a_missing_or_foreign_model_file_leaves_the_rule(tmp_path: Path, nlp_fast: object) -> None:
    assert load_about_model(tmp_path / "absent.json") is None
    foreign = tmp_path / "foreign.json"
    foreign.write_text(
        json.dumps(
            {"features": ["salience"], "mean": [0], "scale": [1], "weights": [1], "bias": 0, "threshold": 0.5}
        )
    )
    assert load_about_model(foreign) is None
    assert about_model_of({"about_model": None}) is None
    assert about_model_of({"about_model": "not a model"}) is None
    rule = record(Pipeline(nlp=nlp_fast, mode="fast", context={"about_model": None}))  # type: ignore[arg-type]
    default = record(Pipeline(nlp=nlp_fast, mode="fast"))  # type: ignore[arg-type]
    if about_model_of({}) is None:  # no model file shipped: the default is the rule
        assert default.model_dump() == rule.model_dump()
    decided = about_by_surface(rule)
    assert decided["point clouds"] is False and decided["knowledge distillation"] is False


def test_the_model_decides_what_concept_papers_lists(tmp_path: Path, nlp_fast: object) -> None:
    # sigmoid(10 * salience - 1) >= 0.5 from salience 0.1: the first-sentence mention becomes about.
    model = load_about_model(model_file(tmp_path / "m.json", salience_weight=10.0, bias=-1.0))
    assert model is not None
    learned = record(Pipeline(nlp=nlp_fast, mode="fast", context={"about_model": model}))  # type: ignore[arg-type]
    decided = about_by_surface(learned)
    assert decided["point clouds"] is True
    assert decided["knowledge distillation"] is False
    assert decided["Imitation learning"] is True
    store = SQLiteStore(tmp_path / "store")
    try:
        store.upsert([learned])
        reader = SchemaReader(store, Settings(backend="sqlite"))
        assert concept_papers(reader, "point clouds") == {learned.paper.id}
        assert concept_papers(reader, "knowledge distillation") == set()
    finally:
        store.close()
    rule = record(Pipeline(nlp=nlp_fast, mode="fast", context={"about_model": None}))  # type: ignore[arg-type]
    store = SQLiteStore(tmp_path / "rule")
    try:
        store.upsert([rule])
        assert concept_papers(SchemaReader(store, Settings(backend="sqlite")), "point clouds") == set()
    finally:
        store.close()


# "point clouds" in two sentences, neither the first (salience 0.1: passing by the rule);
# "knowledge distillation" once, in the last sentence.
TWICE = (
    PAPER[0],
    "Imitation learning from human demonstrations is a common way to teach robots new skills. We "
    "propose a diffusion policy that folds cloth and ropes from a few demonstrations. The policy "
    "denoises action sequences conditioned on point clouds and runs at 10 Hz on a real robot. Point "
    "clouds from one depth camera suffice, and we compress the policy by knowledge distillation for "
    "deployment.",
)


def test_the_shipped_model_decides_a_known_pair_through_the_api(tmp_path: Path, nlp_fast: object) -> None:
    shipped = load_about_model()
    assert shipped is not None, "extractors/data/about_model.json is shipped"
    assert shipped.hard_rules and shipped.keep_strong
    raw = RawPaper(file="t.jsonl", line=1, title=TWICE[0], abstract=TWICE[1])
    for context, expected in (({}, True), ({"about_model": None}, False)):
        records, _ = Pipeline(nlp=nlp_fast, mode="fast", context=dict(context)).build([raw])  # type: ignore[arg-type]
        decided = about_by_surface(records[0])
        assert decided["point clouds"] is expected
        assert decided["knowledge distillation"] is False  # one sentence: never promoted
        assert decided["Imitation learning"] is True
        store = SQLiteStore(tmp_path / str(expected))
        try:
            store.upsert(records)
            reader = SchemaReader(store, Settings(backend="sqlite"))
            listed = {records[0].paper.id} if expected else set()
            assert concept_papers(reader, "point clouds") == listed
            assert concept_papers(reader, "knowledge distillation") == set()
        finally:
            store.close()


def test_a_damaged_model_file_is_one_clear_error(tmp_path: Path) -> None:
    """A model file whose numbers are not numbers stops extraction with a line naming the field,
    not an assertion or a TypeError deep in the decision."""
    path = model_file(tmp_path / "m.json", salience_weight=1.0, bias=0.0, threshold=0.5)
    data = json.loads(path.read_text())
    data["weights"] = "not numbers"
    path.write_text(json.dumps(data))
    with pytest.raises(ExtractionError, match="weights is not a list of numbers"):
        load_about_model(path)
