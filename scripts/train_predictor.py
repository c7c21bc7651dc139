"""Train the PREDICTED-concept model (``extractors/data/predictor.npz``) and cross-validate it.

Training data (``--data-dir``, default ``../shared/data``): papers with an abstract and author
keywords -- ICLR 2017 and 2018, COLM 2024, CoRL 2021-2025, 3DV 2025 (``--ijcai`` adds IJCAI
2020-2024, whose keywords are the conference's fixed "Area: AB: topic" list; the topic part
is used). Labels: each keyword mapped to a vocabulary concept through the vocabulary's own
phrase index (:func:`extractors.concepts.vocabulary.phrase_key`), so "Deep Learning", "deep
learning" and "DL" are one label. Features: :func:`extractors.concepts.predicted.key_terms` of
the text the extractor sees, terms in at least ``--min-df`` papers, rows L2-normalised.

Model: per concept with at least ``--min-support`` positive papers, an L2 logistic regression
(scikit-learn ``liblinear``, seeded), its weights pruned to the ``--keep`` largest in
magnitude; then a Platt calibration of the pruned model's scores, fitted on out-of-fold
scores (``--calib-folds``). scikit-learn is a training-only dependency (``pip install -e
'.[train]'``); extraction reads the file with numpy alone.

Figures (``--cv``), F1@10 against author keywords of each dev set (``bench/concepts.py``'s
DEV_SETS), without and with PREDICTED concepts merged into the extractor's own list exactly as
the extractor emits them and ranked as ``Paper.keyConcepts`` ranks them
(:func:`kg.read.key_concepts.rank_key`); the extractor's text mentions are computed once with
the predictor off:

* k-fold within each dev set: train on the other folds plus every other training paper,
  score the held-out fold;
* leave-one-venue-out: train without the dev set, score it.

Usage::

    python scripts/train_predictor.py [--data-dir ../shared/data] [--out extractors/data/predictor.npz]
                                      [--cv] [--folds 5] [--no-train]
"""

from __future__ import annotations

import os

# One BLAS thread: on a shared machine, spinning BLAS threads made a 30 s training take 20 min.
for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import json  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from collections import Counter  # noqa: E402
from dataclasses import dataclass, replace  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

import numpy as np  # noqa: E402
import numpy.typing as npt  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from extractors.concepts.predicted import (  # noqa: E402
    DEFAULT_PREDICTOR,
    SCORE_SCALE,
    ConceptPredictor,
    doc_terms,
    predicted_mentions,
)
from extractors.concepts.vocabulary import Vocabulary, default_vocabulary, phrase_key  # noqa: E402
from extractors.text import extraction_parts  # noqa: E402
from kg.core.models import PaperRecord, Properties, RawPaper  # noqa: E402
from kg.eval.dev_sets import DEV_SETS, SHARED_DATA  # noqa: E402
from kg.eval.evaluation import EvalPaper, load_eval_papers, score  # noqa: E402
from kg.ingest.nlp import load_nlp  # noqa: E402
from kg.read.key_concepts import KeyConcept, key_concept, rank_key  # noqa: E402

SEED = 20261203
OTHER_SETS: dict[str, tuple[str, ...]] = {"ICLR 2017": ("paperlists/iclr/iclr2017.json",)}
IJCAI: dict[str, tuple[str, ...]] = {
    "IJCAI 2020-2024": tuple(f"paperlists/ijcai/ijcai{y}.json" for y in range(2020, 2025))
}

MIN_PROBABILITY = 0.25  # below this a prediction adds more misses than hits to a top 10 (see --cv)
ABOUT_PROBABILITY = 0.6  # from here a prediction is confident enough to rank among what the paper is about
MAX_PREDICTED = 4


@dataclass
class Pool:
    """The training papers: venue, paper, features and concept labels, one entry each."""

    venues: list[str]
    papers: list[EvalPaper]
    terms: list[set[str]]
    labels: list[set[str]]


def ijcai_topics(keywords: tuple[str, ...]) -> tuple[str, ...]:
    """The topic part of IJCAI's "Area: AB: topic" keywords."""
    return tuple(k.rsplit(":", 1)[-1].strip() for k in keywords)


