"""What the concept targets can reach on the dev data: oracle ceilings and the common-slot frontier.

Usage::

    python bench/concept_ceilings.py [--data-dir ../shared/data] [--limit N] [--cache FILE]

Why (issue 25): F1@10 against author keywords is below 1.7x YAKE on COLM 2024 and 3DV 2025, and
common concepts fill 16-18% of top-10 slots in one-venue stores (target <= 5%). Whether those
targets are reachable at all is a question about the data, answered here by oracles that know the
author keywords, through the same harness as ``bench/concepts.py`` (:mod:`api.concept_eval`: the
dev sets ingested into real SQLite stores, each alone and all in one, lists read through GraphQL,
scored by :func:`kg.eval.evaluation.score`, YAKE on the same papers in the same run).

Ceilings of F1@10, each a ratio to YAKE (an oracle puts every string that matches an author
keyword by the harness's rule, stemmed whole-phrase equality, first; precision still divides by 10):

* (a) a re-ranking of what the API returns, ``keyConcepts(first: 100)`` (the page limit), by the
  surface the harness scores; (a+) the same when the list may show a concept's canonical name
  instead of its surface;
* (b) every candidate the extractor scores (``Analysis.candidates``: surfaces, canonical names,
  aliases) plus the API's strings (PREDICTED concepts); (b+) every phrase the extractor's stages
  collect before any cut (plain noun phrases past ``PLAIN_KEEP``, junk, acronyms, introduced
  names);
* (c) (b+) and every contiguous sub-phrase of each of its strings;
* (d) every phrase of the title and abstract (the keywords present in the text): the bound of any
  extractive list; (d+) (c) or (d): what text, sub-phrases, names and predictions reach together.

The frontier (each set alone in its store): read-time rules that move concepts linked to >= 7% of
the store's papers down the API's list (a factor ``f`` on their score within the about-first
order, or at most ``k`` of them in a top 10), F1@10 / YAKE against the share of top-10 slots on
such concepts; and the same for the oracle (a), whose hits on common concepts are what a perfect
list cannot avoid. Last, the share of author-keyword occurrences that resolve (``concept(name:
K)``) to a concept linked to >= 7% of the set's papers.
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import math  # noqa: E402
import pickle  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable, Iterable, Sequence  # noqa: E402
from dataclasses import dataclass  # noqa: E402
from functools import partial  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from api.concept_eval import BROAD_SHARE, DevSet, SchemaReader, extract, upsert_dev_sets  # noqa: E402
from bench.concepts import DEFAULT_DATA_DIR, DEV_SETS, machine  # noqa: E402
from kg.core.config import Settings  # noqa: E402
from kg.eval.evaluation import EvalPaper, load_eval_papers, score, stem_phrase, yake_predict  # noqa: E402
from kg.stores.sqlite import SQLiteStore  # noqa: E402

Stems = tuple[str, ...]
TARGET = 1.7

LISTS = """query($after: String) { papers(first: 50, after: $after) {
    pageInfo { hasNextPage endCursor }
    nodes { id keyConcepts(first: 100) { name surface score salience about source
        concept { paperCount(includeNarrower: false, includeMentions: true) } } } } }"""
CONCEPT_COUNT = """query($name: String!) { concept(name: $name) {
    paperCount(includeNarrower: false, includeMentions: true) } }"""
STATS = "{ stats { nodes { label count } } }"


@dataclass(frozen=True)
class Item:
    """One key concept as the API listed it (role: read row)."""

    name: str
    surface: str
    score: float
    salience: float
    about: bool
    source: str
    linked: int  # papers its concept is linked to (1: a paper-only phrase)


@dataclass
class Store:
    """What one setting's store showed: every paper's list, its paper count, keyword links."""

    lists: dict[str, list[Item]]
    papers: int
    keyword_linked: dict[str, int | None]  # folded keyword -> paperCount of concept(name: K), None: null


# --------------------------------------------------------------------------- the extractor's pools


def pools(papers: Sequence[EvalPaper]) -> tuple[list[set[str]], list[set[str]]]:
    """Per paper (scored candidates' strings, every phrase the stages collect before any cut).

    Runs the stages of :func:`extractors.concepts.analysis.pipeline.run_stages` on the fast-mode
    Doc the pipeline builds; the pre-cut pool is read from the stage context after stage 4, the
    scored list is :func:`~extractors.concepts.analysis.pipeline.analyse`'s.
    """
    from extractors.concepts.analysis.acronyms import (
        count_acronym_uses,
        define_acronyms,
        expand_acronym_phrases,
    )
    from extractors.concepts.analysis.context import PaperContext
    from extractors.concepts.analysis.introductions import collect_introduced, collect_named
    from extractors.concepts.analysis.phrases import (
        collect_function_word_phrases,
        collect_keyword_adjectives,
        collect_noun_phrases,
    )
    from extractors.concepts.analysis.pipeline import analyse
    from extractors.concepts.analysis.vocabulary_match import match_vocabulary
    from extractors.concepts.analysis.word_classes import fix_word_classes
    from extractors.concepts.background import load_background
    from extractors.concepts.tokens import stream_from_doc
    from extractors.concepts.vocabulary import default_vocabulary
    from extractors.text import extraction_parts
    from kg.ingest.nlp import load_nlp

    nlp = load_nlp(mode="fast")
    vocab = default_vocabulary(nlp.tokenizer)
    background = load_background()
    scored: list[set[str]] = []
    before: list[set[str]] = []
    for p in papers:
        text, title_end = extraction_parts(p.title or None, p.abstract)
        doc = nlp.tokenizer(text)
        analysis = analyse(doc, text, title_end, vocab, background, True)
        mine: set[str] = set()
        for c in analysis.candidates:
            analysis.finalize(c)
            mine.update((c.surface, c.name, *c.aliases))
        scored.append({s for s in mine if s})
        stream = stream_from_doc(nlp.tokenizer(text), background.lexicon, title_end, tagged=False)
        fix_word_classes(stream, title_end, background)
        ctx = PaperContext(doc, text, title_end, vocab, background, stream, False)
        for stage in (
            define_acronyms,
            match_vocabulary,
            count_acronym_uses,
            collect_noun_phrases,
            expand_acronym_phrases,
            collect_keyword_adjectives,
            collect_function_word_phrases,
            collect_introduced,
            collect_named,
        ):
            stage(ctx)

        def spelt(spans: Iterable[tuple[int, int]], text: str = text, stream: Any = stream) -> Iterable[str]:
            for s, e in spans:
                if e > s:
                    yield text[stream.starts[s] : stream.ends[e - 1]]

        pool = set(mine)
        for c in (*ctx.by_vocab.values(), *ctx.by_key.values()):
            pool.update((c.name, c.surface, *c.aliases, " ".join(c.key)))
            pool.update(spelt(c.spans))
        for key, spans in ctx.plain.items():
            pool.add(" ".join(key))
            pool.update(spelt(spans))
        for a in ctx.acronyms:
            pool.update(str(v) for v in vars(a).values() if isinstance(v, str))
        for intro in ctx.introduced:
            pool.update(str(v) for v in vars(intro).values() if isinstance(v, str))
        before.append({s for s in pool if s})
    return scored, before


# --------------------------------------------------------------------------- stores read through the API


def read_store(devs: Sequence[DevSet], settings: Settings) -> Store:
    """Ingest the dev sets' records into one new SQLite store; read every list and keyword."""
    with tempfile.TemporaryDirectory(prefix="kg-ceiling-") as tmp:
        store = SQLiteStore(Path(tmp))
        try:
            upsert_dev_sets(store, devs)
            reader = SchemaReader(store, settings)
            lists: dict[str, list[Item]] = {}
            after: str | None = None
            while True:
                page = reader.run(LISTS, {"after": after})["papers"]
                for node in page["nodes"]:
                    lists[node["id"]] = [
                        Item(
                            k["name"],
                            k["surface"] or k["name"],
                            k["score"],
                            k["salience"],
                            k["about"],
                            k["source"],
                            k["concept"]["paperCount"] if k["concept"] else 1,
                        )
                        for k in node["keyConcepts"]
                    ]
                if not page["pageInfo"]["hasNextPage"]:
                    break
                after = page["pageInfo"]["endCursor"]
            papers = next(n["count"] for n in reader.run(STATS)["stats"]["nodes"] if n["label"] == "Paper")
            keywords: dict[str, int | None] = {}
            for dev in devs:
                for p in dev.papers:
                    for k in p.keywords:
                        key = k.strip().lower()
                        if key and key not in keywords:
                            c = reader.run(CONCEPT_COUNT, {"name": k.strip()})["concept"]
                            keywords[key] = None if c is None else c["paperCount"]
            return Store(lists, papers, keywords)
        finally:
            store.close()


# --------------------------------------------------------------------------- oracles and rules


def gold_of(paper: EvalPaper) -> set[Stems]:
    return {s for s in (stem_phrase(k) for k in paper.keywords) if s}


def oracle(paper: EvalPaper, strings: Iterable[str]) -> list[str]:
    """The strings that match an author keyword (one per keyword), best first by construction."""
    gold = gold_of(paper)
    out: dict[Stems, str] = {}
    for s in strings:
        stems = stem_phrase(s)
        if stems in gold and stems not in out:
            out[stems] = s
    return list(out.values())


def sub_phrase_hits(paper: EvalPaper, strings: Iterable[str]) -> int:
    """Author keywords equal to a contiguous sub-phrase (stemmed) of any of the strings."""
    gold = gold_of(paper)
    found: set[Stems] = set()
    for s in strings:
        stems = stem_phrase(s)
        n = len(stems)
        for i in range(n):
            for j in range(i + 1, n + 1):
                if stems[i:j] in gold:
                    found.add(stems[i:j])
    return len(found)


def present_hits(paper: EvalPaper) -> int:
    """Author keywords present in the title or abstract (the harness's :func:`is_present`)."""
    from kg.eval.evaluation import is_present

    return sum(
        1
        for k in {stem_phrase(k): k for k in paper.keywords if stem_phrase(k)}.values()
        if is_present(k, paper)
    )


def inside(haystack: Stems, needle: Stems) -> bool:
    """Whether ``needle`` occurs contiguously in ``haystack`` (the harness's presence rule)."""
    n = len(needle)
    return any(haystack[i : i + n] == needle for i in range(len(haystack) - n + 1))


def text_or_sub_hits(paper: EvalPaper, strings: Iterable[str]) -> int:
    """Author keywords present in the text or inside one of the strings (the union of (c) and (d))."""
    gold = gold_of(paper)
    segments = (stem_phrase(paper.title), stem_phrase(paper.abstract))
    found = {g for g in gold if any(inside(seg, g) for seg in segments)}
    for s in strings:
        stems = stem_phrase(s)
        n = len(stems)
        found.update(stems[i:j] for i in range(n) for j in range(i + 1, n + 1) if stems[i:j] in gold)
    return len(found)


def f1_of_hits(papers: Sequence[EvalPaper], hits: Sequence[int]) -> float:
    """Macro F1@10 (percent) of lists holding ``hits`` matching strings, padded with misses;
    scored by the harness itself so the figure is the same rule as every other one."""
    lists = []
    for paper, h in zip(papers, hits, strict=True):
        gold = list({stem_phrase(k): k for k in paper.keywords if stem_phrase(k)}.values())
        lists.append(gold[: min(h, 10)])
    return score(papers, lists).f1_at_10


def is_common(item: Item, store_papers: int) -> bool:
    return item.linked >= BROAD_SHARE * store_papers


def api_key(k: Item) -> tuple[bool, float, float]:
    """The API's best-first key as far as the list shows it (:func:`kg.read.key_concepts.rank_key`)."""
    return (not k.about, -k.score, -k.salience)


def field_tail(items: Sequence[Item]) -> int:
    """Where the API's list of the store's field words starts (``len(items)`` if none): the list is
    sorted by :func:`api_key`, then the one-word concepts common in the store (by the store's own
    node counts, :func:`kg.read.key_concepts.demote_field_words`) follow, sorted too, so the
    first break in the order is where they begin."""
    for i in range(1, len(items)):
        if api_key(items[i]) < api_key(items[i - 1]):
            return i
    return len(items)


def rank_with_factor(items: Sequence[Item], factor: float, store_papers: int) -> list[Item]:
    """The API's order with a common concept's score multiplied by ``factor`` (about first, then
    score; the field words the API put last stay last)."""
    cut = field_tail(items)

    def key(pair: tuple[int, Item]) -> tuple[bool, float, int]:
        i, k = pair
        s = k.score * (factor if is_common(k, store_papers) else 1.0)
        return (not k.about, -s, i)

    return [k for _, k in sorted(enumerate(items[:cut]), key=key)] + list(items[cut:])


def rank_common_last(items: Sequence[Item], store_papers: int) -> list[Item]:
    return sorted(items, key=lambda k: is_common(k, store_papers))


def rank_with_cap(items: Sequence[Item], cap: int, store_papers: int) -> list[Item]:
    """At most ``cap`` common concepts in the top 10: the others move after every other concept."""
    kept: list[Item] = []
    moved: list[Item] = []
    used = 0
    for k in items:
        if is_common(k, store_papers):
            if used < cap:
                used += 1
                kept.append(k)
            else:
                moved.append(k)
        else:
            kept.append(k)
    return kept + moved


def common_share(lists: Sequence[Sequence[Item]], store_papers: int) -> float:
    slots = sum(min(len(x), 10) for x in lists)
    common = sum(is_common(k, store_papers) for x in lists for k in x[:10])
    return 100.0 * common / max(slots, 1)


def oracle_items(paper: EvalPaper, items: Sequence[Item], store_papers: int, cap: int | None) -> list[Item]:
    """(a)'s perfect list: matching items first (common ones up to ``cap``), then the rest,
    non-common before common, so the list holds as few common slots as its hits allow."""
    gold = gold_of(paper)
    hits: list[Item] = []
    seen: set[Stems] = set()
    rest: list[Item] = []
    commons = 0
    for k in items:
        stems = stem_phrase(k.surface)
        if stems in gold and stems not in seen:
            if is_common(k, store_papers):
                if cap is not None and commons >= cap:
                    rest.append(k)
                    continue
                commons += 1
            seen.add(stems)
            hits.append(k)
        else:
            rest.append(k)
    rest.sort(key=lambda k: is_common(k, store_papers))
    return hits + rest


# --------------------------------------------------------------------------- designs on the API's lists

LEARNED_TOP = 30  # the learned order re-ranks the API's best 30 (the ranker's RERANK_TOP)


def item_features(k: Item, rank: int, store_papers: int) -> list[float]:
    """What a read-time order could weigh: the list's own fields, the API rank, the store share."""
    share = k.linked / max(store_papers, 1)
    words = len(k.surface.split())
    return [
        1.0,
        float(k.about),
        k.score,
        math.log1p(max(k.score, 0.0)),
        k.salience,
        float(k.source == "VOCABULARY"),
        float(k.source == "PREDICTED"),
        float(k.linked <= 1),
        math.log(max(share, 1e-4)),
        float(share >= BROAD_SHARE),
        float(share >= BROAD_SHARE and len(k.name.split()) == 1),
        float(words),
        float(words == 1),
        float(stem_phrase(k.surface) == stem_phrase(k.name)),
        math.log1p(rank),
    ]


def labelled(
    paper: EvalPaper, items: Sequence[Item], store_papers: int
) -> tuple[list[list[float]], list[float]]:
    gold = gold_of(paper)
    seen: set[Stems] = set()
    xs, ys = [], []
    for i, k in enumerate(items[:LEARNED_TOP]):
        stems = stem_phrase(k.surface)
        ys.append(float(stems in gold and stems not in seen))
        seen.add(stems)
        xs.append(item_features(k, i, store_papers))
    return xs, ys


def fit_logistic(x: Any, y: Any, l2: float = 1.0) -> tuple[Any, Any, Any]:
    """L2 logistic regression by Newton steps on standardised features (as scripts/train_ranker.py)."""
    import numpy as np

    mu, sd = x.mean(0), x.std(0)
    mu[0], sd[0] = 0.0, 1.0
    sd[sd == 0] = 1.0
    z = (x - mu) / sd
    w = np.zeros(x.shape[1])
    for _ in range(25):
        p = 1 / (1 + np.exp(-z @ w))
        grad = z.T @ (p - y) + l2 * w
        hess = (z * (p * (1 - p))[:, None]).T @ z + l2 * np.eye(len(w))
        w -= np.linalg.solve(hess, grad)
    return mu, sd, w


def learned_lists(
    model: tuple[Any, Any, Any],
    lists: Sequence[Sequence[Item]],
    store_papers: int,
    common_factor: float = 1.0,
) -> list[list[Item]]:
    """Each list's best :data:`LEARNED_TOP` re-ordered by the model (a common concept's odds times
    ``common_factor``), the rest after them as the API listed them."""
    import numpy as np

    mu, sd, w = model
    out: list[list[Item]] = []
    for items in lists:
        top = list(items[:LEARNED_TOP])
        if not top:
            out.append([])
            continue
        z = ((np.array([item_features(k, i, store_papers) for i, k in enumerate(top)]) - mu) / sd) @ w
        bonus = [
            math.log(common_factor) if is_common(k, store_papers) and common_factor > 0 else 0.0 for k in top
        ]
        order = sorted(range(len(top)), key=lambda i: -(z[i] + bonus[i]))
        out.append([top[i] for i in order] + list(items[LEARNED_TOP:]))
    return out


Shown = tuple[list[list[str]], Sequence[Sequence[Item]]]  # (strings scored, the items in order)


def factor_rule(factor: float, items: Sequence[Item], store_papers: int) -> list[Item]:
    return rank_with_factor(items, factor, store_papers)


def cap_rule(cap: int, items: Sequence[Item], store_papers: int) -> list[Item]:
    return rank_with_cap(items, cap, store_papers)


def show_name(paper: EvalPaper, k: Item) -> str:
    return k.name


def show_name_if_shorter(paper: EvalPaper, k: Item) -> str:
    return k.name if len(k.surface.split()) > len(k.name.split()) else k.surface


def show_name_if_written(paper: EvalPaper, k: Item) -> str:
    return k.name if written(paper, k.name) else k.surface


def written(paper: EvalPaper, phrase: str) -> bool:
    """Whether the paper's title or abstract holds the phrase (stemmed, contiguous)."""
    stems = stem_phrase(phrase)
    return bool(stems) and any(inside(stem_phrase(t), stems) for t in (paper.title, paper.abstract))


# --------------------------------------------------------------------------- report


def fmt(value: float, yake: float) -> str:
    return f"{value:.2f} ({value / yake:.2f}x)"


def run(sets: dict[str, list[EvalPaper]], cache: Path | None) -> None:
    devs = [DevSet(label, papers) for label, papers in sets.items() if papers]
    state: dict[str, Any] = {}
    if cache is not None and cache.exists():
        state = pickle.loads(cache.read_bytes())
    t0 = time.perf_counter()
    for dev in devs:
        if dev.label in state:
            dev.records, dev.yake, scored, before = state[dev.label]
        else:
            dev.records = extract(dev.papers)
            dev.yake = yake_predict(dev.papers)
            scored, before = pools(dev.papers)
            state[dev.label] = (dev.records, dev.yake, scored, before)
    if cache is not None:
        cache.write_bytes(pickle.dumps(state))
    print(f"extraction, YAKE and pools: {time.perf_counter() - t0:.0f} s")
    settings = Settings(backend="sqlite")
    alone = {dev.label: read_store([dev], settings) for dev in devs}
    together = read_store(devs, settings)

    print("\n## F1@10 ceilings (ratio to YAKE in this run; alone / all sets where the store matters)\n")
    print(
        "| dev set (papers) | YAKE | API top 10 | (a) re-rank API list | (a+) names too | "
        "(b) scored candidates | (b+) before any cut | (c) + sub-phrases | (d) text phrases | "
        "(d+) (c) or text | "
        "keywords absent from title+abstract |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for dev in devs:
        ids, papers = dev.paper_ids, dev.papers
        _, _, scored, before = state[dev.label]
        yake = score(papers, dev.yake).f1_at_10
        cells = []
        api_cells, a_cells, an_cells = [], [], []
        for store in (alone[dev.label], together):
            lists = [store.lists.get(pid, []) for pid in ids]
            api_cells.append(score(papers, [[k.surface for k in x[:10]] for x in lists]).f1_at_10)
            a_cells.append(
                score(
                    papers, [oracle(p, (k.surface for k in x)) for p, x in zip(papers, lists, strict=True)]
                ).f1_at_10
            )
            an_cells.append(
                score(
                    papers,
                    [
                        oracle(p, (s for k in x for s in (k.surface, k.name)))
                        for p, x in zip(papers, lists, strict=True)
                    ],
                ).f1_at_10
            )
        api_strings = [
            {
                s
                for store in (alone[dev.label], together)
                for k in store.lists.get(pid, [])
                for s in (k.surface, k.name)
            }
            for pid in ids
        ]
        b = score(
            papers, [oracle(p, sc | a) for p, sc, a in zip(papers, scored, api_strings, strict=True)]
        ).f1_at_10
        bplus_sets = [bf | sc | a for bf, sc, a in zip(before, scored, api_strings, strict=True)]
        bplus = score(papers, [oracle(p, s) for p, s in zip(papers, bplus_sets, strict=True)]).f1_at_10
        c = f1_of_hits(papers, [sub_phrase_hits(p, s) for p, s in zip(papers, bplus_sets, strict=True)])
        d = f1_of_hits(papers, [present_hits(p) for p in papers])
        dplus = f1_of_hits(papers, [text_or_sub_hits(p, s) for p, s in zip(papers, bplus_sets, strict=True)])
        total = sum(len(gold_of(p)) for p in papers)
        absent = 100.0 * (total - sum(present_hits(p) for p in papers)) / max(total, 1)
        cells = [
            f"{yake:.2f}",
            " / ".join(fmt(v, yake) for v in api_cells),
            " / ".join(fmt(v, yake) for v in a_cells),
            " / ".join(fmt(v, yake) for v in an_cells),
            fmt(b, yake),
            fmt(bplus, yake),
            fmt(c, yake),
            fmt(d, yake),
            fmt(dplus, yake),
            f"{absent:.1f}% of {total}",
        ]
        print(f"| {dev.label} ({len(papers)}) | " + " | ".join(cells) + " |")

    print("\n## The common-slot frontier (each set alone; F1@10 / YAKE, then % of top-10 slots on a concept")
    print("## linked to >= 7% of the store's papers)\n")
    rules: list[tuple[str, Callable[[Sequence[Item], int], list[Item]]]] = [
        ("API order", lambda x, n: list(x))
    ]
    for f in (0.9, 0.7, 0.5, 0.3, 0.0):
        rules.append((f"score x{f} if common", partial(factor_rule, f)))
    rules.append(("common last (about or not)", rank_common_last))
    for cap in (3, 2, 1, 0):
        rules.append((f"at most {cap} common in the top 10", partial(cap_rule, cap)))
    print("| rule | " + " | ".join(dev.label for dev in devs) + " |")
    print("|---|" + "---|" * len(devs))
    for name, rule in rules:
        cells = []
        for dev in devs:
            store = alone[dev.label]
            yake = score(dev.papers, dev.yake).f1_at_10
            lists = [rule(store.lists.get(pid, []), store.papers) for pid in dev.paper_ids]
            f1 = score(dev.papers, [[k.surface for k in x[:10]] for x in lists]).f1_at_10
            cells.append(f"{f1 / yake:.2f}x, {common_share(lists, store.papers):.1f}%")
        print(f"| {name} | " + " | ".join(cells) + " |")
    for most in (None, 3, 2, 1, 0):
        cells = []
        for dev in devs:
            store = alone[dev.label]
            yake = score(dev.papers, dev.yake).f1_at_10
            lists = [
                oracle_items(p, store.lists.get(pid, []), store.papers, most)
                for p, pid in zip(dev.papers, dev.paper_ids, strict=True)
            ]
            f1 = score(dev.papers, [[k.surface for k in x[:10]] for x in lists]).f1_at_10
            cells.append(f"{f1 / yake:.2f}x, {common_share(lists, store.papers):.1f}%")
        what = "every hit" if most is None else f"at most {most} common hits"
        print(f"| oracle (a), {what}, fewest common fillers | " + " | ".join(cells) + " |")

    designs(devs, alone, together)

    print("\n## Author keywords on common concepts (each set alone in its store)\n")
    print(
        "| dev set | store papers | 7% floor | keyword occurrences | resolving to a concept | "
        "to a common concept | common slots if each of those filled a slot | "
        "(a)'s oracle hits on a common concept |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for dev in devs:
        store = alone[dev.label]
        floor = BROAD_SHARE * store.papers
        occurrences = resolved = common = 0
        for p in dev.papers:
            for word in dict.fromkeys(w.strip().lower() for w in p.keywords if w.strip()):
                occurrences += 1
                linked = store.keyword_linked.get(word)
                resolved += linked is not None
                common += linked is not None and linked >= floor
        hits = common_hits = 0
        for p, pid in zip(dev.papers, dev.paper_ids, strict=True):
            gold = gold_of(p)
            seen: set[Stems] = set()
            for k in store.lists.get(pid, []):
                stems = stem_phrase(k.surface)
                if stems in gold and stems not in seen:
                    seen.add(stems)
                    hits += 1
                    common_hits += is_common(k, store.papers)
        print(
            f"| {dev.label} | {store.papers} | {floor:.0f} | {occurrences} | "
            f"{100 * resolved / max(occurrences, 1):.1f}% | {100 * common / max(occurrences, 1):.1f}% | "
            f"{100 * common / max(10 * len(dev.papers), 1):.1f}% | "
            f"{common_hits} of {hits} ({100 * common_hits / max(hits, 1):.1f}%) |"
        )


def designs(devs: Sequence[DevSet], alone: dict[str, Store], together: Store) -> None:
    """F1@10 / YAKE and common slots of read-time designs, each set alone / all sets in one store:
    a learned order fitted leave-one-venue-out (on the other sets' alone stores), and which of a
    concept's two strings (surface, canonical name) the list shows."""
    import numpy as np

    print("\n## Designs on the API's lists (F1@10 / YAKE and common slots; alone / all sets)\n")
    data = {}
    for dev in devs:
        store = alone[dev.label]
        xs: list[list[float]] = []
        ys: list[float] = []
        for p, pid in zip(dev.papers, dev.paper_ids, strict=True):
            x, y = labelled(p, store.lists.get(pid, []), store.papers)
            xs += x
            ys += y
        data[dev.label] = (np.array(xs), np.array(ys))
    models = {}
    for dev in devs:
        others = [data[d.label] for d in devs if d.label != dev.label]
        models[dev.label] = fit_logistic(
            np.vstack([o[0] for o in others]), np.concatenate([o[1] for o in others])
        )

    def surfaces(lists: Sequence[Sequence[Item]]) -> list[list[str]]:
        return [[k.surface for k in x[:10]] for x in lists]

    def learned(factor: float, dev: DevSet, store: Store, lists: Sequence[Sequence[Item]]) -> Shown:
        ranked = learned_lists(models[dev.label], lists, store.papers, factor)
        return surfaces(ranked), ranked

    def displayed(
        show: Callable[[EvalPaper, Item], str], dev: DevSet, store: Store, lists: Sequence[Sequence[Item]]
    ) -> Shown:
        return [[show(p, k) for k in x[:10]] for p, x in zip(dev.papers, lists, strict=True)], list(lists)

    def as_is(dev: DevSet, store: Store, lists: Sequence[Sequence[Item]]) -> Shown:
        return surfaces(lists), list(lists)

    rows: list[tuple[str, Callable[[DevSet, Store, Sequence[Sequence[Item]]], Shown]]] = [
        ("API order, surface (today)", as_is)
    ]
    for factor in (1.0, 0.5, 0.3):
        rows.append((f"learned order (leave-one-venue-out), common odds x{factor}", partial(learned, factor)))
    for name, show in (
        ("canonical name always", show_name),
        ("name when the surface has more words", show_name_if_shorter),
        ("name when the paper writes the name", show_name_if_written),
    ):
        rows.append((f"API order, {name}", partial(displayed, show)))
    print("| design | " + " | ".join(dev.label for dev in devs) + " |")
    print("|---|" + "---|" * len(devs))
    for name, design in rows:
        cells = []
        for dev in devs:
            yake = score(dev.papers, dev.yake).f1_at_10
            parts = []
            for store in (alone[dev.label], together):
                lists = [store.lists.get(pid, []) for pid in dev.paper_ids]
                shown, ranked = design(dev, store, lists)
                f1 = score(dev.papers, shown).f1_at_10
                parts.append(f"{f1 / yake:.2f}x {common_share(ranked, store.papers):.1f}%")
            cells.append(" / ".join(parts))
        print(f"| {name} | " + " | ".join(cells) + " |")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data-dir", type=Path, default=DEFAULT_DATA_DIR)
    parser.add_argument("--limit", type=int, default=None, help="first N papers of each dev set")
    parser.add_argument("--cache", type=Path, default=None, help="keep records, YAKE and pools here")
    args = parser.parse_args(argv)
    print(f"machine: {machine()}")
    sets = {
        label: [p for name in names for p in load_eval_papers(args.data_dir / name)][: args.limit]
        for label, names in DEV_SETS.items()
    }
    run(sets, args.cache)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
