"""Every file, `replikafka` option and config key a docs page names exists.

A page (docs/**/*.md, README.md) fails when it names:
- a repository path that does not exist: one rooted at a top-level directory (`tests/...`, `pyconnect/...`,
  `helm/...`, ...), a `*.py` file named relative to a package (`storage/file_log.py`: some file must end so), or a
  package path written relative (`runtime/errors/`: some directory must end so, when its first part is one);
  a glob must match at least one file;
- an option of a `replikafka ...` command line (in a code block or a code span) that the argparse parser of
  replikafka/cli.py does not define for the subcommand it follows (nested subcommands walked);
- a config key that nothing defines, where a page presents it as one: the first column of a table headed `key`,
  `setting` or `worker setting`, or a `key=value` line of a block made only of such lines (a properties file).
  Defined: a ConfigDef key of the configuration reference, a worker prefix, a client key the runtime or
  librdkafka knows, a MirrorMaker connector or cluster key, each also after an `<alias>.` or `<a>-><b>.` prefix.

Conservative on purpose: a name with a placeholder (`<name>`, `{x}`, `...`) is not checked, so a hit is a
mistake a reader would meet. The problems are reported as `page:line: what`.
"""

from __future__ import annotations

import argparse
import functools
import os
import re
import shlex
from collections.abc import Iterator
from pathlib import Path

import confluent_kafka
import pytest

from connectors.mirror.maker_keys import is_cluster_key, is_connector_key
from pyconnect.config.worker import KNOWN_PREFIXES
from pyconnect.kafka.config import is_client_key, to_librdkafka
from replikafka.cli import build_parser
from replikafka.reference.config_keys import config_sections

ROOT = Path(__file__).resolve().parents[2]
PAGES = sorted([*ROOT.glob("docs/**/*.md"), ROOT / "README.md"])
TOP_DIRS = ("tests", "pyconnect", "connectors", "scripts", "helm", "bench", "rest", "replikafka", "docs",
            "examples", ".github")
SKIPPED_DIRS = {".git", ".venv", "site", "node_modules", "__pycache__"}
_NO_PATH_BEFORE = r"(?<![\w./~$:-])"
_TOP = "|".join(re.escape(d) for d in TOP_DIRS)
ROOTED = re.compile(_NO_PATH_BEFORE + rf"((?:{_TOP})/[\w./*-]*)")
RELATIVE_PY = re.compile(_NO_PATH_BEFORE + r"((?:[\w-]+/)*[\w-]+\.py)\b")
RELATIVE_DIR = re.compile(_NO_PATH_BEFORE + r"([a-z_]+(?:/[a-z_]+)+/)(?![\w])")
COMMAND = re.compile(r"(?<![\w/.-])replikafka\s+(.*)")
CREATED = re.compile(r"(?:>|\btee)\s*([\w./-]+)")  # `cat > drill.py <<EOF`: the reader writes the file
CODE_SPAN = re.compile(r"`([^`\n]+)`")
FENCE = re.compile(r"^\s*(```|~~~)")
KEY_LINE = re.compile(r"^\s*([\w.-]+(?:->[\w.-]+)?)\s*=")
KEY_CELL = re.compile(r"^`([a-z][\w.-]*(?:->[\w.-]+)?)(?:=[^`]*)?`$")
KEY_CELL_START = re.compile(r"^\s*(`[^`]+`(?:\s*(?:,|and|or|/)\s*`[^`]+`)*)")
MM2_CONNECTOR = re.compile(r"^Mirror(?:Source|Checkpoint|Heartbeat)Connector$")  # `A->B.<Connector>.<key>`
KEY_TABLE_HEADS = {"key", "setting", "worker setting"}
PLACEHOLDER = re.compile(r"[<>{}$]|\.\.\.")
SHELL_STOPS = {"|", "||", "&&", ";", "&", ">", ">>", "2>&1"}


@functools.cache
def tree() -> tuple[frozenset[str], frozenset[str]]:
    """The repository's files and directories, as paths relative to its root."""
    files: set[str] = set()
    dirs: set[str] = set()
    for here, subdirs, names in os.walk(ROOT):
        subdirs[:] = [d for d in subdirs if d not in SKIPPED_DIRS and not d.endswith((".egg-info", "_cache"))]
        rel = Path(here).relative_to(ROOT).as_posix()
        dirs.add(rel)
        files.update(f"{rel}/{n}" if rel != "." else n for n in names)
    return frozenset(files), frozenset(dirs)


