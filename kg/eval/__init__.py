"""The evaluation harness: extraction quality against author keywords (``kg eval-concepts``,
bench/concepts.py), not used by the ingest or the API's answers."""
