"""Config loading is bounded: alias bombs and oversized files are one-line ConfigurationErrors."""

from __future__ import annotations

import time
from collections.abc import Callable
from types import ModuleType

import pytest
from _project_files import AGENTS

from crewgraph.errors import ConfigurationError
from crewgraph.project import _yaml

MakeProject = Callable[..., ModuleType]


def _bomb(levels: int, width: int = 9) -> str:
    lines = ['a0: &a0 ["lol"]']
    for i in range(1, levels + 1):
        lines.append(f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * width) + "]")
    body = "\n".join("  " + line for line in lines)
    return AGENTS + f"bomb:\n  role: Bomb\n  goal: Explode\n  backstory: none\n  extra:\n  {body}\n"


def _error(make_project: MakeProject, agents: str) -> str:
    mod = make_project(agents=agents)
    with pytest.raises(ConfigurationError) as info:
        mod.ResearchCrew().crew()
    return str(info.value)


@pytest.mark.parametrize("levels", [6, 9])
def test_an_alias_bomb_is_refused_with_one_line(make_project: MakeProject, levels: int) -> None:
    started = time.monotonic()
    msg = _error(make_project, _bomb(levels))
    assert time.monotonic() - started < 5
    assert "\n" not in msg
    assert "agents.yaml:" in msg and "aliases" in msg and str(_yaml.MAX_CONFIG_NODES) in msg, msg


def test_shared_aliases_within_the_limit_still_load(make_project: MakeProject) -> None:
    agents = AGENTS.replace("  backstory: Plain words.", "  backstory: &plain Plain words.") + (
        "editor:\n  role: Editor\n  goal: Edit\n  backstory: *plain\n"
    )
    mod = make_project(agents=agents)
    config = mod.ResearchCrew().agents_config
    assert config["editor"]["backstory"] == "Plain words."


def test_an_oversized_config_is_refused_without_reading_it_whole(
    make_project: MakeProject, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_yaml, "MAX_CONFIG_BYTES", 1000)
    msg = _error(make_project, AGENTS + "# " + "x" * 2000 + "\n")
    assert "larger than 1000 bytes" in msg and "\n" not in msg
