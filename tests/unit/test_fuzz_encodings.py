"""Any byte costs only its record: generated encoding cases through the real readers.

The classes of issue 27 that lost records or aborted an ingest, each a derandomised Hypothesis
test over real records (``tests/data``): lone surrogate escapes, lone-CR JSONL, a UTF-16 file
that continues in UTF-8, a byte-order mark in mid-file, whole files and single lines in legacy
encodings (GBK/GB18030, Big5, KOI8-R, Shift-JIS), compressed streams named ``.json`` and CSV
rows with neither title nor abstract. Per case: no exception, every good record read, the
problem located, no lone surrogate and no U+FFFD in a stored name. Through the real ``kg
ingest``: a lone surrogate and a file name that is not UTF-8 in a folder cost only themselves.
``ENCODING_CASES`` counts the cases per class (printed with ``-s``).
"""

from __future__ import annotations

import bz2
import codecs
import gzip
import json
import lzma
import os
import zlib
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from api.cli import main
from kg.core.models import RawPaper
from kg.readers import ReadResult
from tests.unit.test_fuzz_inputs import GOOD, _check, _read, _tmp

ENCODING_CASES: Counter[str] = Counter()
_FUZZ = settings(
    max_examples=40,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
        HealthCheck.function_scoped_fixture,
    ],
)

NATIVE: dict[str, tuple[list[str], list[str], list[str]]] = {
    "gb18030": (
        ["张伟", "李娜", "王芳", "刘洋", "陈静"],
        ["基于深度学习的图像识别方法研究", "强化学习中的多臂老虎机问题", "图神经网络的可解释性分析"],
        ["本文提出了一种新的卷积神经网络结构，用于提高图像识别的准确率。", "实验表明该方法优于现有方法。"],
    ),
    "big5": (
        ["陳志明", "林美玲", "黃建國"],
        ["深度學習於影像辨識之研究", "強化學習之多臂吃角子老虎機問題", "圖神經網路之可解釋性分析"],
        ["本研究提出一種新的卷積神經網路架構，以提升影像辨識之準確率。", "實驗結果顯示本方法優於現有方法。"],
    ),
    "koi8_r": (
        ["Иван Петров", "Мария Смирнова", "Олег Иванов"],
        ["Обучение с подкреплением для многоруких бандитов", "Графовые нейронные сети и их интерпретация"],
        [
            "Мы изучаем задачу многоруких бандитов и доказываем оценки сожаления.",
            "Эксперименты подтверждают теорию.",
        ],
    ),
    "shift_jis": (
        ["山田太郎", "鈴木花子", "佐藤健"],
        ["深層学習による画像認識の研究", "強化学習における多腕バンディット問題"],
        [
            "本研究では、画像認識の精度を向上させるための新しいネットワークを提案する。",
            "実験により有効性を示す。",
        ],
    ),
}


def _sample(draw: Any, k_min: int = 2, k_max: int = 6) -> list[dict[str, Any]]:
    k = draw(st.integers(k_min, k_max))
    start = draw(st.integers(0, len(GOOD) - k))
    return [dict(r) for r in GOOD[start : start + k]]


def _line(record: dict[str, Any]) -> str:
    return json.dumps(record, ensure_ascii=False)


def _stored_cleanly(result: ReadResult) -> None:
    """What the store will be handed encodes as UTF-8 and has no holes in its names."""
    for paper in result.papers:
        orjson.dumps([paper.title, paper.abstract, paper.authors, paper.keywords, paper.venue, paper.file])
        for name in [*paper.authors, *(paper.keywords or []), paper.venue or "", paper.title or ""]:
            assert "\ufffd" not in name, name


def _native_record(draw: Any, encoding: str) -> dict[str, Any]:
    names, titles, abstracts = NATIVE[encoding]
    n = draw(st.integers(0, 999))
    return {
        "title": f"{draw(st.sampled_from(titles))} {n}",
        "abstract": draw(st.sampled_from(abstracts)),
        "authors": draw(st.lists(st.sampled_from(names), min_size=1, max_size=3, unique=True)),
    }


def _encodable(text: str, encoding: str) -> bool:
    try:
        text.encode(encoding)
    except UnicodeEncodeError:
        return False
    return True


def _titles(papers: list[RawPaper]) -> Counter[str]:
    return Counter(p.title for p in papers if p.title)


# -- lone surrogates ---------------------------------------------------------------------------


