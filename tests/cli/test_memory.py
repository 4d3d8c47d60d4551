"""`crewgraph memory` and `crewgraph reset-memories` on a real embedded store."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from crewgraph.memory import Memory

FACTS = [
    ("We chose PostgreSQL for the user database.", "/project/alpha", ["decision"], 0.9),
    ("The API rate limit is 1000 requests per minute.", "/project/beta/api", ["limits"], 0.6),
    ("Staging runs on port 8080.", "/ops", [], 0.3),
]


def seed(path: Path) -> str:
    """Three memories with explicit scopes (so no LLM analysis is needed)."""
    mem = Memory(storage=str(path), llm=None)
    for content, scope, categories, importance in FACTS:
        mem.remember(content, scope=scope, categories=categories, importance=importance)
    mem.close()
    return str(path)


@pytest.fixture(scope="module")
def seeded(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A shared store for the read-only tests, at ``<storage dir>/memory``."""
    return seed(tmp_path_factory.mktemp("storage_dir") / "memory")


@pytest.fixture
def store(tmp_path: Path) -> str:
    """A store of this test's own, for tests that change it (stores are sparse files:
    building one is cheaper than copying one)."""
    return seed(tmp_path / "mem")


def test_tree_query_list(cli, seeded: str) -> None:
    store = seeded
    tree = cli("memory", "--storage-path", store)
    assert tree.exit_code == 0, tree.output
    assert "/ (3 records)" in tree.stdout and "/project/beta/api (1 records)" in tree.stdout
    found = cli("memory", "-s", store, "--query", "which database did we pick?", "-n", "1")
    assert found.exit_code == 0, found.output
    assert "PostgreSQL" in found.stdout and "8080" not in found.stdout
    listed = cli("memory", "-s", store, "--list", "--scope", "/project")
    assert "rate limit" in listed.stdout and "PostgreSQL" in listed.stdout and "8080" not in listed.stdout
    rows = json.loads(cli("memory", "-s", store, "--list", "--json").stdout)
    assert sorted(r["scope"] for r in rows) == ["/ops", "/project/alpha", "/project/beta/api"]
    hits = json.loads(cli("memory", "-s", store, "--query", "which port does staging run on", "--json").stdout)
    assert hits[0]["record"]["content"] == "Staging runs on port 8080." and hits[0]["score"] > 0
    tree_json = json.loads(cli("memory", "-s", store, "--json").stdout)  # JSON, not the text tree
    assert tree_json["scope"] == "/" and tree_json["records"] == 3
    assert tree_json["scopes"]["/project"] == 2 and tree_json["scopes"]["/project/beta/api"] == 1
    narrowed = json.loads(cli("memory", "-s", store, "--json", "--scope", "project", "--max-depth", "1").stdout)
    assert narrowed == {"scope": "/project", "records": 2, "scopes": {"/project/alpha": 1, "/project/beta": 1}}


def test_default_location_is_the_storage_dir(cli, seeded: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CREWGRAPH_STORAGE_DIR", str(Path(seeded).parent))
    assert "/ (3 records)" in cli("memory").stdout


def test_missing_store_and_bad_combination(cli, tmp_path: Path) -> None:
    missing = cli("memory", "-s", str(tmp_path / "none"))
    assert missing.exit_code == 1 and "no memory store at" in missing.stderr
    both = cli("memory", "-s", str(tmp_path), "--query", "x", "--list")
    assert both.exit_code == 1 and "either --query or --list" in both.stderr


def test_reset_a_scope_then_everything(cli, store: str) -> None:
    scoped = cli("reset-memories", "-m", "-s", store, "--scope", "/ops")
    assert scoped.exit_code == 0, scoped.output
    assert "/ (2 records)" in cli("memory", "-s", store).stdout
    full = cli("reset-memories", "--memory", "-s", store)
    assert full.exit_code == 0 and "Reset memory at" in full.stdout
    assert "/ (0 records)" in cli("memory", "-s", store).stdout


def test_reset_with_nothing_there(cli, tmp_path: Path) -> None:
    result = cli("reset-memories", "-a", "--yes", "-s", str(tmp_path / "none"))
    assert result.exit_code == 0 and "Nothing to reset" in result.stdout


def test_reset_all_asks_first(cli, store: str) -> None:
    declined = cli("reset-memories", "-a", "-s", store, input="n\n")
    assert declined.exit_code == 1 and "Reset all memory and knowledge" in declined.output
    assert "Aborted" in declined.output and "Traceback" not in declined.output
    assert "(0 records)" not in cli("memory", "-s", store).stdout  # nothing was wiped
    accepted = cli("reset-memories", "-a", "-s", store, input="y\n")
    assert accepted.exit_code == 0, accepted.output


def test_reset_a_crews_memory(cli, store: str, write_module) -> None:
    mod = write_module(
        "from crewgraph import Agent, Crew, Task\nfrom crewgraph.memory import Memory\n"
        "a = Agent(role='R', goal='g')\n"
        f"crew = Crew(agents=[a], tasks=[Task(description='d', expected_output='e', agent=a)],"
        f" memory=Memory(storage={store!r}, llm=None))\n"
        "plain = Crew(agents=[a], tasks=[Task(description='d', expected_output='e', agent=a)])\n"
    )
    result = cli("reset-memories", "-m", f"{mod}:crew")
    assert result.exit_code == 0, result.output
    assert "/ (0 records)" in cli("memory", "-s", store).stdout
    no_memory = cli("reset-memories", "-m", f"{mod}:plain")
    assert no_memory.exit_code == 1 and "has no memory to reset" in no_memory.stderr
    assert "unexpected" not in no_memory.stderr  # a user mistake, not a crash
