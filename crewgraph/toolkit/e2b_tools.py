"""E2B's sandbox tools (E2BExecTool, E2BFileTool, E2BPythonTool): E2B's documented APIs over httpx.

Three planes, as E2B's SDK speaks them (no ``e2b`` package is needed):

* the control API, ``https://api.{domain}`` (``E2B_DOMAIN``, default
  ``e2b.app``; ``E2B_API_URL`` or ``base_url=`` overrides it), with the key in
  ``X-API-KEY``: ``POST /sandboxes`` creates one from ``template``
  (``timeout``, ``metadata``, ``envVars``), ``POST /sandboxes/{id}/connect``
  attaches, ``DELETE /sandboxes/{id}`` kills;
* the sandbox's ``envd`` on port 49983, with the sandbox's access token in
  ``X-Access-Token`` and the user (``user``) in basic auth: commands are
  Connect RPC's server stream ``process.Process/Start`` (JSON envelopes:
  start, stdout/stderr data in base64, end with the exit code), files are
  ``GET``/``POST /files`` and the unary ``filesystem.Filesystem/*`` calls;
* the code interpreter's Jupyter bridge on port 49999: ``POST /execute``
  answers a stream of JSON lines (stdout, stderr, results, error, the
  execution count), read into CrewAI's result shape.

A sandbox is ``https://{port}-{id}.{domain}``; with ``E2B_SANDBOX_URL`` (or
``sandbox_url=``), every sandbox request goes to that one address with the
``E2b-Sandbox-Id`` / ``E2b-Sandbox-Port`` headers, which is how E2B-compatible
gateways (and the tests' stand-in) route them. The lifecycle (fresh,
``persistent``, ``sandbox_id``) is :mod:`crewgraph.toolkit._sandboxes`'.
"""

from __future__ import annotations

import base64
import json
import posixpath
import struct
from dataclasses import dataclass
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, Field, SecretStr, field_validator, model_validator

from crewgraph.toolkit._hosted import HostedTool, first_env
from crewgraph.toolkit._http import call_bytes
from crewgraph.toolkit._sandboxes import SandboxFailure, SandboxLifecycle, ok
from crewgraph.tools.tool_failure import ToolFailure

__all__ = ["E2BExecTool", "E2BExecToolSchema", "E2BFileTool", "E2BFileToolSchema", "E2BPythonTool",
           "E2BPythonToolSchema"]

ENVD_PORT = 49983
JUPYTER_PORT = 49999
_USER = "user"
_FILE_TYPES = {"FILE_TYPE_FILE": "file", "FILE_TYPE_DIRECTORY": "dir"}


@dataclass
class _Sandbox:
    """What the control API answered about one sandbox."""

    id: str
    domain: str | None
    access_token: str | None


def connect_envelope(message: dict[str, Any]) -> bytes:
    """One Connect streaming envelope: flags byte, big-endian length, JSON message."""
    data = json.dumps(message).encode()
    return struct.pack(">BI", 0, len(data)) + data


def read_envelopes(body: bytes) -> list[tuple[int, Any]]:
    """``(flags, message)`` for each envelope of a Connect stream's body."""
    out: list[tuple[int, Any]] = []
    pos = 0
    while pos + 5 <= len(body):
        flags, size = struct.unpack(">BI", body[pos : pos + 5])
        chunk = body[pos + 5 : pos + 5 + size]
        out.append((flags, json.loads(chunk) if chunk else {}))
        pos += 5 + size
    return out


