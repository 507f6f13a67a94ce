"""The commands' `--help`, from replikafka/cli.py's argparse parser."""

from __future__ import annotations

import argparse

from replikafka.cli import build_parser


def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    """The parser's subcommands by name."""
    for action in parser._actions:  # argparse keeps the subcommands only here
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def command_help() -> dict[str, str]:
    """`pyconnect --help` and each subcommand's help text, by command line."""
    parser = build_parser()
    helps = {"pyconnect": parser.format_help()}
    for name, sub in _subparsers(parser).items():
        helps[f"pyconnect {name}"] = sub.format_help()
    return helps


def cli_page() -> str:
    """The commands reference page (Markdown)."""
    lines = ["# Commands reference", "",
             "Generated from the command-line parser when the site is built. `pyconnect-distributed`, "
             "`pyconnect-standalone` and `pyconnect-mirror-maker` run the subcommands of the same names.", ""]
    for command, text in command_help().items():
        lines += [f"## `{command}`", "", "```text", text.rstrip(), "```", ""]
    return "\n".join(lines)