def load_pool(data_dir: Path, sets: dict[str, tuple[str, ...]], vocab: Vocabulary, nlp: Any) -> Pool:
    """Every usable paper of ``sets``, each title once (the first venue listing it keeps it)."""
    pool = Pool([], [], [], [])
    seen: set[str] = set()
    for venue, files in sets.items():
        for name in files:
            for p in load_eval_papers(data_dir / name):
                key = " ".join(p.title.lower().split())
                if key in seen:
                    continue
                seen.add(key)
                text, _ = extraction_parts(p.title, p.abstract)
                keywords = ijcai_topics(p.keywords) if venue.startswith("IJCAI") else p.keywords
                labels = {cid for kw in keywords if (cid := vocab.index.get(phrase_key(nlp.tokenizer, kw)))}
                pool.venues.append(venue)
                pool.papers.append(p)
                pool.terms.append(doc_terms(nlp.tokenizer(text)))
                pool.labels.append(labels)
    return pool


def design(terms: list[set[str]], vocabulary: list[str]) -> Any:
    """Binary term matrix, rows L2-normalised (CSR), over ``vocabulary``."""
    from scipy.sparse import csr_matrix

    index = {t: i for i, t in enumerate(vocabulary)}
    indptr, cols = [0], []
    for ts in terms:
        cols.extend(sorted(index[t] for t in ts if t in index))
        indptr.append(len(cols))
    data = np.ones(len(cols))
    lengths = np.diff(indptr)
    data /= np.sqrt(np.repeat(np.maximum(lengths, 1), lengths))
    return csr_matrix(
        (data, np.asarray(cols, dtype=np.int64), np.asarray(indptr)), shape=(len(terms), len(vocabulary))
    )


