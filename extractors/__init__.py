"""Extractors: pure functions from a raw paper (and an injected spaCy pipeline) to graph parts."""

from pathlib import Path

# The tables and models shipped with the extractors (vocabulary, background, predictor, ...),
# named once so that each module's default file is DATA_DIR / its name.
DATA_DIR = Path(__file__).resolve().parent / "data"
