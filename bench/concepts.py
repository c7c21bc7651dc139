"""Concept extraction benchmark: papers/s of both modes, and the quality table beside YAKE.

Usage::

    python bench/concepts.py [--data-dir ../shared/data] [--repeat 3] [--no-eval] [--no-speed] [--no-graph]
                             [--fast-only] [--limit N]

Speed: ``Pipeline.build`` (cleaning, ids, spaCy, every default extractor, PaperRecords) on the
papers of ``iclr2018.jsonl`` + ``colm2024.jsonl`` (``--accurate-papers`` of them for the
accurate mode), one process pinned to one core, BLAS threads limited to one; the median of
``--repeat`` runs after a warm-up run. The spaCy tokenizer alone (fast) and ``nlp.pipe`` alone
(accurate) are timed the same way as reference points.

Quality, as users see it (``api.concept_eval``, what ``kg eval-concepts`` runs): the dev sets
(:data:`DEV_SETS`) ingested into real SQLite stores, each alone and all in one, and each paper's
``keyConcepts(first: 10)`` read through the GraphQL schema, scored against author keywords
(``kg.eval.evaluation``) beside the extractor's records (labelled as such) and YAKE on the same
papers in the same run; with every target of the concept issue printed beside its figure.
``--limit N`` takes the first N papers of each dev set.
"""

from __future__ import annotations

import os

# One core means one BLAS thread too; set before numpy (via spaCy) is imported.
for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import json  # noqa: E402
import platform  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from spacy.tokenizer import Tokenizer  # noqa: E402

from api.about_eval import slug  # noqa: E402
from api.concept_eval import run as run_api_eval  # noqa: E402
from extractors.concepts.about_model import model_from_json  # noqa: E402
from kg.core.models import RawPaper  # noqa: E402
from kg.eval.cli import predictor  # noqa: E402
from kg.eval.evaluation import EvalPaper, format_table, load_eval_papers, run_timed, yake_predict  # noqa: E402
from kg.ingest.nlp import Mode, load_nlp  # noqa: E402
from kg.ingest.pipeline import Pipeline  # noqa: E402

DEFAULT_DATA_DIR = Path(__file__).resolve().parents[1].parent / "shared" / "data"
FILES = ("iclr2018.jsonl", "colm2024.jsonl", *(f"paperlists/corl/corl{y}.json" for y in range(2021, 2026)))
# The dev sets with abstracts and author keywords the concept targets are measured on.
DEV_SETS = {
    "ICLR 2018": ["iclr2018.jsonl"],
    "COLM 2024": ["colm2024.jsonl"],
    "CoRL 2021-2025": [f"paperlists/corl/corl{y}.json" for y in range(2021, 2026)],
    "3DV 2025": ["paperlists/3dv/3dv2025.json"],
}
# The 10k-paper corpus of the graph figures: every JSONL file plus CoRL 2021-2025.
GRAPH_FILES = (
    "iclr2017.jsonl",
    "iclr2018.jsonl",
    "colm2024.jsonl",
    "neurips2023-meta.jsonl",
    "icml2025-meta.jsonl",
    *(f"paperlists/corl/corl{y}.json" for y in range(2021, 2026)),
)
# The generic phrases that must never be among a paper's top 10 concepts.
JUNK = frozenset(
    """this paper|paper|papers|result|results|approach|approaches|performance|framework|state of the art|
    state-of-the-art|method|methods|model|models|problem|problems|task|tasks|data|experiment|
    experiments|work|works|our method|proposed method|novel method|extensive experiments|
    experimental results|new approach|technique|techniques|algorithm|algorithms|baseline|baselines|
    analysis|study|effectiveness|improvement|improvements|accuracy gains|art""".replace("\n", " ")
    .replace("    ", "")
    .split("|")
)


def machine() -> str:
    """One line describing where the numbers were taken."""
    cpu = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    return (
        f"{cpu}, {os.cpu_count()} cores, Python {platform.python_version()}, load average {load:.2f} at start"
    )


def pin_one_core() -> str:
    """Run on one CPU (the last one) when the OS allows it."""
    if not hasattr(os, "sched_setaffinity"):
        return "not pinned"
    cpus = sorted(os.sched_getaffinity(0))
    os.sched_setaffinity(0, {cpus[-1]})
    return f"pinned to CPU {cpus[-1]}"


