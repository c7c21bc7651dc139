"""Propose vocabulary entries from the author keywords of listing files, for review.

Why: the curated vocabulary (``extractors/data/concepts.json``) grew from machine-learning
venues, so robotics, vision, NLP, web and theory keywords that authors use most often resolved
to nothing. Authors' own keywords are the best evidence of what a field calls its concepts; this
script turns the frequent ones the vocabulary does not know into candidate entries, each with
the evidence a reviewer needs to accept, edit or drop it. Nothing is written to the vocabulary:
accepted entries are copied into ``concepts.json`` by hand, then audited with
``scripts/audit_vocabulary.py`` and ``scripts/check_vocabulary.py``.

Input: JSONL files (one paper a line, ``keywords`` a list) and paperlists JSON arrays
(``keywords`` one ``;``-separated string). Area-style keywords ("Machine Learning: ML:
Federated learning", IJCAI's) are a venue's fixed list of tracks, not the authors' words, so
they are skipped unless ``--areas`` is given, and then count by their last part (a last part
listing several topics with commas is skipped).

For every keyword group (spellings with one phrase key, the extractor's own tokenizer and
:func:`~extractors.concepts.vocabulary.phrase_key`) listed by ``--min-papers`` papers or more
and not already a name or alias of the vocabulary, one JSON line:

* ``name``: the most common spelling, lowercased unless it is an acronym or a named thing
  (internal capitals or digits: "NeRF", "ManiSkill");
* ``kind``: by the head noun (the last word): "detection", "planning", "manipulation" are
  tasks, "networks", "transformers" classes of models, "dataset"/"benchmark" datasets, a named
  system a model, "... learning"/"... theory" a concept; otherwise a method or concept;
* ``aliases``: the group's other spellings, and the acronym the papers' abstracts define for
  it ("diffusion policy (DP)") or, for an acronym keyword, the long form they define;
* ``broader``: head-noun rule: the longest proper tail of the phrase that is a vocabulary
  concept ("mobile manipulation" under "manipulation") when the kinds can be is-a;
* ``similar``: with ``--embed``, the three vocabulary concepts whose names are nearest by the
  offline MiniLM embedder (cosine): a reviewer's hint for a parent, or a duplicate to merge as
  an alias instead;
* evidence: ``papers`` listing it, per venue family (``domains``: robotics, vision, nlp, web,
  theory, ml), and ``present``: the share of those papers whose title or abstract contains it
  (a concept the text never names cannot be linked from the text).

Usage::

    python scripts/mine_vocabulary.py ../shared/data/*.jsonl ../shared/data/paperlists/*/*.json \\
        [--vocabulary extractors/data/concepts.json] [--min-papers 4] [--embed] > candidates.jsonl
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter, defaultdict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from spacy.tokenizer import Tokenizer  # noqa: E402

from extractors.concepts.vocabulary import (  # noqa: E402
    DEFAULT_VOCABULARY,
    Vocabulary,
    default_vocabulary,
    is_a_kinds,
    phrase_key,
)
from kg.eval.evaluation import EvalPaper, is_present  # noqa: E402
from kg.ingest.nlp import load_nlp  # noqa: E402

# Venue directory / file stem prefix -> field; unknown venues count as "ml".
DOMAINS = {
    "corl": "robotics",
    "rss": "robotics",
    "icra": "robotics",
    "iros": "robotics",
    "3dv": "vision",
    "cvpr": "vision",
    "iccv": "vision",
    "eccv": "vision",
    "wacv": "vision",
    "colm": "nlp",
    "acl": "nlp",
    "naacl": "nlp",
    "coling": "nlp",
    "colt": "theory",
    "alt": "theory",
    "www": "web",
    "wsdm": "web",
    "kdd": "web",
    "sigir": "web",
}
# Keywords that name no concept of their own (a paper's genre, not its topic).
GENERIC = frozenset(
    """dataset datasets benchmark benchmarks evaluation analysis survey application applications
    deep learning machine learning artificial intelligence ai theory robotics robot robots
    computer vision vision learning optimization algorithm algorithms others other""".split()
)
# Head noun (last word's key) -> kind. Checked after the named-thing and acronym rules.
TASK_HEADS = frozenset(
    """detection estimation segmentation recognition generation reconstruction prediction
    planning navigation manipulation localization localisation tracking synthesis translation
    answering retrieval classification completion mapping grasping locomotion forecasting
    captioning parsing summarization summarisation understanding editing registration matching
    exploration control inpainting alignment assembly rearrangement teleoperation calibration
    odometry slam""".split()
)
MODEL_HEADS = frozenset("""network transformer model autoencoder""".split())
DATASET_HEADS = frozenset("""dataset benchmark corpus""".split())
METRIC_HEADS = frozenset("""metric score""".split())
CONCEPT_HEADS = frozenset("""learning theory intelligence robotics vision processing""".split())
# A parenthesised acronym right after a phrase: "diffusion policy (DP)".
_ACRONYM_AFTER = r"\s*\(\s*([A-Z][A-Za-z0-9\-]*[A-Z0-9][a-z]?s?)\s*\)"
_SPLIT_AREA = re.compile(r":\s*")


@dataclass
class Group:
    """One keyword, all its spellings, and the papers that list it."""

    spellings: Counter[str] = field(default_factory=Counter)
    papers: set[str] = field(default_factory=set)
    domains: Counter[str] = field(default_factory=Counter)


@dataclass(frozen=True)
class Listed:
    """A paper of a listing file: where it came from, its keywords, its text if any."""

    pid: str
    domain: str
    keywords: tuple[str, ...]
    title: str
    abstract: str


def domain_of(path: Path) -> str:
    """The venue family of a listing file, from its directory or file name.

    >>> domain_of(Path("data/paperlists/corl/corl2024.json")), domain_of(Path("data/iclr2018.jsonl"))
    ('robotics', 'ml')
    """
    for part in (path.parent.name, re.sub(r"[\d\-].*$", "", path.stem)):
        if part.lower() in DOMAINS:
            return DOMAINS[part.lower()]
    return "ml"


def keyword_leaf(keyword: str, areas: bool = False) -> str | None:
    """The keyword itself, or the topic of an area-style keyword ("Area: Sub: topic") if ``areas``.

    >>> keyword_leaf("Machine Learning: ML: Federated learning", areas=True), keyword_leaf("sim-to-real")
    ('Federated learning', 'sim-to-real')
    >>> keyword_leaf("Machine Learning: ML: Federated learning") is None
    True
    >>> keyword_leaf("Computer Vision: Detection, Categorization, Indexing", areas=True) is None
    True
    """
    parts = [p.strip() for p in _SPLIT_AREA.split(keyword) if p.strip()]
    if not parts:
        return None
    if len(parts) == 1:
        return parts[0]
    if not areas:
        return None
    leaf = parts[-1]
    return None if "," in leaf else leaf


def read_listing(path: Path, areas: bool = False) -> Iterator[Listed]:
    """The papers of one file with at least one keyword; a bad record is reported and skipped."""
    domain = domain_of(path)
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".jsonl":
        records: list[Any] = [json.loads(line) for line in text.splitlines() if line.strip()]
    else:
        loaded = json.loads(text)
        records = loaded if isinstance(loaded, list) else []
    for n, record in enumerate(records, 1):
        if not isinstance(record, dict):
            print(f"{path}: record {n}: not an object, skipped", file=sys.stderr)
            continue
        raw = record.get("keywords") or []
        items = raw.split(";") if isinstance(raw, str) else raw if isinstance(raw, list) else []
        keywords = tuple(
            leaf for item in items if isinstance(item, str) for leaf in [keyword_leaf(item, areas)] if leaf
        )
        if not keywords:
            continue
        # The record's own id, so a paper in two files (a JSONL copy of a listing) counts once.
        pid = str(record.get("id") or record.get("site") or f"{path.name}:{n}")
        title, abstract = record.get("title"), record.get("abstract")
        yield Listed(
            pid,
            domain,
            keywords,
            title if isinstance(title, str) else "",
            abstract if isinstance(abstract, str) else "",
        )


def display_name(spelling: str) -> str:
    """The entry name of a keyword: lowercase words, acronyms and named things kept as spelled.

    >>> display_name("Mobile Manipulation"), display_name("NeRF"), display_name("Vision-Language Models")
    ('mobile manipulation', 'NeRF', 'vision-language models')
    >>> display_name("3D Scene Graphs"), display_name("ManiSkill")
    ('3D scene graphs', 'ManiSkill')
    """

    def word(w: str) -> str:
        inner = w[1:]
        if any(c.isupper() for c in inner) and not all(
            p[:1].isupper() and p[1:].islower() for p in w.split("-")
        ):
            return w
        if any(c.isdigit() for c in w):
            return w
        return w.lower()

    return " ".join(word(w) for w in spelling.split())


def kind_of(name: str, key: tuple[str, ...]) -> str:
    """The entry kind by the head-noun rules in the module docstring.

    >>> kind_of("mobile manipulation", ("mobile", "manipulation")), kind_of("ManiSkill", ("maniskill",))
    ('TASK', 'MODEL')
    >>> kind_of("robot learning", ("robot", "learning")), kind_of("graph networks", ("graph", "network"))
    ('CONCEPT', 'MODEL')
    """
    head = key[-1].removeprefix("A:").lower()
    if head in DATASET_HEADS:
        return "DATASET"
    if head in METRIC_HEADS:
        return "METRIC"
    if head in TASK_HEADS:
        return "TASK"
    if head in CONCEPT_HEADS:
        return "CONCEPT"
    if head in MODEL_HEADS:
        return "MODEL"
    if len(key) == 1 and any(c.isupper() for c in name[1:]) and not key[0].startswith("A:"):
        return "MODEL"
    return "METHOD" if head.endswith(("ing", "tion", "ment")) and len(key) > 1 else "CONCEPT"


def head_parent(key: tuple[str, ...], name: str, kind: str, vocab: Vocabulary) -> str | None:
    """The vocabulary concept named by the longest proper tail of the phrase, if is-a can hold."""
    for start in range(1, len(key)):
        cid = vocab.index.get(key[start:])
        if cid is not None:
            parent = vocab.concepts[cid]
            return parent.name if is_a_kinds(name, kind, parent.kind) else None
    return None


def defined_acronyms(spelling: str, papers: Sequence[Listed]) -> Counter[str]:
    """Acronyms the papers' text defines for a phrase: "spelling (ACR)"."""
    pattern = re.compile(
        re.escape(spelling).replace(r"\-", r"[\s\-]?").replace(r"\ ", r"[\s\-]+") + _ACRONYM_AFTER, re.I
    )
    found: Counter[str] = Counter()
    for p in papers:
        found.update(
            {
                m.group(1).rstrip("s") if m.group(1).endswith("s") and len(m.group(1)) > 2 else m.group(1)
                for m in pattern.finditer(f"{p.title}. {p.abstract}")
            }
        )
    return found


