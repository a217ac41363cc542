"""harness.options: every option declared once, and every subcommand's parser built from them."""

from __future__ import annotations

import argparse
import ast
import dataclasses
import os
from collections.abc import Iterator

import pytest

from harness import cli, options
from harness.options import Option
from tests.conftest import ROOT

DECLARED = {name: value for name, value in vars(options).items() if isinstance(value, Option)}


def subparsers(
    parser: argparse.ArgumentParser, path: tuple[str, ...] = ()
) -> Iterator[tuple[tuple[str, ...], argparse.ArgumentParser]]:
    """Every parser under ``parser`` (subcommands, and their subcommands), with its path."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield (*path, name), sub
                yield from subparsers(sub, (*path, name))


PARSERS = dict(subparsers(cli._parser()))


def test_every_subcommand_has_a_parser() -> None:
    assert [p for p in PARSERS if len(p) == 1] == [(name,) for name in options.COMMANDS]
    assert ("guard", "allowlist") in PARSERS


@pytest.mark.parametrize("path", list(PARSERS), ids=" ".join)
def test_every_parser_builds_its_help(path: tuple[str, ...]) -> None:
    text = PARSERS[path].format_help()
    assert text.startswith(f"usage: harness {' '.join(path)} ")


def test_the_cli_declares_no_option_itself() -> None:
    """Options live in harness.options; cli.py only says which a subcommand takes."""
    tree = ast.parse((ROOT / "harness" / "cli.py").read_text(encoding="utf-8"))
    calls = [
        node.func.attr
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
    ]
    assert "add_argument" not in calls


# Flags that name different options in different subcommands (not one option twice):
# `bisect --library` is the one library to bisect, elsewhere a filter; `validate-problems
# --json` is a file to write, elsewhere a switch; `diff`'s runs are two, `guard
# allowlist`'s any number of run directories; `bisect --matrix` defaults to the matrix of
# the run it bisects (``--run``), elsewhere to matrix.toml.
HOMONYMS = {"--library", "--json", "runs", "--matrix"}


def test_a_shared_option_is_declared_once() -> None:
    """Options with the same flags differ at most in their help text (``helped``), except
    the few flags that mean something else in one subcommand."""
    by_flags: dict[tuple[str, ...], list[Option]] = {}
    for option in DECLARED.values():
        by_flags.setdefault(option.flags, []).append(option)
    for flags, found in by_flags.items():
        settings = {dataclasses.replace(o, help=None) for o in found}
        if len(settings) > 1:
            assert set(flags) <= HOMONYMS, flags


def test_subcommands_sharing_an_option_parse_it_alike() -> None:
    """``--matrix``, ``--problems``, ``--env-dir``… behave the same wherever they appear."""
    seen: dict[str, dict[str, object]] = {}
    for path, parser in PARSERS.items():
        for action in parser._actions:
            flag = (action.option_strings or [action.dest])[0]
            if flag in HOMONYMS or isinstance(action, argparse._SubParsersAction):
                continue
            how = {
                "type": type(action).__name__,
                "dest": action.dest,
                "default": action.default,
                "choices": action.choices,
                "nargs": action.nargs,
            }
            assert seen.setdefault(flag, how) == how, (path, flag)


def test_repeatable_options_start_from_a_new_list_each_time() -> None:
    parser = cli._parser()
    first = parser.parse_args(["run", "--combos", "a", "-t", "x"])
    second = parser.parse_args(["run"])
    assert (first.combos, first.tag) == (["a"], ["x"])
    assert (second.combos, second.tag, second.problems) == ([], [], [])


def test_defaults_are_read_when_the_parser_is_built(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HARNESS_ENV_DIR", "/elsewhere")
    monkeypatch.setattr(os, "cpu_count", lambda: 7)
    args = cli._parser().parse_args(["run"])
    assert (args.env_dir, args.jobs) == ("/elsewhere", 7)
    monkeypatch.delenv("HARNESS_ENV_DIR")
    monkeypatch.setattr(os, "cpu_count", lambda: None)
    args = cli._parser().parse_args(["validate-problems"])
    assert (args.env_dir, args.jobs) == (options.DEFAULT_ENV_DIR, 1)


def test_bare_and_helped_change_only_the_help() -> None:
    assert options.MATRIX.bare == dataclasses.replace(options.MATRIX, help=None)
    assert options.ENV_OF_COMBO.flags == options.COMBO.flags == ("--combo",)
    assert options.ENV_OF_COMBO.help != options.COMBO.help
    parser = argparse.ArgumentParser()
    options.add(parser, options.MATRIX.bare, options.NO_GUARD, options.INTO)
    args = parser.parse_args(["--into", "x"])
    assert (args.matrix, args.guard, args.into) == ("matrix.toml", True, "x")
    with pytest.raises(SystemExit):
        parser.parse_args([])  # --into is required
