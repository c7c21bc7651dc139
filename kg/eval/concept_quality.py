"""Concept-quality figures printed beside F1 by ``kg eval-concepts`` and ``bench/concepts.py``.

Definitions (the code below is the definition; the README quotes it):

* **fragment** (of a paper's top-10 phrase): no occurrence of it in the abstract (in the title
  when the abstract has none), read with the spaCy *parser* (independent of the fast mode's
  word-class lexicon), is a complete noun phrase: it ends on a word that modifies a word after
  it ("benchmarking large *language* [models]"), a word before it modifies a non-head word
  inside it ("[Monte] *Carlo* sampling"), it starts on a verb, adverb, preposition or
  auxiliary ("automatically eliciting"), or it ends on something that is not a noun, number or
  adjective ("agents *lack*"); :func:`extractors.concepts.completeness.incomplete`. A known
  term (vocabulary name or alias, or a NeurIPS 2023 keyword used at least twice) is exempt from
  the first two rules and from the start rule ("in-context learning", "pretraining"). A phrase
  the paper does not contain verbatim (a canonical name) is not checked.
* **generic** (phrase): common in abstracts but rarely chosen by authors as a keyword: it
  occurs in at least ``GENERIC_MIN_DF`` (100) documents of the static background table and
  NeurIPS 2023 authors used it as a keyword in fewer than ``GENERIC_KEYWORD_RATIO`` (a
  quarter) of that many papers ("graph", "learning", "representation", "language models"), or
  it is an evaluative phrase ("greater flexibility", "independent interest");
  :func:`extractors.concepts.filler.is_generic_key`.
* **Concept nodes per paper**: distinct ``Concept`` nodes a store shows for the records,
  i.e. non-provisional ones plus provisional ones carried by at least 2 papers (the promotion
  rule of the record contract), divided by the number of papers.
* **lexical support** (of a query concept): the share of the papers linked to it (``about``
  MENTIONS of it or of a narrower concept) whose title or abstract contains the concept's
  name or one of its aliases (stemmed, contiguous; :func:`kg.eval.evaluation.is_present`).
  Predicted links (``predicted: true``, the PREDICTED source) are not counted: they are
  assigned because the text does *not* name the concept, so they have no text to support
  them and would only lower the figure for a reason it does not measure.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from spacy.language import Language
from spacy.tokenizer import Tokenizer
from spacy.tokens import Doc, Span

from extractors.concepts.background import Background
from extractors.concepts.completeness import incomplete
from extractors.concepts.filler import GENERIC_KEYWORD_RATIO, GENERIC_MIN_DF, is_generic_key
from extractors.concepts.vocabulary import Vocabulary
from kg.core.ids import concept_id
from kg.core.models import PaperRecord, Relationship
from kg.core.normalize import token_key
from kg.eval.evaluation import EvalPaper, is_present

__all__ = [
    "GENERIC_KEYWORD_RATIO",
    "GENERIC_MIN_DF",
    "QUERY_CONCEPTS",
    "fragment_rate",
    "generic_rate",
    "is_fragment",
    "is_generic",
    "lexical_support",
    "narrower_closure",
    "nodes_per_paper",
]

# The fixed query concepts of the lexical-support figure (canonical vocabulary names).
QUERY_CONCEPTS: tuple[str, ...] = (
    "contrastive learning",
    "knowledge distillation",
    "reinforcement learning from human feedback",
    "diffusion models",
    "graph neural networks",
    "imitation learning",
    "multi-armed bandits",
    "Nash equilibrium",
    "equivariance",
    "in-context learning",
)


def is_generic(phrase: str, background: Background) -> bool:
    """Whether a phrase is generic (see the module docstring).

    >>> b = Background(n_docs=1000, df={("graph",): 400}, keywords={("graph",): 10})
    >>> is_generic("Graphs", b), is_generic("graph neural network", b)
    (True, False)
    """
    key = tuple(token_key(w) for w in phrase.replace("-", " ").split())
    if len(key) == 1 and key[0].startswith("A:"):
        return False  # an acronym's keyword counts are on its long form ("LLMs")
    return bool(key) and is_generic_key(key, background.df, background.keywords)


def _occurrences(doc: Doc, words: list[str]) -> list[Span]:
    """Occurrences of a phrase's (lower-cased) tokens in a Doc."""
    n = len(words)
    if not n:
        return []
    lowers = [t.lower_ for t in doc]
    return [doc[i : i + n] for i in range(len(lowers) - n + 1) if lowers[i : i + n] == words]


def is_fragment(
    doc: Doc, phrase: str, known: bool = False, tokenizer: Tokenizer | None = None
) -> bool | None:
    """Whether a phrase is a fragment in a parsed Doc: no occurrence of it is a complete noun
    phrase (abstract occurrences only when it has any: the tagger reads a Title Case title as
    proper nouns). ``None`` when the paper does not contain the phrase verbatim.
    """
    words = [t.lower_ for t in tokenizer(phrase)] if tokenizer is not None else phrase.lower().split()
    spans = _occurrences(doc, words)
    if not spans:
        return None
    body = [s for s in spans if s.sent.start > 0] or spans
    return all(incomplete(s, known) for s in body)