def raw_papers(papers: list[EvalPaper]) -> list[RawPaper]:
    return [
        RawPaper(file="bench", line=i, title=p.title or None, abstract=p.abstract)
        for i, p in enumerate(papers, 1)
    ]


def median_rate(fn: object, n: int, repeat: int) -> float:
    """Median papers per second of this process's CPU time over ``repeat`` calls of ``fn()``.

    CPU time rather than wall time: on a shared machine other processes take turns on the core,
    and what we want is the throughput of one core spent on extraction.
    """
    assert callable(fn)
    times = []
    for _ in range(repeat):
        start = time.process_time()
        fn()
        times.append(time.process_time() - start)
    return n / statistics.median(times)


def speed(mode: Mode, papers: list[EvalPaper], repeat: int) -> tuple[float, float]:
    """(pipeline papers/s, spaCy-only papers/s) for one mode."""
    nlp = load_nlp(mode=mode)
    pipeline = Pipeline(nlp=nlp, mode=mode)
    raws = raw_papers(papers)
    pipeline.build(raws[:50])  # warm-up: lazy tables, caches
    records, problems = pipeline.build(raws)
    assert not problems, problems[:3]
    texts = [f"{p.title}. {p.abstract}" for p in papers]
    if mode == "fast":
        tokenizer: Tokenizer = nlp.tokenizer  # spaCy types it as any Callable[[str], Doc]
        spacy_rate = median_rate(lambda: list(tokenizer.pipe(texts, batch_size=256)), len(texts), repeat)
    else:
        spacy_rate = median_rate(
            lambda: list(nlp.pipe(texts, batch_size=256, disable=["lemmatizer", "ner"])), len(texts), repeat
        )
    return median_rate(lambda: pipeline.build(raws), len(raws), repeat), spacy_rate


def model_stage_speed(papers: list[EvalPaper], repeat: int) -> tuple[float, float]:
    """(fast ``Pipeline.build`` papers/s with the PREDICTED stage off, the stage alone papers/s).

    The stage alone: the features of the tokenised text and the model's predictions
    (:mod:`extractors.concepts.predicted`), on Docs tokenised beforehand, so its cost reads
    beside the tokenizer's and the whole pipeline's.
    """
    from extractors.concepts.predicted import load_predictor

    nlp = load_nlp(mode="fast")
    off = Pipeline(nlp=nlp, mode="fast", context={"predictor": None})
    raws = raw_papers(papers)
    off.build(raws[:50])
    model = load_predictor()
    if model is None:
        return median_rate(lambda: off.build(raws), len(raws), repeat), float("nan")
    tokenizer: Tokenizer = nlp.tokenizer  # spaCy types it as any Callable[[str], Doc]
    docs = list(tokenizer.pipe([f"{p.title}. {p.abstract}" for p in papers], batch_size=256))
    stage = median_rate(lambda: [model.best(model.doc_probabilities(d)) for d in docs], len(docs), repeat)
    return median_rate(lambda: off.build(raws), len(raws), repeat), stage


def junk_audit(name: str, fn: object, papers: list[EvalPaper]) -> int:
    """Top-10 entries that are generic junk, printed; returns their number."""
    assert callable(fn)
    bad = 0
    for paper, phrases in zip(papers, fn(papers), strict=True):
        for phrase in phrases:
            if phrase.lower().strip() in JUNK:
                bad += 1
                print(f"  junk in {name} top 10 of {paper.id}: {phrase!r}")
    return bad


