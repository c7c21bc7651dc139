"""The extractor-only side of ``kg eval-concepts``: a record's top concepts, a timed predictor,
and the quality figures of the top 10 (the API side, what users see, is :mod:`api.concept_eval`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from kg.core.models import PaperRecord, RawPaper
from kg.eval.evaluation import EvalPaper
from kg.ingest.nlp import Mode, load_nlp
from kg.ingest.pipeline import Pipeline

TOP_K = 10


def record_keyphrases(record: PaperRecord, k: int = TOP_K) -> list[str]:
    """A paper's top concepts as stored, best ``MENTIONS.score`` first, in the paper's wording.

    Each mention keeps ``surface``, how the paper writes the concept ("GANs", "Generative
    Adversarial Networks", "in-context learning"; its wording of the canonical name when it
    writes that, see :func:`extractors.concepts.analysis.names.wording`); that is what a reader of the
    paper's top concepts sees, so it is what is scored. Mentions without one fall back to
    the concept's canonical ``name``.
    """
    names = {n.id: str(n.properties.get("name", "")) for n in record.nodes if n.label == "Concept"}
    scored: list[tuple[float, str]] = []
    for r in record.relationships:
        if r.type != "MENTIONS":
            continue
        value = r.properties.get("score")
        surface = r.properties.get("surface")
        phrase = surface if isinstance(surface, str) and surface else names.get(r.end, "")
        scored.append((float(value) if isinstance(value, int | float) else 0.0, phrase))
    ranked = [phrase for _, phrase in sorted(scored, key=lambda s: (-s[0], s[1])) if phrase]
    return ranked[:k]


def predictor(
    mode: Mode, keep: list[PaperRecord] | None = None
) -> tuple[str, Callable[[Sequence[EvalPaper]], list[list[str]]]]:
    """A timed predictor for one mode; the spaCy model is loaded before timing starts.

    ``keep``, when given, receives the records of the last call (for the quality figures).
    """
    nlp = load_nlp(mode=mode)
    pipeline = Pipeline(nlp=nlp, mode=mode)

    def predict(papers: Sequence[EvalPaper]) -> list[list[str]]:
        raws = [
            RawPaper(file="eval", line=i, title=p.title or None, abstract=p.abstract)
            for i, p in enumerate(papers, start=1)
        ]
        records, problems = pipeline.build(raws)
        if problems:
            raise RuntimeError(f"extraction failed on {len(problems)} paper(s): {problems[0]}")
        if keep is not None:
            keep[:] = records
        return [record_keyphrases(r) for r in records]

    predict(papers=[EvalPaper("warmup", "Warm up", "A warm-up abstract about bandits.", ("x",))])
    return f"paperkg-{mode}", predict


def quality_lines(papers: Sequence[EvalPaper], records: Sequence[PaperRecord], name: str) -> list[str]:
    """Fragment and generic rates of the top 10, Concept nodes per paper, lexical support.

    Definitions: :mod:`kg.eval.concept_quality`. The fragment check runs the spaCy parser.
    """
    from extractors.concepts.background import load_background
    from extractors.concepts.vocabulary import default_vocabulary
    from kg.eval.concept_quality import fragment_rate, generic_rate, lexical_support, nodes_per_paper

    tops = [record_keyphrases(r) for r in records]
    vocab = default_vocabulary(load_nlp(mode="fast").tokenizer)
    background = load_background()
    frag = fragment_rate(load_nlp(mode="accurate"), papers, tops, background, vocab)
    generic = generic_rate(background, tops)
    visible, every = nodes_per_paper(records)
    support = lexical_support(records, vocab)
    linked = sum(s.linked for s in support)
    supported = sum(s.supported for s in support)
    lines = [
        f"{name}: fragments {frag.percent:.1f}% and generic {generic.percent:.1f}% "
        f"of {frag.slots} top-10 slots",
        f"  e.g. fragments {list(frag.examples[:8])}",
        f"  e.g. generic {list(generic.examples[:8])}",
        f"{name}: Concept nodes per paper {visible:.2f} "
        f"(provisional ones counted once in 2+ papers; all {every:.2f})",
        f"{name}: lexical support {supported}/{linked} = {supported / linked if linked else 1.0:.3f} over "
        + ", ".join(f"{s.concept} {s.supported}/{s.linked}" for s in support),
    ]
    return lines