class _E2BBase(SandboxLifecycle, HostedTool):
    """CrewAI's E2B configuration; see the module doc for the APIs."""

    api_key: str | None = Field(default=None, repr=False, exclude=True,
                                description="E2B API key (else E2B_API_KEY)")
    domain: str | None = Field(default=None, description="E2B domain (else E2B_DOMAIN, else e2b.app)")
    sandbox_url: str | None = Field(default=None, description="One address for every sandbox request (else E2B_SANDBOX_URL)")
    template: str | None = Field(default=None, description="Template (or snapshot) to create the sandbox from")
    sandbox_timeout: int = Field(default=300, gt=0, description="Idle seconds after which E2B kills the sandbox")
    envs: dict[str, str] | None = Field(default=None, description="Environment variables set in the sandbox at creation")
    metadata: dict[str, str] | None = Field(default=None, description="Metadata attached to the sandbox at creation")

    _service: ClassVar[str] = "E2B"
    _key_envs: ClassVar[tuple[str, ...]] = ("E2B_API_KEY",)
    _base_env: ClassVar[str | None] = "E2B_API_URL"
    _other_envs: ClassVar[tuple[str, ...]] = ("E2B_DOMAIN", "E2B_SANDBOX_URL")
    _default_template: ClassVar[str] = "base"

    @field_validator("api_key", mode="before")
    @classmethod
    def _secret(cls, value: Any) -> Any:
        return value.get_secret_value() if isinstance(value, SecretStr) else value

    def _domain(self) -> str:
        return self.domain or first_env("E2B_DOMAIN") or "e2b.app"

    def endpoint(self, path: str = "") -> str:
        base = self.base_url or first_env("E2B_API_URL") or f"https://api.{self._domain()}"
        return base.rstrip("/") + path

    def close(self) -> None:
        """Kill the persistent sandbox (if this tool created one), then close the HTTP client."""
        self.close_sandbox()
        super().close()

    # the control API -------------------------------------------------------------
    def _api(self, method: str, path: str, body: Any = None) -> Any:
        key = ok(self._key_or_failure())
        return ok(self._call(method, path, headers={"X-API-KEY": key}, json_body=body))

    @staticmethod
    def _sandbox(reply: Any) -> _Sandbox:
        if not isinstance(reply, dict) or not reply.get("sandboxID"):
            raise SandboxFailure(ToolFailure(message=f"E2B answered without a sandbox id: {reply!r:.200}",
                                             code="invalid_response"))
        return _Sandbox(str(reply["sandboxID"]), reply.get("domain"), reply.get("envdAccessToken"))

    def _create_sandbox(self) -> _Sandbox:
        body: dict[str, Any] = {"templateID": self.template or self._default_template, "timeout": self.sandbox_timeout}
        if self.metadata:
            body["metadata"] = self.metadata
        if self.envs:
            body["envVars"] = self.envs
        return self._sandbox(self._api("POST", "/sandboxes", body))

    def _attach_sandbox(self, sandbox_id: str) -> _Sandbox:
        return self._sandbox(self._api("POST", f"/sandboxes/{sandbox_id}/connect", {"timeout": self.sandbox_timeout}))

    def _destroy_sandbox(self, sandbox: _Sandbox) -> None:
        self._api("DELETE", f"/sandboxes/{sandbox.id}")

    # the sandbox -----------------------------------------------------------------
    def _address(self, sandbox: _Sandbox, port: int) -> tuple[str, dict[str, str]]:
        headers = {"E2b-Sandbox-Id": sandbox.id, "E2b-Sandbox-Port": str(port),
                   "Authorization": "Basic " + base64.b64encode(f"{_USER}:".encode()).decode()}
        if sandbox.access_token:
            headers["X-Access-Token"] = sandbox.access_token
        gateway = self.sandbox_url or first_env("E2B_SANDBOX_URL")
        base = gateway.rstrip("/") if gateway else f"https://{port}-{sandbox.id}.{sandbox.domain or self._domain()}"
        return base, headers

    def _sandbox_request(self, sandbox: _Sandbox, method: str, path: str, *, port: int = ENVD_PORT,
                         timeout: float | None = None, **kw: Any) -> Any:
        base, headers = self._address(sandbox, port)
        headers.update(kw.pop("headers", {}))
        return call_bytes(method, base + path, service="the E2B sandbox", headers=headers,
                          timeout=timeout or self.timeout, client=self.http_client(), **kw)

    def _rpc(self, sandbox: _Sandbox, method: str, message: dict[str, Any]) -> dict[str, Any] | None:
        """A unary Connect call (JSON); None when the sandbox answers ``not_found``."""
        reply = self._sandbox_request(sandbox, "POST", f"/filesystem.Filesystem/{method}",
                                      content=json.dumps(message).encode(),
                                      headers={"Content-Type": "application/json", "Connect-Protocol-Version": "1"})
        if isinstance(reply, ToolFailure) and reply.code == "http_404":
            return None
        result: dict[str, Any] = ok(reply).json() if ok(reply).content else {}
        return result


