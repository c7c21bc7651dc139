"""The dev sets as the learned ``about`` decision is trained and measured on them.

Why here: ``scripts/train_about_model.py`` (the training table) and ``bench/about_frontier.py``
(the held-out frontier) read the same venues, extract them the same way with a model plugged
into the pipeline's context, and resolve author keywords the same way, through the GraphQL
schema (``concept(name: K) { id }``, what :mod:`api.concept_eval` asks). Tools may not import
each other, so the shared part lives beside :mod:`api.concept_eval`.
"""

from __future__ import annotations

import re
import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from api.concept_eval import SchemaReader
from extractors.concepts.about_model import AboutModel
from kg.core.config import Settings
from kg.core.ids import paper_id
from kg.core.models import PaperRecord, RawPaper
from kg.eval.dev_sets import DEV_SETS
from kg.eval.evaluation import EvalPaper, load_eval_papers
from kg.ingest.nlp import load_nlp
from kg.ingest.pipeline import Pipeline
from kg.readers import read_file
from kg.stores.sqlite import SQLiteStore

__all__ = ["RESOLVE", "Venue", "extract", "load_venues", "resolve_names", "slug"]

RESOLVE = "query($name: String!) { concept(name: $name) { id } }"


def resolve_names(
    record_sets: Sequence[Sequence[PaperRecord]], names: Iterable[str]
) -> dict[str, str | None]:
    """Each name's concept id as ``concept(name: K) { id }`` answers through the GraphQL schema,
    on a new SQLite store of ``record_sets`` (written in batches of 500, as ``kg ingest`` does)."""
    with tempfile.TemporaryDirectory(prefix="about-resolve-") as tmp:
        store = SQLiteStore(Path(tmp))
        try:
            for recs in record_sets:
                for i in range(0, len(recs), 500):
                    store.upsert(recs[i : i + 500])
            reader = SchemaReader(store, Settings(backend="sqlite"))
            out: dict[str, str | None] = {}
            for name in names:
                hit = reader.run(RESOLVE, {"name": name})["concept"]
                out[name] = hit["id"] if hit else None
            return out
        finally:
            store.close()


def slug(venue: str) -> str:
    """A file name for a venue ("CoRL 2021-2025" -> "corl-2021-2025")."""
    return re.sub(r"[^a-z0-9]+", "-", venue.lower()).strip("-")


@dataclass
class Venue:
    """One dev set: its files' papers (as ``kg ingest`` reads them), the ones with keywords, and
    the records of the last extraction."""

    label: str
    raws: list[tuple[str, RawPaper]]  # (file as the labels name it, paper)
    papers: list[EvalPaper]  # with abstract and author keywords, by id (``load_eval_papers``)
    keywords: dict[str, list[str]]  # paper id (the record's) -> author keywords
    records: list[PaperRecord] = field(default_factory=list)

    def dev_records(self) -> list[PaperRecord]:
        """The records of the papers with keywords (the dev set)."""
        return [r for r in self.records if r.paper.id in self.keywords]


def load_venues(data_dir: Path) -> list[Venue]:
    """Every dev set (:data:`kg.eval.dev_sets.DEV_SETS`) of ``data_dir``, not yet extracted."""
    out = []
    for label, files in DEV_SETS.items():
        raws = [(name, raw) for name in files for raw in read_file(data_dir / name).papers]
        papers = [p for name in files for p in load_eval_papers(data_dir / name)]
        by_external = {p.id: list(p.keywords) for p in papers}
        keywords = {
            paper_id(raw.abstract, raw.title): by_external[raw.external_id]
            for _, raw in raws
            if raw.external_id in by_external and (raw.abstract or raw.title)
        }
        out.append(Venue(label, raws, papers, keywords))
    return out


def extract(venue: Venue, model: AboutModel | None) -> list[PaperRecord]:
    """The venue's records with ``model`` deciding about (``None``: the hand-set rule)."""
    pipeline = Pipeline(nlp=load_nlp(mode="fast"), mode="fast", context={"about_model": model})
    records, problems = pipeline.build([raw for _, raw in venue.raws])
    if problems:
        raise RuntimeError(f"{venue.label}: {len(problems)} papers not extracted: {problems[:1]}")
    venue.records = records
    return records
