"""Hand-written listings in the paperlists format, for the tests that ingest them as files.

Why a module: the author-identity and the institution tests both build small paperlists files
(a byline with OpenReview ids, affiliations, their domains) and write them to a folder; one
writer keeps the two in the format the reader (``kg/readers/paperlists.py``) reads.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def paperlists_record(
    rid: str,
    title: str,
    authors: list[str],
    ids: list[str],
    aff: list[str] | None = None,
    domains: list[str] | None = None,
) -> dict[str, Any]:
    """One paperlists record: ``;``-joined bylines as the published files have them."""
    out: dict[str, Any] = {
        "id": rid,
        "title": title,
        "author": ";".join(authors),
        "authorids": ";".join(ids),
        "abstract": f"We study {title.lower()} and report what we found about it in detail.",
        "track": "main",
        "status": "Poster",
        "site": f"https://openreview.net/forum?id={rid}",
    }
    if aff is not None:
        out["aff"] = ";".join(aff)
    if domains is not None:
        out["aff_domain"] = ";".join(domains)
    return out


def write_listings(folder: Path, listings: dict[str, list[dict[str, Any]]]) -> list[Path]:
    """Each listing as a JSON file in ``folder`` (created), in the dict's order."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, records in listings.items():
        path = folder / name
        path.write_text(json.dumps(records), encoding="utf-8")
        paths.append(path)
    return paths
