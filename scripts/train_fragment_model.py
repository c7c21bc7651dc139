"""Train fast mode's fragment model (``extractors/data/fragment_model.json``).

What it learns: whether spaCy's parse reads an occurrence of a candidate phrase as a complete
noun phrase (:func:`extractors.concepts.completeness.incomplete`, the accurate mode's rule and
the fragment rate's definition), from the fast mode's token stream alone
(:func:`extractors.concepts.fragment_model.features`).

Training data: ``--per-file`` papers with a title and an abstract from each of ``FILES``,
paperlists venues of ``--data-dir`` that are not evaluation sets (the evaluation sets are ICLR
2018, COLM 2024 and CoRL; NeurIPS 2023 is the background's keyword prior). Every occurrence of
each paper's 15 best candidates (fast mode, this model off; defined, introduced and named ones
left out, as the extractor never demotes them) is one example, labelled by the parse of the
same text. No author keywords are used, so no evaluation label leaks in.

Model: L2 logistic regression over binary features seen at least ``MIN_COUNT`` times, fitted by
full-batch Adagrad in numpy. Printed: 5-fold cross-validated (folds by paper) AUC, and the
precision and recall of "fragment" at a few thresholds. The shipped threshold is
``--threshold``.

Usage::

    python scripts/train_fragment_model.py [--data-dir ../shared/data] [--per-file 500]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections import Counter
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import extractors.concepts.analysis as analysis_module  # noqa: E402
from extractors.concepts.analysis import analyse, is_known_term  # noqa: E402
from extractors.concepts.background import load_background  # noqa: E402
from extractors.concepts.completeness import incomplete  # noqa: E402
from extractors.concepts.fragment_model import DEFAULT_FRAGMENT_MODEL, features  # noqa: E402
from extractors.concepts.vocabulary import default_vocabulary  # noqa: E402
from extractors.text import extraction_parts  # noqa: E402
from kg.ingest.nlp import load_nlp  # noqa: E402

FILES = (
    "paperlists/icml/icml2019.json",
    "paperlists/nips/nips2018.json",
    "paperlists/acl/acl2022.json",
    "paperlists/cvpr/cvpr2019.json",
    "paperlists/iclr/iclr2017.json",
    "paperlists/icra/icra2023.json",
    "paperlists/aaai/aaai2022.json",
    "paperlists/naacl/naacl2024.json",
    "paperlists/eccv/eccv2022.json",
)
TOP = 15
MIN_COUNT = 3
L2 = 1e-4
STEPS = 400

Example = tuple[list[str], int, int]  # features, label, paper


def examples(data_dir: Path, per_file: int) -> list[Example]:
    """Features and parse labels of the top candidates' occurrences (see the module docstring)."""
    rng = random.Random(0)
    papers: list[dict[str, str]] = []
    for name in FILES:
        rows = [
            r
            for r in json.loads((data_dir / name).read_text(encoding="utf-8"))
            if r.get("abstract") and r.get("title")
        ]
        rng.shuffle(rows)
        papers += rows[:per_file]
    fast, accurate = load_nlp(mode="fast"), load_nlp(mode="accurate")
    background = load_background()
    vocab = default_vocabulary(fast.tokenizer)
    parts = [extraction_parts(p["title"], p["abstract"]) for p in papers]
    out: list[Example] = []
    analysis_module.FRAGMENT_MODEL_ENABLED = False  # the candidates as they are without the model
    parses = accurate.pipe([t for t, _ in parts], batch_size=64)
    for i, ((text, title_end), parsed) in enumerate(zip(parts, parses, strict=True)):
        a = analyse(fast.tokenizer(text), text, title_end, vocab, background, tokens_only=True)
        stream = a.stream
        for c in a.candidates[:TOP]:
            if c.defined or c.introduced or c.named:
                continue
            known = is_known_term(c, background)
            for s, e in c.spans:
                span = parsed.char_span(stream.starts[s], stream.ends[e - 1], alignment_mode="expand")
                if span is not None:
                    out.append((features(stream, s, e, known, title_end), int(incomplete(span, known)), i))
    print(
        f"{len(papers)} papers, {len(out)} occurrences, {sum(y for _, y, _ in out)} not complete noun phrases"
    )
    return out


