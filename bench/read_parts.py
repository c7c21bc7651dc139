"""In-process CPU and answers of two reads at a store's scale: search and the concept graph.

Usage (run it from each of two trees, e.g. a base worktree and a branch, on copies of one store;
the texts and concepts are ``bench/api_latency.py``'s, drawn from the store)::

    python bench/read_parts.py search STORE_DIR OUT.json [--pool 150]
    python bench/read_parts.py graph STORE_DIR OUT.json [--pool 150]
    python bench/read_parts.py pages STORE_DIR OUT.json [--pool 150]
    python bench/read_parts.py compare BASE.json BRANCH.json
    python bench/read_parts.py parts STORE_DIR OUT.json [--pool 150]
    python bench/read_parts.py nearest STORE_DIR OUT.json [--pool 150] [--titles FILE.jsonl ...]
    python bench/read_parts.py words STORE_DIR OUT.json [--pool 600] [--block 150] [--warm N]
        [--titles FILE.jsonl ...]

``search``: each text through ``ReadService.search`` (20 hits), its answer (ids and scores as
``repr``) and the CPU of the word side (the store's ``search`` calls), then the same for the
raw any-word BM25 page of the texts whose every-word page is not full. ``graph``: every
``conceptGraph`` of the concepts x minWeight 1/2/5 x maxNodes 50/100/200 and of the whole graph,
and the co-author ties at weight 2 and 3 among the 50 most prolific authors' depth-2 networks,
as hashes; and the CPU of ``pair_edges_among`` for the benchmark's view (minWeight 2, 100 nodes),
its first call (which reads the version's heavy ties) apart. ``compare``: how many answers are
byte-identical, differ only in scores, or changed (and how many of a changed page's ids stay).
``parts``: where a new search's CPU goes, in-process, over the same texts: the query's embedding,
the every-word and the any-word store queries, the nearest-paper scan, the hits' vectors, the
hydration of the papers found by meaning alone, and the rest (blending, sorting); mean, median
and max of each part, ms of CPU a text. ``nearest``: the first pass a search's nearest papers
come from (``kg.stores.nearest.FirstPass``) against the exact scan, on the version's matrix: for
the benchmark's texts and the first 250 titles of each ``--titles`` file (embedded here), how
many top 20s are the same (ids, order and scores), the recall, each differing text's missed
hits, and the CPU a query of each; and, as ``similar`` would ask (40, the paper left out), for
500 store papers' own vectors.
``words``: the word side (the store's ``search`` calls as ``ReadService.search`` makes them: every
word, then any word when the page is not full) of ``--pool`` new texts in blocks of ``--block``,
one process and one store version, mean, median and max ms of CPU a text per block (the held
word scores, :mod:`kg.stores.sqlite.word_scores`, are read in the first block, once the version
has been searched ``--warm`` times: default the tree's own ``WARM_SEARCHES``); then the answers
of those texts and of the first 250 titles of each ``--titles`` file: ``ReadService.search`` and
the raw every-word and any-word pages, for ``compare``.
``pages``: concept pages (about only) of the benchmark's concepts and of 50 from rank 3,000 of
the paper-count list, each with and without its narrower concepts, by relevance and newest
first, at offsets 0, 20, 1,000, the last three and past the end (20 a page), as ``[total, ids]``;
and the CPU of ``store.papers`` for the benchmark's first pages (both orders, the closures from
``ReadService``), the version's first asks apart.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this checkout's kg and bench
from bench.api_latency import pick_parameters  # noqa: E402
from kg.core.text_index import search_terms  # noqa: E402
from kg.read.networks import ego_ids  # noqa: E402
from kg.read.service import ReadService  # noqa: E402
from kg.stores.sqlite import SQLiteStore  # noqa: E402


def _cpu() -> float:
    return time.process_time() * 1000


def search(store: SQLiteStore, texts: list[str]) -> dict[str, Any]:
    service = ReadService(store)
    service.search("warm up text", 20)
    original = store.search
    word = [0.0]

    def timed(*args: Any, **kwargs: Any) -> Any:
        start = _cpu()
        try:
            return original(*args, **kwargs)
        finally:
            word[0] += _cpu() - start

    store.search = timed  # type: ignore[method-assign]
    answers, words, whole = {}, [], []
    for text in texts:
        word[0], start = 0.0, _cpu()
        answers[text] = [(h.node.id, repr(h.score)) for h in service.search(text, 20)]
        whole.append(_cpu() - start)
        words.append(word[0])
    store.search = original  # type: ignore[method-assign]
    raw = {}
    for text in texts:
        if len(store.search(text, 20, every_word=True)) < 20 and len(search_terms(text)[1]) > 1:
            raw[text] = [(h.node.id, repr(h.score)) for h in store.search(text, 20)]
    print(
        f"{len(texts)} texts: search {statistics.mean(whole):.2f} ms CPU a text, word side mean "
        f"{statistics.mean(words):.2f} / median {statistics.median(words):.2f} / max {max(words):.1f} ms; "
        f"{len(raw)} texts need the any-word query"
    )
    return {"search": answers, "any-word BM25": raw}


def parts(store: SQLiteStore, texts: list[str]) -> dict[str, Any]:
    import kg.read.service as service_module

    service = ReadService(store)
    service.search("warm up text", 20)
    spent: dict[str, float] = {}

    def timed(name: Any, fn: Any) -> Any:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            key = name(args, kwargs) if callable(name) else name
            start = _cpu()
            try:
                return fn(*args, **kwargs)
            finally:
                spent[key] = spent.get(key, 0.0) + _cpu() - start

        return wrapper

    def which(args: Any, kwargs: Any) -> str:
        return "every-word query" if kwargs.get("every_word") else "any-word query"

    names = ("embedding", "every-word query", "any-word query", "nearest scan", "hits' vectors", "hydration")
    originals = (service_module._embed_text, store.search, store.nearest_papers, store.paper_embeddings)
    service_module._embed_text = timed("embedding", service_module._embed_text)
    store.search = timed(which, store.search)  # type: ignore[method-assign]
    store.nearest_papers = timed("nearest scan", store.nearest_papers)  # type: ignore[method-assign]
    store.paper_embeddings = timed("hits' vectors", store.paper_embeddings)  # type: ignore[method-assign]
    store.get_nodes = timed("hydration", store.get_nodes)  # type: ignore[method-assign]
    table: dict[str, list[float]] = {n: [] for n in (*names, "rest", "search")}
    for text in texts:
        spent.clear()
        start = _cpu()
        service.search(text, 20)
        whole = _cpu() - start
        for n in names:
            table[n].append(spent.get(n, 0.0))
        table["rest"].append(whole - sum(spent.values()))
        table["search"].append(whole)
    service_module._embed_text = originals[0]
    store.search, store.nearest_papers, store.paper_embeddings = originals[1:]  # type: ignore[method-assign]
    for n, xs in table.items():
        mean, median = statistics.mean(xs), statistics.median(xs)
        print(f"{n:>18}: mean {mean:6.2f}  median {median:6.2f}  max {max(xs):7.1f} ms")
    return {"parts": table}


def nearest(store: SQLiteStore, texts: list[str], title_files: list[Path]) -> dict[str, Any]:
    import numpy as np

    from extractors.embedding import default_embedder
    from kg.stores.nearest import FirstPass
    from kg.stores.sqlite import vectors
    from kg.stores.warm import WarmSlot

    matrix = vectors.read_matrix(store._reader())
    start = _cpu()
    matrix._first_slot = WarmSlot(warm_asks=1)  # built here, at the first ask
    matrix._first_slot.get(0, lambda: FirstPass(matrix.unit))
    print(f"{len(matrix.ids)} rows; first pass built in {_cpu() - start:.0f} ms of CPU")
    titles = []
    for path in title_files:
        with path.open() as f:
            titles += [json.loads(line)["title"] for _, line in zip(range(250), f, strict=False)]
    embedder = default_embedder()
    out: dict[str, Any] = {}
    for part, queries in (("texts", texts), ("titles", titles)):
        blobs = [embedder.embed_quantized([q])[0] for q in queries]
        start = _cpu()
        exact = [matrix.nearest(b, 20, ()) for b in blobs]
        exact_ms = (_cpu() - start) / max(len(blobs), 1)
        start = _cpu()
        rough = [matrix.nearest(b, 20, (), approximate=True) for b in blobs]
        rough_ms = (_cpu() - start) / max(len(blobs), 1)
        same = sum(a == e for a, e in zip(rough, exact, strict=True))
        kept = [
            len({p for p, _ in a} & {p for p, _ in e}) / max(len(e), 1)
            for a, e in zip(rough, exact, strict=True)
        ]
        print(
            f"{part}: top 20 the same for {same} of {len(blobs)}, "
            f"recall {statistics.mean(kept or [1.0]):.4f}; "
            f"exact scan {exact_ms:.2f} ms, first pass {rough_ms:.2f} ms of CPU a query"
        )
        for q, a, e in zip(queries, rough, exact, strict=True):
            if a != e:
                missed = [(p, s, e.index((p, s)) + 1) for p, s in e if (p, s) not in a]
                print(f"  differs: {q[:70]!r} misses (id, score, rank) {missed}")
        out[part] = {q: [a, e] for q, a, e in zip(queries, rough, exact, strict=True)}
    picked = np.random.default_rng(7).choice(len(matrix.ids), min(500, len(matrix.ids)), replace=False)
    ids = [matrix.ids[i] for i in picked]
    own = vectors.vectors_of(store._reader(), ids)
    same = sum(
        matrix.nearest(v, 40, (pid,), approximate=True) == matrix.nearest(v, 40, (pid,))
        for pid, v in zip(ids, own, strict=True)
        if v is not None
    )
    print(f"store papers (40 nearest, the paper left out): the same for {same} of {len(ids)}")
    return out


def graph(store: SQLiteStore, concepts: list[str]) -> dict[str, Any]:
    service = ReadService(store)

    def digest(value: Any) -> str:
        return hashlib.sha1(json.dumps(value).encode()).hexdigest()

    views = {}
    for name in concepts:
        for weight in (1, 2, 5):
            for nodes in (50, 100, 200):
                v = service.concept_graph(name, weight, nodes)
                views[f"{name}|{weight}|{nodes}"] = digest([v.nodes, v.edges, v.truncated])
    for weight in (2, 5):
        for nodes in (50, 200):
            v = service.concept_graph(None, weight, nodes)
            views[f"whole|{weight}|{nodes}"] = digest([v.nodes, v.edges, v.truncated])
    for author in service.list_authors(None, "PAPER_COUNT", 0, 50)[0]:
        ids = [n.id for n in service.coauthor_network(str(author.properties["name"]), 2, 200).nodes]
        for weight in (2, 3):
            views[f"{author.id}|{weight}"] = digest(store.pair_edges_among(ids, "COAUTHOR", weight))
    centres = [service.require_concept(n).id for n in concepts]
    sets = [sorted(ego_ids(store, "CO_OCCURS", c, 1, 100, 2)[0]) for c in centres]
    fresh = SQLiteStore(Path(store.path).parent)  # no heavy ties held yet
    start = _cpu()
    fresh.pair_edges_among(sets[0], "CO_OCCURS", 2)
    first = _cpu() - start
    rounds = []
    for _ in range(3):
        start = _cpu()
        for ids in sets:
            fresh.pair_edges_among(ids, "CO_OCCURS", 2)
        rounds.append((_cpu() - start) / len(sets))
    print(
        f"{len(views)} answers; pair_edges_among (minWeight 2, 100 nodes, {len(sets)} concepts): first call "
        f"{first:.0f} ms, then {' / '.join(f'{r:.2f}' for r in rounds)} ms a call over three rounds"
    )
    return {"graph": views}


def pages(store: SQLiteStore, ids: list[str]) -> dict[str, Any]:
    service = ReadService(store)
    queries = [
        service.concept_query(cid, narrower, True, order)
        for cid in ids
        for narrower in (True, False)
        for order in ("RELEVANCE", "NEWEST")
    ]
    start = _cpu()
    for q in queries[:2]:
        store.papers(q, 0, 20)
    cold = _cpu() - start
    start = _cpu()
    store.papers(queries[2], 0, 20)  # the version's third ask: the branch builds its lists
    third = _cpu() - start
    answers = {}
    for cid, q in zip([c for c in ids for _ in range(4)], queries, strict=True):
        total = store.papers(q, 0, 20).total
        for offset in sorted({0, 20, 1000, max(0, total - 3), total}):
            page = store.papers(q, offset, 20)
            key = f"{cid}|{len(q.concepts or ())}|{q.order}|{offset}"
            answers[key] = json.dumps([page.total, page.ids])
    bench = [q for i, q in enumerate(queries[: 4 * 150]) if i % 4 in (0, 1)]  # with narrower, both orders
    rounds = []
    for _ in range(3):
        start = _cpu()
        for q in bench:
            store.papers(q, 0, 20)
        rounds.append((_cpu() - start) / len(bench))
    print(
        f"{len(answers)} answers; the version's first two pages {cold:.0f} ms, its third {third:.0f} ms; "
        f"store.papers, first page with the narrower concepts ({len(bench)} pages, both orders): "
        f"{' / '.join(f'{r:.3f}' for r in rounds)} ms a page over three rounds"
    )
    return {"pages": answers}


def words(store: SQLiteStore, texts: list[str], title_files: list[Path], block: int) -> dict[str, Any]:
    store.search("warm up text", 20, every_word=True)
    for b in range(0, len(texts), block):
        spent = []
        for text in texts[b : b + block]:
            start = _cpu()
            if len(store.search(text, 20, every_word=True)) < 20 and len(search_terms(text)[1]) > 1:
                store.search(text, 20)
            spent.append(_cpu() - start)
        print(
            f"texts {b}-{b + len(spent) - 1}: word side mean {statistics.mean(spent):.2f} / median "
            f"{statistics.median(spent):.2f} / max {max(spent):.1f} ms a text"
        )
        start = _cpu()
        if getattr(store, "wait_builds", None) is not None and store.wait_builds(600):
            print(f"  builds running in the background waited for: {_cpu() - start:.0f} ms of CPU")
    titles = [
        str(json.loads(line)["title"])
        for f in title_files
        for line in f.read_text(encoding="utf-8").splitlines()[:250]
    ]
    service = ReadService(store)
    out: dict[str, Any] = {"search": {}, "every word": {}, "any word": {}}
    for text in texts + titles:
        out["search"][text] = [(h.node.id, repr(h.score)) for h in service.search(text, 20)]
        out["every word"][text] = [
            (h.node.id, repr(h.score)) for h in store.search(text, 20, every_word=True)
        ]
        out["any word"][text] = [(h.node.id, repr(h.score)) for h in store.search(text, 20)]
    return out


def compare(base: dict[str, Any], branch: dict[str, Any]) -> None:
    for part, answers in base.items():
        same = scores = changed = 0
        for key, old in answers.items():
            new = branch[part][key]
            if new == old:
                same += 1
            elif [i for i, _ in new] == [i for i, _ in old] if isinstance(old, list) else False:
                scores += 1
            else:
                changed += 1
                if isinstance(old, list):
                    kept = len({i for i, _ in new} & {i for i, _ in old})
                    print(f"  changed: {key!r}: {kept} of {len(old)} ids stay")
        print(f"{part}: {len(answers)} answers, byte-identical {same}, only scores differ {scores}, ", end="")
        print(f"changed {changed}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("what", choices=["search", "graph", "pages", "compare", "parts", "nearest", "words"])
    parser.add_argument("first", type=Path)
    parser.add_argument("second", type=Path)
    parser.add_argument("--pool", type=int, default=150)
    parser.add_argument("--titles", type=Path, nargs="*", default=[], help="jsonl files of dev papers")
    parser.add_argument("--block", type=int, default=150, help="words: texts a block")
    parser.add_argument(
        "--warm", type=int, help="words: searches of a version before its word scores are read"
    )
    args = parser.parse_args()
    if args.warm is not None:
        try:
            from kg.stores.sqlite import word_scores
        except ImportError:  # a tree from before the held word scores
            pass
        else:
            word_scores.WARM_SEARCHES = args.warm
    if args.what == "compare":
        compare(json.loads(args.first.read_text()), json.loads(args.second.read_text()))
        return 0
    store = SQLiteStore(args.first)
    measured = pick_parameters(store, args.pool).measured
    if args.what == "search":
        out = search(store, [p["text"] for p in measured["search"]])
    elif args.what == "nearest":
        out = nearest(store, [p["text"] for p in measured["search"]], args.titles)
    elif args.what == "words":
        out = words(store, [p["text"] for p in measured["search"]], args.titles, args.block)
    elif args.what == "parts":
        out = parts(store, [p["text"] for p in measured["search"]])
    elif args.what == "pages":
        service = ReadService(store)
        named = [service.require_concept(p["concept"]).id for p in measured["concept_papers_authors"]]
        wide = [n.id for n in service.list_concepts(None, None, "PAPER_COUNT", 3000, 50)[0]]
        out = pages(store, named + wide)
    else:
        out = graph(store, [p["concept"] for p in measured["concept_graph"]])
    args.second.write_text(json.dumps(out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
