"""Draw concept -> paper links from a store, as ``concept.papers`` lists them, for hand labelling.

Usage::

    kg ingest --data-dir STORE ../shared/data/paperlists/corl
    python bench/sample_links.py --data-dir STORE --links 100 --seed 7 > links.jsonl

Why a sampler through the API: the issue's precision target is about what a user reads in
``concept(name) { papers }`` (the default arguments: about only, narrower concepts included,
most central first), not about an extractor's records. Links are drawn in two steps so that a
few huge concepts do not fill the sample: concepts at random among those with at least
``--min-papers`` papers, then papers at random from each concept's first page of 100. Each line
carries the title and abstract a labeller reads and an empty ``label`` to fill in with
``about`` (the paper is about the concept), ``passing`` (it mentions it in passing) or ``wrong``
(not this concept at all); ``bench/label_precision.py --labels`` scores a filled file.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from api.concept_eval import SchemaReader  # noqa: E402
from kg.core.config import Settings  # noqa: E402
from kg.stores.sqlite.store import SQLiteStore  # noqa: E402

CONCEPTS = """query($after: String) {
  concepts(first: 100, after: $after) {
    pageInfo { hasNextPage endCursor }
    edges { node { name paperCount } }
  }
}"""

PAPERS = """query($name: String!) {
  concept(name: $name) {
    name
    papers(first: 100) { edges { node { id title abstract venue { name } year } } }
  }
}"""


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--data-dir", type=Path, required=True, help="the store (a kg ingest --data-dir)")
    p.add_argument("--links", type=int, default=100)
    p.add_argument("--per-concept", type=int, default=4)
    p.add_argument("--min-papers", type=int, default=4)
    p.add_argument("--seed", type=int, default=7)
    args = p.parse_args()

    settings = Settings(data_dir=args.data_dir)
    store = SQLiteStore(args.data_dir)
    reader = SchemaReader(store, settings)
    names: list[str] = []
    after: str | None = None
    while True:
        page = reader.run(CONCEPTS, {"after": after})["concepts"]
        names += [e["node"]["name"] for e in page["edges"] if e["node"]["paperCount"] >= args.min_papers]
        if not page["pageInfo"]["hasNextPage"]:
            break
        after = page["pageInfo"]["endCursor"]
    rng = random.Random(args.seed)
    rng.shuffle(names)
    drawn = 0
    for name in names:
        if drawn >= args.links:
            break
        concept = reader.run(PAPERS, {"name": name})["concept"]
        papers = [e["node"] for e in concept["papers"]["edges"]]
        for paper in rng.sample(papers, min(args.per_concept, len(papers), args.links - drawn)):
            line = {
                "concept": concept["name"],
                "paper": paper["id"],
                "venue": (paper["venue"] or {}).get("name"),
                "year": paper["year"],
                "title": paper["title"],
                "abstract": paper["abstract"],
                "label": "",
            }
            print(json.dumps(line, ensure_ascii=False))
            drawn += 1


if __name__ == "__main__":
    main()