@_FUZZ
@given(
    data=st.data(),
    field=st.sampled_from(["authors", "title", "abstract", "keywords", "key", "venue"]),
    escape=st.sampled_from(["\\ud800", "\\udfff", "\\udc00\\udc01", "\\ud83d", "\\ude00x", "\\uDBFF"]),
    array=st.booleans(),
)
def test_lone_surrogates_cost_a_repair(
    data: st.DataObject, field: str, escape: str, array: bool, tmp_path_factory: pytest.TempPathFactory
) -> None:
    ENCODING_CASES["lone surrogate escapes"] += 1
    records = _sample(data.draw)
    victim = data.draw(st.integers(0, len(records) - 1))
    marker = "SURROGATE_HERE"
    rec = records[victim]
    if field == "authors":
        rec["authors"] = [f"Ivy {marker} Qi", "Ann Lee"]
    elif field == "keywords":
        rec["keywords"] = [f"bandit{marker}s"]
    elif field == "key":
        rec[f"extra{marker}"] = "x"
    elif field == "venue":
        rec["venue"] = f"ICLR{marker} 2024"
    else:
        rec[field] = f"{rec[field]} {marker}"
    lines = [_line(r) for r in records]
    text = ("[" + ",\n".join(lines) + "]\n") if array else "\n".join(lines) + "\n"
    path = _tmp(tmp_path_factory, "s.json" if array else "s.jsonl")
    path.write_text(text.replace(marker, escape), encoding="utf-8")
    result = _read(path)
    good = [dict(r, title=r["title"].replace(f" {marker}", "")) for r in records]
    expected = _titles([]) + Counter(str(r["title"]).strip() for r in good)
    assert not expected - _titles(result.papers), result.problems
    assert len(result.papers) == len(records)
    assert any(p.severity == "repaired" and "surrogate" in p.reason for p in result.problems), result.problems
    _stored_cleanly(result)
    if field == "authors":
        ivy = [a for p in result.papers for a in p.authors if a.startswith("Ivy")]
        assert ivy and all(a.endswith(" Qi") for a in ivy), ivy


