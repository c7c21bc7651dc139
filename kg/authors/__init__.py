"""Authors: name slots resolved into people, institutions, and the ingest's report on names."""
