"""Structures a warm store version holds in memory, the same on both stores (role: read-side
build-once data). Each store reads their rows its own way (``kg.stores.sqlite.held_rows``,
``kg.stores.neo4j.held``) and builds them with these modules' ``from_rows``; when to build is
:class:`kg.stores.warm.WarmSlot`'s."""