def defined_long_forms(acronym: str, papers: Sequence[Listed]) -> Counter[str]:
    """Long forms the papers' text defines for an acronym: "long form words (ACR)"."""
    initials = [c for c in acronym if c.isupper()]
    pattern = re.compile(
        rf"((?:[\w\-]+\s+){{1,{len(initials) + 2}}}?[\w\-]+)\s*\(\s*{re.escape(acronym)}s?\s*\)"
    )
    found: Counter[str] = Counter()
    for p in papers:
        for m in pattern.finditer(f"{p.title}. {p.abstract}"):
            words = re.split(r"[\s\-]+", m.group(1))
            tail = words[-len(initials) :] if len(words) >= len(initials) else []
            if tail and [w[0].upper() for w in tail] == initials:
                found[" ".join(tail).lower()] += 1
    return found


def mine(
    papers: Sequence[Listed], tokenizer: Tokenizer, vocab: Vocabulary, min_papers: int
) -> list[dict[str, Any]]:
    """Candidate entries for the frequent keyword groups the vocabulary does not resolve."""
    groups: dict[tuple[str, ...], Group] = defaultdict(Group)
    by_id = {p.pid: p for p in papers}
    for p in by_id.values():
        for keyword in dict.fromkeys(k.strip() for k in p.keywords):
            key = phrase_key(tokenizer, keyword)
            if not key:
                continue
            g = groups[key]
            g.spellings[keyword] += 1
            if p.pid not in g.papers:
                g.papers.add(p.pid)
                g.domains[p.domain] += 1
    out: list[dict[str, Any]] = []
    for key, g in groups.items():
        if len(g.papers) < min_papers or key in vocab.index:
            continue
        spelling = g.spellings.most_common(1)[0][0]
        name = display_name(spelling)
        if name.lower() in GENERIC or len(name) < 2:
            continue
        listed = [by_id[pid] for pid in sorted(g.papers)]
        with_text = [p for p in listed if p.abstract]
        kind = kind_of(name, key)
        aliases = sorted({display_name(s) for s in g.spellings} - {name})
        is_acronym = len(key) == 1 and key[0].startswith("A:")
        note = ""
        if is_acronym:
            long_forms = defined_long_forms(spelling.rstrip("s"), with_text)
            if long_forms:
                long_form, n = long_forms.most_common(1)[0]
                note = f"acronym defined as {long_form!r} in {n} paper(s); make the long form the name"
                aliases = sorted({*aliases, name})
                name = long_form
                kind = kind_of(name, phrase_key(tokenizer, name))
            else:
                note = "acronym with no definition in the papers: needs an expansion or drop it"
        else:
            acronyms = defined_acronyms(spelling, with_text)
            aliases = sorted({*aliases, *(a for a, _ in acronyms.most_common(2))})
            if acronyms:
                note = "acronyms defined: " + ", ".join(f"{a} ({n})" for a, n in acronyms.most_common(3))
        present = (
            sum(
                any(is_present(s, EvalPaper(p.pid, p.title, p.abstract, ())) for s in g.spellings)
                for p in with_text
            )
            / len(with_text)
            if with_text
            else None
        )
        out.append(
            {
                "name": name,
                "kind": kind,
                "aliases": aliases,
                "broader": [b] if (b := head_parent(phrase_key(tokenizer, name), name, kind, vocab)) else [],
                "papers": len(g.papers),
                "domains": dict(g.domains.most_common()),
                "present": None if present is None else round(present, 2),
                "note": note,
            }
        )
    out.sort(key=lambda e: (-e["papers"], e["name"]))
    return out