def fit(rows: np.ndarray, cols: np.ndarray, y: np.ndarray, n_features: int) -> tuple[np.ndarray, float]:
    """L2 logistic regression on binary features (example ``rows[k]`` has feature ``cols[k]``)."""
    w = np.zeros(n_features)
    b = 0.0
    gw = np.full(n_features, 1e-8)
    gb = 1e-8
    n = len(y)
    for _ in range(STEPS):
        z = b + np.bincount(rows, weights=w[cols], minlength=n)
        err = 1.0 / (1.0 + np.exp(-np.clip(z, -30, 30))) - y
        grad = np.bincount(cols, weights=err[rows], minlength=n_features) / n + L2 * w
        grad_b = float(err.mean())
        gw += grad * grad
        gb += grad_b * grad_b
        w -= 0.5 * grad / np.sqrt(gw)
        b -= 0.5 * grad_b / np.sqrt(gb)
    return w, b


def predict(rows: np.ndarray, cols: np.ndarray, n: int, w: np.ndarray, b: float) -> np.ndarray:
    z = b + np.bincount(rows, weights=w[cols], minlength=n)
    p: np.ndarray = 1.0 / (1.0 + np.exp(-np.clip(z, -30, 30)))
    return p


def auc(y: np.ndarray, p: np.ndarray) -> float:
    order = np.argsort(p)
    ranks = np.empty(len(p))
    ranks[order] = np.arange(1, len(p) + 1)
    pos = y == 1
    return float((ranks[pos].sum() - pos.sum() * (pos.sum() + 1) / 2) / (pos.sum() * (~pos).sum()))


def encode(data: list[Example], index: dict[str, int]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rows: list[int] = []
    cols: list[int] = []
    for r, (names, _, _) in enumerate(data):
        for name in names:
            j = index.get(name)
            if j is not None:
                rows.append(r)
                cols.append(j)
    return np.array(rows), np.array(cols), np.array([y for _, y, _ in data], dtype=float)


def vocabulary_of(data: list[Example]) -> dict[str, int]:
    counts = Counter(name for names, _, _ in data for name in names)
    return {name: i for i, name in enumerate(sorted(k for k, v in counts.items() if v >= MIN_COUNT))}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data-dir", type=Path, default=Path("../shared/data"))
    parser.add_argument("--per-file", type=int, default=500)
    parser.add_argument("--threshold", type=float, default=0.2)
    parser.add_argument("--out", type=Path, default=DEFAULT_FRAGMENT_MODEL)
    args = parser.parse_args(argv)

    data = examples(args.data_dir, args.per_file)
    papers = sorted({g for _, _, g in data})
    fold_of = {g: k % 5 for k, g in enumerate(random.Random(1).sample(papers, len(papers)))}
    scores = np.zeros(len(data))
    for fold in range(5):
        train = [d for d in data if fold_of[d[2]] != fold]
        held = [k for k, d in enumerate(data) if fold_of[d[2]] == fold]
        index = vocabulary_of(train)
        w, b = fit(*encode(train, index), len(index))
        rows, cols, _ = encode([data[k] for k in held], index)
        scores[held] = predict(rows, cols, len(held), w, b)
    y = np.array([label for _, label, _ in data], dtype=float)
    cv = {"auc": round(auc(y, scores), 4)}
    print(f"5-fold CV (by paper): AUC {cv['auc']}")
    for t in (0.1, 0.2, 0.3, 0.5):
        chosen = scores > t
        precision = float(y[chosen].mean()) if chosen.any() else 0.0
        recall = float(chosen[y == 1].mean())
        cv[f"precision@{t}"], cv[f"recall@{t}"] = round(precision, 3), round(recall, 3)
        print(f"  threshold {t}: precision {precision:.3f}, recall {recall:.3f}")

    index = vocabulary_of(data)
    w, b = fit(*encode(data, index), len(index))
    weights = {name: round(float(w[j]), 4) for name, j in index.items() if abs(w[j]) >= 0.01}
    model = {
        "provenance": {
            "script": "scripts/train_fragment_model.py",
            "files": list(FILES),
            "per_file": args.per_file,
            "examples": len(data),
            "label": "extractors.concepts.completeness.incomplete on the accurate parse",
            "cross_validated": cv,
            "threshold_chosen_on": "fragment rate and F1@10 of the dev sets (bench/concepts.py)",
        },
        "bias": round(b, 4),
        "threshold": args.threshold,
        "weights": dict(sorted(weights.items())),
    }
    args.out.write_text(json.dumps(model, indent=0, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {args.out}: {len(weights)} weights")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
