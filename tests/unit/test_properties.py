"""java.util.Properties reading (compat-spec §C.1; Properties.load(InputStream) for mm2.properties)."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from pyconnect.config import properties
from pyconnect.config.properties import ConfigFileError, load_properties, parse_properties, split_list


def test_separators_comments_and_continuations() -> None:
    text = (
        "# comment\n"
        "! also a comment\n"
        "a=1\n"
        "b : 2\n"
        "c 3\n"
        "   d\t=\t4  \n"
        "list = x, \\\n"
        "       y,\\\n"
        "  z\n"
        "clusters = a, b  # not a comment\n"
        "esc\\=key = v\\u0041\\n\n"
        "empty=\n"
    )
    props = parse_properties(text, "f.properties")
    v = props.values()
    assert v["a"] == "1" and v["b"] == "2" and v["c"] == "3" and v["d"] == "4  "
    assert v["list"] == "x, y,z"
    assert v["clusters"] == "a, b  # not a comment"
    assert v["esc=key"] == "vA\n"
    assert v["empty"] == ""
    assert props.line_of("list") == 7
    assert split_list(v["list"]) == ["x", "y", "z"]


def test_last_definition_wins_with_its_line() -> None:
    props = parse_properties("a=1\na=2\n")
    assert props.values()["a"] == "2" and props.line_of("a") == 2


@pytest.mark.parametrize("text,line,fragment", [
    ("a=1\n= value\n", 2, "empty key"),
    ("a=1\nbareword\n", 2, "bareword: malformed line"),
    ("x=\\u12G4\n", 1, "malformed \\uxxxx"),
])
def test_malformed_lines_name_file_and_line(text: str, line: int, fragment: str) -> None:
    with pytest.raises(ConfigFileError) as err:
        parse_properties(text, "w.properties")
    assert str(err.value).startswith(f"w.properties:{line}: ")
    assert fragment in str(err.value)


# Java's Properties.load(InputStream) ------------------------------------------

def test_bytes_are_iso_8859_1_and_utf8_looking_lines_are_named(tmp_path: Path,
                                                                caplog: pytest.LogCaptureFixture) -> None:
    path = tmp_path / "mm2.properties"
    path.write_bytes(b"a=plain\nname=caf\xc3\xa9\nlatin=\xe9t\xe9\nescaped=caf\\u00e9\n")
    with caplog.at_level(logging.WARNING):
        v = load_properties(path).values()
    assert v["name"] == "caf\u00c3\u00a9", "UTF-8 bytes read one character per byte, as Java does"
    assert v["latin"] == "\u00e9t\u00e9" and v["escaped"] == "caf\u00e9"
    assert f"{path}:2: non-ASCII bytes are read as ISO-8859-1" in caplog.text
    assert f"{path}:3:" not in caplog.text, "ISO-8859-1 that is not UTF-8 has only one reading"


def test_only_cr_lf_and_crlf_end_lines() -> None:
    props = parse_properties("a=x\x0by\x0cz\x85w\u2028v\x1cu\rb=2\r\nc=3\n\nd=4", "f.properties")
    assert props.values() == {"a": "x\x0by\x0cz\x85w\u2028v\x1cu", "b": "2", "c": "3", "d": "4"}
    assert [props.line_of(k) for k in "abcd"] == [1, 2, 3, 5]


def test_values_keep_trailing_whitespace_and_escaped_leading_blanks() -> None:
    v = parse_properties("flag = true \t\nlead = \\  x\ncont = a \\\n   b \n").values()
    assert v["flag"] == "true \t" and v["lead"] == "  x" and v["cont"] == "a b "


@pytest.mark.parametrize("value,items", [
    ("a,,b", ["a", "", "b"]),
    (" a , b ,", ["a", "b", ""]),
    (" , ", ["", ""]),
    ("", []),
    ("  \t", []),
    ("\u00a0a", ["\u00a0a"]),  # String.trim() keeps a no-break space; Python's strip() would not
])
def test_lists_split_as_java_list_type(value: str, items: list[str]) -> None:
    assert split_list(value) == items


def test_java_trim_stops_at_space() -> None:
    assert properties.java_trim("\x00\x1f a\u00a0 \x7f") == "a\u00a0 \x7f"
