"""Train the learned ``about`` decision (``extractors/data/about_model.json``) on author keywords.

Training table: every (paper, concept) ``MENTIONS`` link the extractor writes for the dev sets
(:data:`kg.eval.dev_sets.DEV_SETS`: ICLR 2018, COLM 2024, CoRL 2021-2025, 3DV 2025; the papers
with an abstract and author keywords), with the features of
:func:`extractors.concepts.about_model.about_features` recorded at the moment the extractor
decides (the hand-set rule's decision is one of them). Label: 1 when the link's concept is what
one of the paper's author keywords resolves to through the API (``concept(name: K)`` on a SQLite
store of all four sets, the GraphQL schema in-process) or a concept below it (the records'
``BROADER`` closure, as ``concept(K).papers`` climbs). PREDICTED links are not decided here.

A logistic regression (L2, Newton steps, numpy; deterministic, no random draw) is fitted
**leave-one-venue-out**: for each venue, a model on the other three, its threshold chosen on those
three only (the probability that maximises the F1 of the positive links there). ``--held-out-dir``
writes those four models (``<venue slug>.json``) for the benchmarks that plug them in; the shipped
model is fitted on all four venues, its threshold chosen the same way. Other threshold rules
(``--swap``, ``--at-precision``), labels (``--own-labels``), feature sets (``--drop``) and
constraints (``--keep-strong``, ``--hard-rules``, ``--promote-floor``) are the designs of
bench/README.md's section "About, learned from author keywords"; the shipped file was written by::

    python scripts/train_about_model.py --own-labels --keep-strong --hard-rules --at-precision \
        --drop vocabulary has_broader one_word three_plus_words idf log_keyword generic \
        kind_model kind_dataset kind_task kind_method named

Usage::

    python scripts/train_about_model.py [--data-dir ../shared/data] [--out extractors/data/about_model.json]
                                        [--held-out-dir DIR] [--table FILE]
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from api.about_eval import Venue, extract, load_venues, resolve_names, slug  # noqa: E402
from extractors.concepts.about_model import ABOUT_FEATURES, DEFAULT_ABOUT_MODEL, AboutModel  # noqa: E402
from kg.core.models import PaperRecord  # noqa: E402
from kg.eval.concept_quality import narrower_closure  # noqa: E402
from kg.eval.dev_sets import DEV_SETS, SHARED_DATA  # noqa: E402
from kg.eval.logistic import fit_logistic  # noqa: E402

L2 = 1.0
THRESHOLDS = tuple(round(0.05 * i, 2) for i in range(1, 20))


@dataclass(frozen=True)
class Recorder(AboutModel):
    """An about "model" that keeps every feature vector it is asked about and answers with the
    hand-set decision (the first feature), so the records are today's."""

    rows: list[list[float]] = field(default_factory=list)

    def decide(self, x: Sequence[float]) -> bool:
        self.rows.append(list(x))
        return bool(x[0])


def recorder() -> Recorder:
    return Recorder(mean=(), scale=(), weights=(), bias=0.0, threshold=0.5)


def decided_links(record: PaperRecord) -> list[tuple[int, str]]:
    """(index, concept id) of the record's MENTIONS the about decision made, in order."""
    return [
        (i, rel.end)
        for i, rel in enumerate(record.relationships)
        if rel.type == "MENTIONS" and not rel.properties.get("predicted")
    ]


@dataclass
class Table:
    """The training table of one venue: features, labels, and the paper of each row."""

    x: np.ndarray
    y: np.ndarray
    paper: list[str]
    concept: list[str]

    def rows_of(self, concepts: set[str]) -> Table:
        """The rows whose concept is one of ``concepts``."""
        keep = [i for i, c in enumerate(self.concept) if c in concepts]
        return Table(
            self.x[keep], self.y[keep], [self.paper[i] for i in keep], [self.concept[i] for i in keep]
        )


def resolve_keywords(venues: Sequence[Venue]) -> dict[str, str | None]:
    """Every author keyword's concept id as ``concept(name: K)`` answers on one store of all venues."""
    names = sorted({k for v in venues for ks in v.keywords.values() for k in ks})
    return resolve_names([v.dev_records() for v in venues], names)


