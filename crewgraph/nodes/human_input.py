"""Who reviews a ``Task(human_input=True)`` answer, and how a crew pauses for that review.

CrewAI shows the agent's final answer to a person and loops: feedback makes
the agent revise and ask again; an empty reply accepts the answer. The crew's
``input_provider`` is who answers:

- ``None``: ``input()`` on the terminal (CrewAI's behaviour);
- a callable ``fn(prompt) -> str``, or an object with ``ask(prompt, timeout=None)``
  (the flow providers of :mod:`crewgraph.flow.human_feedback` are such objects);
- ``"persisted"`` or a ``PersistedInputProvider()``: nobody answers now. With
  checkpointing on, the agent step returns a *pending* result instead of
  blocking: the run is saved as paused with the question, the draft answer and
  the conversation so far, and ``crew.resume(run_id, answer)`` continues it
  later, in any process, from that point -- no model call is made again.

The answers given on resume and the conversations to continue reach the agent
steps through :class:`HumanInputState` in the run state (``RunState.extras``),
which the crew runner fills from the checkpoint.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from typing import Any

from crewgraph._internal.interpolate import interpolate
from crewgraph.errors import ConfigurationError
from crewgraph.graph.context import NodeContext

__all__ = [
    "HUMAN_INPUT_KEY",
    "HumanInputState",
    "ask_provider",
    "paused_loop",
    "pending",
    "provider_pauses",
    "review",
    "review_prompt",
    "training_review",
]

HUMAN_INPUT_KEY = "crewgraph.human_input"
"""Key of the run's :class:`HumanInputState` in ``RunState.extras``."""


@dataclass
class HumanInputState:
    """What a pausable crew run knows about its human reviews.

    ``answers``: the answers given so far, by question key (``<node id>#<n>``, the n-th
    review of that step). ``paused``: per agent step id, the conversation it paused
    with (taken, once, by the step when it runs again on resume).
    """

    answers: dict[str, str] = field(default_factory=dict)
    paused: dict[str, Any] = field(default_factory=dict)

    def take(self, node_id: str) -> Any:
        """The conversation ``node_id`` paused with, or None (each is continued once)."""
        return self.paused.pop(node_id, None)


def provider_pauses(provider: Any) -> bool:
    """Whether this provider pauses the run instead of answering (``"persisted"``)."""
    return provider == "persisted" or getattr(provider, "pauses", False) is True


async def ask_provider(provider: Any, prompt: str) -> str:
    """Ask a non-pausing provider (off the event loop: it may block on a person).

    The end of input (stdin closed) accepts the answer: nobody is there to give feedback.
    """
    if provider is None or provider == "console":
        provider = input
    ask = getattr(provider, "ask", None)
    try:
        if callable(ask):
            reply = await asyncio.to_thread(ask, prompt)
        else:
            reply = await asyncio.to_thread(provider, prompt)
    except EOFError:
        return ""
    return str(reply or "").strip()


# ---------------------------------------------------------------------- an agent step's review
# ``step`` is an AgentStepNode and ``loop`` its conversation (``reviews``, ``draft``, ``deadline``);
# read duck-typed here so this module does not import the node it serves.


def review_prompt(step: Any, answer: str, inputs: dict[str, Any] | None = None) -> str:
    """What the person is shown: the agent's final answer and how to reply (the role and task
    name with the kickoff's ``{placeholders}`` filled in from ``inputs``)."""
    role, task = interpolate(step.agent_role, inputs or {}), interpolate(step.task_name, inputs or {})
    return (
        f"\n## Final answer of {role} for task {task!r}:\n{answer}\n\n"
        "Give feedback to improve it, or press Enter to accept: "
    )


async def review(step: Any, ctx: NodeContext, loop: Any, answer: str) -> str | None:
    """The person's feedback on ``answer`` ("" accepts it), or None: pause for it.

    A pausing provider answers from the answers given on resume (the n-th review of
    the step has key ``<id>#<n>``); a question nobody answered yet pauses the run. A
    guardrail's redo is a child step, which cannot pause: its new answer is not
    reviewed again (docs/porting.md)."""
    provider = ctx.state.extras.get("input_provider")
    if not provider_pauses(provider):
        return await ask_provider(provider, review_prompt(step, answer, ctx.inputs))
    if step.feedback is not None or step.base_messages:
        return ""  # a redo, spawned by the task's guardrail
    state = ctx.state.extras.get(HUMAN_INPUT_KEY)
    if state is None:
        raise ConfigurationError(
            f"task {interpolate(step.task_name, ctx.inputs)!r} has human_input=True and the crew's input_provider pauses the "
            "run, but the run is not checkpointed: set Crew(checkpoint=True) so it can be resumed, "
            "or use another input provider"
        )
    key = f"{step.id}#{loop.reviews}"
    if key not in state.answers:
        return None
    loop.reviews += 1
    return str(state.answers[key]).strip()


async def training_review(step: Any, ctx: NodeContext, loop: Any, answer: str) -> str:
    """A ``Crew.train`` review, as CrewAI trains: the person sees the first answer once; their
    feedback makes the agent revise once, and that revision is final (it is not shown again).
    ``loop.training`` records ``initial_output``/``human_feedback``/``improved_output`` for the
    training run. An empty reply accepts the first answer, and nothing is learnt from it.
    A guardrail's redo is not reviewed (its answer is the revision the guardrail asked for)."""
    if step.feedback is not None or step.base_messages:
        return ""
    if loop.training is not None:
        if "improved_output" not in loop.training:
            loop.training["improved_output"] = answer
        return ""
    provider = ctx.state.extras.get("input_provider")
    if provider_pauses(provider):
        raise ConfigurationError(
            "Crew.train needs a person to answer each review while it runs, but the crew's "
            "input_provider pauses the run instead; train with the console or a callable input_provider"
        )
    feedback = await ask_provider(provider, review_prompt(step, answer, ctx.inputs))
    if not feedback:
        return ""
    loop.training = {"initial_output": answer, "human_feedback": feedback}
    return feedback


def pending(step: Any, loop: Any, answer: str, inputs: dict[str, Any] | None = None) -> dict[str, Any]:
    """What the paused run keeps: the question, the draft, and the conversation to continue.
    ``task`` stays the task's name as written: answers are keyed by it (or by ``key``)."""
    loop.draft = answer
    return {
        "task": step.task_name,
        "agent": step.agent_role,
        "question": review_prompt(step, answer, inputs).strip(),
        "key": f"{step.id}#{loop.reviews}",
        "draft": answer,
        "loop": loop,
    }


def paused_loop(step: Any, ctx: NodeContext) -> Any:
    """The conversation ``step`` paused with in an earlier process, if this run resumes it."""
    state = ctx.state.extras.get(HUMAN_INPUT_KEY)
    loop = state.take(step.id) if state is not None else None
    if loop is not None:
        seconds = step.timeout.seconds  # the wait for the person does not count
        loop.deadline = time.monotonic() + seconds if seconds else None
    return loop