@dataclass(frozen=True)
class Rate:
    """A share of top-10 slots, with the examples that made it (role: quality figure)."""

    hits: int
    slots: int
    examples: tuple[str, ...]

    @property
    def percent(self) -> float:
        """Hits per 100 slots."""
        return 100.0 * self.hits / self.slots if self.slots else 0.0


def fragment_rate(
    nlp: Language,
    papers: Sequence[EvalPaper],
    predictions: Sequence[Sequence[str]],
    background: Background,
    vocab: Vocabulary,
) -> Rate:
    """Fragments among the top-10 phrases (``nlp`` must have a tagger and a parser).

    Known terms are the vocabulary's names and aliases and phrases NeurIPS 2023 authors
    used as keywords at least twice.
    """
    texts = [f"{p.title}. {p.abstract}" if p.title else p.abstract for p in papers]
    hits = slots = 0
    examples: list[str] = []
    for doc, phrases in zip(nlp.pipe(texts, batch_size=64), predictions, strict=True):
        for phrase in phrases[:10]:
            slots += 1
            key = tuple(token_key(w) for w in phrase.replace("-", " ").split())
            known = key in vocab.index or background.keywords.get(key, 0) >= 2
            if is_fragment(doc, phrase, known, nlp.tokenizer):
                hits += 1
                examples.append(phrase)
    return Rate(hits, slots, tuple(examples))


def generic_rate(background: Background, predictions: Sequence[Sequence[str]]) -> Rate:
    """Generic phrases among the top-10 phrases."""
    hits = slots = 0
    examples: list[str] = []
    for phrases in predictions:
        for phrase in phrases[:10]:
            slots += 1
            if is_generic(phrase, background):
                hits += 1
                examples.append(phrase)
    return Rate(hits, slots, tuple(examples))


def nodes_per_paper(records: Sequence[PaperRecord]) -> tuple[float, float]:
    """(visible Concept nodes per paper, all Concept nodes per paper) for a store holding ``records``.

    Visible: not provisional, or provisional and carried by at least 2 papers.
    """
    provisional_papers: Counter[str] = Counter()
    solid: set[str] = set()
    every: set[str] = set()
    for r in records:
        seen: set[str] = set()
        for n in r.nodes:
            if n.label != "Concept" or n.id in seen:
                continue
            seen.add(n.id)
            every.add(n.id)
            if n.properties.get("provisional"):
                provisional_papers[n.id] += 1
            else:
                solid.add(n.id)
    visible = solid | {cid for cid, k in provisional_papers.items() if k >= 2}
    papers = max(len(records), 1)
    return len(visible) / papers, len(every) / papers


def narrower_closure(records: Iterable[PaperRecord]) -> dict[str, set[str]]:
    """Concept id -> itself and every concept below it (BROADER links of the records)."""
    children: dict[str, set[str]] = defaultdict(set)
    for r in records:
        for rel in r.relationships:
            if rel.type == "BROADER":
                children[rel.end].add(rel.start)
    closure: dict[str, set[str]] = {}

    def below(cid: str) -> set[str]:
        hit = closure.get(cid)
        if hit is None:
            closure[cid] = {cid}  # cycle guard
            out, todo = {cid}, [cid]
            while todo:
                for c in children.get(todo.pop(), ()):
                    if c not in out:
                        out.add(c)
                        todo.append(c)
            hit = closure[cid] = out
        return hit

    for cid in list(children):
        below(cid)
    return closure


@dataclass(frozen=True)
class Support:
    """Lexical support of one query concept (role: quality figure)."""

    concept: str
    linked: int
    supported: int

    @property
    def share(self) -> float:
        """Supported / linked (1.0 when nothing is linked)."""
        return self.supported / self.linked if self.linked else 1.0


def climbs(rel: Relationship, cid: str) -> bool:
    """Whether an about link counts for ``cid``: its own concept, or one above it unless the
    link is marked ``climbs: false`` (as ``concept.papers`` reads it: ``PaperQuery.narrower``)."""
    return rel.end == cid or rel.properties.get("climbs") is not False


def lexical_support(
    records: Sequence[PaperRecord],
    vocab: Vocabulary,
    names: Sequence[str] = QUERY_CONCEPTS,
    *,
    about_only: bool = True,
) -> list[Support]:
    """Lexical support of each query concept over ``records`` (see the module docstring)."""
    closure = narrower_closure(records)
    out: list[Support] = []
    for name in names:
        cid = concept_id(name)
        c = vocab.concepts.get(cid)
        surfaces = [name, *(c.aliases if c else ())]
        targets = closure.get(cid, {cid})
        linked = supported = 0
        for r in records:
            if not any(
                rel.type == "MENTIONS"
                and rel.end in targets
                and rel.properties.get("predicted") is not True
                and (not about_only or (rel.properties.get("about") and climbs(rel, cid)))
                for rel in r.relationships
            ):
                continue
            linked += 1
            p = r.paper.properties
            paper = EvalPaper("", str(p.get("title") or ""), str(p.get("abstract") or ""), ())
            if any(is_present(s, paper) for s in surfaces):
                supported += 1
        out.append(Support(name, linked, supported))
    return out