def fit_raw(
    x: Any, y: npt.NDArray[np.bool_], c: float, keep: int
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """Pruned weights (terms x concepts, dense) and biases of one-vs-rest logistic regressions."""
    from sklearn.linear_model import LogisticRegression

    n_terms, n_concepts = x.shape[1], y.shape[1]
    w = np.zeros((n_terms, n_concepts))
    b = np.zeros(n_concepts)
    for j in range(n_concepts):
        if not y[:, j].any():
            b[j] = -10.0
            continue
        lr = LogisticRegression(C=c, solver="liblinear", random_state=SEED, max_iter=200)
        lr.fit(x, y[:, j])
        coef = lr.coef_[0]
        if keep < n_terms:
            coef = np.where(np.abs(coef) >= np.sort(np.abs(coef))[-keep], coef, 0.0)
        w[:, j] = coef
        b[j] = float(lr.intercept_[0])
    return w, b


def platt(scores: npt.NDArray[np.float64], y: npt.NDArray[np.bool_]) -> tuple[float, float]:
    """Platt scaling ``(a, b)`` of one concept's out-of-fold scores (Platt's target smoothing)."""
    from sklearn.linear_model import LogisticRegression

    pos = int(y.sum())
    neg = len(y) - pos
    if pos == 0:
        return 1.0, -10.0
    targets = np.where(y, (pos + 1) / (pos + 2), 1 / (neg + 2))
    # Fit on the smoothed targets via sample weights: each row once as 1 and once as 0.
    xs = np.concatenate([scores, scores])[:, None]
    ys = np.concatenate([np.ones(len(y)), np.zeros(len(y))])
    ws = np.concatenate([targets, 1 - targets])
    lr = LogisticRegression(C=1e4, random_state=SEED)
    lr.fit(xs, ys, sample_weight=ws)
    return float(lr.coef_[0][0]), float(lr.intercept_[0])


def folds_of(n: int, k: int, seed: int = SEED) -> list[npt.NDArray[np.int64]]:
    """``k`` disjoint index sets covering ``range(n)``, seeded."""
    order = np.random.default_rng(seed).permutation(n)
    return [np.sort(order[i::k]) for i in range(k)]


def train(
    pool: Pool, rows: npt.NDArray[np.int64], args: argparse.Namespace, provenance: str
) -> ConceptPredictor:
    """A calibrated, pruned model trained on ``pool``'s papers at ``rows``."""
    df = Counter(t for i in rows for t in pool.terms[i])
    vocabulary = sorted(t for t, n in df.items() if n >= args.min_df)
    support = Counter(c for i in rows for c in pool.labels[i])
    concepts = sorted(c for c, n in support.items() if n >= args.min_support)
    x = design([pool.terms[i] for i in rows], vocabulary)
    y = np.array([[c in pool.labels[i] for c in concepts] for i in rows], dtype=bool).reshape(
        len(rows), len(concepts)
    )
    oof = np.zeros(y.shape)
    for held in folds_of(len(rows), args.calib_folds):
        rest = np.setdiff1d(np.arange(len(rows)), held)
        w, b = fit_raw(x[rest], y[rest], args.c, args.keep)
        oof[held] = x[held] @ w + b
    calib = [platt(oof[:, j], y[:, j]) for j in range(len(concepts))]
    w, b = fit_raw(x, y, args.c, args.keep)
    used = np.flatnonzero(np.abs(w).sum(axis=1) > 0)
    w = w[used]
    indptr = [0]
    indices: list[int] = []
    data: list[float] = []
    for row in w:
        nz = np.flatnonzero(row)
        indices.extend(int(j) for j in nz)
        data.extend(float(v) for v in row[nz].astype(np.float16))
        indptr.append(len(indices))
    return ConceptPredictor(
        terms={vocabulary[int(i)]: k for k, i in enumerate(used)},
        concepts=tuple(concepts),
        indptr=np.asarray(indptr, dtype=np.int64),
        indices=np.asarray(indices, dtype=np.int32),
        data=np.asarray(data, dtype=np.float64),
        bias=b.astype(np.float64),
        platt_a=np.array([a for a, _ in calib]),
        platt_b=np.array([c for _, c in calib]),
        min_probability=args.min_probability,
        about_probability=args.about_probability,
        max_predicted=args.max_predicted,
        provenance=provenance,
    )


def save(model: ConceptPredictor, path: Path) -> None:
    """Write the model file (numpy ``.npz``, no pickles; float16 weights)."""
    terms = sorted(model.terms, key=model.terms.__getitem__)
    meta = {
        "min_probability": model.min_probability,
        "about_probability": model.about_probability,
        "max_predicted": model.max_predicted,
        "provenance": model.provenance,
    }
    with path.open("wb") as f:
        np.savez_compressed(
            f,
            meta=np.array(json.dumps(meta, sort_keys=True)),
            terms=np.array(terms),
            concepts=np.array(model.concepts),
            indptr=model.indptr.astype(np.int32),
            indices=model.indices.astype(np.int16 if len(model.concepts) < 32_768 else np.int32),
            data=model.data.astype(np.float16),
            bias=model.bias.astype(np.float32),
            platt_a=model.platt_a.astype(np.float32),
            platt_b=model.platt_b.astype(np.float32),
        )


# --------------------------------------------------------------------------- cross-validation


def text_records(papers: list[EvalPaper]) -> list[PaperRecord]:
    """The extractor's records of ``papers`` (fast mode) with the predictor off."""
    from kg.ingest.pipeline import Pipeline

    pipeline = Pipeline(nlp=load_nlp(mode="fast"), mode="fast", context={"predictor": None})
    raws = [
        RawPaper(file="cv", line=i, title=p.title or None, abstract=p.abstract)
        for i, p in enumerate(papers, 1)
    ]
    records, problems = pipeline.build(raws)
    if problems:
        raise RuntimeError(f"extraction failed: {problems[0]}")
    return records


def listed(
    record: PaperRecord, model: ConceptPredictor | None, terms: set[str], vocab: Vocabulary
) -> list[str]:
    """The top 10 as ``Paper.keyConcepts`` lists them, with ``model``'s predictions merged in."""
    nodes = {n.id: n for n in record.nodes if n.label == "Concept"}
    keys: list[KeyConcept] = []
    for r in record.relationships:
        if r.type == "MENTIONS" and r.end in nodes:
            keys.append(key_concept(r.end, nodes[r.end].properties, r.properties, nodes[r.end]))
    if model is not None:
        mentioned = [k.concept_id for k in keys]
        for pred, s, about in predicted_mentions(model, terms, mentioned, SCORE_SCALE):
            name = vocab.concepts[pred.concept_id].name
            props: Properties = {
                "score": s,
                "about": about,
                "salience": 0.0,
                "predicted": True,
                "surface": name,
            }
            keys.append(key_concept(pred.concept_id, {"name": name, "source": "vocabulary"}, props, None))
    keys.sort(key=rank_key)
    return [k.surface for k in keys[:10]]


GRID = [(m, a) for m in (0.15, 0.25, 0.35) for a in (0.5, 0.6, 0.75, 1.01)]  # (min, about) probability


def cross_validate(pool: Pool, args: argparse.Namespace, vocab: Vocabulary) -> None:
    """Print F1@10 without and with PREDICTED, k-fold within each dev set and leave-one-venue-out,
    for the shipped thresholds and for each (min, about) probability pair of :data:`GRID`."""
    for venue in DEV_SETS:
        rows = np.flatnonzero(np.array([v == venue for v in pool.venues]))
        papers = [pool.papers[i] for i in rows]
        started = time.perf_counter()
        records = text_records(papers)
        base = score(papers, [listed(r, None, set(), vocab) for r in records]).f1_at_10
        others = np.flatnonzero(np.array([v != venue for v in pool.venues]))
        kfold: list[ConceptPredictor | None] = [None] * len(rows)
        for held in folds_of(len(rows), args.folds):
            train_rows = np.concatenate([others, rows[np.setdiff1d(np.arange(len(rows)), held)]])
            model = train(pool, np.sort(train_rows), args, "cv")
            for k in held:
                kfold[k] = model
        lovo = train(pool, others, args, "cv")

        def f1(
            models: list[ConceptPredictor],
            min_p: float,
            about_p: float,
            records: list[PaperRecord] = records,
            rows: npt.NDArray[np.int64] = rows,
            papers: list[EvalPaper] = papers,
        ) -> float:
            tuned = [replace(m, min_probability=min_p, about_probability=about_p) for m in models]
            lists = [listed(r, m, pool.terms[i], vocab) for r, m, i in zip(records, tuned, rows, strict=True)]
            return score(papers, lists).f1_at_10

        fold_models = [m for m in kfold if m is not None]
        with_kfold = f1(fold_models, args.min_probability, args.about_probability)
        with_lovo = f1([lovo] * len(rows), args.min_probability, args.about_probability)
        print(
            f"{venue:16} n={len(papers):5}  text only {base:6.2f}  "
            f"+PREDICTED {args.folds}-fold {with_kfold:6.2f} "
            f"({with_kfold / base:.3f}x)  leave-venue-out {with_lovo:6.2f} ({with_lovo / base:.3f}x)"
            f"  [{time.perf_counter() - started:.0f} s]",
            flush=True,
        )
        if args.grid:
            for min_p, about_p in GRID:
                print(
                    f"    min {min_p:.2f} about {about_p:.2f}: "
                    f"{args.folds}-fold {f1(fold_models, min_p, about_p):6.2f}"
                    f"  leave-venue-out {f1([lovo] * len(rows), min_p, about_p):6.2f}",
                    flush=True,
                )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data-dir", type=Path, default=SHARED_DATA)
    ap.add_argument("--out", type=Path, default=DEFAULT_PREDICTOR)
    ap.add_argument("--ijcai", action="store_true", help="also train on IJCAI's topic keywords")
    ap.add_argument("--min-df", type=int, default=3)
    ap.add_argument("--min-support", type=int, default=15)
    ap.add_argument("--keep", type=int, default=400, help="weights kept per concept")
    ap.add_argument("--c", type=float, default=10.0, help="inverse L2 strength")
    ap.add_argument("--calib-folds", type=int, default=3)
    ap.add_argument("--min-probability", type=float, default=MIN_PROBABILITY)
    ap.add_argument("--about-probability", type=float, default=ABOUT_PROBABILITY)
    ap.add_argument("--max-predicted", type=int, default=MAX_PREDICTED)
    ap.add_argument("--cv", action="store_true", help="print cross-validated F1@10 by venue")
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--grid", action="store_true", help="with --cv: F1@10 for each threshold pair of GRID")
    ap.add_argument("--no-train", action="store_true", help="skip writing the shipped model")
    args = ap.parse_args(argv)
    nlp = load_nlp(mode="fast")
    vocab = default_vocabulary(nlp.tokenizer)
    sets = {**DEV_SETS, **OTHER_SETS, **(IJCAI if args.ijcai else {})}
    pool = load_pool(args.data_dir, sets, vocab, nlp)
    labelled = sum(bool(ls) for ls in pool.labels)
    print(f"{len(pool.papers)} papers, {labelled} with a keyword in the vocabulary", flush=True)
    if args.cv:
        cross_validate(pool, args, vocab)
    if not args.no_train:
        provenance = (
            f"scripts/train_predictor.py on {', '.join(sets)} ({len(pool.papers)} papers); "
            f"min_df={args.min_df} min_support={args.min_support} keep={args.keep} C={args.c} seed={SEED}"
        )
        model = train(pool, np.arange(len(pool.papers)), args, provenance)
        save(model, args.out)
        size = args.out.stat().st_size
        print(
            f"{args.out.name}: {len(model.concepts)} concepts, {len(model.terms)} terms, {size / 1e6:.2f} MB"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
