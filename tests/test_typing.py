"""The public API type-checks as users write it: mypy --strict on a small program.

``Crew(...).kickoff()`` is a ``CrewOutput`` unless the crew streams (``kickoff`` is
overloaded on the crew's ``stream``, see docs/porting.md "Typing"), and the package ships
``py.typed``, so mypy and pyright read its annotations.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]

PROGRAM = '''
from crewgraph import Agent, Crew, Task
from crewgraph.testing import FakeLLM

writer = Agent(role="Writer", goal="Write", backstory="b", llm=FakeLLM(default="done"))
task = Task(description="Write", expected_output="text", agent=writer)
crew = Crew(agents=[writer], tasks=[task])
text: str = crew.kickoff().raw
reveal_type(crew.kickoff())


async def later() -> str:
    return (await crew.kickoff_async()).raw


streaming = Crew(agents=[writer], tasks=[task], stream=True)
reveal_type(streaming.kickoff())
for chunk in streaming.kickoff():
    print(chunk.content)
streaming.kickoff().raw  # line 20: a stream has no .raw


def unknown(flag: bool) -> None:
    reveal_type(Crew(agents=[writer], tasks=[task], stream=flag).kickoff())


def on_an_executor() -> str:
    return crew.kickoff(inputs={"topic": "x"}, executor=None).raw
'''


def test_kickoff_types_with_mypy(tmp_path: Path) -> None:
    if shutil.which("mypy") is None and not (Path(sys.executable).parent / "mypy").exists():
        pytest.skip("mypy is not installed")
    (tmp_path / "program.py").write_text(PROGRAM, encoding="utf-8")
    env = {**os.environ, "MYPYPATH": str(REPO)}  # this checkout's crewgraph, not an installed one
    # mypy's incremental cache (ignored by git, like the one scripts/test.sh's mypy writes; its
    # own folder: the options differ): the first run checks crewgraph and pydantic from scratch
    # (~8 s of CPU), later runs re-read only what changed. program.py is new each run.
    cache = REPO / ".mypy_cache" / "test_typing"
    proc = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--follow-imports=silent", "--cache-dir", str(cache),
         "--config-file", os.devnull, "program.py"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=240,
    )
    out = proc.stdout
    revealed = dict(re.findall(r"program\.py:(\d+): note: Revealed type is \"([^\"]+)\"", out))
    assert revealed.get("9") == "crewgraph.outputs.CrewOutput", out
    assert revealed.get("17") == "crewgraph.streaming.output.CrewStreamingOutput", out
    assert revealed.get("24") == "crewgraph.outputs.CrewOutput | crewgraph.streaming.output.CrewStreamingOutput", out
    errors = re.findall(r"program\.py:(\d+): error: (.*)", out)
    assert [line for line, _ in errors] == ["20"], out  # only the stream's .raw
    assert '"CrewStreamingOutput" has no attribute "raw"' in errors[0][1]


def test_py_typed_ships_with_the_package() -> None:
    assert (REPO / "crewgraph" / "py.typed").is_file()
    pyproject = (REPO / "pyproject.toml").read_text(encoding="utf-8")
    assert re.search(r'crewgraph = \[[^\]]*"py\.typed"', pyproject), "py.typed not in package-data"
