"""The learned ``about`` decision's frontier: threshold -> keyword coverage, hand labels' about %.

Usage::

    python bench/about_frontier.py --models DIR [--data-dir ../shared/data] [--thresholds 0.2 0.3 ...]

``DIR`` holds each venue's held-out model (``scripts/train_about_model.py --held-out-dir DIR``:
``<venue slug>.json``, fitted without that venue). For every threshold each dev set is
re-extracted (fast mode, the real pipeline) with the model that never saw it deciding ``about``,
and two figures are computed from its records:

* keyword coverage: for the 25 most frequent author keywords of the set, the share of the papers
  listing K that ``concept(K).papers`` would hold: an ``INTRODUCES`` link or an ``about``
  ``MENTIONS`` link (``climbs`` respected) to what K resolves to or a concept below it. K is
  resolved once through the GraphQL schema on a SQLite store of the set alone (base records), as
  ``bench/concepts.py`` does; the row "rule" reproduces its figure, and the chosen points are
  re-measured through the API with ``bench/concepts.py --about-models DIR``.
* the hand labels (``bench/labels/colm_links.jsonl``, ``corl_links.jsonl``), scored as
  ``bench/label_precision.py`` scores them: of the labelled links still listed, the share judged
  about / wrong. The labels were never used for training.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from api.about_eval import Venue, extract, load_venues, resolve_names, slug  # noqa: E402
from api.concept_eval import TOP_KEYWORDS  # noqa: E402
from extractors.concepts.about_model import model_from_json  # noqa: E402
from kg.core.ids import concept_id, fold  # noqa: E402
from kg.core.models import PaperRecord  # noqa: E402
from kg.eval.concept_quality import climbs, narrower_closure  # noqa: E402
from kg.eval.dev_sets import SHARED_DATA  # noqa: E402

LABELS = {
    "COLM 2024": ROOT / "bench/labels/colm_links.jsonl",
    "CoRL 2021-2025": ROOT / "bench/labels/corl_links.jsonl",
}


def frequent(v: Venue) -> list[tuple[str, set[str]]]:
    """The set's 25 most frequent author keywords (folded, most common spelling) and their papers
    (what ``api.concept_eval.frequent_keywords`` computes)."""
    papers: dict[str, set[str]] = {}
    spellings: dict[str, Counter[str]] = {}
    for pid, kws in v.keywords.items():
        for keyword in dict.fromkeys(k.strip() for k in kws):
            key = fold(keyword)
            if key:
                papers.setdefault(key, set()).add(pid)
                spellings.setdefault(key, Counter())[keyword] += 1
    ranked = sorted(papers, key=lambda k: (-len(papers[k]), k))[:TOP_KEYWORDS]
    return [(spellings[k].most_common(1)[0][0], papers[k]) for k in ranked]


def resolve_alone(v: Venue, names: list[str]) -> dict[str, str | None]:
    """``concept(name: K) { id }`` on a SQLite store of the set alone (its current records)."""
    return resolve_names([v.dev_records()], names)


def holds(record: PaperRecord, own: str, targets: set[str]) -> bool:
    """Whether ``concept(own).papers`` lists the paper (about links, introduced names)."""
    for rel in record.relationships:
        if rel.end not in targets:
            continue
        if rel.type == "INTRODUCES":
            return True
        if rel.type == "MENTIONS" and rel.properties.get("about") and climbs(rel, own):
            return True
    return False


def coverage(v: Venue, keywords: list[tuple[str, set[str]]], resolved: dict[str, str | None]) -> float:
    closure = narrower_closure(v.dev_records())
    by_id = {r.paper.id: r for r in v.dev_records()}
    shares = []
    for name, listing in keywords:
        cid = resolved.get(name)
        if cid is None:
            shares.append(0.0)
            continue
        targets = closure.get(cid, {cid})
        held = sum(holds(by_id[p], cid, targets) for p in listing if p in by_id)
        shares.append(100.0 * held / len(listing))
    return sum(shares) / len(shares)


def labels(v: Venue, path: Path) -> tuple[float, float, int]:
    """(about %, wrong %, listed) of the hand-labelled links the records still list."""
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    by_paper = {(name, raw.external_id): rec for (name, raw), rec in zip(v.raws, v.records, strict=True)}
    closure = narrower_closure(v.records)
    shown: Counter[str] = Counter()
    for lab in rows:
        rec = by_paper.get((lab["file"], lab["paper"]))
        if rec is None:
            continue
        cid = concept_id(lab["concept"])
        targets = closure.get(cid, {cid})
        if any(
            r.type == "MENTIONS" and r.end in targets and r.properties.get("about") and climbs(r, cid)
            for r in rec.relationships
        ):
            shown[lab["label"]] += 1
    n = sum(shown.values())
    return 100.0 * shown["about"] / max(n, 1), 100.0 * shown["wrong"] / max(n, 1), n


def about_share(v: Venue) -> float:
    links = [
        r
        for rec in v.dev_records()
        for r in rec.relationships
        if r.type == "MENTIONS" and not r.properties.get("predicted")
    ]
    return 100.0 * sum(bool(r.properties.get("about")) for r in links) / max(len(links), 1)


def cells(v: Venue, keywords: list[tuple[str, set[str]]], resolved: dict[str, str | None]) -> str:
    out = f"{coverage(v, keywords, resolved):.1f}% (about {about_share(v):.0f}%)"
    if v.label in LABELS:
        a, w, n = labels(v, LABELS[v.label])
        out += f", labels {a:.1f} / {w:.1f}% of {n}"
    return out


def cost(data_dir: Path, model_path: Path, repeat: int) -> None:
    """CPU of fast ``Pipeline.build`` on ICLR 2018 + COLM 2024 with the rule and with the model,
    interleaved ``repeat`` times after a warm-up, beside the spaCy tokenizer on the same texts."""
    import statistics
    import time

    from spacy.tokenizer import Tokenizer

    from kg.ingest.nlp import load_nlp
    from kg.ingest.pipeline import Pipeline
    from kg.readers import read_file

    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[-1]})
    raws = [raw for name in ("iclr2018.jsonl", "colm2024.jsonl") for raw in read_file(data_dir / name).papers]
    model = model_from_json(json.loads(model_path.read_text()))
    nlp = load_nlp(mode="fast")
    tokenizer: Tokenizer = nlp.tokenizer  # spaCy types it as any Callable[[str], Doc]
    texts = [f"{r.title or ''}. {r.abstract or ''}" for r in raws]
    runs: dict[str, list[float]] = {"tokenizer": [], "rule": [], "model": []}
    for i in range(repeat + 1):
        t0 = time.process_time()
        for _ in tokenizer.pipe(texts, batch_size=256):
            pass
        tok = time.process_time() - t0
        times = {}
        for name, m in (("rule", None), ("model", model)):
            pipeline = Pipeline(nlp=nlp, mode="fast", context={"about_model": m})
            t0 = time.process_time()
            pipeline.build(raws)
            times[name] = time.process_time() - t0
        if i:  # the first round warms up
            runs["tokenizer"].append(tok)
            runs["rule"].append(times["rule"])
            runs["model"].append(times["model"])
        print(
            f"round {i}: tokenizer {tok:.2f} s, rule {times['rule']:.2f} s, model {times['model']:.2f} s "
            f"(load {os.getloadavg()[0]:.1f})",
            flush=True,
        )
    tok = statistics.median(runs["tokenizer"])
    for name in ("rule", "model"):
        med = statistics.median(runs[name])
        ratios = " / ".join(f"{t / k:.2f}x" for t, k in zip(runs[name], runs["tokenizer"], strict=True))
        print(
            f"{name}: median {med:.2f} s for {len(raws)} papers ({1000 * med / len(raws):.2f} ms a paper), "
            f"{med / tok:.2f}x the tokenizer's median; per round {ratios}"
        )


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--data-dir", type=Path, default=SHARED_DATA)
    p.add_argument("--models", type=Path, help="the held-out models' folder (frontier)")
    p.add_argument("--cost", type=Path, help="time extraction with this model file against the rule instead")
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument(
        "--thresholds",
        nargs="*",
        default=["0.2", "0.25", "0.3", "0.35", "0.4", "0.45", "0.5", "0.6"],
        help="T (one threshold) or T:K (T for a link the rule calls passing, K for one it calls about)",
    )
    args = p.parse_args()
    if args.cost:
        cost(args.data_dir, args.cost, args.repeat)
        return
    if args.models is None:
        p.error("--models or --cost")
    print(f"load average {os.getloadavg()[0]:.1f}")
    venues = load_venues(args.data_dir)
    keywords: dict[str, list[tuple[str, set[str]]]] = {}
    resolved: dict[str, dict[str, str | None]] = {}
    rows: dict[str, list[str]] = {"rule": []}
    for v in venues:
        extract(v, None)
        keywords[v.label] = frequent(v)
        resolved[v.label] = resolve_alone(v, [k for k, _ in keywords[v.label]])
        rows["rule"].append(cells(v, keywords[v.label], resolved[v.label]))
    models = {v.label: json.loads((args.models / f"{slug(v.label)}.json").read_text()) for v in venues}
    chosen = {
        v.label: (models[v.label]["threshold"], models[v.label].get("keep_threshold", 0.0)) for v in venues
    }
    for given in [None, *args.thresholds]:
        t = k = None
        if given is None:
            name = "chosen: " + ", ".join(f"{a:.2f}:{b:.2f}" for a, b in chosen.values())
        else:
            t, _, rest = given.partition(":")
            t, k = float(t), float(rest or t)
            name = f"p >= {t:.2f} (rule-about: {k:.2f})"
        rows[name] = []
        for v in venues:
            model = model_from_json(models[v.label], threshold=t, keep_threshold=k)
            extract(v, model)
            rows[name].append(cells(v, keywords[v.label], resolved[v.label]))
        print(f"| {name} | " + " | ".join(rows[name]) + " |", flush=True)
    print()
    print("| about decision | " + " | ".join(v.label for v in venues) + " |")
    print("|---|" + "---|" * len(venues))
    for name, cs in rows.items():
        print(f"| {name} | " + " | ".join(cs) + " |")
    print(f"load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
