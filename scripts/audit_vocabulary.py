"""Report every BROADER link and alias of ``extractors/data/concepts.json`` the dev data contradicts.

Run on papers with titles and abstracts (default: ICLR 2018, COLM 2024 and CoRL 2021-2025 under
``--data-dir``, i.e. ``../shared/data``), extracted in fast mode with the shipped vocabulary:

* **BROADER** ``child -> parent`` (is-a only): contradicted when the two kinds cannot be is-a
  (a dataset under a task, a named model under a method), or when at least
  ``--min-papers`` papers mention the child and fewer than ``--min-support`` of them contain
  the parent's name or an alias (stemmed; ``kg.eval.evaluation.is_present``): papers filed under the
  parent through the child would not be recognised by a reader as being about the parent
  (CLIP under contrastive learning).
* **acronym aliases**: contradicted when a paper defines the acronym with another long form
  ("patch-ranking map (PRM)" against process reward models).
* **ambiguous aliases** (shortened forms and unfamiliar acronyms, which only count with
  support): reported with how often they occurred without support, for review.

Usage::

    python scripts/audit_vocabulary.py [--data-dir ../shared/data] [--strict]

Exits 1 with ``--strict`` when anything is contradicted.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter, defaultdict
from pathlib import Path

from spacy.tokenizer import Tokenizer

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from extractors.concepts.analysis import analyse  # noqa: E402
from extractors.concepts.background import load_background  # noqa: E402
from extractors.concepts.vocabulary import default_vocabulary, phrase_key  # noqa: E402
from extractors.text import extraction_text, title_length  # noqa: E402
from kg.eval.evaluation import EvalPaper, is_present, load_eval_papers  # noqa: E402
from kg.ingest.nlp import load_nlp  # noqa: E402

DEV_FILES = (
    "iclr2018.jsonl",
    "colm2024.jsonl",
    *(f"paperlists/corl/corl{y}.json" for y in range(2021, 2026)),
)
IS_A_KINDS = {
    ("MODEL", "CONCEPT"),
    ("METHOD", "CONCEPT"),
    ("TASK", "CONCEPT"),
}


def _named(name: str) -> bool:
    return any(ch.isdigit() for ch in name) or any(ch.isupper() for ch in name)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data-dir", type=Path, default=Path("../shared/data"))
    parser.add_argument("--min-papers", type=int, default=5)
    parser.add_argument("--min-support", type=float, default=0.5)
    parser.add_argument("--strict", action="store_true")
    args = parser.parse_args(argv)

    tokenizer: Tokenizer = load_nlp(mode="fast").tokenizer  # spaCy types it as any Callable[[str], Doc]
    vocab = default_vocabulary(tokenizer)
    background = load_background()
    papers: list[EvalPaper] = [p for f in DEV_FILES for p in load_eval_papers(args.data_dir / f)]
    mentioned: dict[str, list[EvalPaper]] = defaultdict(list)
    definitions: dict[str, Counter[str]] = defaultdict(Counter)  # acronym key -> long forms
    unsupported: Counter[str] = Counter()
    texts = [extraction_text(p.title or None, p.abstract) for p in papers]
    for p, text, doc in zip(papers, texts, tokenizer.pipe(texts, batch_size=256), strict=True):
        a = analyse(doc, text, title_length(p.title or None), vocab, background)
        for cand in a.candidates:
            if cand.source == "vocabulary":
                mentioned[cand.vocab_id].append(p)
        for cid in a.unsupported:
            unsupported[cid] += 1
        for acr in a.acronyms:
            definitions[acr.key].update([acr.long_text.lower()])

    problems = 0
    print(f"{len(papers)} dev papers; {len(vocab.concepts)} concepts")
    print("\n# BROADER links the dev data contradicts")
    for c in vocab.concepts.values():
        for b in c.broader:
            parent = vocab.concepts[b]
            if c.kind != parent.kind and not (
                (c.kind, parent.kind) in IS_A_KINDS and not (c.kind == "MODEL" and _named(c.name))
            ):
                problems += 1
                print(f"kind   {c.name} ({c.kind}) -> {parent.name} ({parent.kind}): not is-a")
                continue
            linked = mentioned.get(c.id, [])
            if len(linked) < args.min_papers:
                continue
            surfaces = [parent.name, *parent.aliases]
            support = sum(any(is_present(s, p) for s in surfaces) for p in linked) / len(linked)
            if support < args.min_support:
                problems += 1
                print(
                    f"lexical {c.name} -> {parent.name}: "
                    f"{support:.0%} of {len(linked)} papers name the parent"
                )
    print("\n# acronym aliases defined otherwise in the dev data")
    for c in vocab.concepts.values():
        own = {tuple(k) for k in vocab.surface_keys.get(c.id, [])}
        for alias in c.aliases:
            key = phrase_key(tokenizer, alias)
            if len(key) != 1 or not key[0].startswith("A:"):
                continue
            for long_form, n in definitions.get(key[0], Counter()).items():
                if phrase_key(tokenizer, long_form) not in own:
                    problems += 1
                    print(f"acronym {alias} of {c.name}: defined {n}x as {long_form!r}")
    print("\n# ambiguous aliases seen without support (dropped from those papers; for review)")
    for cid, n in unsupported.most_common():
        amb = ", ".join(" ".join(k) for k in sorted(vocab.ambiguous.get(cid, ())))
        print(f"review  {vocab.concepts[cid].name} [{amb}]: {n} paper(s) without support")
    print(f"\n{problems} contradiction(s)")
    return 1 if problems and args.strict else 0


if __name__ == "__main__":
    raise SystemExit(main())
