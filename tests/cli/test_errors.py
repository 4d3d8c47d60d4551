"""Bad input: a one-line reason, a non-zero exit, no traceback (unless --debug)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from _cli_modules import CREW_MODULE

from crewgraph.cli import main
from crewgraph.cli._errors import describe


def one_line_error(result) -> str:  # type: ignore[no-untyped-def]
    assert result.exit_code != 0
    assert "Traceback" not in result.output
    lines = result.stderr.strip().splitlines()  # progress lines may come first
    errors = [line for line in lines if line.startswith("Error: ")]
    assert len(errors) == 1 and lines[-1] == errors[0], result.stderr
    return errors[0]


@pytest.mark.parametrize(
    ("args", "expected", "code"),
    [
        (["run", "no_such_module:crew"], "cannot import 'no_such_module': no such module", 1),
        (["run"], "no crew found: pass MODULE:ATTR", 1),
        (["plot"], "no crew found", 1),
        (["run", "json:dumps"], "json:dumps needs arguments (obj)", 1),
        (["run", "json:decoder"], "json:decoder is a module, not a Crew", 1),
        (["run", "json"], "no crew found in json", 1),
        (["run", "missing.py"], "no such file: missing.py", 1),
        (["checkpoints", "show", "nope"], "no checkpoint database at", 1),
        (["reset-memories"], "nothing to reset: pass -m/--memory", 1),
        (["create", "crew", "9 lives"], "cannot make a Python package name from '9 lives'", 1),
        (["create", "crew", "json"], "would hide the standard-library module 'json'", 1),
        (["create", "crew", "crewgraph"], "would hide crewgraph itself", 1),
        (["create", "crew", "pydantic"], "would hide the installed module 'pydantic'", 1),
        (["create", "crew", "café crew"], "use ASCII letters", 1),
        (["checkpoints", "list", "--db", "."], "is a directory", 1),
    ],
)
def test_user_errors(cli, args: list[str], expected: str, code: int) -> None:
    result = cli(*args)
    assert expected in one_line_error(result)
    assert result.exit_code == code


def test_bad_inputs_is_a_usage_error(cli, write_module) -> None:
    mod = write_module(CREW_MODULE)
    result = cli("run", f"{mod}:my_crew", "--inputs", "topic")
    assert "bad --inputs 'topic': expected key=value" in one_line_error(result)
    assert result.exit_code == 2
    result = cli("run", f"{mod}:my_crew", "-i", "a=1", "-i", "a=2")
    assert "--inputs 'a' given twice" in one_line_error(result)


def test_unknown_attribute_lists_what_the_module_has(cli, write_module) -> None:
    mod = write_module(CREW_MODULE)
    line = one_line_error(cli("run", f"{mod}:nope"))
    assert f"{mod} has no attribute 'nope' (found: my_crew, Project)" in line


def test_module_that_fails_to_import(cli, write_module) -> None:
    mod = write_module("import not_installed_dependency\n")
    line = one_line_error(cli("run", mod))
    assert f"cannot import '{mod}': No module named 'not_installed_dependency'" in line
    mod = write_module("def broken(:\n")
    line = one_line_error(cli("run", mod))
    assert f"{mod}.py:1" in line and "cannot import" in line


def test_yaml_error_shows_file_and_line(cli, project: Path) -> None:
    tasks = next(project.glob("src/*/config/tasks.yaml"))
    tasks.write_text(tasks.read_text().replace("agent: researcher", "agent: [researcher"))
    line = one_line_error(cli("run", "--llm", "fake"))
    assert "config/tasks.yaml:" in line and "invalid YAML" in line


def test_missing_input_is_a_compile_error(cli, write_module) -> None:
    mod = write_module(CREW_MODULE)
    line = one_line_error(cli("run", f"{mod}:my_crew", "--no-checkpoint"))
    assert "topic" in line


def test_failed_run_says_how_to_resume(cli, write_module) -> None:
    mod = write_module(
        CREW_MODULE + "\nfrom crewgraph.errors import LLMError\n"
        "failing = build(replies=['notes', LLMError('model is down')])\n"
    )
    result = cli("run", f"{mod}:failing", "-i", "topic=AI")
    line = one_line_error(result)
    assert "model is down" in line and "crewgraph checkpoints resume" in line


def test_debug_shows_the_traceback(cli, write_module) -> None:
    result = cli("--debug", "run", "no_such_module:crew")
    assert result.exit_code == 1
    assert result.exception is not None and "no such module" in str(result.exception)


def test_main_accepts_debug_after_the_command(capsys) -> None:
    with pytest.raises(Exception, match="no such module"):
        main(["run", "no_such_module:x", "--debug"])
    with pytest.raises(SystemExit) as info:
        main(["run", "no_such_module:x"])
    assert info.value.code == 1
    assert capsys.readouterr().err.startswith("Error: cannot import")


def test_unexpected_errors_are_one_line_with_a_hint(cli, write_module) -> None:
    mod = write_module("def boom():\n    raise RuntimeError('kaput')\n")
    line = one_line_error(cli("run", f"{mod}:boom"))
    assert "RuntimeError: kaput" in line and "--debug" in line


def test_describe_flattens_multiline_messages() -> None:
    from crewgraph.errors import CompileError

    err = CompileError("2 problems found:\n  - task 'a': x\n  - task 'b': y")
    assert describe(err) == "2 problems found: task 'a': x; task 'b': y"


def test_every_command_has_help(cli) -> None:
    for args in (
        [], ["run"], ["replay"], ["plot"], ["memory"], ["reset-memories"], ["checkpoints"],
        ["checkpoints", "list"], ["checkpoints", "show"], ["checkpoints", "resume"], ["checkpoints", "delete"],
        ["create"], ["create", "crew"],
    ):
        result = cli(*args, "--help")
        assert result.exit_code == 0, args
        assert "Usage: crewgraph" in result.stdout


def test_import_crewgraph_never_imports_the_cli() -> None:
    code = (
        "import sys, crewgraph, crewgraph.project\n"
        "print(any(m.startswith('crewgraph.cli') for m in sys.modules))\n"
        "import crewgraph.cli\n"
        "print(sorted(m for m in ('typer', 'rich', 'click') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "[]"]  # and the cli package itself stays light until main()


def test_a_crewbase_class_that_needs_arguments(cli, write_module) -> None:
    mod = write_module(
        "from crewgraph import Crew\nfrom crewgraph.project import CrewBase, crew\n"
        "@CrewBase\nclass Needy:\n    agents_config = None\n    tasks_config = None\n"
        "    def __init__(self, topic):\n        self.topic = topic\n"
        "    @crew\n    def crew(self) -> Crew:\n        return Crew(agents=[], tasks=[])\n"
    )
    line = one_line_error(cli("run", f"{mod}:Needy"))
    assert f"{mod}:Needy needs arguments (topic)" in line and "unexpected" not in line


def test_a_yaml_alias_bomb_is_one_line(cli, project: Path) -> None:
    agents = next(project.glob("src/*/config/agents.yaml"))
    bomb = ['a0: &a0 ["lol"]'] + [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]" for i in range(1, 10)]
    agents.write_text(
        agents.read_text() + "\nbomb:\n  role: B\n  goal: G\n  backstory: x\n  extra:\n"
        + "\n".join("    " + line for line in bomb) + "\n"
    )
    line = one_line_error(cli("run", "--llm", "fake"))
    assert "config/agents.yaml:" in line and "alias" in line
