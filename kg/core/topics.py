"""Topic paths: the one rule for splitting ``Deep Learning · Large Language Models``.

Shared vocabulary of readers (which split topic lines), extractors (which build Topic nodes) and
the read side (which resolves a topic asked for by path), so none of them imports another.
"""

from __future__ import annotations

import re

_TOPIC_SEP = re.compile(r"\s*[·•›>»/]\s*")


def topic_path(value: str) -> list[str]:
    """Split a topic into its path.

    >>> topic_path("Deep Learning · Large Language Models")
    ['Deep Learning', 'Large Language Models']
    >>> topic_path("Applications · Chemistry, Physics, and Earth Sciences")
    ['Applications', 'Chemistry, Physics, and Earth Sciences']
    """
    return [p.strip() for p in _TOPIC_SEP.split(value.strip()) if p.strip()]
