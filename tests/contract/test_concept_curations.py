"""Concept curations on both stores: each verb through ``kg curate``, read back over HTTP, and a
rebuild in another file order with the same curations file giving the same graph.

The papers are 40 real ICLR 2018 records (``tests/data/iclr2018.jsonl``) in two listing files,
so the concepts curated are real ones with many papers, co-occurrences and ``BROADER`` links.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from api.app import create_app
from api.cli import main
from kg.core.config import Settings
from kg.core.models import Graph
from kg.curation.decisions import load
from kg.ingest.job import ingest
from kg.ingest.pipeline import Pipeline
from kg.stores.protocol import ReadStore
from tests.api.conftest import post, serve
from tests.conftest import neo4j_uri

DATA = Path(__file__).resolve().parents[1] / "data" / "iclr2018.jsonl"
KEEP, MERGED = "concept:neural-networks", ("concept:deep-neural-networks", "concept:deep-network")
HIDDEN = "concept:accuracy"
PLACED, PARENT = "concept:autoencoders", "concept:deep-learning"


@pytest.fixture(scope="module")
def pipeline(nlp_fast: Any) -> Pipeline:
    return Pipeline(nlp=nlp_fast)


def _write(folder: Path) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    lines = DATA.read_text(encoding="utf-8").splitlines()[:40]
    paths = []
    for name, part in (("a.jsonl", lines[:20]), ("b.jsonl", lines[20:])):
        path = folder / name
        path.write_text("\n".join(part) + "\n", encoding="utf-8")
        paths.append(path)
    return paths


def _flags(store: ReadStore, tmp_path: Path) -> list[str]:
    """The CLI flags that open the test's own store, and the curations file."""
    where = ["--data-dir", str(tmp_path / "kg")]
    if store.backend_name == "neo4j":
        where = ["--backend", "neo4j", "--neo4j-uri", neo4j_uri()]
    return [*where, "--curations", str(tmp_path / "curations.jsonl")]


