"""The commands' `--help`, from replikafka/cli.py's argparse parser."""

from __future__ import annotations

import argparse

from pyconnect.environment import VARIABLES, env_names
from replikafka.cli import build_parser


def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    """The parser's subcommands by name."""
    for action in parser._actions:  # argparse keeps the subcommands only here
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def command_help() -> dict[str, str]:
    """`replikafka --help` and each subcommand's help text, by command line."""
    parser = build_parser()
    helps = {"replikafka": parser.format_help()}
    for name, sub in _subparsers(parser).items():
        helps[f"replikafka {name}"] = sub.format_help()
        for action, nested in _subparsers(sub).items():  # `offsets translate`: its options are only here
            helps[f"replikafka {name} {action}"] = nested.format_help()
    return helps


def cli_page() -> str:
    """The commands reference page (Markdown)."""
    lines = ["# Commands reference", "",
             "Generated from the command-line parser when the site is built.", "",
             "The commands of before the rename are aliases: `pyconnect` runs `replikafka` (same subcommands, "
             "arguments and exit codes), and `pyconnect-distributed`, `pyconnect-standalone` and "
             "`pyconnect-mirror-maker` run the subcommands of the same names. Environment variables are read "
             "as `REPLIKAFKA_*`, and under their older `PYCONNECT_*` names when the new one is not set.", ""]
    for command, text in command_help().items():
        lines += [f"## `{command}`", "", "```text", text.rstrip(), "```", ""]
    return "\n".join(lines + environment_section())


def environment_section() -> list[str]:
    """The environment variables the product reads: both names and what each does (Markdown lines)."""
    lines = ["## Environment variables", "",
             "Each is read under its `REPLIKAFKA_*` name, else under its older `PYCONNECT_*` name.", "",
             "| Variable | Older name | Meaning |", "| --- | --- | --- |"]
    for suffix, doc in VARIABLES.items():
        new, old = env_names(suffix)
        lines.append(f"| `{new}` | `{old}` | {doc} |")
    return [*lines, ""]
