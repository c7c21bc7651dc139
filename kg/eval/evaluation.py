"""Keyphrase evaluation harness behind ``kg eval-concepts FILE.jsonl``.

The protocol is the field's standard one for keyphrases scored against author keywords
(SemEval-2010 Task 5; Meng et al., ACL 2017 "Deep Keyphrase Generation"; Chan et al.,
ACL 2019), as written down in ``../shared/data/README.md``:

* predictions, gold keywords and the paper text are lowercased, tokenised (:func:`tokenize`)
  and Porter-stemmed (:func:`stem_phrase`);
* a prediction is correct iff its stemmed token sequence equals a stemmed gold phrase;
* duplicate predictions (after stemming) are dropped, keeping the first, so a system cannot
  score twice with "neural network" and "neural networks"; gold is deduplicated the same way
  so recall is not inflated or deflated by spelling variants of one keyword;
* F1@5 and F1@10 use a fixed denominator ``k`` for precision even when the system returns
  fewer than ``k`` phrases (otherwise returning one lucky phrase would give precision 1.0);
* F1@M uses all of the system's own predictions (precision = hits / number of predictions);
* present-only F1@10 restricts gold (and predictions) to phrases whose stemmed token
  sequence occurs contiguously in the stemmed title or abstract;
* every figure is a macro average over papers, reported in percent (0-100).

Why exact match: it is what published numbers use, so ours are comparable with them. It
undercounts synonyms ("LLM" vs "large language models"); a synonym-aware view could be added
beside it but must never replace it as the headline.

``nltk`` (Porter stemmer) and ``yake`` (the reference baseline) belong to the optional ``eval``
extra, so they are imported lazily: the rest of ``kg`` must import without them.
"""

from __future__ import annotations

import json
import math
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

__all__ = [
    "EvalPaper",
    "EvalRow",
    "Scores",
    "format_table",
    "is_present",
    "load_eval_papers",
    "run_timed",
    "score",
    "stem_phrase",
    "tokenize",
    "yake_predict",
]

EVAL_EXTRA_MESSAGE = "kg eval-concepts needs the eval extra: pip install 'paperkg[eval]'"
"""Error text shown when ``nltk`` or ``yake`` is missing (both ship in the ``eval`` extra)."""

_TOKEN_RE = re.compile(r"[^\W_]+")
"""A token is a maximal run of Unicode letters and digits (``str.isalnum`` characters).

``[^\\W_]`` is "a word character that is not an underscore", i.e. a letter or a digit in
any script. Everything else -- whitespace, hyphens, apostrophes, slashes, underscores,
``$``/``\\``/``{`` from LaTeX, other punctuation -- only separates tokens.
"""

Predictor = Callable[[Sequence["EvalPaper"]], Sequence[Sequence[str]]]
"""A keyphrase system: ranked phrases (best first) for each paper, in input order."""


# --------------------------------------------------------------------------- data loading


@dataclass(frozen=True)
class EvalPaper:
    """One paper usable as a keyphrase test case.

    Attributes:
        id: The source's stable identifier (OpenReview forum id); defines the order.
        title: Paper title, verbatim.
        abstract: Paper abstract, verbatim (LaTeX kept); never empty.
        keywords: Author keywords (the gold), stripped, at least one.
    """

    id: str
    title: str
    abstract: str
    keywords: tuple[str, ...]


def _field(record: dict[str, Any], name: str, where: str) -> str:
    """Return a string field, treating missing/``null`` as ``""`` and other types as errors.

    Missing text is a legitimate data state (the paper is then skipped), but a number or a
    list where text belongs means the file is not what we think it is, so that must fail.
    """
    value = record.get(name)
    if value is None:
        return ""
    if not isinstance(value, str):
        raise ValueError(f"{where}: field {name!r} must be a string, got {type(value).__name__}")
    return value


