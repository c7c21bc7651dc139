"""Tests for the keyphrase evaluation harness (kg.eval.evaluation).

Expected numbers are computed by hand in the comments next to each assertion, so a change
in the protocol (k-fixed precision, dedupe after stemming, present-only filtering, macro
averaging) makes a test fail rather than silently moving the figures.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest

from kg.eval import evaluation
from kg.eval.evaluation import (
    EvalPaper,
    EvalRow,
    Scores,
    format_table,
    is_present,
    load_eval_papers,
    run_timed,
    score,
    stem_phrase,
    tokenize,
    yake_predict,
)

pytestmark = pytest.mark.unit

DATA_DIR = Path(__file__).resolve().parents[1] / "data"  # holds a copy of shared/data/iclr2018.jsonl


def paper(
    keywords: Sequence[str],
    title: str = "Unrelated title",
    abstract: str = "Nothing relevant here.",
    paper_id: str = "p",
) -> EvalPaper:
    return EvalPaper(paper_id, title, abstract, tuple(keywords))


def _clear_caches() -> None:
    evaluation._porter.cache_clear()
    evaluation._stem_token.cache_clear()
    evaluation.stem_phrase.cache_clear()


# ------------------------------------------------------------------ tokenising/stemming


def test_tokenize_lowercases_and_splits_on_non_alphanumerics() -> None:
    text = "Learning-based Q-learning, $\\ell_2$ naïve_Bayes (GANs)"
    assert tokenize(text) == [
        "learning",
        "based",
        "q",
        "learning",
        "ell",
        "2",
        "naïve",
        "bayes",
        "gans",
    ]


def test_stemming_makes_number_case_and_hyphen_variants_equal() -> None:
    expected = ("neural", "network")
    assert stem_phrase("neural networks") == expected
    assert stem_phrase("Neural Network") == expected
    assert stem_phrase("neural-network") == expected
    assert stem_phrase("GANs") == stem_phrase("gan") == ("gan",)
    assert stem_phrase("reinforcement learning") == ("reinforc", "learn")
    assert stem_phrase(" -- ") == ()


def test_is_present_is_contiguous_and_does_not_cross_title_abstract_boundary() -> None:
    p = paper(["x"], title="Deep nets", abstract="Learning graph models. Results are good.")
    assert is_present("deep net", p)
    assert is_present("Graph Model", p)
    assert not is_present("learning models", p)  # not contiguous
    assert not is_present("good results", p)  # wrong order
    assert not is_present("nets learning", p)  # would span the title/abstract boundary
    assert not is_present("", p)


# ----------------------------------------------------------------------------- scoring


def test_dedupe_predictions_after_stemming() -> None:
    # preds stem to [neural network, graph] -> 1 hit.
    # F1@5: P = 1/5, R = 1/1 -> 2*0.2*1/1.2 = 1/3. F1@M: P = 1/2, R = 1 -> 2/3.
    # Without dedupe, "Neural Networks" would count as a second hit.
    s = score(
        [paper(["neural networks"])],
        [["neural network", "Neural Networks", "graph"]],
    )
    assert s.f1_at_5 == pytest.approx(100 / 3)
    assert s.f1_at_10 == pytest.approx(100 * 2 * 0.1 / 1.1)
    assert s.f1_at_m == pytest.approx(200 / 3)


def test_dedupe_gold_after_stemming() -> None:
    # gold stems to {gan, deep learn} (2, not 3). 1 hit.
    # F1@5: P = 0.2, R = 0.5 -> 0.2/0.7 = 28.571...; with 3 gold it would be 25.0.
    s = score([paper(["GAN", "GANs", "deep learning"])], [["Deep Learning"]])
    assert s.f1_at_5 == pytest.approx(100 * 0.2 / 0.7)


def test_precision_at_k_uses_fixed_k_with_fewer_predictions() -> None:
    # gold 4, preds 3 with 2 hits.
    # F1@5:  P = 2/5,  R = 2/4 -> 2*0.4*0.5/0.9 = 4/9
    # F1@10: P = 2/10, R = 2/4 -> 2*0.2*0.5/0.7 = 2/7
    # F1@M:  P = 2/3,  R = 2/4 -> 4/7
    s = score(
        [paper(["alpha", "beta", "gamma", "delta"])],
        [["alpha", "beta", "omega"]],
    )
    assert s.f1_at_5 == pytest.approx(100 * 4 / 9)
    assert s.f1_at_10 == pytest.approx(100 * 2 / 7)
    assert s.f1_at_m == pytest.approx(100 * 4 / 7)
    assert s.n_papers == 1


def test_rank_cutoff_and_f1_at_m_use_all_predictions() -> None:
    # The only hit is at rank 6: outside the top 5.
    # F1@5 = 0; F1@10: P = 0.1, R = 1 -> 0.2/1.1; F1@M: P = 1/6, R = 1 -> 2/7.
    preds = ["one", "two", "three", "four", "five", "target"]
    s = score([paper(["target"])], [preds])
    assert s.f1_at_5 == 0.0
    assert s.f1_at_10 == pytest.approx(100 * 0.2 / 1.1)
    assert s.f1_at_m == pytest.approx(100 * 2 / 7)


def test_no_hits_and_no_predictions_score_zero() -> None:
    s = score([paper(["alpha"]), paper(["beta"])], [["gamma"], []])
    assert (s.f1_at_5, s.f1_at_10, s.f1_at_m) == (0.0, 0.0, 0.0)
    assert s.n_papers == 2


def test_macro_average_over_two_papers() -> None:
    # A: gold 1, preds 1, 1 hit: F1@5 = 2*0.2*1/1.2 = 1/3;  F1@M = 1.
    # B: gold 4, preds 5, 1 hit: F1@5 = 2*0.2*0.25/0.45 = 2/9; F1@M the same (5 preds).
    # Macro F1@5 = (1/3 + 2/9)/2 = 5/18; macro F1@M = (1 + 2/9)/2 = 11/18.
    # (Micro would be P = 2/10, R = 2/5 -> 4/15: a different number.)
    a = paper(["alpha"], paper_id="a")
    b = paper(["beta", "gamma", "delta", "epsilon"], paper_id="b")
    s = score([a, b], [["alpha"], ["beta", "zeta", "eta", "theta", "iota"]])
    assert s.f1_at_5 == pytest.approx(100 * 5 / 18)
    assert s.f1_at_m == pytest.approx(100 * 11 / 18)
    assert s.n_papers == 2


def test_present_only_filters_gold_and_predictions_and_skips_papers_without_present_gold() -> None:
    p1 = paper(
        ["graph neural network", "drug discovery", "molecular data"],
        title="Graph neural networks for molecules",
        abstract="We train graph neural networks on molecular data. Results are good.",
        paper_id="p1",
    )
    p2 = paper(["quantum gravity"], paper_id="p2")  # no present gold at all
    preds = [["graph neural networks", "drug discovery", "good results"], []]
    s = score([p1, p2], preds)
    # p1 all gold: 2 hits of 3 gold. F1@10: P = 0.2, R = 2/3 -> 0.4*(2/3)/(0.2+2/3) = 4/13.
    # p2: 0. Macro F1@10 = (4/13)/2 = 2/13.
    assert s.f1_at_10 == pytest.approx(100 * 2 / 13)
    # p1 present gold = {graph neural network, molecular data}; present predictions =
    # [graph neural network] ("drug discovery" and "good results" are not in the text).
    # P = 1/10, R = 1/2 -> 0.1/0.6 = 1/6. p2 is excluded from the average, not a 0.
    assert s.present_f1_at_10 == pytest.approx(100 / 6)
    assert s.n_papers == 2
    assert s.n_present_papers == 1


def test_score_rejects_misaligned_inputs() -> None:
    with pytest.raises(ValueError, match="1 prediction lists for 2 papers"):
        score([paper(["a"]), paper(["b"])], [["a"]])


def test_papers_whose_gold_stems_to_nothing_are_not_scored() -> None:
    s = score([paper(["--"]), paper(["alpha"])], [["x"], ["alpha"]])
    # Only the second paper counts: F1@M = 1.
    assert s.n_papers == 1
    assert s.f1_at_m == pytest.approx(100.0)


def test_missing_nltk_gives_install_hint(monkeypatch: pytest.MonkeyPatch) -> None:
    _clear_caches()
    monkeypatch.setitem(sys.modules, "nltk.stem", None)
    try:
        with pytest.raises(RuntimeError, match=r"pip install 'paperkg\[eval\]'"):
            stem_phrase("some phrase never stemmed before")
    finally:
        monkeypatch.undo()
        _clear_caches()
    assert stem_phrase("networks") == ("network",)


def test_missing_yake_gives_install_hint(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "yake", None)
    with pytest.raises(RuntimeError, match=r"needs the eval extra"):
        yake_predict([paper(["a"])])


# ----------------------------------------------------------------------------- loading


def _write_jsonl(path: Path, lines: Sequence[str]) -> Path:
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _record(paper_id: str, abstract: str = "An abstract.", keywords: object = None) -> str:
    return json.dumps(
        {
            "id": paper_id,
            "title": f"Title {paper_id}",
            "abstract": abstract,
            "keywords": ["kw"] if keywords is None else keywords,
            "authors": ["Ada Lovelace"],
        }
    )


def test_loader_filters_sorts_strips_and_limits(tmp_path: Path) -> None:
    path = _write_jsonl(
        tmp_path / "papers.jsonl",
        [
            _record("b", keywords=["  Graph Learning ", "", "GNN"]),
            _record("no-kw", keywords=[]),
            _record("blank-kw", keywords=["  ", ""]),
            "",
            _record("no-abstract", abstract="   "),
            _record("a"),
            json.dumps({"id": "null-fields", "title": None, "abstract": None, "keywords": None}),
            json.dumps({"title": "no id and no keywords, as in paperlists' CVPR files", "abstract": "x"}),
        ],
    )
    papers = load_eval_papers(path)
    assert [p.id for p in papers] == ["a", "b"]
    assert papers[1] == EvalPaper("b", "Title b", "An abstract.", ("Graph Learning", "GNN"))
    assert [p.id for p in load_eval_papers(path, limit=1)] == ["a"]
    assert len(load_eval_papers(path, limit=50)) == 2


def test_loader_names_file_and_line_of_malformed_json(tmp_path: Path) -> None:
    path = _write_jsonl(tmp_path / "bad.jsonl", [_record("a"), _record("b"), '{"id": "c", '])
    with pytest.raises(ValueError, match=r"bad\.jsonl:3: malformed JSON"):
        load_eval_papers(path)


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("[1, 2]", "expected a JSON object"),
        ('{"title": "no id", "abstract": "x", "keywords": ["k"]}', "'id'"),
        ('{"id": "x", "abstract": 3, "keywords": ["k"]}', "'abstract' must be a string"),
        ('{"id": "x", "abstract": "x", "keywords": 12}', "'keywords' must be a list"),
    ],
)
def test_loader_rejects_wrongly_shaped_records(tmp_path: Path, line: str, message: str) -> None:
    path = _write_jsonl(tmp_path / "shape.jsonl", [_record("a"), line])
    with pytest.raises(ValueError, match=r"shape\.jsonl:2: ") as info:
        load_eval_papers(path)
    assert message in str(info.value)


def test_loader_rejects_non_positive_limit(tmp_path: Path) -> None:
    path = _write_jsonl(tmp_path / "papers.jsonl", [_record("a")])
    with pytest.raises(ValueError, match="limit"):
        load_eval_papers(path, limit=0)


# ---------------------------------------------------------------------- timing & table


def test_run_timed_scores_and_times_the_system() -> None:
    papers = [paper(["alpha"], paper_id="a"), paper(["beta"], paper_id="b")]
    calls: list[int] = []

    def system(ps: Sequence[EvalPaper]) -> list[list[str]]:
        calls.append(len(ps))
        return [[p.keywords[0]] for p in ps]

    row = run_timed("oracle", system, papers)
    assert calls == [2]
    assert row.name == "oracle"
    assert row.scores.f1_at_m == pytest.approx(100.0)
    assert row.scores.f1_at_5 == pytest.approx(100 / 3)
    assert row.seconds >= 0.0
    assert row.papers_per_s > 0.0


def _row(name: str, f1_10: float, per_s: float) -> EvalRow:
    return EvalRow(name, Scores(20.0, f1_10, 30.5, 25.25, 3), 1.0, per_s)


def test_format_table_side_by_side_with_yake_ratio() -> None:
    table = format_table([_row("mine", 30.0, 12.345), _row("yake", 15.0, 45.0)])
    lines = table.splitlines()
    assert [c.strip() for c in lines[0].split("|")] == [
        "system",
        "F1@5",
        "F1@10",
        "F1@M",
        "present F1@10",
        "papers/s",
    ]
    assert [c.strip() for c in lines[2].split("|")] == [
        "mine",
        "20.0",
        "30.0",
        "30.5",
        "25.2",
        "12.3",
    ]
    assert [c.strip() for c in lines[3].split("|")][:3] == ["yake", "20.0", "15.0"]
    assert lines[-1] == "F1@10 mine / yake: 2.00x"
    assert len({len(line) for line in lines[:4]}) == 1  # columns aligned


def test_format_table_without_yake_or_with_yake_first_has_no_ratio_line() -> None:
    assert "yake:" not in format_table([_row("mine", 30.0, 1.0)])
    assert "yake:" not in format_table([_row("yake", 15.0, 1.0), _row("mine", 30.0, 1.0)])


# ------------------------------------------------------------------------------ YAKE


ABSTRACT = (
    "We study graph neural networks for molecular property prediction. Graph neural "
    "networks learn representations of molecules from their atoms and bonds. Our message "
    "passing architecture improves molecular property prediction on standard benchmarks."
)


def test_yake_predict_returns_ranked_keywords_like_yake_defaults() -> None:
    yake = pytest.importorskip("yake")
    p = paper(["graph neural networks"], title="Message passing for molecules", abstract=ABSTRACT)
    direct = yake.KeywordExtractor(lan="en", n=3, top=10).extract_keywords(f"{p.title}. {p.abstract}")
    direct_ranked = [kw for kw, _ in sorted(direct, key=lambda pair: pair[1])]
    (predicted,) = yake_predict([p])
    assert predicted == direct_ranked
    assert 0 < len(predicted) <= 10
    assert all(isinstance(kw, str) for kw in predicted)
    assert stem_phrase("graph neural networks") in {stem_phrase(kw) for kw in predicted}
    assert len(yake_predict([p], top=3)[0]) == 3


@pytest.mark.slow
def test_yake_reproduces_readme_reference_on_first_300_iclr2018_papers() -> None:
    pytest.importorskip("yake")
    path = DATA_DIR / "iclr2018.jsonl"
    if not path.exists():
        pytest.skip(f"reference data not available: {path}")
    papers = load_eval_papers(path, limit=300)
    s = score(papers, yake_predict(papers))
    # README: YAKE 0.7.3 defaults, top 10, first 300 by id: F1@5 14.5 / F1@10 14.3.
    assert s.n_papers == 300
    assert s.f1_at_5 == pytest.approx(14.5, abs=0.3)
    assert s.f1_at_10 == pytest.approx(14.3, abs=0.3)
