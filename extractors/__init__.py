"""Extractors: pure functions from a raw paper (and an injected spaCy pipeline) to graph parts."""
