"""The base of every tool that calls a hosted service: its key, its address, and the compile check.

A hosted tool reads its API key from the field CrewAI names (``api_key``...)
or from the environment variable CrewAI documents (``SERPER_API_KEY``...),
at call time, so a key exported after the tool was built still counts. A
missing key is reported by :meth:`config_problems`, which the crew compiler
calls for every tool: the crew fails before the first token is spent, naming
the tool and the variable, instead of failing at the first call.

The base URL comes from ``base_url=``, then the service's ``*_BASE_URL``
variable, then the real address — which is how tests and the docs point the
tools at a local fake on 127.0.0.1.

Unknown constructor arguments are rejected (``extra="forbid"``), and CrewAI
options that crewgraph does not implement are rejected with a reason
(``_unsupported``), never silently ignored.

Each tool instance keeps one pooled ``httpx.Client`` (opened on the first
call, bounded by ``timeout``), so repeated calls reuse their connections;
:meth:`HostedTool.close` closes it, and it is closed when the tool is
garbage-collected. It lives outside the pydantic model, keyed by the
instance, so copying a tool (``model_copy``, ``deepcopy``) never shares or
tries to copy a live client: the copy opens its own.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import threading
import weakref
from pathlib import Path
from typing import Any, ClassVar

from pydantic import ConfigDict, Field, model_validator

from crewgraph.toolkit._http import call_json, call_text, new_client
from crewgraph.tools.base_tool import BaseTool
from crewgraph.tools.tool_failure import ToolFailure

__all__ = ["HostedTool", "first_env", "missing_library", "save_results"]


def first_env(*names: str) -> str | None:
    """The value of the first of ``names`` that is set and not empty."""
    for name in names:
        value = os.environ.get(name)
        if value:
            return value
    return None


def missing_library(tool: str, module: str, install: str) -> str:
    """The message for a tool whose optional library is not installed."""
    return f"{tool} needs the {module!r} library, which is not installed: pip install {install}"


_CLIENTS: dict[int, Any] = {}
"""id(tool) -> its pooled httpx.Client (see the module doc)."""
_CLIENTS_LOCK = threading.Lock()


def _drop_client(key: int) -> None:
    with _CLIENTS_LOCK:
        client = _CLIENTS.pop(key, None)
    if client is not None:
        client.close()


def save_results(results: Any) -> Path:
    """Write ``results`` to ``search_results_<time>.txt`` (CrewAI's ``save_file=True``); the path written."""
    stamp = _dt.datetime.now().strftime("%Y-%m-%d_%H-%M-%S")
    path = Path(f"search_results_{stamp}.txt")
    text = results if isinstance(results, str) else json.dumps(results, indent=2, ensure_ascii=False)
    path.write_text(text, encoding="utf-8")
    return path


class HostedTool(BaseTool):
    """Shared fields (``api_key``, ``base_url``, ``timeout``) and key/URL resolution."""

    model_config = ConfigDict(arbitrary_types_allowed=True, extra="forbid")

    api_key: str | None = Field(default=None, repr=False, exclude=True, description="API key (else the environment variable)")
    base_url: str | None = Field(default=None, description="API address (else the *_BASE_URL variable, else the service)")
    timeout: float = Field(default=30.0, gt=0, description="Seconds allowed for each request")

    _service: ClassVar[str] = "the service"
    _key_envs: ClassVar[tuple[str, ...]] = ()
    """Environment variables holding the key, the documented one first; empty: no key needed."""
    _base_env: ClassVar[str | None] = None
    _default_base: ClassVar[str] = ""
    _other_envs: ClassVar[tuple[str, ...]] = ()
    """Other environment variables CrewAI declares for the tool (a second credential, a project id)."""
    _unsupported: ClassVar[dict[str, str]] = {}
    """CrewAI constructor options this tool rejects, and why."""

    @classmethod
    def env_var_names(cls) -> tuple[str, ...]:
        """Every environment variable the tool reads, the key's first (CrewAI's ``env_vars``)."""
        names = [*cls._key_envs, *cls._other_envs]
        if cls._base_env:
            names.append(cls._base_env)
        return tuple(dict.fromkeys(names))

    @model_validator(mode="before")
    @classmethod
    def _reject_unsupported(cls, data: Any) -> Any:
        if isinstance(data, dict):
            for name, reason in cls._unsupported.items():
                if data.get(name) not in (None, False):
                    raise ValueError(f"{cls.__name__}({name}=...) is not supported: {reason}")
        return data

    # the pooled client ----------------------------------------------------
    def http_client(self) -> Any:
        """This tool's pooled ``httpx.Client`` (opened on first use; see the module doc)."""
        key = id(self)
        with _CLIENTS_LOCK:
            client = _CLIENTS.get(key)
            if client is None or client.is_closed:
                client = _CLIENTS[key] = new_client(self.timeout)
                weakref.finalize(self, _drop_client, key)
        return client

    def close(self) -> None:
        """Close the pooled HTTP client (a later call opens a new one)."""
        _drop_client(id(self))

    # key and address -----------------------------------------------------
    def resolved_key(self) -> str | None:
        """The key from ``api_key`` or the environment (None when there is none)."""
        return self.api_key or first_env(*self._key_envs)

    def _key_hint(self) -> str:
        return f"set {self._key_envs[0]} or pass api_key=..." if self._key_envs else ""

    def config_problems(self) -> list[str]:
        """A missing key, named with its environment variable (see the module doc), and missing extras."""
        problems = super().config_problems()
        if self._key_envs and not self.resolved_key():
            problems.append(f"{type(self).__name__} needs a {self._service} API key: {self._key_hint()}")
        return problems

    def _key_or_failure(self) -> str | ToolFailure:
        key = self.resolved_key()
        if key:
            return key
        return ToolFailure(
            message=f"{type(self).__name__} has no {self._service} API key: {self._key_hint()}",
            code="missing_api_key",
        )

    def endpoint(self, path: str = "") -> str:
        """``path`` under the base URL (argument, then environment, then the real service)."""
        base = self.base_url or (first_env(self._base_env) if self._base_env else None) or self._default_base
        return base.rstrip("/") + path

    def _call(
        self,
        method: str,
        path: str,
        *,
        headers: dict[str, str] | None = None,
        json_body: Any = None,
        params: dict[str, Any] | None = None,
        url: str | None = None,
        data: Any = None,
        files: Any = None,
    ) -> Any | ToolFailure:
        return call_json(
            method,
            url or self.endpoint(path),
            service=self._service,
            headers=headers,
            json_body=json_body,
            params=params,
            timeout=self.timeout,
            key_hint=self._key_hint() or None,
            data=data,
            files=files,
            client=self.http_client(),
        )

    def _call_text(
        self,
        method: str,
        path: str,
        *,
        headers: dict[str, str] | None = None,
        json_body: Any = None,
        params: dict[str, Any] | None = None,
        url: str | None = None,
    ) -> str | ToolFailure:
        return call_text(
            method,
            url or self.endpoint(path),
            service=self._service,
            headers=headers,
            json_body=json_body,
            params=params,
            timeout=self.timeout,
            key_hint=self._key_hint() or None,
            client=self.http_client(),
        )
