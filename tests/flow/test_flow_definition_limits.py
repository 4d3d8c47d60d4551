"""A flow definition file is bounded like any config: alias bombs and huge files are refused."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from crewgraph._internal import yaml_limits
from crewgraph.errors import ConfigurationError
from crewgraph.flow.definition import load_flow, parse_flow

FLOW = """\
name: tiny
methods:
  hello:
    start: true
    output: "hi"
"""


def test_an_alias_bomb_in_a_flow_definition_is_one_line() -> None:
    bomb = ['a0: &a0 ["lol"]'] + [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]" for i in range(1, 10)]
    text = FLOW + "extra:\n" + "\n".join("  " + line for line in bomb) + "\n"
    started = time.monotonic()
    with pytest.raises(ConfigurationError) as info:
        parse_flow(text, "flow.yaml")
    assert time.monotonic() - started < 5
    message = str(info.value)
    assert "\n" not in message and message.startswith("flow.yaml:") and "aliases" in message


def test_an_oversized_flow_definition_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(yaml_limits, "MAX_CONFIG_BYTES", 500)
    path = tmp_path / "flow.yaml"
    path.write_text(FLOW + "# " + "x" * 1000 + "\n", encoding="utf-8")
    with pytest.raises(ConfigurationError, match="larger than 500 bytes"):
        load_flow(path)
    path.write_text(FLOW, encoding="utf-8")
    assert load_flow(path)().kickoff() == "hi"
