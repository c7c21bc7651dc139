"""Did a file change between the ingest's two reads of it?

Why two reads: ``kg ingest`` resolves authors from every file before it extracts any
(:mod:`kg.authors.ingest`), and holding every file's raw papers from the first read to the
extraction was the largest part of the ingest process's memory at 100k papers. So the pre-pass
keeps only the author slots, and each file is read again when its papers are extracted. A file
edited in between would be written with authors resolved from its earlier version: this tells,
from its size and modification time, so the ingest can say so (nothing is lost either way; an
ingest of the file again resolves the new version).
"""

from __future__ import annotations

from pathlib import Path

from kg.readers.problems import ReadProblem

FileStamp = tuple[int, int] | None  # (size, modification time in ns); None: could not stat


def file_stamp(path: Path) -> FileStamp:
    """``path``'s size and modification time, ``None`` when it cannot be read."""
    try:
        st = path.stat()
    except OSError:
        return None
    return st.st_size, st.st_mtime_ns


def changed_while_read(path: Path) -> ReadProblem:
    """The note for a file whose stamp moved between the pre-pass and its extraction."""
    return ReadProblem(
        str(path),
        None,
        "changed while this ingest read it: its papers were written as read the second time, their "
        "authors resolved from the first; ingest it again to resolve them from what it holds now",
        "note",
    )