def _kg(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def client(store: ReadStore) -> Iterator[httpx.Client]:
    with serve(create_app(Settings(), store=store)) as server, httpx.Client(base_url=server.url) as c:
        yield c


def _concept(client: httpx.Client, name: str) -> dict[str, Any] | None:
    query = (
        "query($n: String!) { concept(name: $n) { id name aliases paperCount(includeNarrower: false) "
        "broader { id } narrower { id } } }"
    )
    body = post(client, query, {"n": name})
    assert "errors" not in body, body
    concept: dict[str, Any] | None = body["data"]["concept"]
    return concept


def _mentions(graph: Graph) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for r in graph.relationships:
        if r.type == "MENTIONS":
            out.setdefault(r.end, set()).add(r.start)
    return out


def test_each_concept_verb_applies_at_once_through_the_cli(
    store: ReadStore,
    pipeline: Pipeline,
    client: httpx.Client,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    ingest(_write(tmp_path / "in"), store, pipeline, jobs=1)
    before = store.export()
    papers = _mentions(before)
    assert all(papers.get(c) for c in (KEEP, *MERGED, HIDDEN)), "the data no longer has these concepts"
    flags = _flags(store, tmp_path)

    code, out, err = _kg(["curate", "merge-concepts", KEEP, *MERGED, *flags], capsys)
    assert code == 0 and "recorded in" in out and "2 concept(s) removed" in out, (out, err)
    merged = _concept(client, "deep neural networks")  # an alias now: the kept concept answers
    assert merged is not None and merged["id"] == KEEP and merged["name"] == "neural networks"
    assert {"deep neural networks", "deep network"} <= set(merged["aliases"])
    after = _mentions(store.export())
    assert after[KEEP] == papers[KEEP] | papers[MERGED[0]] | papers[MERGED[1]]
    assert not any(c in after for c in MERGED)

    code, out, err = _kg(["curate", "hide-concept", HIDDEN, *flags], capsys)
    assert code == 0 and "1 concept(s) removed" in out, (out, err)
    shown = _concept(client, "accuracy")
    assert shown is None or shown["id"] != HIDDEN
    graph = store.export()
    assert HIDDEN not in {n.id for n in graph.nodes}
    assert not [r for r in graph.relationships if HIDDEN in (r.start, r.end)]

    old_parents = {r.end for r in before.relationships if r.type == "BROADER" and r.start == PLACED}
    assert old_parents and PARENT not in old_parents
    code, out, err = _kg(["curate", "place-concept", PLACED, PARENT, *flags], capsys)
    assert code == 0, (out, err)
    placed = _concept(client, "autoencoders")
    assert placed is not None and [b["id"] for b in placed["broader"]] == [PARENT]
    parent = _concept(client, "deep learning")
    assert parent is not None and PLACED in {n["id"] for n in parent["narrower"]}

    code, out, _ = _kg(["curate", "list", *flags], capsys)
    assert code == 0
    assert out.splitlines()[1:] == [
        f"2. hide-concept {HIDDEN}",
        f"3. place-concept {PLACED} {PARENT}",
        f"3 decision(s) in {tmp_path / 'curations.jsonl'}",
    ]
    recorded = [json.loads(line) for line in (tmp_path / "curations.jsonl").read_text("utf-8").splitlines()]
    assert recorded[0]["ids"] == [KEEP, *MERGED] and recorded[0]["name"] == "neural networks"
    assert recorded[2] == {"verb": "place-concept", "id": PLACED, "parent": PARENT, "name": "deep learning"}


def test_unknown_concepts_are_refused_before_anything_is_recorded(
    store: ReadStore, pipeline: Pipeline, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ingest(_write(tmp_path / "in"), store, pipeline, jobs=1)
    before = store.export()
    flags = _flags(store, tmp_path)
    for verb in (
        ["merge-concepts", KEEP, "concept:no-such-thing"],
        ["hide-concept", "concept:no-such-thing"],
        ["place-concept", PLACED, "concept:no-such-thing"],
        ["place-concept", PLACED, PLACED],
    ):
        code, out, err = _kg(["curate", *verb, *flags], capsys)
        assert code == 2 and out == "" and len(err.strip().splitlines()) == 1, (verb, out, err)
        assert "no Concept 'concept:no-such-thing'" in err or "other than the concept itself" in err, err
    assert not (tmp_path / "curations.jsonl").exists()
    assert store.export() == before


def test_author_and_concept_curations_give_the_same_graph_in_another_order(
    store: ReadStore, pipeline: Pipeline, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Curated at once after an ingest, or applied by a fresh ingest of the files one by one in
    reverse order: the same graph, and the same ``kg export`` bytes on SQLite."""
    paths = _write(tmp_path / "in")
    ingest(paths, store, pipeline, jobs=1)
    graph = store.export()
    authors = sorted(n.id for n in graph.nodes if n.label == "Author")
    flags = _flags(store, tmp_path)
    for verb in (
        ["merge-concepts", KEEP, *MERGED],
        ["merge-authors", authors[0], authors[1]],
        ["hide-concept", HIDDEN],
        ["rename-author", authors[2], "A. N. Other"],
        ["place-concept", PLACED, PARENT],
    ):
        code, out, err = _kg(["curate", *verb, *flags], capsys)
        assert code == 0, (verb, out, err)
    curated = store.export()
    assert curated != graph
    exported = tmp_path / "curated.json"
    if store.backend_name == "sqlite":
        assert _kg(["export", "--data-dir", str(tmp_path / "kg"), "-o", str(exported)], capsys)[0] == 0
    decisions = load(tmp_path / "curations.jsonl")
    assert [c.verb for c in decisions] == [
        "merge-concepts",
        "merge-authors",
        "hide-concept",
        "rename-author",
        "place-concept",
    ]
    summary = ingest(paths, store, pipeline, jobs=1, curations=decisions)
    assert summary.summary.added == 0 and summary.summary.updated == 0  # re-applying changes nothing
    store.clear()
    for path in paths[::-1]:
        ingest([path], store, pipeline, jobs=1, curations=decisions)
    assert store.export() == curated
    if store.backend_name == "sqlite":
        again = tmp_path / "rebuilt.json"
        assert _kg(["export", "--data-dir", str(tmp_path / "kg"), "-o", str(again)], capsys)[0] == 0
        assert again.read_bytes() == exported.read_bytes()


def test_bulk_records_apply_the_curations_as_the_ingest_does(
    store: ReadStore, pipeline: Pipeline, tmp_path: Path
) -> None:
    """``kg ingest --bulk`` loads the record stream :func:`records_from_files` yields: with the
    curations file it must be the records the transactional ingest writes, so both loads give the
    same graph (the importer itself is checked against the ingest in test_neo4j_bulk.py)."""
    from kg.curation.concept_rewrite import apply_record, plan
    from kg.curation.decisions import Curation
    from kg.ingest.bulk import records_from_files

    paths = _write(tmp_path / "in")
    ingest(paths, store, pipeline, jobs=1)
    authors = sorted(n.id for n in store.export().nodes if n.label == "Author")
    decisions = [
        Curation("merge-concepts", (KEEP, *MERGED), name="neural networks", aliases=("deep network",)),
        Curation("hide-concept", (HIDDEN,)),
        Curation("place-concept", (PLACED, PARENT), name="deep learning"),
        Curation("merge-authors", (authors[0], authors[1])),
    ]
    problems: list[Any] = []
    records = list(records_from_files(paths, pipeline, problems, 1, curations=decisions))
    assert not problems and records
    ids = {n.id for r in records for n in r.nodes} | {
        e for r in records for x in r.relationships for e in (x.start, x.end)
    }
    assert KEEP in ids and PLACED in ids and authors[0] in ids
    assert not ids & {HIDDEN, *MERGED, authors[1]}
    concept_plan = plan(decisions)
    assert all(apply_record(r, concept_plan) == r for r in records)  # rewritten already: a no-op
    placed = {x.end for r in records for x in r.relationships if x.type == "BROADER" and x.start == PLACED}
    assert placed == {PARENT}