def _clean(token: str) -> str:
    return token.rstrip(".,:;)-")


def missing_paths(line: str, created: frozenset[str] = frozenset()) -> Iterator[str]:
    """The repository paths the line names that do not exist (`created`: files the page's commands write)."""
    files, dirs = tree()
    files = files | created
    rooted = [_clean(t) for t in ROOTED.findall(line)]
    for path in rooted:
        if PLACEHOLDER.search(path):
            continue
        stem = path.rstrip("/")
        found = any(ROOT.glob(path)) if "*" in path else bool({stem, stem + ".py"} & (files | dirs))
        if not found:
            yield path
    for path in RELATIVE_PY.findall(line):
        if not any(path in r for r in rooted) and not any(f == path or f.endswith("/" + path) for f in files):
            yield path
    for path in RELATIVE_DIR.findall(line):
        first, stem = path.split("/", 1)[0], path.rstrip("/")
        if any(path in r for r in rooted) or not any(d.endswith("/" + first) for d in dirs):
            continue
        if not any(d == stem or d.endswith("/" + stem) for d in dirs):
            yield path


def _subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:  # argparse keeps the subcommands only here
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def unknown_options(command: str) -> Iterator[str]:
    """The options of one `replikafka ...` command line that its (sub)command does not define."""
    try:
        tokens = shlex.split(command, comments=True)
    except ValueError:  # an unbalanced quote in prose: split on blanks
        tokens = command.split()
    parser = build_parser()
    path = ["replikafka"]
    for token in tokens:
        if token in SHELL_STOPS or PLACEHOLDER.search(token.split("=", 1)[0]):
            if token in SHELL_STOPS:
                return
            continue
        if token.startswith("-") and token != "-":
            name = token.split("=", 1)[0]
            if name not in parser._option_string_actions:
                yield f"{' '.join(path)}: {name}"
        elif token in _subcommands(parser):
            parser = _subcommands(parser)[token]
            path.append(token)


def code_text(lines: list[str]) -> Iterator[tuple[int, str, bool]]:
    """Each code line (fenced, or indented four spaces after a blank line) and each code span, by line number;
    True for a line of a code block."""
    fenced = False
    indented = False
    previous_blank = True
    for number, line in enumerate(lines, 1):
        if FENCE.match(line):
            fenced = not fenced
            continue
        indented = line.startswith("    ") and (indented or previous_blank) and not fenced
        previous_blank = not line.strip()
        if fenced or indented:
            yield number, line, True
        else:
            yield from ((number, span, False) for span in CODE_SPAN.findall(line))


def _joined(lines: list[str]) -> Iterator[tuple[int, str]]:
    """Code lines with `\\` continuations joined, numbered by their first line."""
    pending, start = "", 0
    for number, text, _ in code_text(lines):
        if not pending:
            start = number
        if text.rstrip().endswith("\\"):
            pending += text.rstrip()[:-1] + " "
            continue
        yield start, pending + text
        pending = ""
    if pending:
        yield start, pending


@functools.cache
def defined_keys() -> frozenset[str]:
    """Every key of the configuration reference (worker, connectors, plugins, MirrorMaker, transforms, converters)."""
    return frozenset(key.name for section in config_sections() for key in section.keys)


CONNECTOR_PREFIXES = (*KNOWN_PREFIXES, "transforms.", "predicates.", "topic.creation.", "key.converter.",
                      "value.converter.", "header.converter.", "config.providers.")


@functools.cache
def librdkafka_knows(key: str) -> bool:
    """Whether the runtime's client translation or librdkafka itself takes the key (Java and librdkafka names)."""
    try:
        translated = to_librdkafka({key: "1"}, "admin")
    except ValueError:  # the key is known; "1" is not a value it takes
        return True
    for name in translated:
        try:
            confluent_kafka.Producer({name: "1"})
        except confluent_kafka.KafkaException as exc:
            if "No such configuration property" in str(exc):
                return False
    return True


def known_key(key: str, aliases: frozenset[str]) -> bool:
    """Whether something defines the key, also as `<alias>.<key>` or `<source>-><target>.<key>`."""
    if key in defined_keys() or key.startswith(CONNECTOR_PREFIXES) or is_client_key(key):
        return True
    if is_connector_key(key) or is_cluster_key(key) or librdkafka_knows(key):
        return True
    head, _, rest = key.partition(".")
    if MM2_CONNECTOR.match(head) and rest == "state":  # `A->B.<Connector>.state`: the state it starts in
        return True
    prefix = "->" in head or head in aliases or MM2_CONNECTOR.match(head) is not None
    return bool(rest) and prefix and known_key(rest, frozenset())


