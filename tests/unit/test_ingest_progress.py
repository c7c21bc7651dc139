"""The ingest progress bar tells the truth: it never goes back, and it is never silent.

Seen at 17k papers: the bar went back from 68/68 to 67/68 for the last half minute (writes
reported the index of the file being read, one behind), and nothing was shown until the
first file had been read.
"""

from __future__ import annotations

import io
import re
from pathlib import Path
from typing import Any

from kg.ingest.job import Progress, ingest
from kg.ingest.pipeline import Pipeline
from kg.stores.sqlite import SQLiteStore
from tests.conftest import EXAMPLES


def test_the_bar_only_goes_forward_and_says_what_it_waits_for(tmp_path: Path, nlp_fast: Any) -> None:
    stream = io.StringIO()
    progress = Progress(stream=stream, enabled=True)
    store = SQLiteStore(tmp_path / "kg")
    try:
        files = sorted(EXAMPLES.glob("*.txt"))
        report = ingest(files, store, Pipeline(nlp=nlp_fast), batch_size=5, write_size=10, progress=progress)
    finally:
        store.close()
    frames = [f.strip() for f in stream.getvalue().split("\r") if f.strip()]
    assert frames[0].startswith(f"[{'-' * 24}] 0/3 files  reading {files[0].name}")
    counts = [int(m.group(1)) for f in frames if (m := re.search(r"\] (\d+)/3 files", f))]
    assert counts == sorted(counts) and counts[-1] == 3, counts
    assert any("3/3 files read; extracting and writing the last" in f for f in frames), frames
    written = [int(m.group(1)) for f in frames if (m := re.search(r"\((\d+) written\)", f))]
    assert written == sorted(written) and max(written) <= report.read == 58
