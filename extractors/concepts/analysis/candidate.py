"""What one candidate concept of one paper is: :class:`Candidate`, and its kind from its head word.

Every stage adds to or reads these rows; nothing here decides what a paper is about.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from kg.core.models import ConceptKind

if TYPE_CHECKING:
    from extractors.concepts.vocabulary import Vocabulary

# Phrases, names and scores remembered across papers, per table (the extractor keeps at most 20
# candidates a paper; the tables are cleared when they reach this size).
STATIC_CACHE_LIMIT = 300_000
_TASK_HEADS = frozenset(
    """classification detection recognition segmentation translation answering generation
    prediction forecasting retrieval summarization parsing tagging captioning completion
    localization tracking reconstruction synthesis inpainting denoising matching ranking
    recommendation planning navigation manipulation estimation identification verification
    imputation labeling labelling alignment grounding reasoning understanding editing""".split()
)
_METHOD_HEADS = frozenset(
    """algorithm method learning optimization optimisation regularization regularisation training
    descent sampling search encoding attention pruning distillation quantization tuning
    augmentation normalization normalisation decoding inference estimator technique procedure
    scheme approach framework mechanism strategy protocol policy loss objective embedding
    prompting pretraining fine-tuning finetuning adaptation transfer compression merging
    ensembling boosting bagging dropout clipping initialization layer""".split()
)
_MODEL_HEADS = frozenset(
    """model network transformer autoencoder encoder decoder architecture A:LLM llm A:GAN gan
    A:VAE vae A:CNN cnn A:RNN rnn A:GNN gnn A:MLP mlp predictor classifier generator
    discriminator""".split()
)
_DATASET_HEADS = frozenset({"dataset", "benchmark", "corpus", "suite", "leaderboard"})
_METRIC_HEADS = frozenset(
    {"metric", "score", "accuracy", "perplexity", "A:BLEU", "A:ROUGE", "A:AUC", "A:FID"}
)


def kind_for_head(key: tuple[str, ...]) -> ConceptKind:
    """Kind of a discovered phrase from its head word.

    >>> kind_for_head(("question", "answering")), kind_for_head(("diffusion", "model"))
    ('TASK', 'MODEL')
    """
    head = key[-1] if key else ""
    if head in _DATASET_HEADS:
        return "DATASET"
    if head in _TASK_HEADS:
        return "TASK"
    if head in _METRIC_HEADS:
        return "METRIC"
    if head in _MODEL_HEADS:
        return "MODEL"
    if head in _METHOD_HEADS:
        return "METHOD"
    return "CONCEPT"


@dataclass(slots=True)
class Candidate:
    """One concept of one paper with its occurrences and ranking features (role: analysis row).

    ``id``/``name`` of a discovered phrase are filled in by :meth:`Analysis.finalize`.
    """

    key: tuple[str, ...]
    source: str  # "vocabulary" | "discovered"
    vocab_id: str = ""
    spans: list[tuple[int, int]] = field(default_factory=list)  # token spans, in order found
    name: str = ""
    id: str = ""
    kind: ConceptKind = "CONCEPT"
    aliases: list[str] = field(default_factory=list)
    broader: list[str] = field(default_factory=list)
    # one-word field terms it is a kind of, outside the vocabulary (.heads): BROADER to their nodes
    parents: list[tuple[str, ...]] = field(default_factory=list)
    defined: bool = False  # an acronym definition in this paper
    introduced: bool = False
    named: bool = False  # a model/dataset name
    count: int = 0
    first: int = 0
    in_title: bool = False
    top_level: int = 0  # vocabulary matches not nested inside a longer curated concept
    surface: str = ""  # how the paper writes it ("GANs", "Generative Adversarial Networks"): names.wording
    score: float = 0.0

    def add(self, start: int, end: int) -> None:
        """Record one occurrence (token span)."""
        self.spans.append((start, end))


def curated_candidate(vocab: Vocabulary, cid: str, key: tuple[str, ...] = ()) -> Candidate:
    """A new candidate for the curated concept ``cid``, keyed by its name (``key`` when the
    vocabulary has no name key for it): what the matcher and stage 7 each create."""
    vc = vocab.concepts[cid]
    return Candidate(
        key=vocab.name_keys.get(cid, key),
        source="vocabulary",
        vocab_id=cid,
        name=vc.name,
        kind=vc.kind,
        aliases=list(vc.aliases),
        broader=list(vc.broader),
    )