def _keywords(record: dict[str, Any], where: str) -> tuple[str, ...]:
    """Return the stripped, non-empty keywords of a record (a missing field means none)."""
    value = record.get("keywords")
    if value is None:
        return ()
    if isinstance(value, str):  # paperlists exports: "task and motion planning;imitation learning"
        value = value.split(";")
    if not isinstance(value, list) or not all(isinstance(k, str) for k in value):
        raise ValueError(f"{where}: field 'keywords' must be a list of strings")
    return tuple(k.strip() for k in value if k.strip())


def _records(path: Path) -> list[tuple[str, Any]]:
    """``(where, parsed record)`` of a JSONL file, or of a paperlists JSON array (``[{...}, ...]``).

    The paperlists exports (``../shared/data/paperlists/corl/corl2024.json``) are one JSON
    array; their record ``i`` is reported as ``file:record i`` (1-based).
    """
    text = path.read_text(encoding="utf-8")
    if text.lstrip().startswith("["):
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ValueError(f"{path}:{exc.lineno}: malformed JSON: {exc.msg}") from exc
        return [(f"{path}:record {i}", r) for i, r in enumerate(data, start=1)]
    out: list[tuple[str, Any]] = []
    for lineno, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        where = f"{path}:{lineno}"
        try:
            out.append((where, json.loads(line)))
        except json.JSONDecodeError as exc:
            raise ValueError(f"{where}: malformed JSON: {exc.msg}") from exc
    return out


def load_eval_papers(path: Path, limit: int | None = None) -> list[EvalPaper]:
    """Load the papers of a JSONL file that can serve as keyphrase test cases.

    Only papers with a non-empty abstract *and* at least one keyword are kept: without
    either there is nothing to extract from or nothing to score against, and counting such
    papers as zeros would just measure data coverage. The result is sorted by ``id``
    (plain code-point order) so that "the first N papers by id" -- how the README's reference
    figures were measured -- is reproducible regardless of the file's line order. ``limit``
    is applied after filtering and sorting.

    Args:
        path: A JSONL file, one JSON object per line (fields ``id``, ``title``,
            ``abstract``, ``keywords``; others are ignored; blank lines are ignored), or a
            paperlists JSON array whose ``keywords`` is one ``;``-separated string.
        limit: Keep only the first ``limit`` papers by id; ``None`` keeps all.

    Returns:
        The usable papers, sorted by id.

    Raises:
        ValueError: If ``limit`` is not positive, or a line is not a JSON object with a
            string ``id`` and well-typed fields; the message names the file and the
            1-based line number so the bad record can be found.
        OSError: If the file cannot be read.
    """
    if limit is not None and limit < 1:
        raise ValueError(f"limit must be a positive number of papers or None, got {limit}")
    papers: list[EvalPaper] = []
    for where, record in _records(path):
        if not isinstance(record, dict):
            raise ValueError(f"{where}: expected a JSON object, got {type(record).__name__}")
        title = _field(record, "title", where).strip()
        abstract = _field(record, "abstract", where).strip()
        keywords = _keywords(record, where)
        if not (abstract and keywords):
            continue  # not a test case; its id does not matter (paperlists' CVPR files have none)
        paper_id = record.get("id")
        if not isinstance(paper_id, str) or not paper_id:
            raise ValueError(f"{where}: missing or non-string 'id'")
        papers.append(EvalPaper(paper_id, title, abstract, keywords))
    papers.sort(key=lambda paper: paper.id)
    return papers if limit is None else papers[:limit]


# ------------------------------------------------------------------ tokenising & stemming


def tokenize(text: str) -> list[str]:
    """Lowercase ``text`` and split it into alphanumeric tokens.

    Precisely: ``re.findall(r"[^\\W_]+", text.lower())`` -- maximal runs of Unicode letters
    and digits; every other character is a separator. So "learning-based" gives
    ``["learning", "based"]``, "Q-learning" ``["q", "learning"]``, "$\\ell_2$"
    ``["ell", "2"]``. Predictions, gold and text all go through this one function, which is
    what makes hyphenation and punctuation differences irrelevant to matching.

    Args:
        text: Any text.

    Returns:
        The tokens, in order.
    """
    return _TOKEN_RE.findall(text.lower())


