"""The embedded store on SQLite (the default backend): see :mod:`kg.stores.sqlite.store`."""

from kg.stores.sqlite.store import DB_FILE, SQLiteStore, legacy_pickle_notice

__all__ = ["DB_FILE", "SQLiteStore", "legacy_pickle_notice"]