def tables(
    venues: Sequence[Venue],
    rows: Mapping[str, list[list[float]]],
    resolved: Mapping[str, str | None],
    closure_labels: bool = True,
) -> dict[str, Table]:
    """Each venue's labelled rows (features recorded during :func:`extract`, in link order).

    ``closure_labels``: a link to a concept below a listed keyword's concept is positive too
    (what ``concept(K).papers`` counts); else only a link to the keyword's own concept."""
    closure = narrower_closure(r for v in venues for r in v.records) if closure_labels else {}
    out: dict[str, Table] = {}
    for v in venues:
        feats = iter(rows[v.label])
        xs: list[list[float]] = []
        ys: list[int] = []
        papers: list[str] = []
        concepts: list[str] = []
        for record in v.records:
            links = decided_links(record)
            vectors = [next(feats) for _ in links]
            kws = v.keywords.get(record.paper.id)
            if not kws:
                continue  # no author keywords: no label
            targets: set[str] = set()
            for k in kws:
                cid = resolved.get(k)
                if cid:
                    targets |= closure.get(cid, {cid})
            for (i, cid), vec in zip(links, vectors, strict=True):
                if bool(vec[0]) != bool(record.relationships[i].properties.get("about")):
                    raise RuntimeError("features out of step with the records")
                xs.append(vec)
                ys.append(int(cid in targets))
                papers.append(record.paper.id)
                concepts.append(cid)
        if next(feats, None) is not None:
            raise RuntimeError(f"{v.label}: more feature rows than links")
        out[v.label] = Table(np.array(xs, dtype=float), np.array(ys, dtype=float), papers, concepts)
    return out


