"""@CrewBase classes: YAML loading, reference resolution, memoization, hooks, a real kickoff."""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType

import pytest

from crewgraph import Agent, Crew, Task
from crewgraph.project import CrewBase, agent, crew, find_crew_method, is_crew_class, task
from crewgraph.testing import FakeLLM

MakeProject = Callable[..., ModuleType]


def test_config_is_loaded_relative_to_the_class_file(make_project: MakeProject, monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    monkeypatch.chdir(tmp_path.parent)  # anywhere but the project folder
    mod = make_project()
    proj = mod.ResearchCrew()
    assert isinstance(proj.agents_config["researcher"], dict)
    assert proj.agents_config["researcher"]["goal"] == "Find the latest on {topic}"
    assert proj.tasks_config["write_task"]["description"] == "Write a post about {topic}"
    assert is_crew_class(mod.ResearchCrew) and find_crew_method(mod.ResearchCrew) == "crew"


def test_crew_collects_members_in_definition_order_with_references_resolved(make_project: MakeProject) -> None:
    mod = make_project()
    proj = mod.ResearchCrew()
    c = proj.crew()
    assert isinstance(c, Crew)
    assert [t.name for t in c.tasks] == ["research_task", "write_task"]
    assert [a.role for a in c.agents] == ["{topic} Senior Researcher", "Writer"]
    research, write = c.tasks
    assert research.agent is proj.researcher() is c.agents[0]
    assert write.context == [research]
    assert [t.name for t in research.agent.tools] == ["search"]
    assert proj.agents == c.agents and proj.tasks == c.tasks
    assert len(c.before_kickoff_callbacks) == 1 and len(c.after_kickoff_callbacks) == 1


def test_methods_are_memoized_per_instance(make_project: MakeProject) -> None:
    mod = make_project()
    first = mod.ResearchCrew()
    first.crew()
    assert first.crew() is first.crew()
    assert mod.CALLS.count("researcher") == 1 and mod.CALLS.count("search") == 1
    second = mod.ResearchCrew()
    assert second.researcher() is not first.researcher()
    assert second.research_task().agent is second.researcher()


def test_kickoff_interpolates_inputs_and_runs_hooks(make_project: MakeProject) -> None:
    mod = make_project()
    c = mod.ResearchCrew().crew()
    seen: dict[str, object] = {}
    c.before_kickoff_callbacks.append(lambda inputs: seen.update(inputs))
    llm = FakeLLM(["facts about AI", "a post about AI"])
    c.llm = llm
    out = c.kickoff(inputs={"topic": "AI"})
    assert out.raw == "a post about AI [post-processed]"
    assert seen == {"topic": "AI", "prepared": "yes"}
    assert "Research AI" in llm.calls[0].prompt and "{topic}" not in llm.calls[0].messages[-1]["content"]
    assert "facts about AI" in llm.calls[1].prompt  # context from research_task


def test_yaml_callbacks_and_output_pydantic_resolve_by_name(make_project: MakeProject) -> None:
    tasks = """\
    research_task:
      description: Research {topic}
      expected_output: facts
      agent: researcher
      callbacks: [log_output]
    write_task:
      description: Write about {topic}
      expected_output: a title
      agent: writer
      output_pydantic: Post
    """
    mod = make_project(tasks=tasks)
    c = mod.ResearchCrew().crew()
    assert c.tasks[1].output_pydantic is mod.ResearchCrew.Post
    c.llm = FakeLLM(["facts", '{"title": "AI today"}'])
    out = c.kickoff(inputs={"topic": "AI"})
    assert out.pydantic is not None and out.pydantic.title == "AI today"
    assert ("log", "facts") in mod.CALLS


def test_explicit_keywords_override_the_yaml_entry() -> None:
    a = Agent(config={"role": "R", "goal": "G", "verbose": False}, verbose=True)
    assert (a.role, a.goal, a.verbose) == ("R", "G", True)
    t = Task(config={"description": "d", "expected_output": "e"}, name="named", agent=None)
    assert (t.name, t.description, t.agent) == ("named", "d", None)
    with pytest.raises(ValueError, match="config must be a dict"):
        Agent(config=["role"])


def test_a_class_without_yaml_works_from_code(tmp_path) -> None:
    @CrewBase
    class Inline:
        agents_config = {"a": {"role": "A", "goal": "g"}}
        tasks_config = {"t": {"description": "d", "expected_output": "e", "agent": "solo"}}

        @agent
        def solo(self) -> Agent:
            return Agent(config=self.agents_config["a"])

        @task
        def t(self) -> Task:
            return Task(config=self.tasks_config["t"])

        @crew
        def crew(self) -> Crew:
            return Crew(agents=self.agents, tasks=self.tasks)

    c = Inline().crew()
    assert c.tasks[0].agent is c.agents[0] and c.tasks[0].name == "t"
    assert Inline.agents_config == {"a": {"role": "A", "goal": "g"}}  # the class attribute is untouched


def test_subclass_of_a_crewbase_class_sets_up_once(make_project: MakeProject) -> None:
    mod = make_project()

    @CrewBase
    class Child(mod.ResearchCrew):
        def __init__(self) -> None:
            super().__init__()
            self.extra = 1

    child = Child()
    assert child.extra == 1
    assert [t.name for t in child.crew().tasks] == ["research_task", "write_task"]
    assert mod.CALLS.count("search") == 1


RESUMABLE = '''
from pathlib import Path

from crewgraph import Agent, Crew, Task
from crewgraph.checkpoint import CheckpointConfig
from crewgraph.project import CrewBase, agent, crew, task
from crewgraph.testing import FakeLLM

LLM = [FakeLLM(["notes", RuntimeError("provider down")])]
DB = [Path("cp.db")]


@CrewBase
class Resumable:
    agents_config = None
    tasks_config = None

    @agent
    def writer(self) -> Agent:
        return Agent(role="Writer", goal="g", backstory="b", llm=LLM[-1], max_retry_limit=0)

    @task
    def research(self) -> Task:
        return Task(description="Research {topic}", expected_output="notes", agent=self.writer())

    @task
    def write(self) -> Task:
        return Task(description="Write", expected_output="post", agent=self.writer())

    @crew
    def assemble(self) -> Crew:  # not called "crew": found by its @crew mark
        return Crew(name="resumable", agents=self.agents, tasks=self.tasks, checkpoint=CheckpointConfig(path=DB[-1]))
'''


def test_a_crewbase_run_resumes_from_its_checkpoint_alone(make_project: MakeProject, tmp_path) -> None:
    """As in CrewAI, ``Crew.from_checkpoint(config)`` needs nothing else: the @crew method
    records its class, so the crew is rebuilt from it and the finished task is restored."""
    from crewgraph import CrewGraphError
    from crewgraph.checkpoint import CheckpointConfig

    mod = make_project(agents=None, tasks=None, module=RESUMABLE)
    mod.DB.append(tmp_path / "cp.db")
    built = mod.Resumable().assemble()
    assert built._factory_ref == f"{mod.__name__}:Resumable"
    with pytest.raises(CrewGraphError) as failed:
        built.kickoff({"topic": "owls"})
    run_id = failed.value.run_id  # type: ignore[attr-defined]
    mod.LLM.append(FakeLLM(["the post"]))
    out = Crew.from_checkpoint(CheckpointConfig(path=tmp_path / "cp.db", run_id=run_id)).kickoff()
    assert out.raw == "the post" and out.run_id == run_id
    assert len(mod.LLM[-1].calls) == 1  # research was restored, only write ran
    assert out.graph.record("t1_research.agent").status == "restored"


def test_no_factory_is_recorded_for_classes_that_cannot_be_rebuilt_by_name() -> None:
    @CrewBase
    class Local:  # defined in a function: not importable by module:qualname
        agents_config = None
        tasks_config = None

        @crew
        def crew(self) -> Crew:
            from crewgraph import Agent, Task

            a = Agent(role="R", goal="g")
            return Crew(agents=[a], tasks=[Task(description="d", expected_output="x", agent=a)])

    assert Local().crew()._factory_ref is None
