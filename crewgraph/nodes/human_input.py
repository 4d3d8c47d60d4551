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
from dataclasses import dataclass, field
from typing import Any

__all__ = ["HUMAN_INPUT_KEY", "HumanInputState", "ask_provider", "provider_pauses"]

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