class E2BExecToolSchema(BaseModel):
    """Input for E2BExecTool."""

    command: str = Field(..., description="Shell command to execute in the sandbox.")
    cwd: str | None = Field(default=None, description="Working directory for the command (default: the sandbox home).")
    envs: dict[str, str] | None = Field(default=None, description="Environment variables for this command.")
    timeout: float | None = Field(default=None, description="Seconds to wait for the command to finish.")


class E2BExecTool(_E2BBase):
    """A shell command in an E2B sandbox: ``{"exit_code", "stdout", "stderr", "error"}``."""

    name: str = "E2B Sandbox Exec"
    description: str = ("Run a shell command inside an E2B sandbox and get back its exit code, stdout and stderr: "
                        "builds, package installs, git, or any one-off command.")
    args_schema: type[BaseModel] = E2BExecToolSchema

    def _run(self, command: str, cwd: str | None = None, envs: dict[str, str] | None = None,
             timeout: float | None = None) -> dict[str, Any] | ToolFailure:
        return self._in_sandbox(lambda box: run_command(self, box, command, cwd=cwd, envs=envs, timeout=timeout))


def run_command(tool: _E2BBase, sandbox: _Sandbox, command: str, *, cwd: str | None = None,
                envs: dict[str, str] | None = None, timeout: float | None = None) -> dict[str, Any]:
    """``bash -l -c command`` through envd's ``process.Process/Start`` stream, read to its end."""
    wait = 60.0 if timeout is None else float(timeout)
    process: dict[str, Any] = {"cmd": "/bin/bash", "args": ["-l", "-c", command], "envs": envs or {}}
    if cwd:
        process["cwd"] = cwd
    reply = ok(tool._sandbox_request(
        sandbox, "POST", "/process.Process/Start", timeout=wait + 5, content=connect_envelope({"process": process, "stdin": False}),
        headers={"Content-Type": "application/connect+json", "Connect-Protocol-Version": "1",
                 "Connect-Timeout-Ms": str(int(wait * 1000)), "Keepalive-Ping-Interval": "50"},
    ))
    stdout, stderr, end = [], [], None
    for flags, message in read_envelopes(reply.content):
        if flags & 0x02:  # the end of the stream: empty, or Connect's error
            error = message.get("error") if isinstance(message, dict) else None
            if error:
                raise SandboxFailure(ToolFailure(
                    message=f"E2B could not run the command: {error.get('code')}: {error.get('message')}",
                    code="timeout" if error.get("code") == "deadline_exceeded" else "sandbox_error",
                    retryable=error.get("code") in ("deadline_exceeded", "unavailable")))
            continue
        event = message.get("event", {})
        data = event.get("data") or {}
        if "stdout" in data:
            stdout.append(base64.b64decode(data["stdout"]).decode("utf-8", "replace"))
        if "stderr" in data:
            stderr.append(base64.b64decode(data["stderr"]).decode("utf-8", "replace"))
        if "end" in event:
            end = event["end"]
    if end is None:
        raise SandboxFailure(ToolFailure(message="E2B's command stream ended before the command did",
                                         code="invalid_response", retryable=True))
    return {"exit_code": int(end.get("exitCode", 0)), "stdout": "".join(stdout), "stderr": "".join(stderr),
            "error": end.get("error")}


FileAction = Literal["read", "write", "append", "list", "delete", "mkdir", "info", "exists"]