def _blocks(lines: list[str]) -> Iterator[list[tuple[int, str]]]:
    """The page's code blocks (fenced, or indented after a blank line), each as numbered lines."""
    block: list[tuple[int, str]] = []
    for number, line, in_block in code_text(lines):
        if not in_block:
            continue
        if block and number != block[-1][0] + 1:
            yield block
            block = []
        block.append((number, line))
    if block:
        yield block


def property_keys(lines: list[str]) -> Iterator[tuple[int, str, frozenset[str]]]:
    """`key=value` keys of blocks made only of such lines (and comments), with the block's cluster aliases."""
    for block in _blocks(lines):
        content = [(n, t) for n, t in block if t.strip() and not t.strip().startswith(("#", "!"))]
        keyed = [(n, KEY_LINE.match(t)) for n, t in content]
        if not keyed or any(match is None for _, match in keyed):
            continue
        pairs = [(n, m.group(1)) for n, m in keyed if m is not None]
        aliases = frozenset(a.strip() for n, t in content if KEY_LINE.match(t) and t.split("=")[0].strip() == "clusters"
                            for a in t.split("=", 1)[1].split(","))
        yield from ((n, key, aliases) for n, key in pairs)


def table_keys(lines: list[str]) -> Iterator[tuple[int, str]]:
    """Keys in the first column of tables headed `key`, `setting` or `worker setting`."""
    in_table = False
    for number, line in enumerate(lines, 1):
        if not line.startswith("|"):
            in_table = False
            continue
        cells = line.strip("|").split("|")
        following = lines[number] if number < len(lines) else ""
        if re.match(r"^\|[\s:|-]+$", following):
            in_table = cells[0].strip().lower() in KEY_TABLE_HEADS
            continue
        start = KEY_CELL_START.match(cells[0])
        if in_table and start:  # the keys the row is about, not code spans in the prose after them
            for span in CODE_SPAN.findall(start.group(1)):
                match = KEY_CELL.match(f"`{span}`")
                if match and not PLACEHOLDER.search(match.group(1)):
                    yield number, match.group(1)


def problems(page: Path, text: str) -> list[str]:
    """Every broken reference of one page, as `page:line: what`."""
    lines = text.splitlines()
    name = page.relative_to(ROOT).as_posix() if page.is_relative_to(ROOT) else page.name
    created = frozenset(CREATED.findall(text))
    out = [f"{name}:{n}: no such file or directory: {path}" for n, line in enumerate(lines, 1)
           for path in missing_paths(line, created)]
    for number, code in _joined(lines):
        for match in COMMAND.finditer(code):
            out += [f"{name}:{number}: no such option: {o}" for o in unknown_options(match.group(1))]
    keys = [(n, k, a) for n, k, a in property_keys(lines)] + [(n, k, frozenset()) for n, k in table_keys(lines)]
    out += [f"{name}:{n}: no such config key: {key}" for n, key, aliases in keys
            if not known_key(key, aliases | ALIASES)]
    return out


# Cluster aliases the pages use in prose and tables, outside a block that declares its `clusters`.
ALIASES = frozenset({"A", "B", "C", "source", "target", "primary", "backup", "east", "west", "central", "us", "eu"})


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_page_names_only_what_exists(page: Path) -> None:
    found = problems(page, page.read_text(encoding="utf-8"))
    assert not found, "\n".join(found)


def test_a_wrong_path_option_and_key_are_found() -> None:
    """The issue's stale references (a moved test file, a renamed package), a misspelt option and key."""
    page = ROOT / "docs" / "example.md"
    text = ("See `tests/unit/test_no_such_file.py` and `runtime/errors_handling/`.\n\n"
            "    replikafka offsets translate --no-such-option x\n\n"
            "```properties\nclusters = A, B\nA.bootstrap.servers = a:9092\nA->B.enabled = true\n"
            "offset.flush.interval.mss = 10\n```\n\n"
            "    cat > drill.py <<'EOF'\n    python drill.py  # a file the reader writes exists\n")
    assert problems(page, text) == [
        "docs/example.md:1: no such file or directory: tests/unit/test_no_such_file.py",
        "docs/example.md:1: no such file or directory: runtime/errors_handling/",
        "docs/example.md:3: no such option: replikafka offsets translate: --no-such-option",
        "docs/example.md:9: no such config key: offset.flush.interval.mss",
    ]
