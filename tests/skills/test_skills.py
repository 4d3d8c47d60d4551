"""Agent Skills: SKILL.md folders discovered, activated and put into the agent's task prompt."""

from __future__ import annotations

from pathlib import Path

import pytest

from crewgraph import Agent, Crew, Task
from crewgraph.skills import (
    SkillParseError,
    activate_skill,
    discover_skills,
    is_registry_ref,
    load_skills,
    parse_skill_ref,
)
from crewgraph.testing import FakeLLM

REVIEW = """---
name: code-review
description: Guidelines for thorough code reviews.
metadata:
  author: team
allowed-tools: web-search file-read
---

## Checklist
1. Security first.
"""


def _skill(root: Path, name: str, text: str) -> Path:
    folder = root / name
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(text, encoding="utf-8")
    return folder


def test_discover_then_activate(tmp_path: Path) -> None:
    _skill(tmp_path / "skills", "code-review", REVIEW)
    (tmp_path / "skills" / "not-a-skill").mkdir()
    found = discover_skills(tmp_path / "skills")
    assert [s.name for s in found] == ["code-review"]
    skill = found[0]
    assert skill.disclosure_level == 1 and skill.instructions is None
    assert skill.frontmatter.allowed_tools == ["web-search", "file-read"]
    assert skill.frontmatter.metadata == {"author": "team"}
    active = activate_skill(skill)
    assert active.disclosure_level == 2 and active.instructions == "## Checklist\n1. Security first."
    assert activate_skill(active) is active


def test_agent_skills_go_into_the_task_prompt(tmp_path: Path) -> None:
    _skill(tmp_path / "skills", "code-review", REVIEW)
    llm = FakeLLM(["looks good"])
    reviewer = Agent(role="Reviewer", goal="Review", llm=llm, skills=[str(tmp_path / "skills")])
    Crew(agents=[reviewer], tasks=[Task(description="Review the PR", expected_output="notes", agent=reviewer)]).kickoff()
    prompt = llm.calls[0].messages[1]["content"]
    assert "## Skill: code-review\nGuidelines for thorough code reviews.\n\n## Checklist\n1. Security first." in prompt
    assert prompt.index("Current Task: Review the PR") < prompt.index("## Skill: code-review")


def test_skill_objects_and_dedup(tmp_path: Path) -> None:
    folder = _skill(tmp_path, "code-review", REVIEW)
    skills = load_skills([folder, discover_skills(tmp_path)[0]])
    assert [s.name for s in skills] == ["code-review"] and skills[0].disclosure_level == 2


@pytest.mark.parametrize(("text", "message"), [
    ("no frontmatter", "must start with a '---'"),
    ("---\nname: code-review\n", "no closing '---'"),
    ("---\nname: Bad Name\ndescription: x\n---\nbody", "name"),
    ("---\nname: other\ndescription: x\n---\nbody", "its directory is 'code-review'"),
])
def test_bad_skill_files_are_clear_errors(tmp_path: Path, text: str, message: str) -> None:
    folder = _skill(tmp_path, "code-review", text)
    agent = Agent(role="R", goal="G", llm=FakeLLM(["x"]), skills=[folder])
    crew = Crew(agents=[agent], tasks=[Task(description="d", expected_output="e", agent=agent)])
    with pytest.raises(SkillParseError, match=message):
        crew.kickoff()


def test_bad_entries_and_registry_refs(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="skills entries are skill folder paths"):
        Agent(role="R", goal="G", skills=[42])
    assert is_registry_ref("@acme/review") and not is_registry_ref("./skills")
    assert parse_skill_ref("@acme/review@v1.2.0") == ("acme", "review", "1.2.0")
    with pytest.raises(FileNotFoundError, match="hosted skill registry"):
        load_skills(["@acme/review"])
    with pytest.raises(FileNotFoundError, match="neither a skill directory"):
        load_skills([tmp_path / "missing"])


def test_crew_skills_reach_every_agent_and_the_agents_own_win(tmp_path: Path) -> None:
    _skill(tmp_path / "crew", "code-review", REVIEW)
    _skill(tmp_path / "crew", "style", "---\nname: style\ndescription: House style.\n---\nUse short words.")
    own = _skill(tmp_path / "own", "code-review", REVIEW.replace("Security first.", "Tests first."))
    llm = FakeLLM(["a", "b"])
    one = Agent(role="One", goal="G", llm=llm, skills=[own])
    two = Agent(role="Two", goal="G", llm=llm)
    Crew(agents=[one, two], skills=[tmp_path / "crew"], tasks=[
        Task(description="first", expected_output="x", agent=one),
        Task(description="second", expected_output="x", agent=two),
    ]).kickoff()
    first, second = (c.messages[1]["content"] for c in llm.calls)
    assert "Tests first." in first and "Security first." not in first and "Use short words." in first
    assert "Security first." in second and "Use short words." in second


def test_set_skills_resolves_paths_to_activated_skills(tmp_path: Path) -> None:
    own = _skill(tmp_path, "code-review", REVIEW)
    crew_skill = _skill(tmp_path / "crew", "style", "---\nname: style\ndescription: House style.\n---\nShort words.")
    agent = Agent(role="R", goal="G", skills=[own])
    agent.set_skills(resolved_crew_skills=discover_skills(crew_skill.parent))
    assert [(s.name, s.disclosure_level) for s in agent.skills] == [("code-review", 2), ("style", 2)]
