"""The `coach` command list: every command group registers exactly what `COMMANDS` says, and a command whose
pip extra is missing still shows and says what to install, while a broken base install is not hidden."""

from __future__ import annotations

import argparse

import pytest

import coach.cli as cli
from coach.cli import COMMANDS, CommandGroup, build_parser, main


def _commands(parser: argparse.ArgumentParser) -> list[str]:
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return list(sub.choices)


def test_every_group_registers_exactly_its_commands():
    for group in COMMANDS:
        assert _commands(build_parser((group,))) == list(group.commands), group.module
    assert _commands(build_parser()) == [name for g in COMMANDS for name in g.commands]


def _module_needing(tmp_path, monkeypatch, name: str, missing: str) -> str:
    (tmp_path / f"{name}.py").write_text(f"import {missing}\n\ndef register(sub):\n    sub.add_parser('never')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    return name


def test_missing_extra_names_the_extra(tmp_path, monkeypatch, capsys):
    mod = _module_needing(tmp_path, monkeypatch, "fancy_command_module", "a_library_not_installed")
    monkeypatch.setattr(cli, "COMMANDS", (*COMMANDS, CommandGroup(mod, ("fancy",), extra="fancy")))
    assert "fancy" in _commands(build_parser())
    assert main(["fancy", "--anything", "x"]) == cli.EXIT_INPUT
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "pip install 'shejing-coach[fancy]'" in err[0] and "coach fancy" in err[0]


def test_missing_module_of_the_base_install_is_not_hidden(tmp_path, monkeypatch):
    mod = _module_needing(tmp_path, monkeypatch, "base_command_module", "a_library_not_installed")
    with pytest.raises(ModuleNotFoundError):
        build_parser((CommandGroup(mod, ("base",)),))
    with pytest.raises(ModuleNotFoundError):  # our own module missing is a broken install, extra or not
        build_parser((CommandGroup("coach.cli.no_such_module", ("x",), extra="x"),))
