"""Names clients ask for leave nothing behind in the process.

Why: ``norm_token`` caches 200k entries for the extractor. Query keys once went through it, so
every request for a new unknown name ("no such name 1234") added an entry; a served process
grew about 0.2 MB per 1,000 such requests (``bench/api_memory.py``).
"""

from __future__ import annotations

from kg.core.names import concept_keys, query_keys, query_loose_key
from kg.core.normalize import norm_token


def test_query_keys_equal_the_stored_keys_and_grow_no_cache() -> None:
    names = [f"no such name {i} Bandits LLMs" for i in range(500)]
    expected = [concept_keys(n) for n in names[:3]]  # the writer's keys (cached path)
    before = norm_token.cache_info().currsize
    assert [query_keys(n) for n in names[:3]] == expected
    for n in names:
        query_keys(n)
        query_loose_key(n)
    assert norm_token.cache_info().currsize == before
