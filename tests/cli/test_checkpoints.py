"""`crewgraph checkpoints list|show|resume|delete`, `replay -t` and `plot --run` on real stores."""

from __future__ import annotations

import json
from pathlib import Path

from _cli_modules import CREW_MODULE


def run_json(cli, *args: str) -> dict:  # type: ignore[no-untyped-def]
    result = cli("run", *args, "-q", "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_list_show_delete(cli, project: Path) -> None:
    first = run_json(cli, "--llm", "fake")["run_id"]
    second = run_json(cli, "--llm", "fake")["run_id"]
    listed = cli("checkpoints", "list")
    assert listed.exit_code == 0
    assert listed.stdout.index(second) < listed.stdout.index(first)  # newest first
    data = json.loads(cli("checkpoints", "list", "--json").stdout)
    assert [r["run_id"] for r in data] == [second, first] and data[0]["status"] == "completed"
    shown = cli("checkpoints", "show", first)
    assert shown.exit_code == 0
    assert "completed" in shown.stdout and "t1_research_task.agent" in shown.stdout
    deleted = cli("checkpoints", "delete", first)
    assert deleted.exit_code == 0 and f"Deleted {first}." in deleted.stdout
    assert first not in cli("checkpoints", "list").stdout
    gone = cli("checkpoints", "delete", first)
    assert gone.exit_code == 1 and "no run" in gone.stderr
    assert cli("checkpoints", "delete").exit_code == 1  # neither ids nor --all
    declined = cli("checkpoints", "delete", "--all", input="n\n")  # asks first; "no" keeps everything
    assert declined.exit_code == 1 and "Aborted" in declined.output and "unexpected" not in declined.output
    wiped = cli("checkpoints", "delete", "--all", "--yes")
    assert wiped.exit_code == 0 and "Deleted 1 runs." in wiped.stdout
    assert "No checkpointed runs" in cli("checkpoints", "list").stdout


def test_db_option_and_unknown_run(cli, project: Path, tmp_path: Path) -> None:
    db = tmp_path / "elsewhere.db"
    run_id = run_json(cli, "--llm", "fake", "--db", str(db))["run_id"]
    assert run_id in cli("checkpoints", "list", "--db", str(db)).stdout
    assert "No checkpointed runs" in cli("checkpoints", "list").stdout  # not in the default store
    bad = cli("checkpoints", "show", "nope", "--db", str(db))
    assert bad.exit_code == 1 and "no run 'nope'" in bad.stderr and run_id in bad.stderr


def test_resume_a_failed_run(cli, write_module) -> None:
    mod = write_module(
        CREW_MODULE + "\nfrom crewgraph.errors import LLMError\n"
        "failing = build(replies=['notes', LLMError('model is down')])\n"
        "fixed = build(replies=['the post'])  # research is restored: one call only\n"
    )
    failed = cli("run", f"{mod}:failing", "-i", "topic=AI")
    assert failed.exit_code == 1
    run_id = json.loads(cli("checkpoints", "list", "--json").stdout)[0]["run_id"]
    resumed = cli("checkpoints", "resume", run_id, f"{mod}:fixed")
    assert resumed.exit_code == 0, resumed.output
    assert resumed.stdout.strip() == "the post"
    assert "↺ research" in resumed.stderr and "inputs: topic='AI'" in resumed.stderr
    info = json.loads(cli("checkpoints", "show", run_id, "--json").stdout)
    assert info["status"] == "completed"


def test_resume_without_a_target_rebuilds_the_crew_the_run_recorded(cli, write_module) -> None:
    mod = write_module(
        CREW_MODULE + "\nfrom crewgraph.errors import LLMError\n"
        "failing = build(replies=['notes', LLMError('model is down')])\n"
    )
    assert cli("run", f"{mod}:failing", "-i", "topic=AI").exit_code == 1
    run_id = json.loads(cli("checkpoints", "list", "--json").stdout)[0]["run_id"]
    # No MODULE:ATTR and no project in this folder: the crew the run recorded is used.
    resumed = cli("checkpoints", "resume", run_id)
    assert resumed.exit_code == 0, resumed.output
    assert f"({mod}:failing)" in resumed.stderr and "↺ research" in resumed.stderr


def test_replay_of_another_crews_run_is_refused_before_forking(cli, project: Path, write_module) -> None:
    mod = write_module(CREW_MODULE)
    other = run_json(cli, f"{mod}:my_crew", "-i", "topic=AI")["run_id"]
    result = cli("replay", "-t", "1", "--run", other, "--llm", "fake")
    assert result.exit_code == 1 and "was made by crew 'writer_crew'" in result.stderr
    assert len(json.loads(cli("checkpoints", "list", "--json").stdout)) == 1  # no orphan fork


def test_replay_from_a_task_forks_the_latest_run(cli, project: Path) -> None:
    original = run_json(cli, "--llm", "fake", "-i", "topic=bees")["run_id"]
    result = cli("replay", "-t", "reporting_task", "--llm", "fake")
    assert result.exit_code == 0, result.output
    assert "↺ research_task" in result.stderr and "✔ reporting_task" in result.stderr
    runs = json.loads(cli("checkpoints", "list", "--json").stdout)
    fork = runs[0]
    assert fork["parent_run_id"] == original and fork["branch"] == "replay:reporting_task"
    assert fork["meta"]["inputs"]["topic"] == "bees"  # the original run's inputs
    again = cli("replay", "-t", "1", "--llm", "fake", "--run", original)  # by position, from the first task
    assert again.exit_code == 0 and "↺" not in again.stderr
    unknown = cli("replay", "-t", "nope")
    assert unknown.exit_code == 1 and "Task with id 'nope' not found in the crew's tasks; this crew's tasks: 1=research_task" in unknown.stderr
    typo = cli("replay", "-t", "reserch_task")
    assert typo.exit_code == 1 and "Task with id 'reserch_task' not found in the crew's tasks (did you mean 'research_task'?)" in typo.stderr


def test_replay_without_a_run(cli, project: Path) -> None:
    result = cli("replay", "-t", "reporting_task")
    assert result.exit_code == 1 and "no checkpoint database" in result.stderr


def test_plot_a_checkpointed_run(cli, project: Path, tmp_path: Path) -> None:
    run_id = run_json(cli, "--llm", "fake")["run_id"]
    result = cli("plot", "--run", run_id, "-o", "-")
    assert result.exit_code == 0, result.output
    assert f"run {run_id[:8]}" in result.stdout and "completed" in result.stdout
    assert "tok" in result.stdout  # token counts from the saved records
    bad = cli("plot", "--run", "nope", "-o", "-")
    assert bad.exit_code == 1 and "no run 'nope'" in bad.stderr


def test_run_ids_by_unique_prefix(cli, project: Path) -> None:
    first = run_json(cli, "--llm", "fake")["run_id"]
    second = run_json(cli, "--llm", "fake")["run_id"]
    common = 0
    while first[common] == second[common]:
        common += 1
    shown = cli("checkpoints", "show", first[: max(8, common + 1)])
    assert shown.exit_code == 0 and first in shown.stdout
    if common:  # both ids start alike: the shared prefix is ambiguous, and says so
        both = cli("checkpoints", "show", first[:common])
        assert both.exit_code == 1 and "matches several runs" in both.stderr
    unknown = cli("checkpoints", "show", "zzzzzzzz")
    assert unknown.exit_code == 1 and "no run 'zzzzzzzz'" in unknown.stderr
    deleted = cli("checkpoints", "delete", second[: max(8, common + 1)])
    assert deleted.exit_code == 0 and f"Deleted {second}." in deleted.stdout


def test_store_resolves_prefixes(tmp_path: Path) -> None:
    from crewgraph.checkpoint import SQLiteCheckpointStore
    from crewgraph.errors import CheckpointError

    store = SQLiteCheckpointStore(tmp_path / "c.db")
    for run_id in ("abc123", "abd456", "a_c789"):
        store.start_run(run_id, name="crew")
    assert store.resolve_run_id("abc") == "abc123"
    assert store.resolve_run_id("abd456") == "abd456"
    assert store.resolve_run_id("a_") == "a_c789"  # LIKE wildcards are escaped
    try:
        store.resolve_run_id("ab")
    except CheckpointError as exc:
        assert "matches several runs" in str(exc) and "abc123" in str(exc)
    else:  # pragma: no cover
        raise AssertionError("an ambiguous prefix was accepted")


def test_db_option_takes_a_postgresql_url(cli, project: Path, postgres_store_url: str) -> None:  # type: ignore[no-untyped-def]
    url = postgres_store_url
    run_id = run_json(cli, "--llm", "fake", "--db", url)["run_id"]
    listed = cli("checkpoints", "list", "--db", url, "--json")
    assert listed.exit_code == 0 and [r["run_id"] for r in json.loads(listed.stdout)] == [run_id]
    assert "No checkpointed runs" in cli("checkpoints", "list").stdout  # not in the default file
    bad = cli("checkpoints", "show", "nope", "--db", url)
    assert bad.exit_code == 1 and "no run 'nope'" in bad.stderr and run_id in bad.stderr
    down = cli("checkpoints", "list", "--db", "postgresql://crew:s3cret@127.0.0.1:1/none")
    assert down.exit_code == 1 and "cannot reach the PostgreSQL server 127.0.0.1:1" in down.stderr
    assert "s3cret" not in down.stderr
