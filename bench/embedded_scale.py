"""The embedded store at 100k papers, command by command, as a user runs them (run by hand).

Corpus: exactly 100,000 papers: every file of ``DATA/paperlists/`` (86,864 papers as published),
the JSONL files in ``DATA`` (ICLR 2017/2018, COLM 2024, NeurIPS 2023 and ICML 2025 metadata), and
a top-up file of recombined real abstracts (the first sentences of one paperlists abstract with
the rest of another, titled ``Recombined <n>``), written to the work dir, enough to reach 100,000.
Duplicates across sources merge (ids come from content), so the top-up is computed against the
number of *distinct* paper ids the readers give (read without extraction, before timing), and
the whole corpus is then ingested by one ``kg ingest`` command, timed.

Measures, each as a separate ``kg`` process (wall time and peak RSS of that process):
``kg ingest`` of the corpus, ``kg ingest`` of 10 new papers, ``kg stats``, ``kg query`` (one
concept, 20 papers with authors and venue), and ``kg serve`` until the first query is answered.
The ingest's CPU (its own and its extraction workers') is also printed as a multiple of the spaCy
tokenizer's CPU on the same texts, timed in the same run: a figure that compares across machines.

    python bench/embedded_scale.py ../shared/data --work bench/out/scale [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import resource
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # this checkout's kg, also for the kg processes (run from ROOT)
TARGET = 100_000
KG = [sys.executable, "-m", "api.cli"]
QUERY = (
    '{ concept(name: "reinforcement learning") { name papers(first: 20) { totalCount '
    "nodes { title year venue { name } authors { name } } } } }"
)
_SENTENCE = re.compile(r"(?<=[.!?])\s+")


def _abstracts(paperlists: Path) -> list[str]:
    out = []
    for f in sorted(paperlists.rglob("*.json")):
        for record in json.loads(f.read_text(encoding="utf-8")):
            text = record.get("abstract") if isinstance(record, dict) else None
            if isinstance(text, str) and text.count(". ") >= 3:
                out.append(text)
    return out


def write_topup(paperlists: Path, n: int, out: Path, seed: int = 7, title: str = "Recombined") -> Path:
    """``n`` papers whose abstracts recombine two real ones (head of one, tail of another),
    titled ``<title> <i>`` (another seed and title give papers none of these are)."""
    rng = random.Random(seed)
    pool = _abstracts(paperlists)
    with out.open("w", encoding="utf-8") as fh:
        for i in range(n):
            a, b = rng.sample(pool, 2)
            head = _SENTENCE.split(a)[:2]
            tail = _SENTENCE.split(b)[2:]
            record = {"title": f"{title} {i}", "abstract": " ".join(head + tail), "year": 2026}
            fh.write(json.dumps(record) + "\n")
    return out


def distinct_papers(sources: list[Path]) -> int:
    """Distinct paper ids the readers give for ``sources`` (no extraction)."""
    from kg.core.ids import paper_id
    from kg.readers import iter_input_files, read_file

    ids: set[str] = set()
    for item in iter_input_files(sources):
        if isinstance(item, Path):
            for p in read_file(item).papers:
                try:
                    ids.add(paper_id(p.abstract, p.title))
                except ValueError:
                    continue
    return len(ids)


def corpus_texts(sources: list[Path]) -> list[str]:
    """``title. abstract`` of each distinct paper the readers give for ``sources``: the texts the
    tokenizer reference is timed on."""
    from kg.core.ids import paper_id
    from kg.readers import iter_input_files, read_file

    texts: dict[str, str] = {}
    for item in iter_input_files(sources):
        if isinstance(item, Path):
            for p in read_file(item).papers:
                try:
                    texts.setdefault(paper_id(p.abstract, p.title), f"{p.title or ''}. {p.abstract or ''}")
                except ValueError:
                    continue
    return list(texts.values())


def tokenizer_cpu_seconds(texts: list[str]) -> float:
    """CPU seconds of spaCy's tokenizer (as ``kg.ingest.nlp.load_nlp`` loads it) over ``texts``: the
    reference the ingest's CPU is divided by, so that figures from machines of other speeds (or
    of this one under another load) compare."""
    from spacy.tokenizer import Tokenizer

    from kg.ingest.nlp import load_nlp

    tokenizer: Tokenizer = load_nlp().tokenizer  # spaCy types it as any Callable[[str], Doc]
    cpu0 = time.process_time()
    for _ in tokenizer.pipe(texts, batch_size=256):
        pass
    return time.process_time() - cpu0


def children_cpu_seconds() -> float:
    """User + system CPU of every waited-for child process so far (an ingest and its workers)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run(args: list[str], env: dict[str, str]) -> tuple[float, float, str]:
    """Wall seconds, peak RSS (MB) and stdout of one ``kg`` process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    t0 = time.perf_counter()
    done = subprocess.run([*KG, *args], env=env, cwd=ROOT, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - t0
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    if done.returncode not in (0, 1):
        raise SystemExit(f"kg {' '.join(args)} failed: {done.stderr[-2000:]}")
    # ru_maxrss of children is the max over all children so far: report it only when it grew
    return wall, max(peak, before) / 1024, done.stdout


def serve_ready(env: dict[str, str]) -> float:
    """Seconds from starting ``kg serve`` to the first answered query."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        [*KG, "serve", "--port", str(port)],
        env=env,
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        while True:
            try:
                r = httpx.post(f"http://127.0.0.1:{port}/graphql", json={"query": QUERY}, timeout=60)
                if r.status_code == 200:
                    return time.perf_counter() - t0
            except httpx.TransportError:
                time.sleep(0.05)
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("data", type=Path, help="the shared data folder (with paperlists/)")
    p.add_argument("--work", type=Path, required=True, help="scratch folder (store and top-up file)")
    p.add_argument("--repeat", type=int, default=3, help="runs of each small command (median reported)")
    p.add_argument("--jobs", type=int, default=0, help="kg ingest --jobs (default: its own, one per core)")
    p.add_argument(
        "--commands-only",
        action="store_true",
        help="skip the ingest: time the small commands on the store already in WORK/kg (adds 10 papers)",
    )
    a = p.parse_args()
    a.work = a.work.resolve()
    a.work.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "KG_DATA_DIR": str(a.work / "kg")}
    data = a.data.resolve()
    sources = [data / "paperlists", *sorted(data.glob("*.jsonl"))]
    print(f"load average before: {os.getloadavg()}")
    # Distinct papers of the real sources, then the top-up to exactly TARGET.
    store = a.work / "kg"
    if a.commands_only:
        small_commands(env, a.work, a.repeat)
        return
    if store.exists():
        raise SystemExit(f"{store} exists: start from an empty work dir")
    distinct = distinct_papers(sources)
    topup = write_topup(data / "paperlists", TARGET - distinct, a.work / "topup.jsonl")
    print(f"corpus: {distinct} distinct real papers + {TARGET - distinct} recombined = {TARGET}")
    jobs = ["--jobs", str(a.jobs)] if a.jobs else []
    cpu0 = children_cpu_seconds()
    wall, rss, out = run(["ingest", "--no-progress", *jobs, *map(str, sources), str(topup)], env)
    cpu = children_cpu_seconds() - cpu0
    added = int(re.search(r"(\d+) added", out).group(1))  # type: ignore[union-attr]
    print(f"kg ingest of the corpus: {added} papers in {wall:.1f} s ({added / wall:.0f} papers/s)")
    tokenizer = tokenizer_cpu_seconds(corpus_texts([*sources, topup]))
    print(
        f"  CPU {cpu:.0f} s (ingest and its workers) = {cpu / tokenizer:.1f}x the spaCy tokenizer's "
        f"{tokenizer:.1f} s on the same texts ({1000 * cpu / added:.2f} ms per paper)"
    )
    print(f"  peak RSS {rss:.0f} MB (largest process: the ingest or one extraction worker)")
    small_commands(env, a.work, a.repeat)


