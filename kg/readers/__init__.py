"""Readers: listing files in, :class:`kg.core.models.RawPaper` records and specific problems out.

The format is chosen by content (a ``.txt`` holding JSON lines is read as JSONL), and one
bad record never hides the good ones around it.
"""

from kg.readers.detect import ReadResult, iter_input_files, read_file
from kg.readers.problems import ReadProblem

__all__ = ["ReadProblem", "ReadResult", "iter_input_files", "read_file"]
