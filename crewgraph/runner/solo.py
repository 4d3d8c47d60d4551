"""Running one task, or one agent, without a crew: a one-task crew on the one run path.

``Task.execute_sync`` and ``Agent.kickoff`` are CrewAI entry points on the
definitions; both build a :class:`~crewgraph.spec.crew.CrewSpec` holding just
that work and hand it to :func:`~crewgraph.runner.crew_run.run_crew`, so a
standalone run compiles to the same nodes (recall, step, convert, guardrails,
save) and runs on the same scheduler, with the same events, retries and
executed graph as a crew's task.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

from crewgraph.events.bus import crewgraph_event_bus
from crewgraph.outputs import LiteAgentOutput, TaskOutput
from crewgraph.runner.crew_run import run_crew
from crewgraph.spec.crew import CrewSpec
from crewgraph.spec.task import Task

if TYPE_CHECKING:
    from pydantic import BaseModel

    from crewgraph.graph.execution_graph import ExecutionGraph
    from crewgraph.spec.agent import Agent
    from crewgraph.spec.base_agent import BaseAgent

__all__ = ["kickoff_agent", "run_task"]

KICKOFF_EXPECTED_OUTPUT = "A complete, helpful answer to the user's last message."


def _solo_task(task: Task, agent: BaseAgent | None, tools: list[Any] | None) -> Task:
    from crewgraph.spec.duck_agent import as_base_agent

    who = as_base_agent(agent) if agent is not None else task.agent
    if who is None:
        raise ValueError(
            f"The task {task.display_name()!r} has no agent assigned, therefore it can't be executed "
            "directly: pass execute_sync(agent=...), or run it in a hierarchical crew"
        )
    update: dict[str, Any] = {"agent": who, "context": [], "async_execution": False}
    if tools is not None:
        update["tools"] = list(tools)
    elif agent is not None and task._tools_from_agent:  # the task had its first agent's tools
        update["tools"] = list(agent.tools)
    copy = task.model_copy(update=update)
    copy._tools_from_agent = tools is None and task._tools_from_agent
    if type(copy) is not Task:  # a ConditionalTask run directly simply runs (no previous task)
        plain = Task(**{name: getattr(copy, name) for name in Task.model_fields})
        plain._tools_from_agent = copy._tools_from_agent
        return plain
    return copy


async def run_task(
    task: Task, *, agent: BaseAgent | None = None, context: str | None = None, tools: list[Any] | None = None
) -> TaskOutput:
    """``Task.execute_sync``: run ``task`` alone (with ``agent``, extra ``context`` text and
    ``tools`` if given) and set ``task.output``."""
    solo = _solo_task(task, agent, tools)
    crew = CrewSpec(agents=[solo.agent], tasks=[solo], name=task.name or "task")
    hook = (lambda graph: _give_context(graph, context)) if context else None
    output = await run_crew(crew, {}, plan_hook=hook)
    result = output.tasks_output[0]
    task.record_output(result)
    return result


def _give_context(graph: ExecutionGraph, text: str) -> None:
    """Put ``text`` upstream of the task's step as a ``given_context`` node it reads as context."""
    from crewgraph.nodes.given_context import GivenContextNode

    plan = graph.meta["tasks"][0]
    step: Any = graph.node(plan["agent"])
    node = GivenContextNode(id=f"{plan['key']}.context", label="given context", text=text)
    graph.add_node(node, task=plan["key"])
    graph.add_edge(node.id, step.id, kind="context")
    _replace_step(graph, plan["key"], dataclasses.replace(step, context_nodes=(*tuple(step.context_nodes), node.id)))


async def kickoff_agent(
    agent: Agent, messages: str | list[dict[str, Any]], response_format: type[BaseModel] | None = None,
    input_files: dict[str, Any] | None = None,
) -> LiteAgentOutput:
    """``Agent.kickoff``: the agent answers ``messages`` (a text, or chat messages) on its own."""
    conversation = _messages(messages)
    last_user = next((m for m in reversed(conversation) if m.get("role") == "user"), conversation[-1])
    text = _text(last_user.get("content"))
    task = Task(
        name=f"{agent.role} kickoff",
        description=text or "Answer the conversation.",
        expected_output=KICKOFF_EXPECTED_OUTPUT,
        agent=agent,
        output_pydantic=response_format,
        input_files=dict(input_files or {}),
    )
    crew = CrewSpec(agents=[agent], tasks=[task], name=agent.role, checkpoint=agent.checkpoint)
    said = _LiteAgentEvents(agent, messages)
    try:
        output = await run_crew(crew, {}, plan_hook=lambda graph: _converse(graph, agent, conversation, response_format))
    except Exception as exc:
        await said.error(exc)
        raise
    result = output.tasks_output[0]
    await said.completed(result.raw)
    return LiteAgentOutput(
        raw=result.raw,
        pydantic=result.pydantic,
        agent_role=result.agent,
        usage_metrics=output.token_usage.model_dump(),
        messages=list(result.messages),
        tool_failures=list(result.tool_failures),
    )