def small_commands(env: dict[str, str], work: Path, repeat: int) -> None:
    """What a user runs after the ingest, each command ``repeat`` times: medians and each run."""
    store = work / "kg"
    extra = work / "ten.jsonl"
    figures: dict[str, list[float]] = {"+10 papers": [], "kg stats": [], "kg query": [], "kg serve ready": []}
    run_id = os.urandom(4).hex()  # new papers on every run, also into a store an earlier run added to
    for r in range(repeat):
        extra.write_text(
            "".join(
                json.dumps(
                    {"title": f"New {run_id} {r}-{i}", "abstract": f"Fresh bandits paper {run_id} {r} {i}."}
                )
                + "\n"
                for i in range(10)
            ),
            encoding="utf-8",
        )
        figures["+10 papers"].append(run(["ingest", "--no-progress", str(extra)], env)[0])
        figures["kg stats"].append(run(["stats"], env)[0])
        figures["kg query"].append(run(["query", QUERY], env)[0])
        figures["kg serve ready"].append(serve_ready(env))
    for name, values in figures.items():
        runs = ", ".join(f"{v:.2f}" for v in values)
        print(f"{name}: median {statistics.median(values):.2f} s over {len(values)} runs ({runs})")
    size = sum(f.stat().st_size for f in store.iterdir())
    print(f"store size: {size / 1e6:.0f} MB; load average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