@lru_cache(maxsize=1)
def _porter() -> Any:
    """Return one shared NLTK Porter stemmer, importing nltk only when first needed."""
    try:
        from nltk.stem import PorterStemmer
    except ImportError as exc:
        raise RuntimeError(EVAL_EXTRA_MESSAGE) from exc
    return PorterStemmer()


@lru_cache(maxsize=1 << 18)
def _stem_token(token: str) -> str:
    """Porter-stem one (already lowercased) token.

    Cached because stemming dominates scoring time and vocabulary is tiny compared with the
    number of token occurrences (every abstract is stemmed for the present-only check).
    """
    return str(_porter().stem(token))


@lru_cache(maxsize=1 << 16)
def stem_phrase(phrase: str) -> tuple[str, ...]:
    """Return the stemmed token sequence of a phrase -- the unit of matching.

    Uses :func:`tokenize` and NLTK's ``PorterStemmer`` (default ``NLTK_EXTENSIONS`` mode,
    which is what the published keyphrase evaluation scripts use), so "Neural Networks",
    "neural network" and "neural-network" all become ``("neural", "network")``.

    Args:
        phrase: A keyphrase or any text.

    Returns:
        The stems; empty when the phrase has no letters or digits.

    Raises:
        RuntimeError: If nltk (the ``eval`` extra) is not installed.
    """
    return tuple(_stem_token(token) for token in tokenize(phrase))


def _dedupe(phrases: Sequence[str]) -> list[tuple[str, ...]]:
    """Stem phrases, dropping empty ones and later duplicates (rank order is kept)."""
    seen: set[tuple[str, ...]] = set()
    out: list[tuple[str, ...]] = []
    for phrase in phrases:
        stems = stem_phrase(phrase)
        if stems and stems not in seen:
            seen.add(stems)
            out.append(stems)
    return out


def _contains(haystack: Sequence[str], needle: tuple[str, ...]) -> bool:
    """Whether ``needle`` occurs contiguously in ``haystack``."""
    n = len(needle)
    if n == 0 or n > len(haystack):
        return False
    first = needle[0]
    return any(
        haystack[i] == first and tuple(haystack[i : i + n]) == needle for i in range(len(haystack) - n + 1)
    )


