"""The pieces of a task's chain that every crew process builds the same way.

A task's step (an agent's ``agent_step`` or the manager's ``manager_step``)
sits in a chain: ``recall`` before it, ``convert`` and ``guardrail`` nodes
after it, ``save`` off the end, and a plan-only ``tool`` node per tool it may
call. Sequential/parallel and hierarchical crews differ only in the step.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

from crewgraph.compiler._training import is_training, skills_context, trained_instructions
from crewgraph.graph.execution_graph import ExecutionGraph
from crewgraph.graph.node import Node
from crewgraph.graph.node_prefix import NodePrefix
from crewgraph.graph.policies import RetryPolicy, TimeoutPolicy
from crewgraph.ids import slugify
from crewgraph.nodes.convert import ConvertNode
from crewgraph.nodes.guardrail import GuardrailNode, guardrail_name
from crewgraph.spec.agent import Agent
from crewgraph.spec.task import Task

__all__ = [
    "add_output_chain",
    "add_reasoning",
    "add_recall",
    "add_tool_templates",
    "agent_fields",
    "agent_memory",
    "agent_tools",
    "rpm_keys",
    "step_fields",
    "task_step_fields",
]


def rpm_keys(crew: Any, agent: Agent) -> tuple[str, ...]:
    """The rate limiters an agent's model calls wait for (its own, then the crew's)."""
    keys: list[str] = []
    if agent.max_rpm:
        keys.append(f"agent:{agent.id}")
    if getattr(crew, "max_rpm", None):
        keys.append("crew")
    return tuple(keys)


def agent_memory(crew: Any, agent: Agent) -> Any:
    """The agent's own memory object, else True when the crew has memory, else None."""
    own = agent.memory
    if own is False:
        return None
    if own is not None and own is not True:
        return own
    return True if getattr(crew, "memory_enabled", False) else None


def agent_tools(task: Task, agent: Agent) -> list[Any]:
    """The tools an agent works a task with: the task's (else the agent's), plus the code
    interpreter for ``allow_code_execution`` agents (CrewAI gives them CodeInterpreterTool)."""
    tools = list(task.tools or agent.tools or [])
    if agent.allow_code_execution:
        from crewgraph.toolkit.code_interpreter_tool import CodeInterpreterTool

        if not any(isinstance(t, CodeInterpreterTool) for t in tools):
            timeout = min(agent.max_execution_time or 30.0, 300.0)
            tools.append(CodeInterpreterTool(timeout=timeout))
    return tools


def step_fields(crew: Any, task: Task, agent: Agent, name: str, tools: list[Any],
                context_nodes: Sequence[str], recall_id: str | None,
                agent_part: dict[str, Any] | None = None) -> dict[str, Any]:
    """Keyword arguments of the task's step node that come from the agent and the task.

    ``agent_part`` is :func:`agent_fields` of ``(crew, agent)`` when the caller keeps it per
    agent (a compile asks for the same agent once per task; its trained instructions read a
    file and its skills load theirs)."""
    fields = dict(agent_part if agent_part is not None else agent_fields(crew, agent))
    fields.update(task_step_fields(task, name, tools, context_nodes, recall_id, fields))
    return fields


def task_step_fields(task: Task, name: str, tools: list[Any], context_nodes: Sequence[str],
                     recall_id: str | None, agent_part: dict[str, Any]) -> dict[str, Any]:
    """The step's keyword arguments that come from the task, over :func:`agent_fields`
    (``agent_part``, read, not changed: the task's tool policy and human input join the agent's)."""
    structured = task.structured_model
    policies = agent_part["tool_policies"]
    return {
        "label": name,
        "task_name": name,
        "task_id": str(task.id),
        "description": task.description,
        "expected_output": task.expected_output,
        "tools": tuple(tools),
        # type(), not isinstance(): NodePrefix is a Sequence, and ABCMeta's check was a measurable
        # part of a 10,000-task compile
        "context_nodes": context_nodes if type(context_nodes) in (NodePrefix, tuple) else tuple(context_nodes),
        "memory_node": recall_id,
        "tool_policies": (task.tool_failure_policy, policies[1], policies[2]),
        "output_schema": structured.model_json_schema() if structured is not None else None,
        "human_input": task.human_input or agent_part["training"],
        "input_files": tuple(task.input_files.items()) if task.input_files else (),
        "resources": tuple(sorted(task.resources.items())) if task.resources else (),
    }


def agent_fields(crew: Any, agent: Agent) -> dict[str, Any]:
    """The step node's keyword arguments that depend only on the agent and the crew (the
    same for each of the agent's tasks in one compile; the policies are immutable and shared)."""
    training = is_training(crew)
    return dict(
        agent_role=agent.role,
        agent_goal=agent.goal,
        agent_backstory=agent.backstory,
        system_template=agent.system_template,
        llm=agent.llm if agent.llm is not None else getattr(crew, "llm", None),
        function_calling_llm=agent.function_calling_llm,
        max_iter=agent.max_iter,
        tool_policies=(None, agent.tool_failure_policy, getattr(crew, "tool_failure_policy", None)),
        cache=bool(agent.cache) and bool(getattr(crew, "cache", True)),
        max_tool_result_chars=agent.max_tool_result_chars,
        rpm_keys=rpm_keys(crew, agent),
        human_input=training,
        training=training,
        trained_instructions=trained_instructions(crew, agent),
        skills_context=skills_context(agent, crew),
        step_callbacks=tuple(cb for cb in (agent.step_callback, getattr(crew, "step_callback", None)) if cb),
        retry=RetryPolicy(max_attempts=1 + agent.max_retry_limit, initial_delay=1.0, max_delay=20.0),
        timeout=TimeoutPolicy(agent.max_execution_time),
        max_tokens=agent.max_tokens,
        date_format=agent.date_format if agent.inject_date else None,
        respect_context_window=agent.respect_context_window,
        multimodal=agent.multimodal,
    )


