"""The lifecycle CrewAI's hosted code sandboxes share (E2B, Daytona): fresh, persistent, or attached.

* ``persistent=False`` (the default): each call creates a sandbox and destroys
  it when the call returns, so nothing leaks when an agent forgets to clean up.
* ``persistent=True``: one sandbox is created on first use, kept for the
  instance (files and state carry over between calls), and destroyed by
  :meth:`SandboxLifecycle.close` or at interpreter exit.
* ``sandbox_id=...``: attach to a sandbox the caller owns; never destroyed.

A failure anywhere inside a call is raised as :class:`SandboxFailure` and
returned by the tool as its :class:`ToolFailure`, so nested helpers need not
thread failures back by hand.
"""

from __future__ import annotations

import atexit
import threading
from typing import Any

from pydantic import BaseModel, Field, PrivateAttr

from crewgraph.tools.tool_failure import ToolFailure

__all__ = ["SandboxFailure", "SandboxLifecycle", "ok"]


_LOCK = threading.Lock()
"""Guards creating and dropping persistent sandboxes (one lock for all: a tool stays copyable)."""


class SandboxFailure(Exception):
    """A :class:`ToolFailure` on its way out of a sandbox call."""

    def __init__(self, failure: ToolFailure) -> None:
        super().__init__(failure.message)
        self.failure = failure


def ok(value: Any) -> Any:
    """``value``, or raise :class:`SandboxFailure` when it is a :class:`ToolFailure`."""
    if isinstance(value, ToolFailure):
        raise SandboxFailure(value)
    return value


class SandboxLifecycle(BaseModel):
    """Mixin for a sandbox tool: CrewAI's ``persistent`` and ``sandbox_id`` fields (see the module doc).

    Subclasses implement ``_create_sandbox()``, ``_attach_sandbox(id)`` and
    ``_destroy_sandbox(sandbox)``; :meth:`_in_sandbox` runs a function on the
    right sandbox and converts a :class:`SandboxFailure` to its failure.
    """

    persistent: bool = Field(
        default=False,
        description="Reuse one sandbox for every call of this tool instance (destroyed at close() or exit); "
        "default: a fresh sandbox per call, destroyed when the call returns",
    )
    sandbox_id: str | None = Field(
        default=None, description="Attach to this existing sandbox instead of creating one (never destroyed)"
    )
    _persistent_sandbox: Any = PrivateAttr(default=None)
    _exit_hook: bool = PrivateAttr(default=False)

    def _create_sandbox(self) -> Any:
        raise NotImplementedError

    def _attach_sandbox(self, sandbox_id: str) -> Any:
        raise NotImplementedError

    def _destroy_sandbox(self, sandbox: Any) -> None:
        raise NotImplementedError

    def _acquire(self) -> tuple[Any, bool]:
        """``(sandbox, destroy_after_use)``."""
        if self.sandbox_id:
            return self._attach_sandbox(self.sandbox_id), False
        if self.persistent:
            with _LOCK:
                if self._persistent_sandbox is None:
                    self._persistent_sandbox = self._create_sandbox()
                    if not self._exit_hook:
                        atexit.register(self.close_sandbox)
                        self._exit_hook = True
                return self._persistent_sandbox, False
        return self._create_sandbox(), True

    def _in_sandbox(self, work: Any) -> Any:
        """``work(sandbox)`` on the acquired sandbox; a :class:`SandboxFailure` becomes its failure."""
        try:
            sandbox, destroy = self._acquire()
        except SandboxFailure as exc:
            return exc.failure
        try:
            return work(sandbox)
        except SandboxFailure as exc:
            return exc.failure
        finally:
            if destroy:
                self._quietly_destroy(sandbox)

    def _quietly_destroy(self, sandbox: Any) -> None:
        try:
            self._destroy_sandbox(sandbox)
        except SandboxFailure:
            pass  # best effort: the service's own idle timeout reaps it

    def close_sandbox(self) -> None:
        """Destroy the persistent sandbox, if this tool created one."""
        with _LOCK:
            sandbox, self._persistent_sandbox = self._persistent_sandbox, None
        if sandbox is not None:
            self._quietly_destroy(sandbox)