def fit(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    """Standardised L2 logistic regression by Newton's method: (mean, scale, weights, bias)."""
    return fit_logistic(x, y, l2=L2, iterations=50, tolerance=1e-8)


def probabilities(model: tuple[np.ndarray, np.ndarray, np.ndarray, float], x: np.ndarray) -> np.ndarray:
    mean, scale, w, b = model
    out: np.ndarray = 1.0 / (1.0 + np.exp(-np.clip(((x - mean) / scale) @ w + b, -30, 30)))
    return out


def link_f1(y: np.ndarray, decided: np.ndarray) -> tuple[float, float, float]:
    """(precision, recall, F1) of the about decision against the keyword labels, in %."""
    tp = float((y * decided).sum())
    p = tp / max(float(decided.sum()), 1.0)
    r = tp / max(float(y.sum()), 1.0)
    return 100 * p, 100 * r, 100 * (2 * p * r / (p + r) if p + r else 0.0)


def choose_threshold(y: np.ndarray, prob: np.ndarray) -> float:
    """The grid threshold with the best F1 of positive links (ties: the higher threshold)."""
    best = max(THRESHOLDS, key=lambda t: (round(link_f1(y, prob >= t)[2], 6), t))
    return float(best)


def choose_swap(
    y: np.ndarray, prob: np.ndarray, rule: np.ndarray, promotable: np.ndarray, strong: np.ndarray
) -> tuple[float, float]:
    """(threshold, keep threshold): the grid pair whose decisions hold the most keyword links
    while making no more links about than the hand-set rule does (ties: fewer about links).

    Why this criterion: the keyword labels reward making everything about (coverage); the hand
    labels reward making little about. Holding the rule's count fixed exchanges its least
    keyword-like about links for the most keyword-like passing ones."""
    budget = int(rule.sum())
    best: tuple[float, float, float, float] | None = None
    for keep in (0.0, *THRESHOLDS):
        kept = rule & ((prob >= keep) | strong)
        for t in THRESHOLDS:
            decided = kept | (~rule & promotable & (prob >= t))
            n = int(decided.sum())
            if n > budget:
                continue
            key = (float((y * decided).sum()), -n, t, keep)
            if best is None or key > best:
                best = key
    assert best is not None
    return best[2], best[3]


def restrict(train: list[Table], listed_only: bool) -> list[Table]:
    """The training tables, or (``listed_only``) their rows whose concept is a positive of some
    training row: the model then learns which papers are about a concept authors do list, not
    which concepts authors list."""
    if not listed_only:
        return train
    listed = {c for t in train for c, y in zip(t.concept, t.y, strict=True) if y}
    return [t.rows_of(listed) for t in train]


HARD_RULES = False  # set from --hard-rules in main: the rule's exclusions hold (AboutModel.hard_rules)
AT_PRECISION = False  # set from --at-precision in main: thresholds by choose_at_precision


def column(x: np.ndarray, name: str) -> np.ndarray:
    out: np.ndarray = x[:, ABOUT_FEATURES.index(name)] > 0
    return out


def strong_links(x: np.ndarray, keep_strong: bool) -> np.ndarray:
    """The links the model never demotes: title, definition, introduction (``keep_strong``), a
    claimed link (:data:`HARD_RULES`)."""
    out: np.ndarray = (column(x, "in_title") | column(x, "defined") | column(x, "introduced")) & keep_strong
    if HARD_RULES:
        out = out | column(x, "claimed")
    return out


def unpromotable(x: np.ndarray) -> np.ndarray:
    """The passing links the model never promotes (:data:`HARD_RULES`: an aside, one sentence)."""
    out: np.ndarray = (column(x, "aside") | column(x, "one_sentence")) & HARD_RULES
    return out


def choose_at_precision(y: np.ndarray, prob: np.ndarray, x: np.ndarray, keep_strong: bool) -> float:
    """The lowest grid threshold (one for both kinds of link) whose decisions are at least as
    precise against the keyword labels as the hand-set rule's on the training links: the most
    keyword links the model can add without a worse share of keyword links among the about ones."""
    rule = x[:, 0] > 0
    floor = float((y * rule).sum()) / max(float(rule.sum()), 1.0)
    for t in THRESHOLDS:
        decided = decisions(x, prob, t, t, 0.0, keep_strong)
        if float((y * decided).sum()) / max(float(decided.sum()), 1.0) >= floor:
            return t
    return THRESHOLDS[-1]


def thresholds(
    swap: bool,
    x: np.ndarray,
    y: np.ndarray,
    model: tuple[np.ndarray, np.ndarray, np.ndarray, float],
    floor: float,
    keep_strong: bool = False,
) -> tuple[float, float]:
    """(threshold, keep threshold) chosen on the training links: one threshold by F1, or the swap."""
    prob = probabilities(model, x)
    if AT_PRECISION:
        t = choose_at_precision(y, prob, x, keep_strong)
        return t, t
    if swap:
        promotable = (x[:, 1] >= floor) & ~unpromotable(x)
        return choose_swap(y, prob, x[:, 0] > 0, promotable, strong_links(x, keep_strong))
    t = choose_threshold(y, prob)
    return t, t


def decisions(
    x: np.ndarray, prob: np.ndarray, threshold: float, keep: float, floor: float, keep_strong: bool = False
) -> np.ndarray:
    """The model's about decisions (:meth:`AboutModel.decide`, vectorised)."""
    kept = (prob >= keep) | strong_links(x, keep_strong)
    out: np.ndarray = np.where(x[:, 0] > 0, kept, (prob >= threshold) & (x[:, 1] >= floor) & ~unpromotable(x))
    return out


def model_json(
    model: tuple[np.ndarray, np.ndarray, np.ndarray, float],
    threshold: float,
    keep: float,
    floor: float,
    keep_strong: bool,
    provenance: dict[str, object],
) -> dict[str, object]:
    mean, scale, w, b = model
    return {
        "features": list(ABOUT_FEATURES),
        "mean": [round(float(v), 6) for v in mean],
        "scale": [round(float(v), 6) for v in scale],
        "weights": [round(float(v), 6) for v in w],
        "bias": round(b, 6),
        "threshold": threshold,
        "keep_threshold": keep,
        "promote_floor": floor,
        "keep_strong": keep_strong,
        "hard_rules": HARD_RULES,
        "provenance": provenance,
    }


def build_tables(data_dir: Path, closure_labels: bool = True) -> tuple[list[Venue], dict[str, Table]]:
    """Extract every venue with the hand-set rule, recording features, and label the links."""
    venues = load_venues(data_dir)
    rows: dict[str, list[list[float]]] = {}
    for v in venues:
        rec = recorder()
        extract(v, rec)
        rows[v.label] = rec.rows
    resolved = resolve_keywords(venues)
    return venues, tables(venues, rows, resolved, closure_labels)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data-dir", type=Path, default=SHARED_DATA)
    parser.add_argument("--out", type=Path, default=DEFAULT_ABOUT_MODEL)
    parser.add_argument("--held-out-dir", type=Path, help="also write each venue's held-out model here")
    parser.add_argument(
        "--own-labels", action="store_true", help="label only links to the keyword's own concept"
    )
    parser.add_argument(
        "--drop", nargs="*", default=[], help="features left out (their column zeroed: weight 0)"
    )
    parser.add_argument(
        "--listed-only",
        action="store_true",
        help="train only on links to concepts a training paper's keywords reach (aboutness, not the prior)",
    )
    parser.add_argument("--promote-floor", type=float, default=0.0, help="least salience of a promoted link")
    parser.add_argument(
        "--keep-strong", action="store_true", help="never demote a title, definition or introduction link"
    )
    parser.add_argument(
        "--hard-rules",
        action="store_true",
        help="never promote an aside or a one-sentence link, never demote a claim",
    )
    parser.add_argument(
        "--at-precision",
        action="store_true",
        help="the lowest threshold as precise as the rule on the training links",
    )
    parser.add_argument("--swap", action="store_true", help="two thresholds, at most the rule's about links")
    args = parser.parse_args(argv)
    global HARD_RULES, AT_PRECISION
    HARD_RULES, AT_PRECISION = args.hard_rules, args.at_precision
    venues, tabs = build_tables(args.data_dir, closure_labels=not args.own_labels)
    for name in args.drop:
        for t in tabs.values():
            t.x[:, ABOUT_FEATURES.index(name)] = 0.0
    cv: dict[str, dict[str, float]] = {}
    for v in venues:
        t = tabs[v.label]
        rule = link_f1(t.y, t.x[:, 0] > 0)
        print(
            f"{v.label}: {len(t.y)} links of {len(set(t.paper))} papers, {int(t.y.sum())} positive "
            f"({100 * t.y.mean():.1f}%); hand-set rule: {int(t.x[:, 0].sum())} about, "
            f"precision {rule[0]:.1f} recall {rule[1]:.1f} F1 {rule[2]:.1f}"
        )
    for v in venues:
        train = restrict([tabs[o.label] for o in venues if o.label != v.label], args.listed_only)
        x = np.vstack([t.x for t in train])
        y = np.concatenate([t.y for t in train])
        model = fit(x, y)
        threshold, keep = thresholds(args.swap, x, y, model, args.promote_floor, args.keep_strong)
        test = tabs[v.label]
        p, r, f = link_f1(
            test.y,
            decisions(
                test.x, probabilities(model, test.x), threshold, keep, args.promote_floor, args.keep_strong
            ),
        )
        rp, rr, rf = link_f1(test.y, test.x[:, 0] > 0)
        cv[v.label] = {
            "threshold": threshold,
            "keep_threshold": keep,
            "precision": round(p, 2),
            "recall": round(r, 2),
            "f1": round(f, 2),
            "rule_f1": round(rf, 2),
        }
        print(
            f"held out {v.label}: thresholds {threshold:.2f} / keep {keep:.2f} (chosen on the other three); "
            "links "
            f"precision {p:.1f} recall {r:.1f} F1 {f:.1f} (rule {rp:.1f} / {rr:.1f} / {rf:.1f})"
        )
        if args.held_out_dir:
            args.held_out_dir.mkdir(parents=True, exist_ok=True)
            prov: dict[str, object] = {
                "trainer": "scripts/train_about_model.py",
                "held_out": v.label,
                "venues": [o.label for o in venues if o.label != v.label],
            }
            (args.held_out_dir / f"{slug(v.label)}.json").write_text(
                json.dumps(
                    model_json(model, threshold, keep, args.promote_floor, args.keep_strong, prov), indent=1
                )
                + "\n"
            )
    train = restrict(list(tabs.values()), args.listed_only)
    x = np.vstack([t.x for t in train])
    y = np.concatenate([t.y for t in train])
    model = fit(x, y)
    threshold, keep = thresholds(args.swap, x, y, model, args.promote_floor, args.keep_strong)
    provenance: dict[str, object] = {
        "trainer": "scripts/train_about_model.py",
        "venues": {v: list(f) for v, f in DEV_SETS.items()},
        "labels": (
            "author keywords resolved by concept(name: K) on a SQLite store of the four sets, "
            "with their narrower closure"
        ),
        "links": len(y),
        "positives": int(y.sum()),
        "l2": L2,
        "closure_labels": not args.own_labels,
        "listed_only": args.listed_only,
        "features_left_out": list(args.drop),
        "threshold_rule": (
            "the lowest threshold whose training links are as precise as the rule's, grid of 0.05"
            if args.at_precision
            else "most keyword links with no more about links than the rule, grid of 0.05"
            if args.swap
            else "best F1 of positive links on the training links, grid of 0.05"
        ),
        "leave_one_venue_out": cv,
    }
    args.out.write_text(
        json.dumps(
            model_json(model, threshold, keep, args.promote_floor, args.keep_strong, provenance), indent=1
        )
        + "\n",
        encoding="utf-8",
    )
    print("weights:", ", ".join(f"{n} {v:+.2f}" for n, v in zip(ABOUT_FEATURES, model[2], strict=True)))
    print(f"threshold {threshold:.2f}; wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