def add_reasoning(graph: ExecutionGraph, crew: Any, task: Task, agent: Agent, step: Any) -> str | None:
    """The agent's ``reasoning`` node before its step (``Agent(reasoning=True)``); returns its id."""
    if not agent.planning_enabled:
        return None
    config = agent.planning_config
    import dataclasses

    from crewgraph.nodes.reasoning import ReasoningNode

    node_id = step.id.rsplit(".", 1)[0] + ".reasoning"
    node = ReasoningNode(
        id=node_id,
        label=f"reasoning: {step.task_name}",
        task_name=step.task_name,
        description=task.description,
        expected_output=task.expected_output,
        agent_role=agent.role,
        agent_goal=agent.goal,
        agent_backstory=agent.backstory,
        system_template=agent.system_template,
        tool_names=tuple(t.name for t in step.tools),
        llm=config.llm if config is not None and config.llm is not None else step.llm,
        max_attempts=config.max_attempts if config is not None and config.max_attempts else agent.max_reasoning_attempts,
        rpm_keys=step.rpm_keys,
        max_tokens=agent.max_tokens,
    )
    graph.add_node(node, task=step.id.rsplit(".", 1)[0])
    graph.replace_node(dataclasses.replace(step, reasoning_node=node_id))
    graph.add_edge(node_id, step.id, kind="reasoning")
    return node_id


def add_recall(graph: ExecutionGraph, key: str, name: str, task: Task, memory_obj: Any) -> str | None:
    """The task's memory recall node, when the agent has memory; returns its id."""
    if memory_obj is None:
        return None
    from crewgraph.nodes.memory_recall import MemoryRecallNode

    recall_id = f"{key}.recall"
    graph.add_node(
        MemoryRecallNode(
            id=recall_id,
            label=f"recall: {name}",
            task_name=name,
            query=task.description,
            memory=memory_obj if memory_obj is not True else None,
        ),
        task=key,
    )
    return recall_id


def add_tool_templates(graph: ExecutionGraph, key: str, step_id: str, tools: list[Any]) -> None:
    """A plan-only ``tool`` node per tool, joined to the step by a dashed "may call" edge."""
    if not tools:  # the import below, run for each task, was a twentieth of a toolless compile
        return
    from crewgraph.nodes.tool_call import ToolTemplateNode

    for tool in tools:
        name = tool.name
        tid = f"{key}.tool.{_tool_slug(name)}"
        if tid not in graph:
            graph.add_node(ToolTemplateNode.assemble(id=tid, label=name, tool=tool), task=key)
        graph.add_edge(step_id, tid, kind="may_call")


@functools.lru_cache(maxsize=1024)
def _tool_slug(name: str) -> str:
    """``slugify(name, 30)``: a crew's few tool names, asked again for each task that has them."""
    return slugify(name, 30)


def task_guardrails(task: Task) -> tuple[list[Any], int]:
    """The checks a task's answer must pass and how many redos they allow: the task's own
    guardrails, then its agent's ``guardrail`` (``Agent(guardrail=...)`` applies to all its tasks)."""
    checks = task.all_guardrails  # a new list each time
    task_has_checks = bool(checks)
    own = getattr(task.agent, "guardrail", None)
    if own is not None and own not in checks:
        checks.append(own)
    if task_has_checks or own is None:
        return checks, task.guardrail_max_retries
    return checks, int(getattr(task.agent, "guardrail_max_retries", task.guardrail_max_retries))


def add_output_chain(graph: ExecutionGraph, task: Task, key: str, name: str, step: Any,
                     memory_obj: Any) -> str:
    """Add convert, guardrail and memory-save nodes after ``step``; return the task's final node id."""
    final = step.id
    redo: list[Node] = [step]
    structured = task.structured_model
    if structured is not None:
        convert = ConvertNode.assemble(
            id=f"{key}.convert",
            label=structured.__name__,
            task_name=name,
            source_node=step.id,
            model=structured,
            as_json=task.output_json is not None and task.output_pydantic is None,
            llm=step.llm,
            rpm_keys=step.rpm_keys,
        )
        graph.add_node(convert, task=key)
        graph.add_edge(final, convert.id, kind="convert")
        final = convert.id
        redo.append(convert)
    checks, max_retries = task_guardrails(task)
    for j in range(len(checks)):
        node = GuardrailNode.assemble(  # GuardrailNode(...) without a __setattr__ call per field
            id=f"{key}.guardrail{j + 1}",
            label=guardrail_name(checks[j]),
            task_name=name,
            checks=tuple(checks[: j + 1]),
            source_node=final,
            max_retries=max_retries,
            redo=tuple(redo),
            llm=step.llm,
            rpm_keys=step.rpm_keys,
        )
        graph.add_node(node, task=key)
        graph.add_edge(final, node.id, kind="guardrail")
        final = node.id
    if memory_obj is not None and not getattr(memory_obj, "read_only", False):
        from crewgraph.nodes.memory_save import MemorySaveNode

        save = MemorySaveNode(
            id=f"{key}.save",
            label=f"save: {name}",
            task_name=name,
            agent_role=step.agent_role,
            source_node=final,
            memory=memory_obj if memory_obj is not True else None,
        )
        graph.add_node(save, task=key)
        graph.add_edge(final, save.id, kind="memory")
    return final
