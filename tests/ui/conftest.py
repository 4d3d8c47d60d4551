"""UI tests: a project folder with a crew and a persisted flow, and the app over its stores."""

from __future__ import annotations

import sys
import textwrap
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette", reason="the ui extra (starlette) is not installed")

CREW_SOURCE = '''
from pathlib import Path

from crewgraph import Agent, Crew, Task
from crewgraph.testing import FakeLLM, FakeToolCall
from crewgraph.tools import tool

FLAG = Path(__file__).with_name("fail_second_task")


GATE = None  # a threading.Event a test sets: the tool waits for it (bounded)


@tool("lookup")
def lookup(query: str) -> str:
    """Look something up."""
    if GATE is not None:
        GATE.wait(10)
    return f"found {query}"


def build():
    llm = FakeLLM([FakeToolCall("lookup", {"query": "cats"}), "cats purr", "cats are great"], model="fake")
    a = Agent(role="researcher", goal="learn", backstory="curious", llm=llm, tools=[lookup])
    second = a
    if FLAG.exists():
        second = Agent(role="writer", goal="write", backstory="terse", llm=FakeLLM(default=ValueError("model down")))
    t1 = Task(description="research {topic}", expected_output="facts", agent=a)
    t2 = Task(description="summarise", expected_output="summary", agent=second)
    return Crew(name="democrew", agents=[a, second], tasks=[t1, t2])


# One model for every build: a resumed review continues the conversation, as a real model would.
REVIEW_LLM = FakeLLM(["A long draft about owls.", "Owls hunt at night.", "Night Owls"], model="fake")


def build_review():
    writer = Agent(role="Writer", goal="Write posts", backstory="A columnist", llm=REVIEW_LLM)
    return Crew(name="reviewcrew", agents=[writer], tasks=[
        Task(name="draft", description="Draft a post about owls", expected_output="a post", agent=writer,
             human_input=True),
        Task(name="title", description="Title the post", expected_output="a title", agent=writer),
    ])
'''

FLOW_SOURCE = '''
from crewgraph.flow import Flow, listen, start


class AskFlow(Flow):
    checkpoint = True

    @start()
    def begin(self):
        return "hello"

    @listen(begin)
    def question(self, previous):
        return self.ask("What is your name?")

    @listen(question)
    def done(self, name):
        return f"hi {name}"


class PlainFlow(Flow):
    @start()
    def only(self):
        return "plain result"
'''


@dataclass
class Project:
    root: Path
    crew: str
    flow: str
    review: str
    plain: str

    @property
    def flag(self) -> Path:
        return self.root / "fail_second_task"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Project]:
    """A folder with a crew module and a flow module (unique names: imports are cached)."""
    tag = uuid.uuid4().hex[:8]
    crew_mod, flow_mod = f"uicrew_{tag}", f"uiflow_{tag}"
    (tmp_path / f"{crew_mod}.py").write_text(textwrap.dedent(CREW_SOURCE), encoding="utf-8")
    (tmp_path / f"{flow_mod}.py").write_text(textwrap.dedent(FLOW_SOURCE), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("CREWGRAPH_STORAGE_DIR", str(tmp_path / "store"))
    monkeypatch.delenv("CREWGRAPH_LLM", raising=False)
    path = list(sys.path)
    yield Project(tmp_path, f"{crew_mod}:build", f"{flow_mod}:AskFlow", f"{crew_mod}:build_review",
                  f"{flow_mod}:PlainFlow")
    sys.path[:] = path
    for name, module in list(sys.modules.items()):
        if str(getattr(module, "__file__", None) or "").startswith(str(tmp_path)):
            del sys.modules[name]


@pytest.fixture
def settings_for() -> Callable[..., Any]:
    """``settings_for(project, **options)``: UISettings over the project's stores and targets."""
    from crewgraph.ui import UISettings

    def make(project: Project, **options: Any) -> Any:
        options.setdefault("targets", [project.crew, project.flow, project.review, project.plain])
        return UISettings(cwd=project.root, **options)

    return make


def _wait_job(client: Any, job: dict[str, Any], timeout: float = 20.0) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        now = client.get(f"/jobs/{job['job_id']}").json()
        if now["status"] not in ("queued", "running"):
            return dict(now)
        time.sleep(0.05)
    raise AssertionError(f"job {job['job_id']} did not finish in {timeout} s")


@pytest.fixture
def wait_job() -> Callable[..., dict[str, Any]]:
    """``wait_job(client, job)``: poll ``/jobs/{id}`` until the job ends (bounded)."""
    return _wait_job


@pytest.fixture
def client(project: Project, settings_for: Callable[..., Any]) -> Iterator[Any]:
    """A test client of the app (no token: loopback) with the crew and the flow registered."""
    from starlette.testclient import TestClient

    from crewgraph.ui import create_app

    with TestClient(create_app(settings_for(project)), base_url="http://127.0.0.1") as c:
        yield c
    _join_jobs()


def _join_jobs(timeout: float = 20.0) -> None:
    """Wait (bounded) for the jobs the test's app left running: the app's stop lets them go
    on in their threads, and a run that outlived its test would write its checkpoints into the
    next test's store (``CREWGRAPH_STORAGE_DIR`` is read when a run writes)."""
    import threading

    deadline = time.monotonic() + timeout
    for thread in threading.enumerate():
        if thread.name.startswith("crewgraph-ui-job"):
            thread.join(max(0.0, deadline - time.monotonic()))
            assert not thread.is_alive(), f"a UI job ({thread.name}) still ran {timeout:g} s after its test"


def _free_port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture
def server(project: Project, settings_for: Callable[..., Any]) -> Iterator[str]:
    """The real uvicorn server on a free loopback port, in a thread; yields its base URL."""
    import threading

    import uvicorn

    from crewgraph.ui import create_app

    settings = settings_for(project, port=_free_port())
    config = uvicorn.Config(create_app(settings), host="127.0.0.1", port=settings.port, log_level="warning",
                            timeout_graceful_shutdown=1)
    srv = uvicorn.Server(config)
    thread = threading.Thread(target=srv.run, name="ui-test-server", daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not srv.started:
        assert time.monotonic() < deadline and thread.is_alive(), "uvicorn did not start in 10 s"
        time.sleep(0.02)
    yield f"http://127.0.0.1:{settings.port}"
    srv.should_exit = True
    thread.join(5)
    _join_jobs()
