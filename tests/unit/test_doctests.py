"""The examples in the docstrings of every module run, and say what they print.

Why a test: docstrings here explain behaviour with examples (the value checks, the caches,
the ranking rules). An example that no longer holds misleads the next reader, and nothing ran
them before: one had lost its import and went unnoticed.
"""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

MODULES = sorted(
    info.name
    for package in ("kg", "extractors", "api")
    for info in pkgutil.walk_packages(importlib.import_module(package).__path__, package + ".")
)


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_hold(name: str) -> None:
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS, report=True)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples in {name} failed"
