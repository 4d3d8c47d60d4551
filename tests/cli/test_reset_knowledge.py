"""``crewgraph reset-memories --knowledge / --agent-knowledge / --all``."""

from __future__ import annotations

from pathlib import Path


def _crew_module(write_module) -> str:  # type: ignore[no-untyped-def]
    return write_module(
        "from crewgraph import Agent, Crew, Task\n"
        "from crewgraph.knowledge import StringKnowledgeSource\n"
        "from crewgraph.testing import FakeEmbedder\n"
        "emb = {'provider': 'custom', 'config': {'embedding_callable': FakeEmbedder()}}\n"
        "a = Agent(role='Clerk', goal='g', knowledge_sources=[StringKnowledgeSource(content='agent fact')])\n"
        "crew = Crew(agents=[a], tasks=[Task(description='d', expected_output='e', agent=a)], embedder=emb,\n"
        "            knowledge_sources=[StringKnowledgeSource(content='crew fact')])\n"
        "plain = Crew(agents=[Agent(role='P', goal='g')],\n"
        "             tasks=[Task(description='d', expected_output='e', agent=Agent(role='P', goal='g'))])\n"
    )


def test_reset_a_crews_knowledge(cli, write_module) -> None:  # type: ignore[no-untyped-def]
    mod = _crew_module(write_module)
    result = cli("reset-memories", "--knowledge", f"{mod}:crew")
    assert result.exit_code == 0, result.output
    assert "Reset the knowledge of crew" in result.stdout
    both = cli("reset-memories", "-kn", "-akn", f"{mod}:crew")
    assert both.exit_code == 0 and "knowledge, agent knowledge" in both.stdout
    everything = cli("reset-memories", "-a", "--yes", f"{mod}:crew")
    assert everything.exit_code == 0 and "memory and knowledge" in everything.stdout
    none = cli("reset-memories", "--knowledge", f"{mod}:plain")
    assert none.exit_code == 1 and "has no knowledge to reset" in none.stderr
    assert "Traceback" not in none.stderr


def test_reset_the_knowledge_stores_on_disk(cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    root = tmp_path / "store" / "knowledge"
    for name in ("crew", "crew_research", "Clerk"):
        (root / name).mkdir(parents=True)
    crews = cli("reset-memories", "--knowledge")
    assert crews.exit_code == 0, crews.output
    assert "crew, crew_research" in crews.stdout and sorted(p.name for p in root.iterdir()) == ["Clerk"]
    agents = cli("reset-memories", "-akn")
    assert agents.exit_code == 0 and list(root.iterdir()) == []
    again = cli("reset-memories", "-kn")
    assert again.exit_code == 0 and "Nothing to reset" in again.stdout
