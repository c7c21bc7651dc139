"""Curations: user decisions about authors and concepts, kept in a file and re-applied by
every ingest."""
