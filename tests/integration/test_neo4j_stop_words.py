"""The stop words both stores leave out of a search are the ones Neo4j's fulltext analyzer drops.

Why: ``kg.core.text_index.STOP_WORDS`` is a copy of the analyzer's list, so that the embedded store
(FTS5) searches for the same words as Neo4j; if Neo4j's list changed, the backends would answer
differently and this fails.
"""

from __future__ import annotations

from typing import Any

from kg.core.text_index import STOP_WORDS
from kg.stores.neo4j.queries import FULLTEXT_ANALYZER


def test_stop_words_are_the_fulltext_analyzers(neo4j_driver: Any) -> None:
    with neo4j_driver.session() as session:
        rows = session.run(
            "CALL db.index.fulltext.listAvailableAnalyzers() YIELD analyzer, stopwords "
            "WHERE analyzer = $name RETURN stopwords",
            name=FULLTEXT_ANALYZER,
        ).data()
    assert len(rows) == 1
    assert set(rows[0]["stopwords"]) == STOP_WORDS
