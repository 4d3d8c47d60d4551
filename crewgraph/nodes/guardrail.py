"""``guardrail`` node: checks a task's output; on failure sends the reason back to the agent.

A guardrail is ``(TaskOutput) -> tuple[bool, Any]`` or a text an LLM judges
the output against. When it fails and retries remain, the node spawns a
re-run of the task's agent step (and convert step) carrying the reason as
feedback, then checks the new output against every guardrail up to and
including its own. Past ``max_retries`` it raises GuardrailError naming the
task and the last reason.
"""

from __future__ import annotations

import asyncio
import dataclasses
import inspect
from dataclasses import dataclass
from typing import Any, ClassVar

from pydantic import BaseModel, Field

from crewgraph._internal.interpolate import interpolate
from crewgraph.errors import CrewGraphError, GuardrailError
from crewgraph.events.guardrail_events import GuardrailCompletedEvent, GuardrailStartedEvent
from crewgraph.graph.context import NodeContext
from crewgraph.graph.node import Node, NodeResult
from crewgraph.nodes._llm_call import call_llm, resolve_llm
from crewgraph.outputs import TaskOutput, UsageMetrics

__all__ = ["GuardrailNode", "GuardrailVerdict", "guardrail_name"]


class GuardrailVerdict(BaseModel):
    """What an LLM judge answers for a text guardrail."""

    valid: bool = Field(description="True if the output satisfies the requirement")
    feedback: str = Field(default="", description="Why not, and what to change, when invalid")


def guardrail_name(check: Any) -> str:
    if isinstance(check, str):
        return check if len(check) <= 60 else check[:57] + "..."
    return str(getattr(check, "__name__", type(check).__name__))


@dataclass
class _State:
    output: TaskOutput
    retries: int
    reason: str
    redo_index: int = 0
    child_id: str = ""


