"""The evaluation harness: extraction quality against gold keywords (``kg eval``), not used by
the ingest or the API."""