def _text_segments(paper: EvalPaper) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Stemmed title and abstract, kept apart so no phrase matches across the boundary."""
    return stem_phrase(paper.title), stem_phrase(paper.abstract)


def is_present(phrase: str, paper: EvalPaper) -> bool:
    """Whether a phrase occurs (stemmed, contiguously) in the paper's title or abstract.

    Title and abstract are searched separately: joining them would let a phrase match
    "across" the end of the title, which no reader would call present. Sentence
    punctuation inside the abstract is not a barrier (tokenisation drops it), as in
    the usual stemmed-token presence check.

    Args:
        phrase: A keyphrase.
        paper: The paper whose text is searched.

    Returns:
        True if the phrase is present; False for phrases with no tokens.
    """
    stems = stem_phrase(phrase)
    return any(_contains(segment, stems) for segment in _text_segments(paper))


# ----------------------------------------------------------------------------- scoring


@dataclass
class Scores:
    """Macro-averaged keyphrase scores, in percent (0-100).

    Attributes:
        f1_at_5: F1 over the top 5 predictions (precision = hits / 5).
        f1_at_10: F1 over the top 10 predictions (precision = hits / 10).
        f1_at_m: F1 over all predictions (precision = hits / number of predictions).
        present_f1_at_10: F1@10 against present gold only, averaged over the papers that
            have present gold.
        n_papers: Papers averaged for the first three figures.
        n_present_papers: Papers averaged for ``present_f1_at_10``.
    """

    f1_at_5: float
    f1_at_10: float
    f1_at_m: float
    present_f1_at_10: float
    n_papers: int
    n_present_papers: int = 0


def _f1(hits: int, n_predicted: int, n_gold: int) -> float:
    """F1 from a hit count, a precision denominator and a recall denominator (0 if p+r=0)."""
    precision = hits / n_predicted if n_predicted else 0.0
    recall = hits / n_gold if n_gold else 0.0
    total = precision + recall
    return 2 * precision * recall / total if total else 0.0


def _f1_at(preds: Sequence[tuple[str, ...]], gold: set[tuple[str, ...]], k: int | None) -> float:
    """F1@k over deduplicated stemmed predictions; ``k=None`` means F1@M."""
    top = preds if k is None else preds[:k]
    hits = sum(1 for p in top if p in gold)
    return _f1(hits, len(top) if k is None else k, len(gold))


def _mean_percent(values: Sequence[float]) -> float:
    """Macro average in percent; 0.0 for no values rather than a division error."""
    return 100.0 * math.fsum(values) / len(values) if values else 0.0


def score(papers: Sequence[EvalPaper], predictions: Sequence[Sequence[str]]) -> Scores:
    """Score ranked keyphrase predictions against the papers' author keywords.

    Per paper: gold and predictions are stemmed and deduplicated (first occurrence kept,
    empty phrases dropped); then F1@5, F1@10 (fixed ``k`` in the precision denominator),
    and F1@M are computed; each figure is macro-averaged over papers.

    Present-only F1@10 follows Meng et al. (2017) and Chan et al. (2019): gold *and*
    predictions are restricted to phrases present in the title/abstract (see
    :func:`is_present`), precision@10 still divides by 10, and papers with no present gold
    are left out of that average (recall is undefined for them; scoring them 0 would
    penalise every system for the dataset's absent keywords). For an extractive system the
    prediction filter changes nothing; for a generative one it keeps the figure about
    present keyphrases only, as in those papers.

    Papers whose gold stems to nothing (keywords with no letters/digits) cannot be scored
    and are skipped everywhere; ``n_papers`` counts the papers actually averaged.

    Args:
        papers: The test papers.
        predictions: For each paper, in the same order, the system's phrases best first.

    Returns:
        The macro-averaged scores in percent.

    Raises:
        ValueError: If the two sequences differ in length (a misaligned run would
            silently score the wrong papers).
        RuntimeError: If nltk (the ``eval`` extra) is not installed.
    """
    if len(papers) != len(predictions):
        raise ValueError(
            f"got {len(predictions)} prediction lists for {len(papers)} papers; "
            "they must be aligned one to one"
        )
    at_5: list[float] = []
    at_10: list[float] = []
    at_m: list[float] = []
    present_at_10: list[float] = []
    for paper, predicted in zip(papers, predictions, strict=True):
        gold_list = _dedupe(paper.keywords)
        if not gold_list:
            continue
        gold = set(gold_list)
        preds = _dedupe(predicted)
        at_5.append(_f1_at(preds, gold, 5))
        at_10.append(_f1_at(preds, gold, 10))
        at_m.append(_f1_at(preds, gold, None))

        segments = _text_segments(paper)
        present_gold = {g for g in gold if any(_contains(s, g) for s in segments)}
        if present_gold:
            present_preds = [p for p in preds if any(_contains(s, p) for s in segments)]
            present_at_10.append(_f1_at(present_preds, present_gold, 10))
    return Scores(
        f1_at_5=_mean_percent(at_5),
        f1_at_10=_mean_percent(at_10),
        f1_at_m=_mean_percent(at_m),
        present_f1_at_10=_mean_percent(present_at_10),
        n_papers=len(at_10),
        n_present_papers=len(present_at_10),
    )


# ------------------------------------------------------------------------ the baseline


def yake_predict(papers: Sequence[EvalPaper], top: int = 10) -> list[list[str]]:
    """Extract keyphrases with YAKE, the unsupervised reference baseline.

    Uses YAKE 0.7.3's defaults (English stopwords, n-grams up to 3, its own
    dedup_lim=0.9 similarity filter) exactly as the README's reference figures were
    measured, on ``title + ". " + abstract``. ``extract_keywords`` returns
    ``(keyword, score)`` pairs where a *lower* score is better; they are (re)sorted by
    score, stably, so the result is best first even if a future version stops sorting.

    Args:
        papers: The papers.
        top: How many keyphrases to ask YAKE for per paper.

    Returns:
        For each paper, its keyphrases best first (surface forms as YAKE returns them).

    Raises:
        RuntimeError: If yake (the ``eval`` extra) is not installed.
    """
    try:
        import yake
    except ImportError as exc:
        raise RuntimeError(EVAL_EXTRA_MESSAGE) from exc
    extractor = yake.KeywordExtractor(lan="en", n=3, top=top)
    results: list[list[str]] = []
    for paper in papers:
        pairs = extractor.extract_keywords(f"{paper.title}. {paper.abstract}")
        ranked = sorted(pairs, key=lambda pair: float(pair[1]))
        results.append([str(keyword) for keyword, _ in ranked])
    return results


# ---------------------------------------------------------------------- timing & table


@dataclass(frozen=True)
class EvalRow:
    """One system's line in the comparison table.

    Attributes:
        name: System name shown in the table ("yake" is the reference baseline).
        scores: Its scores.
        seconds: Wall time of the prediction step only (scoring excluded).
        papers_per_s: Throughput of the prediction step.
    """

    name: str
    scores: Scores
    seconds: float
    papers_per_s: float


def run_timed(name: str, fn: Predictor, papers: Sequence[EvalPaper]) -> EvalRow:
    """Run a keyphrase system on ``papers``, time it and score it.

    Only the call to ``fn`` is timed (``time.perf_counter``), so the throughput compares
    extractors rather than the shared scoring code. Anything ``fn`` does on its first call
    (importing a library, loading a model) is included: that is a real cost of a run.

    Args:
        name: Label for the table.
        fn: The system: papers in, ranked phrases per paper out.
        papers: The test papers.

    Returns:
        The scored and timed row.
    """
    start = time.perf_counter()
    predictions = fn(papers)
    seconds = time.perf_counter() - start
    papers_per_s = len(papers) / seconds if seconds > 0 else math.inf
    return EvalRow(name, score(papers, predictions), seconds, papers_per_s)


_HEADERS = ("system", "F1@5", "F1@10", "F1@M", "present F1@10", "papers/s")


def format_table(rows: Sequence[EvalRow]) -> str:
    """Render rows as a plain-text, side-by-side comparison table.

    F1 figures are percentages with one decimal (the precision published tables use).
    When a row named "yake" (case-insensitive) is present and is not the first row, a
    last line gives the first row's F1@10 as a multiple of YAKE's: the number a reader
    wants first ("how much better than the unsupervised baseline?").

    Args:
        rows: The rows, first one being the system under test.

    Returns:
        The table, lines joined by newlines, without a trailing newline.
    """
    body = [
        (
            row.name,
            f"{row.scores.f1_at_5:.1f}",
            f"{row.scores.f1_at_10:.1f}",
            f"{row.scores.f1_at_m:.1f}",
            f"{row.scores.present_f1_at_10:.1f}",
            f"{row.papers_per_s:.1f}",
        )
        for row in rows
    ]
    widths = [max(len(cells[i]) for cells in [_HEADERS, *body]) for i in range(len(_HEADERS))]

    def line(cells: Sequence[str]) -> str:
        first = cells[0].ljust(widths[0])
        rest = (cell.rjust(width) for cell, width in zip(cells[1:], widths[1:], strict=True))
        return " | ".join([first, *rest])

    lines = [line(_HEADERS), "-+-".join("-" * width for width in widths)]
    lines.extend(line(cells) for cells in body)
    yake_row = next((row for row in rows if row.name.lower() == "yake"), None)
    if rows and yake_row is not None and yake_row is not rows[0]:
        first = rows[0]
        if yake_row.scores.f1_at_10 > 0:
            ratio = f"{first.scores.f1_at_10 / yake_row.scores.f1_at_10:.2f}x"
        else:
            ratio = "n/a (YAKE F1@10 is 0)"
        lines.append(f"F1@10 {first.name} / yake: {ratio}")
    return "\n".join(lines)
