"""Train the concept re-ranker (``extractors/data/ranker.json``) on author keywords.

Training data: the papers with abstract and author keywords of ``--data-dir`` (default
``../shared/data``) whose keywords are the authors' own: ICLR 2018, COLM 2024, CoRL 2021-2025
and 3DV 2025. (ICLR 2017 and IJCAI list the conference's fixed topic categories, and NeurIPS
2023 is the keyword prior of ``background_df.json``, so none of them is used.) These include
the evaluation sets, so the figures that count are the **leave-one-venue-out** ones this
script prints: the model trained without a venue, scored on that venue, beside the hand-set
order on the same candidates. ``kg eval-concepts`` on a training venue is in-sample.

Each paper's candidates (fast mode, hand-set ranking, ranker off) get the features of
:mod:`extractors.concepts.ranker` and label 1 when their surface form stems to one of the
paper's keywords (the ``kg eval-concepts`` match). A logistic regression (L2, Newton steps,
numpy only) is fitted on every venue for the shipped model.

Usage::

    python scripts/train_ranker.py [--data-dir ../shared/data] [--out extractors/data/ranker.json]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np
from spacy.tokenizer import Tokenizer

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import extractors.concepts.analysis as analysis_module  # noqa: E402
from extractors.concepts.analysis import analyse, static_part  # noqa: E402
from extractors.concepts.background import load_background  # noqa: E402
from extractors.concepts.ranker import DEFAULT_RANKER, FEATURES, features  # noqa: E402
from extractors.concepts.vocabulary import default_vocabulary  # noqa: E402
from extractors.text import extraction_text, title_length  # noqa: E402
from kg.eval.dev_sets import DEV_SETS  # noqa: E402
from kg.eval.evaluation import EvalPaper, load_eval_papers, stem_phrase  # noqa: E402
from kg.eval.logistic import fit_logistic  # noqa: E402
from kg.ingest.nlp import load_nlp  # noqa: E402

L2 = 1.0

Rows = list[tuple[list[list[float]], list[int], int]]  # per paper: features, labels, gold count


def collect(papers: list[EvalPaper]) -> Rows:
    """Features and labels of every paper's candidates (hand-set ranking)."""
    analysis_module.RANKER_ENABLED = False
    tokenizer: Tokenizer = load_nlp(mode="fast").tokenizer  # spaCy types it as any Callable[[str], Doc]
    vocab = default_vocabulary(tokenizer)
    background = load_background()
    texts = [extraction_text(p.title or None, p.abstract) for p in papers]
    out: Rows = []
    for p, text, doc in zip(papers, texts, tokenizer.pipe(texts, batch_size=256), strict=True):
        a = analyse(doc, text, title_length(p.title or None), vocab, background)
        gold = {stem_phrase(k) for k in p.keywords} - {()}
        xs: list[list[float]] = []
        ys: list[int] = []
        seen: set[tuple[str, ...]] = set()
        for c in a.top():
            stems = stem_phrase(c.surface or c.name)
            if not stems or stems in seen:
                continue
            seen.add(stems)
            xs.append(features(a, c, background, static_part(c.key, background)))
            ys.append(int(stems in gold))
        out.append((xs, ys, len(gold)))
    return out


def fit(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    """Standardised L2 logistic regression by Newton's method: (mean, scale, weights, bias)."""
    return fit_logistic(x, y, l2=L2, iterations=25, tolerance=1e-6)


def f1_at_10(rows: Rows, order: list[np.ndarray]) -> float:
    """Macro F1@10 (fixed denominator 10) of each paper's candidates taken in ``order``."""
    total = 0.0
    for (_, ys, n_gold), idx in zip(rows, order, strict=True):
        hits = sum(ys[i] for i in idx[:10])
        p, r = hits / 10, hits / n_gold if n_gold else 0.0
        total += 2 * p * r / (p + r) if p + r else 0.0
    return 100 * total / max(len(rows), 1)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data-dir", type=Path, default=Path("../shared/data"))
    parser.add_argument("--out", type=Path, default=DEFAULT_RANKER)
    args = parser.parse_args(argv)
    by_venue: dict[str, Rows] = {}
    for venue, files in DEV_SETS.items():
        papers = [p for name in files for p in load_eval_papers(args.data_dir / name)]
        by_venue[venue] = [r for r in collect(papers) if r[0] and r[2]]
        print(f"{venue}: {len(by_venue[venue])} papers")
    cv: dict[str, dict[str, float]] = {}
    for venue, test in by_venue.items():
        train = [r for v, rs in by_venue.items() if v != venue for r in rs]
        x = np.array([v for xs, _, _ in train for v in xs])
        y = np.array([v for _, ys, _ in train for v in ys], dtype=float)
        mean, scale, w, b = fit(x, y)
        base = f1_at_10(test, [np.arange(len(xs)) for xs, _, _ in test])
        order = [np.argsort(-(((np.array(xs) - mean) / scale) @ w + b), kind="stable") for xs, _, _ in test]
        model_f1 = f1_at_10(test, order)
        cv[venue] = {"hand_set": round(base, 2), "ranker": round(model_f1, 2)}
        print(f"held out {venue}: F1@10 of the candidates, hand-set {base:.2f}, ranker {model_f1:.2f}")
    rows = [r for rs in by_venue.values() for r in rs]
    x = np.array([v for xs, _, _ in rows for v in xs])
    y = np.array([v for _, ys, _ in rows for v in ys], dtype=float)
    mean, scale, w, b = fit(x, y)
    model = {
        "features": list(FEATURES),
        "mean": [round(float(v), 6) for v in mean],
        "scale": [round(float(v), 6) for v in scale],
        "weights": [round(float(v), 6) for v in w],
        "bias": round(b, 6),
        "provenance": {
            "trainer": "scripts/train_ranker.py",
            "venues": {v: list(f) for v, f in DEV_SETS.items()},
            "papers": len(rows),
            "candidates": len(y),
            "positives": int(y.sum()),
            "l2": L2,
            "leave_one_venue_out_f1_at_10": cv,
        },
    }
    args.out.write_text(json.dumps(model, indent=1) + "\n", encoding="utf-8")
    print("weights:", ", ".join(f"{n} {v:+.2f}" for n, v in zip(FEATURES, w, strict=True)))
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
