"""Every ordinary mistake on the ``kg`` command line is one line on stderr and a documented exit code.

Why: a traceback for a typo (a missing file, a bad ``--variables``, an output folder that does
not exist) reads as a crash, and a script cannot tell "you asked wrongly" (2) from "done, with
something left out" (1). The cases are generated from the parser itself, so a new subcommand
or option is covered without editing this file; the issue's own stumbles are run as a user
runs them, in a fresh interpreter.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from api.cli import EXIT_ERROR, EXIT_PARTIAL, build_parser, main
from kg.stores.sqlite import SQLiteStore
from tests.conftest import ROOT


def _subparsers() -> dict[str, argparse.ArgumentParser]:
    # argparse has no public way to list subcommands; its actions are stable since Python 3.2.
    for action in build_parser()._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    raise AssertionError("kg has no subcommands")


COMMANDS = _subparsers()


def _options(parser: argparse.ArgumentParser) -> Iterator[argparse.Action]:
    yield from (a for a in parser._actions if a.option_strings and a.dest != "help")


def _positionals(parser: argparse.ArgumentParser) -> list[argparse.Action]:
    return [a for a in parser._actions if not a.option_strings]


@pytest.fixture
def place(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A work folder with a regular file ``afile`` (a path under it can never be created, even
    by root) and ``KG_DATA_DIR`` pointing at a folder that does not exist."""
    (tmp_path / "afile").write_text("not a folder\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("KG_DATA_DIR", str(tmp_path / "no-such-store"))
    monkeypatch.setenv("KG_BACKEND", "sqlite")
    return tmp_path


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    try:
        code = main(argv)
    except SystemExit as e:  # argparse's own exit
        code = int(e.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def _assert_one_line(code: int, err: str, expected: set[int], argv: list[str]) -> None:
    lines = err.strip().splitlines()
    assert code in expected, f"kg {' '.join(argv)}: exit {code}, stderr {err!r}"
    assert len(lines) == 1, f"kg {' '.join(argv)}: stderr is not one line: {err!r}"
    assert "error" in lines[0] and "Traceback" not in err, lines[0]
    assert "internal error" not in lines[0], lines[0]


def _mistakes(command: str, parser: argparse.ArgumentParser, place: Path) -> Iterator[list[str]]:
    """Bad arguments for one subcommand: an unknown flag, non-numbers for numbers, and for
    every path a missing one and one that cannot exist (under a regular file)."""
    filler = [
        ("x.jsonl" if a.type is Path else "{ stats { nodes { count } } }") for a in _positionals(parser)
    ]
    yield [command, "--no-such-flag", *filler]
    for action in _options(parser):
        flag = action.option_strings[-1]
        if action.type in (int, float):
            yield [command, flag, "lots", *filler]
        if action.choices is not None:
            yield [command, flag, "no-such-choice", *filler]
        if action.type is Path and command != "ingest":
            yield [command, flag, str(place / "missing"), *filler]
            yield [command, flag, str(place / "afile" / "sub"), *filler]
    for i, action in enumerate(_positionals(parser)):
        if action.type is Path and command != "ingest":  # ingest reports a missing path as skipped
            for bad in (place / "missing.jsonl", place / "afile" / "sub"):
                yield [command, *filler[:i], str(bad), *filler[i + 1 :]]


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_every_command_answers_bad_arguments_with_one_line_and_exit_2(
    command: str, place: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cases = list(_mistakes(command, COMMANDS[command], place))
    assert cases
    for argv in cases:
        code, _, err = _run(argv, capsys)
        _assert_one_line(code, err, {EXIT_ERROR}, argv)


READERS = sorted(set(COMMANDS) - {"ingest", "eval-concepts"})


@pytest.mark.parametrize("command", READERS)
def test_reading_commands_refuse_a_missing_store_and_create_nothing(
    command: str, place: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    filler = ["{ stats { nodes { count } } }"] if _positionals(COMMANDS[command]) else []
    if command == "curate":
        filler = ["list"]  # a verb: curate's positional is its subcommand
    for data_dir in ("TYPO", "afile"):
        code, out, err = _run([command, *filler, "--data-dir", data_dir], capsys)
        _assert_one_line(code, err, {EXIT_ERROR}, [command, data_dir])
        assert "no graph store" in err and data_dir in err, err
    assert not (place / "TYPO").exists(), "a typo in --data-dir made a folder"
    (place / "empty").mkdir()
    code, _, err = _run([command, *filler, "--data-dir", "empty"], capsys)
    _assert_one_line(code, err, {EXIT_ERROR}, [command, "empty"])
    assert list((place / "empty").iterdir()) == [], "an empty folder became a store"


def test_ingest_into_a_path_that_cannot_be_a_folder_is_one_line(
    place: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["ingest", "--no-progress", "--data-dir", "afile/sub", str(ROOT / "examples" / "listings")]
    code, _, err = _run(argv, capsys)
    _assert_one_line(code, err, {EXIT_ERROR}, argv)


def test_ingest_of_a_missing_path_reports_it_skipped_and_exits_1(
    place: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = _run(["ingest", "--no-progress", "--data-dir", "new-store", "missing.txt"], capsys)
    assert code == EXIT_PARTIAL, (out, err)
    assert "skipped missing.txt: no such file or directory" in out
    assert "Traceback" not in out + err
    assert (place / "new-store").is_dir()  # ingest may create a new store


def test_export_refuses_an_unwritable_output_before_reading_the_store(
    place: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    SQLiteStore(place / "store").close()
    for output, says in (
        ("/nonexistent/dir/x.gexf", "the folder /nonexistent/dir does not exist"),
        ("afile/x.gexf", "afile is a file, not a folder"),
        (".", "it is a folder"),
    ):
        argv = ["export", "--format", "gexf", "--data-dir", "store", "-o", output]
        code, _, err = _run(argv, capsys)
        _assert_one_line(code, err, {EXIT_ERROR}, argv)
        assert says in err, err


def _kg(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "KG_DATA_DIR": str(cwd / "no-such-store")}
    env.pop("KG_DEBUG", None)
    return subprocess.run(
        [sys.executable, "-m", "api.cli", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        cwd=cwd,
    )


def test_the_issues_stumbles_in_a_fresh_interpreter(place: Path) -> None:
    """The five reported tracebacks, each now one line and exit 2, nothing created."""
    SQLiteStore(place / "store").close()
    cases = [
        (["eval-concepts", "../shared/data/iclr2018.jsonl", "--limit", "300"], "does not exist"),
        (
            ["query", "{ stats { nodes { count } } }", "--variables", "{bad", "--data-dir", "store"],
            "not valid JSON",
        ),
        (["query", "@missing.graphql", "--data-dir", "store"], "query file missing.graphql does not exist"),
        (["export", "-o", "/nonexistent/dir/x.gexf", "--data-dir", "store"], "does not exist"),
        (["stats", "--data-dir", "TYPO"], "no graph store at TYPO: the folder does not exist"),
    ]
    for argv, says in cases:
        r = _kg(place, *argv)
        assert r.returncode == EXIT_ERROR, (argv, r.returncode, r.stderr)
        assert r.stderr.count("\n") == 1 and says in r.stderr, (argv, r.stderr)
        assert "Traceback" not in r.stderr + r.stdout and r.stdout == "", (argv, r.stdout)
    assert not (place / "TYPO").exists()
