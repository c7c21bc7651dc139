"""Concept extraction: a curated vocabulary matched on normal forms, with evidence and scores."""