class _LiteAgentEvents:
    """CrewAI's ``LiteAgentExecution*Event``s around one ``Agent.kickoff`` (built for listeners only)."""

    def __init__(self, agent: Agent, messages: str | list[dict[str, Any]]) -> None:
        from crewgraph.events.agent_events import LiteAgentExecutionStartedEvent

        self.agent = agent
        self.info: dict[str, Any] | None = None
        if crewgraph_event_bus.has_handlers(LiteAgentExecutionStartedEvent):
            self._emit(LiteAgentExecutionStartedEvent(
                agent_info=self._info(), messages=messages, tools=[t.name for t in agent.tools or ()]))

    def _info(self) -> dict[str, Any]:
        if self.info is None:
            a = self.agent
            self.info = {"id": str(a.id), "role": a.role, "goal": a.goal, "backstory": a.backstory,
                         "tools": [t.name for t in a.tools or ()], "verbose": bool(a.verbose)}
        return self.info

    def _emit(self, event: Any) -> None:
        event.agent_id, event.agent_role = str(self.agent.id), self.agent.role
        crewgraph_event_bus.emit(self.agent, event)

    async def completed(self, output: str) -> None:
        from crewgraph.events.agent_events import LiteAgentExecutionCompletedEvent

        if crewgraph_event_bus.has_handlers(LiteAgentExecutionCompletedEvent):
            self._emit(LiteAgentExecutionCompletedEvent(agent_info=self._info(), output=output))
            await crewgraph_event_bus.adrain()  # handlers have seen it when kickoff returns

    async def error(self, exc: BaseException) -> None:
        from crewgraph.events.agent_events import LiteAgentExecutionErrorEvent

        if crewgraph_event_bus.has_handlers(LiteAgentExecutionErrorEvent):
            self._emit(LiteAgentExecutionErrorEvent(agent_info=self._info(), error=str(exc)))
            await crewgraph_event_bus.adrain()


def _converse(
    graph: ExecutionGraph, agent: Agent, conversation: list[dict[str, Any]], response_format: type[BaseModel] | None
) -> None:
    """Start the step from the agent's system prompt and the given conversation (not a task prompt)."""
    import json

    from crewgraph.nodes._prompts import system_prompt

    plan = graph.meta["tasks"][0]
    step: Any = graph.node(plan["agent"])
    system = system_prompt(agent.role, agent.goal, agent.backstory, agent.system_template)
    if response_format is not None:
        system += (
            "\n\nYour final answer must be a single JSON object that matches this JSON schema, with no "
            "other text:\n" + json.dumps(response_format.model_json_schema(), indent=2)
        )
    turns = [dict(m) for m in conversation if m.get("role") != "system"]
    if step.input_files:  # kickoff(input_files=...): the files go with the last user message
        from crewgraph._internal.input_files import content_parts

        text, parts = content_parts(list(step.input_files))
        last = max(i for i, m in enumerate(turns) if m.get("role") == "user")
        said = str(turns[last].get("content") or "")
        said = f"{said}\n\n{text}" if text else said
        turns[last]["content"] = [{"type": "text", "text": said}, *parts] if parts else said
    messages = ({"role": "system", "content": system}, *turns)
    _replace_step(graph, plan["key"], dataclasses.replace(step, base_messages=tuple(messages)))


def _replace_step(graph: ExecutionGraph, key: str, step: Any) -> None:
    """Put ``step`` in the plan, and in the redo templates its guardrails hold."""
    graph.replace_node(step)
    for nid in list(graph.digraph.nodes):
        if nid.startswith(key + "."):
            held: Any = graph.node(nid)
            redo = getattr(held, "redo", None)
            if redo:
                fixed = tuple(step if n.id == step.id else n for n in redo)
                graph.replace_node(dataclasses.replace(held, redo=fixed))


def _messages(messages: str | list[dict[str, Any]]) -> list[dict[str, Any]]:
    if isinstance(messages, str):
        if not messages.strip():
            raise ValueError("Agent.kickoff needs a message: the text is empty")
        return [{"role": "user", "content": messages}]
    if not isinstance(messages, list) or not messages:
        raise ValueError("Agent.kickoff takes a text or a non-empty list of {'role', 'content'} messages")
    out: list[dict[str, Any]] = []
    for i, m in enumerate(messages):
        if not isinstance(m, dict) or m.get("role") not in ("system", "user", "assistant") or "content" not in m:
            raise ValueError(
                f"Agent.kickoff messages[{i}] must be a dict with 'role' (system, user or assistant) and "
                f"'content', got {m!r}"
            )
        out.append(dict(m))
    if not any(m["role"] == "user" for m in out):
        raise ValueError("Agent.kickoff messages need at least one 'user' message")
    return out


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # content parts
        return " ".join(str(p.get("text", "")) for p in content if isinstance(p, dict)).strip()
    return str(content or "")