@dataclass(frozen=True, kw_only=True)
class GuardrailNode(Node):
    """Checks ``checks[-1]`` on the upstream output (all ``checks`` after a redo)."""

    kind: ClassVar[str] = "guardrail"

    task_name: str
    checks: tuple[Any, ...]
    source_node: str
    max_retries: int = 3
    redo: tuple[Node, ...] = ()
    llm: Any = None
    rpm_keys: tuple[str, ...] = ()

    async def run(self, ctx: NodeContext) -> NodeResult:
        usage = UsageMetrics()
        if isinstance(ctx.resume, _State):
            state = ctx.resume
            produced = ctx.spawned.get(state.child_id)
            if isinstance(produced, TaskOutput):
                state.output = _carry_over(state.output, produced) if state.redo_index == 0 else produced
            state.redo_index += 1
            if state.redo_index < len(self.redo):
                return self._spawn_redo(state)
            checks = self.checks
        else:
            upstream = ctx.upstream.get(self.source_node)
            if not isinstance(upstream, TaskOutput):
                raise GuardrailError(
                    f"guardrail of task {self._name(ctx)!r} got no task output from {self.source_node!r}",
                    task=self._name(ctx),
                )
            state = _State(output=upstream, retries=0, reason="")
            checks = self.checks[-1:]
        for check in checks:
            ok, value, spent = await self._check(ctx, check, state.output, state.retries)
            usage = usage.add(spent)
            if spent is not None:  # a judge's tokens are the task's too
                state.output = state.output.model_copy(update={"token_usage": state.output.token_usage.add(spent)})
            if not ok:
                state.reason = str(value)
                if state.retries >= self.max_retries or not self.redo:
                    raise GuardrailError(
                        f"Task {self._name(ctx)!r} failed its guardrail {guardrail_name(check)!r} after "
                        f"{state.retries} retries. Last reason: {state.reason}",
                        task=self._name(ctx),
                        reason=state.reason,
                    )
                state.retries += 1
                state.redo_index = 0
                result = self._spawn_redo(state)
                result.usage = usage
                return result
            state.output = self._apply(state.output, value)
        return NodeResult(output=state.output, usage=usage, info={"guardrail_retries": state.retries})

    def _spawn_redo(self, state: _State) -> NodeResult:
        template = self.redo[state.redo_index]
        suffix = f"~redo{state.retries}"
        if state.redo_index == 0:
            child = dataclasses.replace(
                template,
                id=template.id + suffix,
                feedback=state.reason,  # type: ignore[call-arg]
                previous_output=state.output.raw,
                base_messages=tuple(state.output.messages[:2]),
            )
        else:
            child = dataclasses.replace(template, id=template.id + suffix, given=state.output)  # type: ignore[call-arg]
        state.child_id = child.id
        return NodeResult(spawn=[child], resume=state)

    async def _check(
        self, ctx: NodeContext, check: Any, output: TaskOutput, retry_count: int
    ) -> tuple[bool, Any, UsageMetrics | None]:
        name = guardrail_name(check)
        kind = "llm" if isinstance(check, str) else "function"
        if ctx.wants(GuardrailStartedEvent):
            ctx.emit(GuardrailStartedEvent(task_name=self._name(ctx), guardrail=name, guardrail_name=name,
                                           guardrail_type=kind, retry_count=retry_count))
        spent: UsageMetrics | None = None
        try:
            if isinstance(check, str):
                ok, value, spent = await self._judge(ctx, check, output)
            else:
                # An ``async def`` guardrail passes the Task's signature check, so it is awaited
                # here (on the loop) rather than failing as "returned a coroutine".
                if inspect.iscoroutinefunction(check) or inspect.iscoroutinefunction(getattr(check, "__call__", None)):  # noqa: B004
                    result = await check(output)
                else:
                    result = await asyncio.to_thread(check, output)
                ok, value = _unpack(result, name, self._name(ctx))
        except GuardrailError:
            raise
        except CrewGraphError as exc:
            if isinstance(check, str):
                # The judge model failed (HTTP error, no verdict): that says nothing about the
                # output, so it must not reach the agent as feedback and cost it a retry.
                raise GuardrailError(
                    f"Guardrail {name!r} of task {self._name(ctx)!r} could not be judged: {exc}",
                    task=self._name(ctx),
                ) from exc
            ok, value = False, f"guardrail raised {type(exc).__name__}: {exc}"
        except Exception as exc:
            ok, value = False, f"guardrail raised {type(exc).__name__}: {exc}"
        if ctx.wants(GuardrailCompletedEvent):
            ctx.emit(
                GuardrailCompletedEvent(
                    task_name=self._name(ctx),
                    guardrail=name,
                    guardrail_name=name,
                    guardrail_type=kind,
                    success=ok,
                    result=value if ok else None,
                    error=None if ok else str(value),
                    retry_count=retry_count,
                )
            )
        return ok, value, spent

    async def _judge(self, ctx: NodeContext, requirement: str, output: TaskOutput) -> tuple[bool, Any, UsageMetrics]:
        llm = resolve_llm(self.llm, ctx, f"guardrail of task {self._name(ctx)!r}")
        messages = [
            {
                "role": "system",
                "content": "You check whether a task's output meets a requirement. Be strict and concrete.",
            },
            {
                "role": "user",
                "content": f"Requirement:\n{requirement}\n\nOutput to check:\n{output.raw}\n\n"
                "Answer whether the output meets the requirement, and if not, what must change.",
            },
        ]
        reply = await call_llm(ctx, llm, messages, response_model=GuardrailVerdict, rpm_keys=self.rpm_keys)
        verdict = reply.parsed
        if not isinstance(verdict, GuardrailVerdict):
            from crewgraph.llm.structured import parse_model_output

            # A model client that ignored response_model: read its text (StructuredOutputError if
            # it holds no verdict, reported as "could not be judged" rather than as feedback).
            verdict = parse_model_output(reply.content, GuardrailVerdict)
        return verdict.valid, (output.raw if verdict.valid else verdict.feedback or "requirement not met"), reply.usage

    @staticmethod
    def _apply(output: TaskOutput, value: Any) -> TaskOutput:
        if isinstance(value, TaskOutput):
            return value
        if isinstance(value, str):
            return output.model_copy(update={"raw": value})
        if isinstance(value, BaseModel):
            return output.model_copy(update={"pydantic": value, "raw": value.model_dump_json()})
        return output

    def _name(self, ctx: NodeContext) -> str:
        """The task's name as the run filled it in (what every message and event says)."""
        return interpolate(self.task_name, ctx.inputs)

    def describe(self) -> dict[str, Any]:
        d = super().describe()
        d.update(task=self.task_name, guardrail=guardrail_name(self.checks[-1]), max_retries=self.max_retries)
        return d


def _carry_over(rejected: TaskOutput, redone: TaskOutput) -> TaskOutput:
    """The redone output, still accounting for the rejected attempt: its tokens were spent and
    its tool failures happened, so the task's usage and ``tool_failures`` keep them."""
    return redone.model_copy(
        update={
            "token_usage": rejected.token_usage.add(redone.token_usage),
            "tool_failures": [*rejected.tool_failures, *redone.tool_failures],
        }
    )


def _unpack(result: Any, name: str, task: str) -> tuple[bool, Any]:
    """A guardrail's ``(ok, value)``; anything else is a bug in the guardrail, not a failed
    check, so it is a GuardrailError naming the task and the guardrail (not retried)."""
    if isinstance(result, tuple) and len(result) == 2 and isinstance(result[0], bool):
        return result[0], result[1]
    shown = repr(result)
    raise GuardrailError(
        f"Guardrail {name!r} of task {task!r} must return a tuple (bool, Any), got "
        f"{type(result).__name__}: {shown if len(shown) <= 200 else shown[:200] + '...'}",
        task=task,
    )
