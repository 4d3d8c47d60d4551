"""``Node.assemble(**values)`` builds the same node as ``cls(**values)``, with the same checks.

The compiler builds each task's agent step with it (a frozen dataclass's ``__init__`` sets
40-odd fields one ``object.__setattr__`` at a time); nothing else about the node changes.
"""

from __future__ import annotations

import dataclasses
import pickle
from dataclasses import dataclass, field
from typing import Any

import pytest

from crewgraph import Agent, Crew, Task
from crewgraph.graph import Node, NodeContext, NodeResult
from crewgraph.graph.policies import RetryPolicy, TimeoutPolicy
from crewgraph.nodes.agent_step import AgentStepNode
from crewgraph.testing import FakeLLM


@dataclass(frozen=True, kw_only=True)
class _Checked(Node):
    kind = "checked"
    size: int
    tags: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        if self.size < 0:
            raise ValueError("size must be >= 0")

    async def run(self, ctx: NodeContext) -> NodeResult:
        return NodeResult(output=self.size)


@dataclass(frozen=True, kw_only=True, slots=True)
class _Slotted(Node):
    kind = "slotted"
    size: int = 0

    async def run(self, ctx: NodeContext) -> NodeResult:
        return NodeResult(output=self.size)


def _same(a: Any, b: Any) -> None:
    assert type(a) is type(b)
    assert a == b
    assert list(vars(a)) == list(vars(b))  # same fields, in the same order
    assert dataclasses.asdict(a) == dataclasses.asdict(b)


def test_the_same_agent_step_as_its_init() -> None:
    values: dict[str, Any] = dict(
        id="t1.agent", task_name="t", description="d", expected_output="e", agent_role="r",
        max_iter=3, retry=RetryPolicy(max_attempts=2), timeout=TimeoutPolicy(5.0), context_nodes=("a",),
    )
    built = AgentStepNode.assemble(**values)
    _same(built, AgentStepNode(**values))
    _same(pickle.loads(pickle.dumps(built)), built)  # sendable as before (Ray)
    assert dataclasses.replace(built, id="t2.agent").id == "t2.agent"
    with pytest.raises(dataclasses.FrozenInstanceError):
        built.id = "x"  # type: ignore[misc]


def test_defaults_factories_and_post_init_apply() -> None:
    a, b = _Checked.assemble(id="n", size=1), _Checked.assemble(id="n", size=1)
    _same(a, _Checked(id="n", size=1))
    assert a.tags == [] and a.tags is not b.tags  # a fresh list each: the factory ran per node
    assert a.retry == RetryPolicy() and a.timeout == TimeoutPolicy()
    with pytest.raises(ValueError, match="size must be >= 0"):
        _Checked.assemble(id="n", size=-1)


def test_unknown_and_missing_fields_are_type_errors() -> None:
    with pytest.raises(TypeError, match=r"unexpected keyword argument\(s\) \['colour'\]"):
        _Checked.assemble(id="n", size=1, colour="red")
    with pytest.raises(TypeError, match=r"missing required argument\(s\) \['size'\]"):
        _Checked.assemble(id="n")


def test_a_slotted_node_is_built_by_its_init() -> None:
    _same_slots = _Slotted.assemble(id="s", size=2)
    assert _same_slots == _Slotted(id="s", size=2)


def test_a_compiled_step_equals_one_built_by_init() -> None:
    a = Agent(role="R", goal="g", backstory="b", llm=FakeLLM(default="done"), max_iter=4)
    crew = Crew(agents=[a], tasks=[Task(description=f"d{i}", expected_output="e", agent=a) for i in range(3)])
    for plan in crew.compile().meta["tasks"]:
        step = crew.compile().node(plan["agent"])
        assert isinstance(step, AgentStepNode)
        _same(step, AgentStepNode(**{f.name: getattr(step, f.name) for f in dataclasses.fields(step)}))
        assert step.max_iter == 4 and step.retry == RetryPolicy(max_attempts=1 + a.max_retry_limit,
                                                                 initial_delay=1.0, max_delay=20.0)


def test_a_template_builds_the_node_init_builds() -> None:
    shared: dict[str, Any] = dict(agent_role="r", max_iter=3, retry=RetryPolicy(max_attempts=2), llm=("model", 1))
    template = AgentStepNode.template(shared)
    own: dict[str, Any] = dict(id="t1.agent", task_name="t", description="d", expected_output="e", max_iter=5)
    built = template.build(own)
    _same(built, AgentStepNode(**{**shared, **own}))  # own values over the shared ones
    again = template.build(dict(own, id="t2.agent"))
    assert vars(again) is not vars(built) and again.llm is built.llm  # own dicts, shared values
    assert built.timeout == TimeoutPolicy() and own == dict(id="t1.agent", task_name="t", description="d",
                                                            expected_output="e", max_iter=5)  # not changed
    _same(pickle.loads(pickle.dumps(built)), built)


def test_a_template_runs_factories_and_checks_per_node() -> None:
    template = _Checked.template({"id": "n"})
    a, b = template.build({"size": 1}), template.build({"size": 2})
    _same(a, _Checked(id="n", size=1))
    assert a.tags == [] and a.tags is not b.tags  # the factory ran for each node
    with pytest.raises(ValueError, match="size must be >= 0"):
        template.build({"size": -1})
    with pytest.raises(TypeError, match=r"unexpected keyword argument\(s\) \['colour'\]"):
        template.build({"size": 1, "colour": "red"})
    with pytest.raises(TypeError, match=r"missing required argument\(s\) \['size'\]"):
        template.build({})
    with pytest.raises(TypeError, match=r"unexpected keyword argument\(s\) \['colour'\]"):
        _Checked.template({"colour": "red"})
    assert _Slotted.template({"id": "s"}).build({"size": 2}) == _Slotted(id="s", size=2)  # by its __init__