def graph_figures(data_dir: Path) -> list[str]:
    """Concept nodes per paper and lexical support on the ~10k-paper corpus (fast mode)."""
    from extractors.concepts.vocabulary import default_vocabulary
    from kg.eval.concept_quality import lexical_support, nodes_per_paper
    from kg.readers import read_file

    raws = [p for name in GRAPH_FILES for p in read_file(data_dir / name).papers]
    nlp = load_nlp(mode="fast")
    records, _ = Pipeline(nlp=nlp, mode="fast").build(raws)
    visible, every = nodes_per_paper(records)
    vocab = default_vocabulary(nlp.tokenizer)
    lines = [
        f"graph: {len(records)} papers; Concept nodes per paper {visible:.2f} "
        f"(provisional ones shown once 2+ papers carry them; all nodes {every:.2f})"
    ]
    for about_only in (True, False):
        support = lexical_support(records, vocab, about_only=about_only)
        linked = sum(s.linked for s in support)
        ok = sum(s.supported for s in support)
        what = "about links" if about_only else "all MENTIONS"
        lines.append(
            f"lexical support ({what}, narrower included): {ok}/{linked} = {ok / max(linked, 1):.3f}; "
            + ", ".join(f"{s.concept} {s.supported}/{s.linked}" for s in support)
        )
    return lines


def about_contexts(folder: Path | None, labels: list[str]) -> dict[str, dict[str, object]] | None:
    """Each set's pipeline context with its held-out about model (``<slug>.json`` in ``folder``)."""
    if folder is None:
        return None
    out: dict[str, dict[str, object]] = {}
    for label in labels:
        name = slug(label)
        model = model_from_json(json.loads((folder / f"{name}.json").read_text(encoding="utf-8")))
        if model is None:
            raise SystemExit(f"{folder / name}.json: not an about model of these features")
        out[label] = {"about_model": model}
        print(f"{label}: about model {folder / name}.json ({model.threshold} / keep {model.keep_threshold})")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data-dir", type=Path, default=DEFAULT_DATA_DIR)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--accurate-papers", type=int, default=300, help="papers timed in accurate mode")
    parser.add_argument("--no-speed", action="store_true")
    parser.add_argument("--no-eval", action="store_true")
    parser.add_argument("--no-graph", action="store_true")
    parser.add_argument("--fast-only", action="store_true", help="quality of the fast mode only")
    parser.add_argument(
        "--limit", type=int, default=None, help="first N papers (by id) of each dev set, for a quicker run"
    )
    parser.add_argument(
        "--about-models",
        type=Path,
        help="a folder of held-out about models (scripts/train_about_model.py --held-out-dir): each set "
        "extracted with the model trained without it",
    )
    args = parser.parse_args(argv)

    print(f"machine: {machine()}; {pin_one_core()}")
    if not args.no_speed:
        papers = [p for name in FILES for p in load_eval_papers(args.data_dir / name)]
        fast, tok = speed("fast", papers, args.repeat)
        print(f"fast:     {fast:7.0f} papers/s  (Pipeline.build, {len(papers)} papers)")
        print(
            f"          spaCy tokenizer alone: {tok:.0f} papers/s (the pipeline costs {tok / fast:.2f}x it)"
        )
        off, stage = model_stage_speed(papers, args.repeat)
        print(f"          PREDICTED stage off: {off:.0f} papers/s ({tok / off:.2f}x the tokenizer's cost)")
        print(
            f"          PREDICTED stage alone: {stage:.0f} papers/s ({tok / stage:.2f}x the tokenizer's cost)"
        )
        sub = papers[: args.accurate_papers]
        accurate, parse = speed("accurate", sub, args.repeat)
        print(f"accurate: {accurate:7.0f} papers/s  (Pipeline.build, {len(sub)} papers)")
        print(f"          spaCy nlp.pipe (tagger + parser) alone: {parse:.0f} papers/s")
    if not args.no_eval:
        # What users see: the dev sets ingested into real stores (each alone, then all in one)
        # and read through the API's keyConcepts (api.concept_eval), beside the extractor's
        # records and YAKE on the same papers, in this run.
        sets = {
            label: [p for name in names for p in load_eval_papers(args.data_dir / name)][: args.limit]
            for label, names in DEV_SETS.items()
        }
        run_api_eval(sets, sys.stdout, mode="fast", contexts=about_contexts(args.about_models, list(sets)))
        if not args.fast_only:  # the accurate mode's extractor records on the same papers
            for label, papers in sets.items():
                rows = [run_timed(*predictor("accurate"), papers), run_timed("yake", yake_predict, papers)]
                print(f"\n{label}, accurate mode, extractor records only: {len(papers)} papers")
                print(format_table(rows))
    if not args.no_graph:
        print()
        print("\n".join(graph_figures(args.data_dir)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