class E2BFileToolSchema(BaseModel):
    """Input for E2BFileTool."""

    action: FileAction = Field(..., description=(
        "'read' a file, 'write' (create or replace) one with content, 'append' content to one (send a large file "
        "as one empty 'write' and several ~4KB 'append's), 'list' a directory, 'delete' a path, 'mkdir', "
        "'info' (metadata), or 'exists'."))
    path: str = Field(..., description="Absolute path inside the sandbox.")
    content: str | None = Field(default=None, description="Content to write or append ('write' without it: an empty file).")
    binary: bool = Field(default=False, description="Content is base64 ('write'/'append'); return base64 ('read').")
    depth: int = Field(default=1, description="For 'list': how many levels to descend.")

    @model_validator(mode="after")
    def _append_needs_content(self) -> E2BFileToolSchema:
        if self.action == "append" and self.content is None:
            raise ValueError("action='append' needs 'content': the chunk to append")
        return self


def _entry(info: dict[str, Any]) -> dict[str, Any]:
    """envd's EntryInfo in CrewAI's keys (size as a number, the type as file/dir)."""
    size = info.get("size")
    return {"name": info.get("name"), "path": info.get("path"), "type": _FILE_TYPES.get(info.get("type", ""), info.get("type")),
            "size": int(size) if size is not None else 0, "mode": info.get("mode"), "permissions": info.get("permissions"),
            "owner": info.get("owner"), "group": info.get("group"), "modified_time": info.get("modifiedTime"),
            "symlink_target": info.get("symlinkTarget")}


class E2BFileTool(_E2BBase):
    """Files in an E2B sandbox (most useful with ``persistent=True`` or ``sandbox_id``)."""

    name: str = "E2B Sandbox Files"
    description: str = ("Work with files inside an E2B sandbox: read, write, append, list a directory, delete, "
                        "mkdir, info, exists. Write a large file as one empty 'write' then ~4KB 'append' calls.")
    args_schema: type[BaseModel] = E2BFileToolSchema

    def _run(self, action: FileAction, path: str, content: str | None = None, binary: bool = False,
             depth: int = 1) -> dict[str, Any] | ToolFailure:
        return self._in_sandbox(lambda box: self._act(box, action, path, content, binary, depth))

    def _read_bytes(self, box: _Sandbox, path: str) -> bytes | None:
        reply = self._sandbox_request(box, "GET", "/files", params={"path": path, "username": _USER})
        if isinstance(reply, ToolFailure) and reply.code == "http_404":
            return None
        return bytes(ok(reply).content)

    def _write_bytes(self, box: _Sandbox, path: str, data: bytes) -> None:
        ok(self._sandbox_request(box, "POST", "/files", params={"path": path, "username": _USER},
                                 files={"file": (posixpath.basename(path) or "file", data)}))

    def _make_dir(self, box: _Sandbox, path: str) -> bool:
        """Create ``path`` (and its parents); False when it already existed."""
        reply = self._sandbox_request(box, "POST", "/filesystem.Filesystem/MakeDir",
                                      content=json.dumps({"path": path}).encode(),
                                      headers={"Content-Type": "application/json", "Connect-Protocol-Version": "1"})
        if isinstance(reply, ToolFailure) and reply.code == "http_409":  # Connect's already_exists
            return False
        ok(reply)
        return True

    def _make_parent(self, box: _Sandbox, path: str) -> None:
        parent = posixpath.dirname(path)
        if parent and parent not in ("/", "."):
            self._make_dir(box, parent)

    def _act(self, box: _Sandbox, action: str, path: str, content: str | None, binary: bool,
             depth: int) -> dict[str, Any]:
        if action == "read":
            data = self._read_bytes(box, path)
            if data is None:
                raise SandboxFailure(ToolFailure(message=f"{path} does not exist in the sandbox", code="not_found"))
            if not binary:
                try:
                    return {"path": path, "encoding": "utf-8", "content": data.decode("utf-8")}
                except UnicodeDecodeError:
                    return {"path": path, "encoding": "base64", "content": base64.b64encode(data).decode("ascii"),
                            "note": "File was not valid utf-8; returned as base64."}
            return {"path": path, "encoding": "base64", "content": base64.b64encode(data).decode("ascii")}
        if action in ("write", "append"):
            chunk = base64.b64decode(content or "") if binary else (content or "").encode("utf-8")
            self._make_parent(box, path)
            if action == "write":
                self._write_bytes(box, path, chunk)
                return {"status": "written", "path": path, "bytes": len(chunk)}
            whole = (self._read_bytes(box, path) or b"") + chunk
            self._write_bytes(box, path, whole)
            return {"status": "appended", "path": path, "appended_bytes": len(chunk), "total_bytes": len(whole)}
        if action == "list":
            listed = self._rpc(box, "ListDir", {"path": path, "depth": depth})
            if listed is None:
                raise SandboxFailure(ToolFailure(message=f"{path} does not exist in the sandbox", code="not_found"))
            return {"path": path, "entries": [_entry(e) for e in listed.get("entries", [])]}
        if action == "delete":
            if self._rpc(box, "Remove", {"path": path}) is None:
                raise SandboxFailure(ToolFailure(message=f"{path} does not exist in the sandbox", code="not_found"))
            return {"status": "deleted", "path": path}
        if action == "mkdir":
            return {"status": "created", "path": path, "created": self._make_dir(box, path)}
        stat = self._rpc(box, "Stat", {"path": path})
        if action == "exists":
            return {"path": path, "exists": stat is not None}
        if stat is None:  # info
            raise SandboxFailure(ToolFailure(message=f"{path} does not exist in the sandbox", code="not_found"))
        return _entry(stat.get("entry", {}))


