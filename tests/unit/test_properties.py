from __future__ import annotations

import pytest

from pyconnect.config.properties import ConfigFileError, parse_properties, split_list


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
