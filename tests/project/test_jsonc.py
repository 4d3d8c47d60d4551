"""The JSONC reader: comments and trailing commas go, lines stay, errors say where."""

from __future__ import annotations

import pytest

from crewgraph.errors import ConfigurationError
from crewgraph.project._jsonc import parse_jsonc, strip_jsonc

TEXT = """{
  // a line comment with "quotes" and a trailing comma,
  "role": "Researcher // not a comment",
  /* a block
     comment */
  "tools": ["a", "b",],
  "settings": {
    "verbose": true, /* after the comma */
  },
}
"""


def test_comments_and_trailing_commas_are_removed_keeping_strings() -> None:
    doc = parse_jsonc(TEXT, "agent.jsonc")
    assert doc.data == {"role": "Researcher // not a comment", "tools": ["a", "b"], "settings": {"verbose": True}}


def test_stripping_keeps_every_position() -> None:
    clean = strip_jsonc(TEXT)
    assert len(clean) == len(TEXT)
    assert clean.count("\n") == TEXT.count("\n")


def test_lines_of_keys_and_items() -> None:
    doc = parse_jsonc(TEXT, "agent.jsonc")
    assert doc.lines[("role",)] == 3
    assert doc.lines[("tools", 1)] == 6
    assert doc.lines[("settings", "verbose")] == 8
    assert doc.where("settings", "verbose") == "agent.jsonc:8"
    assert doc.where("settings", "missing") == "agent.jsonc:7"  # the deepest known key
    assert doc.where("nothing") == "agent.jsonc"


def test_escaped_quotes_do_not_end_a_string() -> None:
    doc = parse_jsonc('{"a": "say \\"hi\\" // still text", // gone\n "b": 1}', "x.jsonc")
    assert doc.data == {"a": 'say "hi" // still text', "b": 1}
    assert doc.lines[("b",)] == 2


def test_syntax_error_names_the_line() -> None:
    with pytest.raises(ConfigurationError, match=r"^agent\.jsonc:3: invalid JSON: Expecting ',' delimiter"):
        parse_jsonc('{\n  "role": "a"\n  "goal": "b"\n}', "agent.jsonc")


def test_unterminated_block_comment() -> None:
    with pytest.raises(ConfigurationError, match=r"^x\.jsonc:2: invalid JSON: unterminated /\* comment"):
        parse_jsonc('{\n /* open\n "a": 1}', "x.jsonc")


def test_duplicate_key_is_an_error_not_a_silent_override() -> None:
    with pytest.raises(ConfigurationError, match=r"^x\.jsonc:3: duplicate key 'role' in settings"):
        parse_jsonc('{"settings": {\n "role": "a",\n "role": "b"}}', "x.jsonc")


def test_deep_nesting_is_refused_in_one_line() -> None:
    with pytest.raises(ConfigurationError, match="nested too deeply"):
        parse_jsonc("[" * 100_000 + "]" * 100_000, "x.jsonc")