def add_similar(entries: list[dict[str, Any]], vocab: Vocabulary, top: int = 3) -> None:
    """Each entry's nearest vocabulary concepts by the offline MiniLM embedder (in place)."""
    from extractors.embedding import default_embedder

    embedder = default_embedder()
    names = [c.name for c in vocab.concepts.values()]
    known = embedder.embed(names)
    mined = embedder.embed([e["name"] for e in entries])
    sims = mined @ known.T
    for entry, row in zip(entries, sims, strict=True):
        best = row.argsort()[::-1][:top]
        entry["similar"] = [[names[i], round(float(row[i]), 2)] for i in best]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="+", type=Path, help="JSONL or paperlists JSON files")
    parser.add_argument("--vocabulary", type=Path, default=DEFAULT_VOCABULARY)
    parser.add_argument("--min-papers", type=int, default=4)
    parser.add_argument("--domain", default=None, help="only keywords whose papers are mostly of this field")
    parser.add_argument("--areas", action="store_true", help="count area-style keywords by their topic")
    parser.add_argument("--embed", action="store_true", help="add the nearest vocabulary concepts (MiniLM)")
    args = parser.parse_args(argv)
    tokenizer: Tokenizer = load_nlp(mode="fast").tokenizer
    vocab = default_vocabulary(tokenizer, args.vocabulary)
    papers: list[Listed] = []
    for path in args.files:
        try:
            papers.extend(read_listing(path, args.areas))
        except (OSError, ValueError) as exc:
            print(f"{path}: skipped: {exc}", file=sys.stderr)
    entries = mine(papers, tokenizer, vocab, args.min_papers)
    if args.domain:
        entries = [e for e in entries if max(e["domains"], key=e["domains"].get) == args.domain]
    if args.embed and entries:
        add_similar(entries, vocab)
    distinct = len({p.pid for p in papers})
    print(f"{distinct} papers with keywords; {len(entries)} candidate entries", file=sys.stderr)
    for entry in entries:
        print(json.dumps(entry, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