def test_a_lone_surrogate_and_a_non_utf8_file_name_cost_only_themselves(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Through the real CLI: both once aborted the whole ingest with a traceback."""
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "ivy.jsonl").write_text(
        '{"title": "Ivy paper", "abstract": "We study bandits.", "authors": ["Ivy \\ud800 Qi"]}\n'
    )
    (folder / "good.jsonl").write_text(_line(GOOD[0]) + "\n", encoding="utf-8")
    bad_name = os.fsdecode(b"caf\xe9.jsonl")
    (folder / bad_name).write_text(_line(GOOD[1]) + "\n", encoding="utf-8")
    code = main(["ingest", "--no-progress", "--data-dir", str(tmp_path / "kg"), str(folder)])
    out = capsys.readouterr().out
    assert code == 1, out
    assert "caf\\xe9.jsonl: file name is not valid UTF-8, not read" in out
    assert "ivy.jsonl:1: removed 1 lone surrogate escape(s)" in out
    main(["stats", "--json", "--data-dir", str(tmp_path / "kg")])
    assert json.loads(capsys.readouterr().out)["nodes"]["Paper"] == 2
    ENCODING_CASES["CLI: surrogate + non-UTF-8 name"] += 1


# -- line ends, BOMs, mixed UTF-16/UTF-8 ---------------------------------------------------------


@_FUZZ
@given(data=st.data(), trailing=st.booleans())
def test_lone_cr_jsonl_is_read(
    data: st.DataObject, trailing: bool, tmp_path_factory: pytest.TempPathFactory
) -> None:
    ENCODING_CASES["lone-CR JSONL"] += 1
    records = _sample(data.draw)
    path = _tmp(tmp_path_factory, "cr.jsonl")
    path.write_bytes(("\r".join(_line(r) for r in records) + ("\r" if trailing else "")).encode())
    result = _read(path)
    _check(path, result, records)
    assert len(result.papers) == len(records)


@_FUZZ
@given(data=st.data(), encoding=st.sampled_from(["utf-16-le", "utf-16-be"]), bom=st.booleans())
def test_utf16_that_continues_in_utf8_is_read(
    data: st.DataObject, encoding: str, bom: bool, tmp_path_factory: pytest.TempPathFactory
) -> None:
    ENCODING_CASES["UTF-16 then UTF-8"] += 1
    records = _sample(data.draw, 3, 8)
    cut = data.draw(st.integers(1, len(records) - 1))
    head = "".join(_line(r) + "\n" for r in records[:cut])
    tail = "".join(_line(r) + "\n" for r in records[cut:])
    mark = (codecs.BOM_UTF16_LE if encoding.endswith("le") else codecs.BOM_UTF16_BE) if bom else b""
    path = _tmp(tmp_path_factory, "mixed.jsonl")
    path.write_bytes(mark + head.encode(encoding) + tail.encode("utf-8"))
    result = _read(path)
    _check(path, result, records)
    assert len(result.papers) == len(records), result.problems
    _stored_cleanly(result)


@_FUZZ
@given(data=st.data())
def test_a_byte_order_mark_in_mid_file_costs_a_repair(
    data: st.DataObject, tmp_path_factory: pytest.TempPathFactory
) -> None:
    ENCODING_CASES["mid-file UTF-8 BOM"] += 1
    records = _sample(data.draw, 2, 8)
    at = data.draw(st.integers(1, len(records) - 1))
    lines = [_line(r) for r in records]
    lines[at] = "\ufeff" + lines[at]
    path = _tmp(tmp_path_factory, "bom.jsonl")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = _read(path)
    _check(path, result, records)
    assert len(result.papers) == len(records)
    assert any(p.line == at + 1 and "byte-order mark" in p.reason for p in result.problems), result.problems


# -- legacy encodings ---------------------------------------------------------------------------


@_FUZZ
@given(data=st.data(), encoding=st.sampled_from(sorted(NATIVE)), whole=st.booleans())
def test_legacy_encodings_are_detected_and_decoded(
    data: st.DataObject, encoding: str, whole: bool, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """A whole file in a legacy encoding, or one line of it in a UTF-8 file: every title and
    name read as written, never replacement characters."""
    ENCODING_CASES[f"legacy {'file' if whole else 'line'}"] += 1
    records = [r for r in _sample(data.draw) if not whole or _encodable(_line(r), encoding)]
    count = data.draw(st.integers(1, 4 if whole else 1))
    native = [_native_record(data.draw, encoding) for _ in range(count)]
    at = data.draw(st.integers(0, len(records)))
    lines = [(_line(r), "utf-8") for r in records]
    lines[at:at] = [(_line(r), encoding) for r in native]
    if whole:
        raw = "".join(text + "\n" for text, _ in lines).encode(encoding)
    else:
        raw = b"".join(text.encode(enc) + b"\n" for text, enc in lines)
    path = _tmp(tmp_path_factory, "legacy.jsonl")
    path.write_bytes(raw)
    result = _read(path)
    _check(path, result, records + native)
    got = {p.title: p.authors for p in result.papers}
    for r in native:
        assert got.get(r["title"]) == r["authors"], (r, result.problems)
    _stored_cleanly(result)


@pytest.mark.parametrize("encoding", ["gb18030", "gbk"])
def test_a_gbk_listing_names_its_authors(encoding: str, tmp_path: Path) -> None:
    """A 论文检索 listing (the example format) written in GBK: the authors as written."""
    names = NATIVE["gb18030"][0][:2]
    text = (
        "论文检索\n\nReinforcement Learning\n\n"
        f"{', '.join(names)}\n\n"
        "We study multi-armed bandits with heavy tails and prove regret bounds that match the lower "
        "bound up to logarithmic factors in the horizon and the number of arms.\n"
    )
    path = tmp_path / "listing.txt"
    path.write_bytes(text.encode(encoding))
    result = _read(path)
    assert len(result.papers) == 1, result.problems
    _stored_cleanly(result)
    assert "张伟" in str(result.papers[0]) and "\ufffd" not in str(result.papers[0])
    ENCODING_CASES["legacy listing"] += 1


# -- binary streams and CSV rows ----------------------------------------------------------------


def _zlib_fast(data: bytes) -> bytes:
    return zlib.compress(data, 1)


def _zlib_best(data: bytes) -> bytes:
    return zlib.compress(data, 9)


_COMPRESSORS: dict[str, Callable[[bytes], bytes]] = {
    "zlib": zlib.compress,
    "zlib level 1": _zlib_fast,
    "zlib best": _zlib_best,
    "gzip": gzip.compress,
    "bzip2": bz2.compress,
    "xz": lzma.compress,
}


@_FUZZ
@given(
    data=st.data(),
    kind=st.sampled_from(sorted(_COMPRESSORS)),
    suffix=st.sampled_from([".json", ".jsonl", ".txt"]),
)
def test_compressed_streams_are_skipped_as_binary(
    data: st.DataObject, kind: str, suffix: str, tmp_path_factory: pytest.TempPathFactory
) -> None:
    ENCODING_CASES["compressed stream"] += 1
    records = _sample(data.draw)
    path = _tmp(tmp_path_factory, "packed" + suffix)
    path.write_bytes(_COMPRESSORS[kind](json.dumps(records).encode()))
    result = _read(path)
    assert result.papers == []
    assert any("binary file" in p.reason for p in result.problems), result.problems


@_FUZZ
@given(data=st.data())
def test_csv_rows_without_title_or_abstract_are_reported(
    data: st.DataObject, tmp_path_factory: pytest.TempPathFactory
) -> None:
    ENCODING_CASES["CSV row without title/abstract"] += 1
    records = _sample(data.draw)
    at = data.draw(st.integers(0, len(records)))
    rows = [[r["title"], r["abstract"], "Ann Lee"] for r in records]
    rows[at:at] = [["", "", data.draw(st.sampled_from(["Bo Li", "", "  "]))]]
    path = _tmp(tmp_path_factory, "rows.csv")
    import csv
    import io

    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(["title", "abstract", "authors"])
    writer.writerows(rows)
    path.write_text(buffer.getvalue(), encoding="utf-8")
    result = _read(path)
    _check(path, result, records)
    if rows[at][2].strip():
        assert any("neither a title nor an abstract" in p.reason for p in result.problems), result.problems


def test_zz_report_encoding_counts() -> None:
    print(
        "\nencoding fuzz cases per class:", dict(sorted(ENCODING_CASES.items())), sum(ENCODING_CASES.values())
    )