class E2BPythonToolSchema(BaseModel):
    """Input for E2BPythonTool."""

    code: str = Field(..., description="Python source to execute inside the sandbox.")
    language: str | None = Field(default=None, description="Another kernel language ('r', 'javascript'...); default Python.")
    envs: dict[str, str] | None = Field(default=None, description="Environment variables for the run.")
    timeout: float | None = Field(default=None, description="Seconds to wait for the code to finish.")


_RESULT_FIELDS = ("text", "html", "markdown", "svg", "png", "jpeg", "pdf", "latex", "json", "javascript", "data",
                  "is_main_result", "extra")


class E2BPythonTool(_E2BBase):
    """Code in E2B's code-interpreter sandbox (a Jupyter kernel: state persists with ``persistent=True``)."""

    name: str = "E2B Sandbox Python"
    description: str = ("Run Python code in an E2B code-interpreter sandbox and get back stdout, stderr, the value "
                        "of the last expression and rich results (charts, tables): analysis or scripts that should "
                        "run isolated.")
    args_schema: type[BaseModel] = E2BPythonToolSchema
    _default_template: ClassVar[str] = "code-interpreter-v1"

    def _run(self, code: str, language: str | None = None, envs: dict[str, str] | None = None,
             timeout: float | None = None) -> dict[str, Any] | ToolFailure:
        return self._in_sandbox(lambda box: self._run_cell(box, code, language, envs, timeout))

    def _run_cell(self, box: _Sandbox, code: str, language: str | None, envs: dict[str, str] | None,
                 timeout: float | None) -> dict[str, Any]:
        wait = 300.0 if timeout is None else float(timeout)
        body: dict[str, Any] = {"code": code, "context_id": None, "language": language, "env_vars": envs}
        reply = ok(self._sandbox_request(box, "POST", "/execute", port=JUPYTER_PORT, timeout=wait + 5,
                                         json_body=body, accept="application/x-ndjson, */*"))
        out: dict[str, Any] = {"text": None, "stdout": [], "stderr": [], "error": None, "results": [],
                               "execution_count": None}
        for line in reply.text.splitlines():
            if not line.strip():
                continue
            item = json.loads(line)
            kind = item.get("type")
            if kind in ("stdout", "stderr"):
                out[kind].append(item.get("text", ""))
            elif kind == "result":
                result = {name: item.get(name) for name in _RESULT_FIELDS}
                result["is_main_result"] = bool(item.get("is_main_result"))
                out["results"].append(result)
                if result["is_main_result"]:
                    out["text"] = result["text"]
            elif kind == "error":
                out["error"] = {"name": item.get("name"), "value": item.get("value"), "traceback": item.get("traceback")}
            elif kind == "number_of_executions":
                out["execution_count"] = item.get("execution_count")
            elif kind == "unexpected_end_of_execution":
                raise SandboxFailure(ToolFailure(message="E2B's kernel stopped before the code finished",
                                                 code="sandbox_error", retryable=True))
        return out
