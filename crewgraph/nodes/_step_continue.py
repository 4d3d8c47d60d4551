"""Answers cut by ``max_tokens`` are continued, never taken as complete (a mixin of the agent step).

A reply whose ``finish_reason`` is ``"length"`` stopped because the token cap
was reached, not because the model was done: taking it as the answer reports
success with half a briefing (a guardrail may catch it, or may not). So the
step asks the model to go on from where it stopped, joins the pieces, and does
so up to :data:`MAX_CONTINUATIONS` times; an answer still cut after that fails
with a message naming the setting to raise. Each continuation is a note in the
step's run record.
"""

from __future__ import annotations

from typing import Any

from crewgraph.errors import LLMError
from crewgraph.graph.context import NodeContext
from crewgraph.nodes import _text_tools as text_tools
from crewgraph.nodes._llm_call import call_llm

__all__ = ["CONTINUE_MESSAGE", "MAX_CONTINUATIONS", "ContinuedAnswers"]

MAX_CONTINUATIONS = 3
"""Continuations of one cut answer before the step gives up (so 4x ``max_tokens`` at most)."""

CONTINUE_MESSAGE = (
    "Your answer was cut off by the output token limit. Continue it exactly where it stopped: "
    "do not repeat anything already written, do not start over, do not add a preamble."
)


def was_cut(reply: Any) -> bool:
    """True for a text reply the server stopped at its token cap."""
    return getattr(reply, "finish_reason", None) == "length" and not getattr(reply, "tool_calls", None) \
        and getattr(reply, "parsed", None) is None


class ContinuedAnswers:
    """Continuation for a node with ``task_name``, ``agent_role``, ``rpm_keys`` and ``max_tokens``."""

    task_name: str
    agent_role: str
    rpm_keys: tuple[str, ...]
    max_tokens: int | None

    async def _continue_cut(self, ctx: NodeContext, llm: Any, loop: Any, reply: Any) -> Any:
        """``reply`` (cut at ``max_tokens``) continued until the model finishes; the joined reply,
        its usage the sum of the calls. Raises a non-retryable :class:`LLMError` naming the
        setting when the answer is still cut after :data:`MAX_CONTINUATIONS` continuations."""
        text, usage = reply.content or "", reply.usage
        options = {"max_tokens": self.max_tokens} if self.max_tokens else None
        where = loop.who or f"Agent {self.agent_role!r} on task {self.task_name!r}"
        done = 0
        while was_cut(reply):
            if done >= MAX_CONTINUATIONS:
                cap = self.max_tokens or getattr(llm, "max_tokens", None)
                err = LLMError(
                    f"{where}: the answer was still cut at the output token limit "
                    f"({f'max_tokens={cap}' if cap else 'the server’s own limit'}) after {done} "
                    "continuations; raise the agent's max_tokens (or CREWGRAPH_LLM_MAX_TOKENS, or the "
                    "LLM's max_tokens), or ask for a shorter answer"
                )
                err.retryable = False
                raise err
            done += 1
            history = loop.messages if llm.supports_function_calling() else text_tools.text_history(loop.messages)
            messages = [*history, {"role": "assistant", "content": text},
                        {"role": "user", "content": CONTINUE_MESSAGE}]
            reply = await call_llm(ctx, llm, messages, rpm_keys=self.rpm_keys, options=options, where=where)
            usage = usage.add(reply.usage)
            text += reply.content or ""
        if done:
            loop.continuations += done
            loop.notes = (*loop.notes, f"the answer was cut at the output token limit and continued {done} "
                                       f"time{'s' if done > 1 else ''}")
        return reply.model_copy(update={"content": text, "usage": usage, "finish_reason": reply.finish_reason})
