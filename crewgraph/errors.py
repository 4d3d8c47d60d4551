"""One exception hierarchy for everything crewgraph raises on purpose.

Every error a user can provoke derives from :class:`CrewGraphError`, so a
caller can catch the whole family with one ``except``; each subclass names
what went wrong (the task, the node, the field) in its message.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "BatchError",
    "CallbackError",
    "CheckpointError",
    "CompileError",
    "ConfigurationError",
    "CrewGraphError",
    "FlowDefinitionError",
    "GuardrailError",
    "LLMError",
    "LLMRateLimitError",
    "LoopGuardError",
    "MaxIterationsError",
    "NodeExecutionError",
    "NodeTimeoutError",
    "ReplayMismatchError",
    "RouterLabelError",
    "RunCancelledError",
    "StructuredOutputError",
    "ToolExecutionFailedError",
]


class CrewGraphError(Exception):
    """Base class of every error crewgraph raises deliberately.

    ``retryable`` tells the scheduler whether retrying the node can help;
    deliberate errors are final unless a subclass says otherwise.
    """

    retryable: bool = False


class CallbackError(CrewGraphError):
    """A user callback (``step_callback``, ``task_callback``, ``Task.callback``) raised.

    Names the callback, not the node that happened to call it; the original
    exception is the ``__cause__``. Not retried: retrying the node would repeat
    the model calls the callback was about, not the callback.
    """

    def __init__(self, message: str, *, callback: str = "", kind: str = "") -> None:
        super().__init__(message)
        self.callback = callback
        self.kind = kind


class ConfigurationError(CrewGraphError):
    """A definition (agent, task, crew, flow, project file) is invalid."""


class MissingExtraError(ConfigurationError, ImportError):
    """A capability needs an optional dependency that is not installed; the message names the
    extra that installs it (``pip install 'crewgraph[EXTRA]'``)."""

    def __init__(self, message: str, *, extra: str, module: str) -> None:
        super().__init__(message)
        self.extra = extra
        self.module = module


class CompileError(CrewGraphError, ValueError):
    """A crew or flow cannot be compiled into a valid execution graph.

    Also a ``ValueError`` (what CrewAI raises for bad definitions). Raised before any LLM call; ``task`` names the offending task (or flow
    method) and ``problems`` lists every problem found, not just the first.
    """

    def __init__(self, message: str, *, task: str | None = None, problems: list[str] | None = None):
        self.task = task
        self.problems = problems or [message]
        super().__init__(message)


class FlowDefinitionError(CompileError, ValueError):
    """A Flow class is invalid (raised at class definition; a ValueError, as in CrewAI)."""


class RouterLabelError(CrewGraphError, ValueError):
    """A flow router returned a label outside the ones it declared with ``emit=[...]``."""


class NodeExecutionError(CrewGraphError):
    """A node of the execution graph failed after its retries were exhausted."""

    def __init__(self, message: str, *, node_id: str | None = None, kind: str | None = None):
        self.node_id = node_id
        self.kind = kind
        super().__init__(message)


class NodeTimeoutError(NodeExecutionError):
    """A node ran longer than its timeout policy allows (retryable: the next try may be faster)."""

    retryable = True


class RunCancelledError(CrewGraphError):
    """The run was cancelled (by the user or because another node failed fatally)."""


class LLMError(CrewGraphError):
    """The language model call failed in a way retries could not fix."""

    def __init__(self, message: str, *, status_code: int | None = None, retryable: bool = False):
        self.status_code = status_code
        self.retryable = retryable
        super().__init__(message)


class LLMRateLimitError(LLMError):
    """The provider answered 429 (rate limited); ``retry_after`` is in seconds."""

    def __init__(self, message: str, *, retry_after: float | None = None):
        self.retry_after = retry_after
        super().__init__(message, status_code=429, retryable=True)


class StructuredOutputError(CrewGraphError):
    """The model's answer could not be turned into the requested pydantic model."""


class GuardrailError(CrewGraphError):
    """A task's guardrail kept rejecting the output after all retries."""

    def __init__(self, message: str, *, task: str | None = None, reason: str | None = None):
        self.task = task
        self.reason = reason
        super().__init__(message)


class MaxIterationsError(CrewGraphError):
    """An agent step hit ``max_iter`` and could not produce a final answer."""


class LoopGuardError(CrewGraphError):
    """A flow executed more methods than its loop guard allows in one kickoff."""


class ToolExecutionFailedError(CrewGraphError):
    """A tool failed under the ``raise`` tool-failure policy.

    ``record`` is the :class:`crewgraph.tools.tool_failure.ToolFailureRecord`.
    """

    def __init__(self, message: str, *, record: object | None = None):
        self.record = record
        super().__init__(message)


class CheckpointError(CrewGraphError):
    """A checkpoint could not be written, read or resumed."""


class BatchError(CrewGraphError):
    """Some inputs of a ``kickoff_for_each`` batch failed; the others finished.

    ``results`` holds one entry per input in input order (the ``CrewOutput``, or None where it
    failed), ``failures`` maps each failed input's position to its error, and ``batch_id`` names
    the batch record when the batch is checkpointed: resuming it
    (``kickoff_for_each(inputs, from_checkpoint=batch_id)``) re-runs only the failed inputs.
    The first failure's exception is the ``__cause__``.
    """

    def __init__(self, message: str, *, batch_id: str | None, failures: dict[int, str],
                 results: list[Any]) -> None:
        super().__init__(message)
        self.batch_id = batch_id
        self.failures = failures
        self.results = results


class ReplayMismatchError(CrewGraphError):
    """A replayed LLM request differs from the recorded one (the message shows the diff)."""
