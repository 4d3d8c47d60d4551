"""The agent step's side of ``respect_context_window`` (a mixin of :class:`AgentStepNode`).

Before each turn the conversation is made to fit the model's window: the one
the model reports (``get_context_window_size()``), or the budget learnt from
an earlier "context length exceeded" refusal in this step. A refusal shortens
the conversation and the turn is sent again once; refused again, or with
``respect_context_window=False``, the step fails with an error that names the
agent, the task and the fix, and is not retried (the same conversation would
be refused again). The pure message surgery lives in :mod:`._context_window`.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from crewgraph._internal.interpolate import interpolate
from crewgraph.errors import LLMError
from crewgraph.events.llm_events import (
    ContextWindowSummarizationCompletedEvent,
    ContextWindowSummarizationFailedEvent,
    ContextWindowSummarizationStartedEvent,
)
from crewgraph.graph.context import NodeContext
from crewgraph.llm import _served_window as served
from crewgraph.nodes import _context_window as window
from crewgraph.nodes._llm_call import call_llm, resolve_llm
from crewgraph.outputs import UsageMetrics

__all__ = ["ContextWindowSteps"]

_log = logging.getLogger("crewgraph.agent")


class ContextWindowSteps:
    """Context-window handling for a node with ``llm``, ``task_name``, ``agent_role``,
    ``rpm_keys`` and ``respect_context_window`` fields, over a loop with ``messages``."""

    llm: Any
    task_name: str
    agent_role: str
    rpm_keys: tuple[str, ...]
    respect_context_window: bool
    max_tokens: int | None

    def _budget_for(self, llm: Any, size: int, specs: list[Any] | None) -> int:
        """Tokens the conversation may take in a ``size``-token window: the usable share, less room
        for the reply (``max_tokens``: a server counts the answer inside the window too) and the
        tools' schemas."""
        reply = self.max_tokens or getattr(llm, "max_tokens", None)
        budget = int(size * window.USABLE_FRACTION)
        if isinstance(reply, int) and reply > 0:
            budget = min(budget, size - reply - 64)
        return budget - sum(len(str(s)) // 4 for s in specs or ())

    async def _fit_window(self, ctx: NodeContext, llm: Any, loop: Any, specs: list[Any] | None,
                          budget: int | None = None) -> UsageMetrics:
        """Make ``loop.messages`` fit ``budget`` (default: the model's window, or the learnt budget)."""
        if budget is None:
            if served.needs_probe(llm):  # once per endpoint and model: what the server really serves
                await asyncio.to_thread(served.served_window_of, llm)
            size = window.context_window_of(llm)
            if size is not None:
                budget = self._budget_for(llm, size, specs)
            if loop.window_budget is not None:
                budget = loop.window_budget if budget is None else min(budget, loop.window_budget)
            if budget is None:
                return UsageMetrics()
        used = UsageMetrics()
        # the names as the run filled them in ("task 'research cats'", not "'research {topic}'")
        task_name, agent_role = interpolate(self.task_name, ctx.inputs), interpolate(self.agent_role, ctx.inputs)
        said = _Summarization(ctx, task_name, agent_role, len(loop.messages))

        async def summarize(text: str) -> str:
            nonlocal used
            own = resolve_llm(self.llm, ctx, f"task {task_name!r}")
            said.started(getattr(own, "model", None))
            prompt = [{"role": "system", "content": window.SUMMARY_PROMPT}, {"role": "user", "content": text}]
            try:
                reply = await call_llm(ctx, own, prompt, rpm_keys=self.rpm_keys)
            except Exception as exc:
                said.failed(exc)
                raise
            used = used.add(reply.usage)
            return reply.content or ""

        fitted = await window.fit_messages(loop.messages, max(budget, 256), summarize)
        said.completed(len(fitted) if fitted is not None else None)
        if fitted is not None:
            _log.info(
                "task %r: conversation of ~%d tokens shortened to ~%d to fit the model's context window",
                task_name, window.estimate_tokens(loop.messages), window.estimate_tokens(fitted),
            )
            loop.messages = fitted
            loop.compressions += 1
        loop.usage = loop.usage.add(used)
        return used

    async def _overflowed(self, ctx: NodeContext, llm: Any, loop: Any, specs: list[Any] | None,
                          exc: BaseException) -> UsageMetrics:
        """A server refused the conversation as too long: shorten it (and remember the budget)."""
        if not self.respect_context_window:
            raise self._overflow_error(
                llm, loop, exc, "and respect_context_window=False; set it to True to summarise older turns"
            ) from exc
        stated = served.window_from_refusal(str(exc))
        if stated is not None:
            # The refusal says the window (llama.cpp, vLLM, OpenAI): remember it for every later
            # step on this endpoint and model, and fit this conversation to it.
            served.learn_window(served.endpoint_of(llm), str(getattr(llm, "model", "")), stated)
            budget = self._budget_for(llm, stated, specs)
            counted = served.requested_from_refusal(str(exc))
            estimated = window.estimate_tokens(loop.messages)
            if counted is not None and counted > estimated > 0:
                # The server's tokenizer counts more than the ~4-characters estimate: scale down.
                budget = int(budget * estimated / counted)
        else:
            # The server refused ~size tokens, whatever window the client reports: aim well below.
            budget = int(window.estimate_tokens(loop.messages) * 0.6)
        if loop.window_budget is not None:
            budget = min(budget, int(loop.window_budget * 0.8))
        loop.window_budget = budget
        loop.notes = (*loop.notes,
            f"the server refused the conversation (~{window.estimate_tokens(loop.messages)} tokens) as longer "
            f"than its context window{f' of {stated} tokens' if stated else ''}; it was shortened to "
            f"~{budget} tokens and sent again",
        )
        return await self._fit_window(ctx, llm, loop, specs, budget=budget)

    def _step_name(self) -> str:
        return f"Agent {self.agent_role!r} on task {self.task_name!r}"

    def _overflow_error(self, llm: Any, loop: Any, exc: BaseException, why: str) -> LLMError:
        err = LLMError(
            f"{loop.who or self._step_name()}: the conversation "
            f"(~{window.estimate_tokens(loop.messages)} tokens) exceeds the context window of model "
            f"{getattr(llm, 'model', '?')!r} {why}: {exc}"
        )
        err.retryable = False
        return err


class _Summarization:
    """CrewAI's ``ContextWindowSummarization*Event``s of one fitting: started with the first
    summary call, then completed, or failed when a summary call raised (the older turns are
    dropped instead). Built only for a listener."""

    __slots__ = ("_ctx", "_labels", "_messages", "_model", "_state")

    def __init__(self, ctx: NodeContext, task_name: str | None, agent_role: str | None, messages: int) -> None:
        self._ctx, self._messages = ctx, messages
        self._labels = {"task_name": task_name, "agent_role": agent_role}
        self._model: str | None = None
        self._state = "idle"

    def started(self, model: str | None) -> None:
        if self._state != "idle":
            return
        self._state, self._model = "started", model
        if self._ctx.wants(ContextWindowSummarizationStartedEvent):
            self._ctx.emit(ContextWindowSummarizationStartedEvent(
                model=model, message_count=self._messages, **self._labels))

    def failed(self, exc: BaseException) -> None:
        if self._state != "started":
            return
        self._state = "failed"
        if self._ctx.wants(ContextWindowSummarizationFailedEvent):
            self._ctx.emit(ContextWindowSummarizationFailedEvent(
                model=self._model, error=f"{type(exc).__name__}: {exc}", **self._labels))

    def completed(self, remaining: int | None) -> None:
        if self._state != "started":
            return
        self._state = "completed"
        if self._ctx.wants(ContextWindowSummarizationCompletedEvent):
            self._ctx.emit(ContextWindowSummarizationCompletedEvent(
                model=self._model, message_count=self._messages, remaining_count=remaining, **self._labels))
