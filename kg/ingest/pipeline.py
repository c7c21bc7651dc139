"""From raw papers to :class:`PaperRecord` s: ids, cleaned text, spaCy, registered extractors."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from spacy.language import Language
from spacy.tokenizer import Tokenizer

from extractors.concepts.titles import study_phrase
from extractors.concepts.vocabulary import Vocabulary, default_vocabulary
from extractors.embedding import Embedder, paper_text
from extractors.registry import ExtractInput, Parts, get_extractor
from extractors.text import extraction_parts
from kg.core.collector import collector_paused
from kg.core.ids import paper_id
from kg.core.merge import UNION_LIST_PROPERTIES, merge_properties, normalize_properties
from kg.core.models import Node, PaperRecord, Properties, RawPaper, Relationship, trusted_node, trusted_record
from kg.ingest.nlp import Mode
from kg.readers.problems import ReadProblem

DEFAULT_EXTRACTORS: tuple[str, ...] = (
    "kg.venue.v1",
    "kg.authors.v1",
    "kg.topics.v1",
    "kg.concepts.v2",
    "kg.introduces.v1",
    "kg.titles.v1",
)
# The parser is all accurate mode needs (noun chunks); the lemmatizer and NER would only cost time.
_ACCURATE_DISABLE = ("lemmatizer", "ner")
SHORT_TITLE_CHARS = 40
# Normalised nodes remembered by the identity of the extractor's node (see Pipeline._normal_node).
NORMAL_CACHE_LIMIT = 8192
DERIVED_TITLE_CHARS = 90
# Paper properties after which merging an extractor's empty map is not known to change nothing.
_UNSETTLING_KEYS = UNION_LIST_PROPERTIES | {"name", "kind"}


@lru_cache(maxsize=1024)
def _file_name(file: str) -> str:
    """``Path(file).name``, once per file rather than once per paper."""
    return Path(file).name


def short_title(title: str) -> str:
    """A caption for Neo4j Browser: the title cut at a word boundary.

    >>> short_title("GRAPE: Group RepresentAtional Position Encoding for long contexts")
    'GRAPE: Group RepresentAtional Position…'
    """
    if len(title) <= SHORT_TITLE_CHARS:
        return title
    cut = title[:SHORT_TITLE_CHARS].rsplit(" ", 1)[0]
    return cut.rstrip(",;:") + "…"


def fallback_title(text: str) -> str:
    """Last-resort title when no extractor derived one (``kg.titles.v1`` normally does).

    >>> fallback_title("We study equilibrium finding in polymatrix games, which is hard. More.")
    'Equilibrium finding in polymatrix games'
    """
    study = study_phrase(text)
    if study:
        return study
    first = text.split(". ", 1)[0].strip().rstrip(".")
    if len(first) <= DERIVED_TITLE_CHARS:
        return first
    return first[:DERIVED_TITLE_CHARS].rsplit(" ", 1)[0].rstrip(",;:") + "…"


@dataclass
class Pipeline:
    """Runs the registered extractors over batches of papers with one spaCy pipeline.

    Args:
        nlp: loaded once by the caller (see :func:`kg.ingest.nlp.load_nlp`).
        mode: ``fast`` tokenises only; ``accurate`` runs the parser for noun chunks.
        extractors: registered extractor names, in order.
    """

    nlp: Language
    mode: Mode = "fast"
    extractors: Sequence[str] = DEFAULT_EXTRACTORS
    vocabulary: Vocabulary | None = None
    batch_size: int = 256
    context: dict[str, object] = field(default_factory=dict)
    # Embeds each paper's title and abstract into its record (``PaperRecord.embedding``) when
    # set; ``None`` (``kg ingest --no-embed``) leaves that to ``kg embed``.
    embedder: Embedder | None = None

    def __post_init__(self) -> None:
        if self.vocabulary is None:
            self.vocabulary = default_vocabulary(self.nlp.tokenizer)
        self.context.setdefault("vocabulary", self.vocabulary)
        self.context.setdefault("nlp", self.nlp)
        self._fns = [get_extractor(name) for name in self.extractors]
        self._normal: dict[int, tuple[Node, Node]] = {}

    def build(self, papers: Sequence[RawPaper]) -> tuple[list[PaperRecord], list[ReadProblem]]:
        """Records for the papers that could be processed, problems for the others."""
        ids: list[str] = []
        texts: list[str] = []
        title_ends: list[int] = []
        kept: list[RawPaper] = []
        problems: list[ReadProblem] = []
        for p in papers:
            try:
                ids.append(paper_id(p.abstract, p.title))
            except ValueError as e:
                problems.append(ReadProblem(p.file, p.line, str(e)))
                continue
            kept.append(p)
            text, title_end = extraction_parts(p.title, p.abstract)
            texts.append(text)
            title_ends.append(title_end)
        records: list[PaperRecord] = []
        with collector_paused():
            if self.mode == "fast":
                tokenizer: Tokenizer = self.nlp.tokenizer
                docs = tokenizer.pipe(texts, batch_size=self.batch_size)
            else:
                disable = [name for name in _ACCURATE_DISABLE if name in self.nlp.pipe_names]
                docs = self.nlp.pipe(texts, batch_size=self.batch_size, disable=disable)
            for p, pid, text, title_end, doc in zip(kept, ids, texts, title_ends, docs, strict=True):
                x = ExtractInput(
                    paper=p,
                    paper_id=pid,
                    doc=doc,
                    text=text,
                    title_end=title_end,
                    tokens_only=self.mode == "fast",
                    context=self.context,
                )
                try:
                    records.append(self._record(x))
                except Exception as e:  # one paper's failure must not abort the ingest
                    problems.append(ReadProblem(p.file, p.line, f"extraction failed: {e!r}"))
        if self.embedder is not None and records:
            records = self._embedded(records, problems)
        return records, problems

    def _embedded(self, records: list[PaperRecord], problems: list[ReadProblem]) -> list[PaperRecord]:
        """The records with their embeddings. If the model fails, the papers are kept without
        (one ``repaired`` line says so; ``kg embed`` fills them in later)."""
        assert self.embedder is not None
        texts = [
            paper_text(
                str(r.paper.properties.get("title") or ""), str(r.paper.properties.get("abstract") or "")
            )
            for r in records
        ]
        try:
            blobs = self.embedder.embed_quantized(texts)
        except Exception as e:
            first = str(records[0].paper.properties.get("sources", [""])[0])  # type: ignore[index]
            problems.append(
                ReadProblem(
                    first,
                    None,
                    f"embedding failed for {len(records)} paper(s), kept without: {e!r}",
                    "repaired",
                )
            )
            return records
        return [
            trusted_record(r.paper, r.nodes, r.relationships, b) for r, b in zip(records, blobs, strict=True)
        ]

    def _record(self, x: ExtractInput) -> PaperRecord:
        p = x.paper
        props: Properties = {
            "title": p.title,
            "titleSource": "LISTING" if p.title else None,
            "abstract": p.abstract,
            "sources": [f"{_file_name(p.file)}:{p.line}"],
        }
        if p.keywords:
            props["keywords"] = list(p.keywords)
        if p.url:
            props["url"] = p.url
        if p.external_id:
            props["externalId"] = p.external_id
        nodes: dict[str, Node] = {}
        rels: dict[tuple[str, str, str], Relationship] = {}
        settled = False  # whether merging an empty map into ``props`` would return ``props``
        for fn in self._fns:
            parts: Parts = fn(x)
            added = parts.paper_properties
            # Most extractors add no paper property, and each merge rebuilt the map and its
            # lists. Merging nothing into a merged map returns it unchanged (key order too) when
            # the map merged in had no None and none of these keys (``tests/unit/test_ids_and_merge.py``).
            if added or not settled:
                props = merge_properties(props, added)
                settled = None not in added.values() and added.keys().isdisjoint(_UNSETTLING_KEYS)
            for n in parts.nodes:
                old = nodes.get(n.id)
                # normal form (sorted union lists) even for a first sighting, so a re-ingest
                # of the same record compares equal to what the store holds
                if old is None:
                    nodes[n.id] = n if parts.normal_nodes else self._normal_node(n)
                else:
                    merged = merge_properties(old.properties, n.properties)
                    nodes[n.id] = trusted_node(n.id, n.label, merged)
            for r in parts.relationships:
                rels[(r.start, r.type, r.end)] = r  # ``r.key`` without a property call per relationship
        if not props.get("title"):
            props["title"] = fallback_title(x.text)
            props["titleSource"] = "DERIVED"
        props["shortTitle"] = short_title(str(props["title"]))
        # The paper node is validated (its values come from the reader); the record only
        # wraps models built here, in new lists.
        return trusted_record(
            Node(id=x.paper_id, label="Paper", properties=props), list(nodes.values()), list(rels.values())
        )

    def _normal_node(self, n: Node) -> Node:
        """``n`` with its properties in normal form, shared by every record that has ``n``.

        Extractors hand out one node object for a curated concept to every paper that mentions
        it (``extractors.concepts.extract._vocab_graph``); normalising it once instead of once
        per paper, and building the result without re-validation (its values come from a
        validated or typed node), was a tenth of the fast mode's time. The cache is keyed by
        the identity of the extractor's node and keeps that node alive, so an id is never
        reused for another object while its entry exists; it is cleared when full.

        Records therefore share node objects: nothing may modify a record's node or its
        properties in place (stores and :mod:`kg.core.merge` build new maps).
        """
        hit = self._normal.get(id(n))
        if hit is not None and hit[0] is n:
            return hit[1]
        node = trusted_node(n.id, n.label, normalize_properties(n.properties))
        if len(self._normal) >= NORMAL_CACHE_LIMIT:
            self._normal.clear()
        self._normal[id(n)] = (n, node)
        return node
