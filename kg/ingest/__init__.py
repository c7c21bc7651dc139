"""The ingest: listing files -> readers -> extraction pipeline -> store, incremental or bulk."""
