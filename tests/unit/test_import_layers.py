"""The import arrows between the layers point down (docs/architecture.md, "Layers").

``api`` -> ``kg`` -> ``extractors`` -> ``kg.core``: ``kg.core`` is the shared vocabulary and
imports nothing from ``kg`` outside itself, nor ``extractors`` nor ``api``; ``extractors`` import
``kg.core`` only; nothing in ``kg`` or ``extractors`` imports ``api``; no product module imports
``tests``, ``bench`` or ``scripts`` (and the tools do not import the tests).

Why a test and not a convention: an arrow that runs up is one line in a function body, easy to
add and invisible in review, and once there the layers stop meaning anything. Every import is
read from the syntax tree, function-level ones included, with relative imports resolved and
``importlib.import_module("...")`` calls with a literal name counted too.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest

pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parents[2]
SCANNED = ("kg", "extractors", "api", "bench", "scripts")
PRODUCT = {"kg", "extractors", "api"}
TOOLS = {"bench", "scripts", "tests"}


@dataclass(frozen=True)
class Arrow:
    """One import: ``importer`` (a module) imports ``imported`` (a module or package) at ``line``."""

    importer: str
    imported: str
    line: int


def module_name(path: Path) -> str:
    """``kg/core/models.py`` -> ``kg.core.models``; a package's ``__init__.py`` -> the package."""
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _is_module(name: str) -> bool:
    base = ROOT.joinpath(*name.split("."))
    return base.with_suffix(".py").is_file() or (base / "__init__.py").is_file()


def _absolute(importer: str, is_package: bool, level: int, module: str | None) -> str:
    """The absolute name of ``from <level dots><module> import ...`` inside ``importer``."""
    if not level:
        return module or ""
    base = importer.split(".")
    if not is_package:
        base = base[:-1]
    base = base[: len(base) - (level - 1)]
    return ".".join([*base, module] if module else base)


def arrows(source: str, importer: str, is_package: bool = False) -> list[Arrow]:
    """Every import in ``source`` (module ``importer``), at any depth of the syntax tree.

    ``from P import x`` counts as an import of ``P.x`` when that is a module of the repo (so
    ``from kg import analytics`` is seen as ``kg.analytics``), else of ``P``.
    """
    found: list[Arrow] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.extend(Arrow(importer, alias.name, node.lineno) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            module = _absolute(importer, is_package, node.level, node.module)
            for alias in node.names:
                sub = f"{module}.{alias.name}"
                found.append(Arrow(importer, sub if _is_module(sub) else module, node.lineno))
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute | ast.Name)
            and (node.func.attr if isinstance(node.func, ast.Attribute) else node.func.id)
            in ("import_module", "__import__")
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            found.append(Arrow(importer, node.args[0].value, node.lineno))
    return found


def _within(name: str, package: str) -> bool:
    return name == package or name.startswith(package + ".")


def upward(arrow: Arrow) -> str | None:
    """Why ``arrow`` runs up, or ``None`` when it points down (or sideways inside a layer)."""
    src, dst = arrow.importer, arrow.imported
    src_top, dst_top = src.split(".")[0], dst.split(".")[0]
    if src_top in PRODUCT and dst_top in TOOLS:
        return f"product code imports {dst_top}/"
    if src_top in TOOLS - {"tests"} and dst_top in TOOLS and dst_top != src_top:
        return f"{src_top}/ imports {dst_top}/"
    if _within(src, "kg.core") and dst_top in PRODUCT and not _within(dst, "kg.core"):
        return "kg.core imports something above it (only kg.core itself is allowed)"
    if src_top == "extractors" and dst_top in {"kg", "api"} and not _within(dst, "kg.core"):
        return "extractors import kg outside kg.core (or api)"
    if src_top == "kg" and dst_top == "api":
        return "kg imports api"
    return None


@cache
def all_arrows() -> tuple[Arrow, ...]:
    """Every import of the scanned folders (read once per test session)."""
    found: list[Arrow] = []
    for top in SCANNED:
        for path in sorted((ROOT / top).rglob("*.py")):
            found.extend(
                arrows(path.read_text(encoding="utf-8"), module_name(path), path.name == "__init__.py")
            )
    return tuple(found)


def test_no_import_runs_up_the_layers() -> None:
    found = all_arrows()
    assert len(found) > 500  # the scan saw the code base, not an empty folder
    bad = [f"{a.importer}:{a.line} imports {a.imported}: {why}" for a in found if (why := upward(a))]
    assert bad == [], "imports that run up the layers:\n" + "\n".join(bad)


def test_extractors_and_kg_core_are_seen_importing_what_they_may() -> None:
    """The downward arrows the layers are built on exist (the scan reads real imports)."""
    found = all_arrows()
    assert any(a.importer.startswith("extractors.") and _within(a.imported, "kg.core") for a in found)
    assert any(_within(a.importer, "kg.core") and _within(a.imported, "kg.core") for a in found)
    assert any(a.importer.startswith("api.") and a.imported.startswith("kg.") for a in found)


@pytest.mark.parametrize(
    ("importer", "source", "why"),
    [
        ("kg.core.models", "import kg.read.service\n", "kg.core imports"),
        ("kg.core.ids", "def f():\n    from kg.ingest.pipeline import Pipeline\n", "kg.core imports"),
        ("kg.core.names", "from extractors.embedding import Embedder\n", "kg.core imports"),
        ("kg.core.merge", "from .. import analytics\n", "kg.core imports"),
        ("extractors.metadata", "from kg.stores import open_store\n", "extractors import kg"),
        (
            "extractors.text",
            "def f():\n    import importlib\n    importlib.import_module('kg.read')\n",
            "extractors",
        ),
        ("extractors.registry", "from api.schema import schema\n", "extractors import kg"),
        ("kg.read.service", "def f():\n    from api import cli\n", "kg imports api"),
        ("kg.stores.sqlite.store", "from tests.conftest import x\n", "product code imports tests/"),
        ("api.app", "import bench.api_latency\n", "product code imports bench/"),
        ("bench.trends", "from tests.api.conftest import serve\n", "bench/ imports tests/"),
    ],
)
def test_an_upward_import_is_caught(importer: str, source: str, why: str) -> None:
    """Each kind of upward arrow, at module or function level, is reported (the check can fail)."""
    bad = [reason for a in arrows(source, importer) if (reason := upward(a))]
    assert len(bad) == 1 and why in bad[0], bad


@pytest.mark.parametrize(
    ("importer", "source"),
    [
        ("kg.core.provisional", "from kg.core import merge\nfrom .names import loose_key\n"),
        ("extractors.metadata", "from kg.core.ids import topic_id\nfrom extractors.text import x\n"),
        ("kg.ingest.pipeline", "from extractors.registry import get_extractor\nimport kg.core.models\n"),
        ("api.schema", "from kg.read.service import ReadService\n"),
        ("tests.unit.x", "from tests.paperlists_listings import write\nfrom bench import paths\n"),
    ],
)
def test_a_downward_import_passes(importer: str, source: str) -> None:
    assert [upward(a) for a in arrows(source, importer)] == [None] * len(arrows(source, importer))
