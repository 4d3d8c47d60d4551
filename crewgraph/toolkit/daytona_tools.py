"""Daytona's sandbox tools (DaytonaExecTool, DaytonaFileTool, DaytonaPythonTool): Daytona's REST APIs over httpx.

Two surfaces, as Daytona's SDK uses them (no ``daytona`` package is needed),
both with the key as ``Authorization: Bearer``:

* the control API at ``api_url`` (``DAYTONA_API_URL``, default
  ``https://app.daytona.io/api``): ``POST /sandbox`` creates a sandbox (in
  ``target``, ``DAYTONA_TARGET``; ``create_params`` are the SDK's
  ``CreateSandboxFromSnapshotParams`` names), ``GET /sandbox/{id}`` is polled
  until it is ``started``, ``DELETE /sandbox/{id}`` deletes it;
* the sandbox's toolbox at ``{toolboxProxyUrl}/{id}`` (from the sandbox, or
  ``GET /sandbox/{id}/toolbox-proxy-url``): ``POST /process/execute``,
  ``POST /process/code-run`` and ``/files/*`` (download, upload, list, info,
  folder, move, find, search, permissions, replace).

The toolbox runs a command without a shell (it splits it on spaces and
quotes), so a command is sent as the SDK sends it: base64 piped to ``sh``,
with ``env`` exported first. The lifecycle (fresh, ``persistent``,
``sandbox_id``) is :mod:`crewgraph.toolkit._sandboxes`'.
"""

from __future__ import annotations

import base64
import posixpath
import shlex
import time
import uuid
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, Field, model_validator

from crewgraph.toolkit._hosted import HostedTool, first_env
from crewgraph.toolkit._http import call_bytes
from crewgraph.toolkit._sandboxes import SandboxFailure, SandboxLifecycle, ok
from crewgraph.tools.tool_failure import ToolFailure

__all__ = ["DaytonaExecTool", "DaytonaExecToolSchema", "DaytonaFileTool", "DaytonaFileToolSchema",
           "DaytonaPythonTool", "DaytonaPythonToolSchema"]

_CREATE_NAMES = {"name": "name", "snapshot": "snapshot", "os_user": "user", "env_vars": "env", "labels": "labels",
                 "public": "public", "auto_stop_interval": "autoStopInterval",
                 "auto_archive_interval": "autoArchiveInterval", "auto_delete_interval": "autoDeleteInterval",
                 "volumes": "volumes", "network_block_all": "networkBlockAll",
                 "network_allow_list": "networkAllowList"}
"""CreateSandboxFromSnapshotParams' names -> the API's (``language`` and ``ephemeral`` are mapped apart)."""


def shell_command(command: str, env: dict[str, str] | None = None) -> str:
    """``command`` (with ``env`` exported) as one toolbox command: base64 decoded into ``sh``."""
    script = "".join(f"export {name}={shlex.quote(value)}; " for name, value in (env or {}).items()) + command
    encoded = base64.b64encode(script.encode()).decode()
    return f"sh -c \"echo '{encoded}' | base64 -d | sh\""


class _DaytonaBase(SandboxLifecycle, HostedTool):
    """CrewAI's Daytona configuration; see the module doc for the APIs."""

    api_url: str | None = Field(default=None, description="Daytona API address (else DAYTONA_API_URL)")
    target: str | None = Field(default=None, description="Daytona target region (else DAYTONA_TARGET)")
    create_params: dict[str, Any] | None = Field(
        default=None, description="CreateSandboxFromSnapshotParams for a new sandbox (language, snapshot, env_vars, labels...)")
    sandbox_timeout: float = Field(default=60.0, gt=0, description="Seconds allowed to create or delete a sandbox")

    _service: ClassVar[str] = "Daytona"
    _key_envs: ClassVar[tuple[str, ...]] = ("DAYTONA_API_KEY",)
    _base_env: ClassVar[str | None] = "DAYTONA_API_URL"
    _default_base: ClassVar[str] = "https://app.daytona.io/api"
    _other_envs: ClassVar[tuple[str, ...]] = ("DAYTONA_TARGET",)

    @model_validator(mode="after")
    def _known_create_params(self) -> _DaytonaBase:
        unknown = sorted(set(self.create_params or {}) - {*_CREATE_NAMES, "language", "ephemeral"})
        if unknown:
            raise ValueError(f"{type(self).__name__}(create_params=...) does not know {', '.join(unknown)}: it takes "
                             f"{', '.join(sorted({*_CREATE_NAMES, 'language', 'ephemeral'}))}")
        return self

    def endpoint(self, path: str = "") -> str:
        base = self.api_url or self.base_url or first_env("DAYTONA_API_URL") or self._default_base
        return base.rstrip("/") + path

    def close(self) -> None:
        """Delete the persistent sandbox (if this tool created one), then close the HTTP client."""
        self.close_sandbox()
        super().close()

    def _headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {ok(self._key_or_failure())}", "X-Daytona-Source": "crewgraph"}

    def _api(self, method: str, path: str, body: Any = None) -> Any:
        return ok(self._call(method, path, headers=self._headers(), json_body=body))

    # lifecycle -----------------------------------------------------------------
    def create_body(self) -> dict[str, Any]:
        """The ``POST /sandbox`` body for ``create_params`` and ``target``."""
        params = dict(self.create_params or {})
        body: dict[str, Any] = {_CREATE_NAMES[k]: v for k, v in params.items() if k in _CREATE_NAMES}
        language = params.get("language", "python")
        body["labels"] = {**body.get("labels", {}), "code-toolbox-language": language}
        if params.get("ephemeral"):
            body["autoDeleteInterval"] = 0
        target = self.target or first_env("DAYTONA_TARGET")
        if target:
            body["target"] = target
        return body

    def _wait_started(self, sandbox: dict[str, Any]) -> dict[str, Any]:
        deadline = time.monotonic() + self.sandbox_timeout
        delay = 0.05
        while sandbox.get("state") != "started":
            state = sandbox.get("state")
            if state in ("error", "build_failed", "destroyed", "destroying"):
                raise SandboxFailure(ToolFailure(
                    message=f"Daytona sandbox {sandbox.get('id')} is {state}: {sandbox.get('errorReason') or 'no reason given'}",
                    code="sandbox_error"))
            if time.monotonic() > deadline:
                raise SandboxFailure(ToolFailure(
                    message=f"Daytona sandbox {sandbox.get('id')} was still {state} after {self.sandbox_timeout:g}s",
                    code="timeout", retryable=True))
            time.sleep(delay)
            delay = min(delay * 2, 1.0)
            sandbox = self._api("GET", f"/sandbox/{sandbox['id']}")
        return sandbox

    def _create_sandbox(self) -> dict[str, Any]:
        return self._wait_started(self._api("POST", "/sandbox", self.create_body()))

    def _attach_sandbox(self, sandbox_id: str) -> dict[str, Any]:
        return dict(self._api("GET", f"/sandbox/{sandbox_id}"))

    def _destroy_sandbox(self, sandbox: dict[str, Any]) -> None:
        self._api("DELETE", f"/sandbox/{sandbox['id']}")

    # the toolbox ---------------------------------------------------------------
    def _toolbox(self, sandbox: dict[str, Any]) -> str:
        if "_toolbox" not in sandbox:
            proxy = sandbox.get("toolboxProxyUrl") or self._api("GET", f"/sandbox/{sandbox['id']}/toolbox-proxy-url").get("url")
            if not proxy:
                raise SandboxFailure(ToolFailure(message="Daytona gave no toolbox address for the sandbox",
                                                 code="invalid_response"))
            sandbox["_toolbox"] = f"{str(proxy).rstrip('/')}/{sandbox['id']}"
        return str(sandbox["_toolbox"])

    def _box_call(self, sandbox: dict[str, Any], method: str, path: str, *, raw: bool = False,
                  timeout: float | None = None, **kw: Any) -> Any:
        reply = call_bytes(method, self._toolbox(sandbox) + path, service="the Daytona toolbox", headers=self._headers(),
                           timeout=timeout or self.timeout, key_hint=self._key_hint(), client=self.http_client(), **kw)
        if isinstance(reply, ToolFailure):
            return reply
        if raw:
            return reply
        return reply.json() if reply.content else None

    def _run_command(self, sandbox: dict[str, Any], command: str, *, cwd: str | None = None,
                 env: dict[str, str] | None = None, timeout: int | None = None) -> dict[str, Any]:
        body: dict[str, Any] = {"command": shell_command(command, env)}
        if cwd:
            body["cwd"] = cwd
        if timeout:
            body["timeout"] = int(timeout)
        reply = ok(self._box_call(sandbox, "POST", "/process/execute", json_body=body,
                                  timeout=(timeout or 360) + self.timeout))
        return {"exit_code": reply.get("exitCode", reply.get("code")), "result": reply.get("result"),
                "artifacts": reply.get("artifacts")}


class DaytonaExecToolSchema(BaseModel):
    """Input for DaytonaExecTool."""

    command: str = Field(..., description="Shell command to execute in the sandbox.")
    cwd: str | None = Field(default=None, description="Working directory for the command (default: the sandbox work dir).")
    env: dict[str, str] | None = Field(default=None, description="Environment variables for this command.")
    timeout: int | None = Field(default=None, description="Seconds to wait for the command to finish.")


class DaytonaExecTool(_DaytonaBase):
    """A shell command in a Daytona sandbox: ``{"exit_code", "result" (combined output), "artifacts"}``."""

    name: str = "Daytona Sandbox Exec"
    description: str = ("Run a shell command inside a Daytona sandbox and get back its exit code and combined "
                        "output: builds, package installs, git, or any one-off command.")
    args_schema: type[BaseModel] = DaytonaExecToolSchema

    def _run(self, command: str, cwd: str | None = None, env: dict[str, str] | None = None,
             timeout: int | None = None) -> dict[str, Any] | ToolFailure:
        return self._in_sandbox(lambda box: self._run_command(box, command, cwd=cwd, env=env, timeout=timeout))


class DaytonaPythonToolSchema(BaseModel):
    """Input for DaytonaPythonTool."""

    code: str = Field(..., description="Python source to execute inside the sandbox.")
    argv: list[str] | None = Field(default=None, description="Arguments passed to the script (sys.argv[1:]).")
    env: dict[str, str] | None = Field(default=None, description="Environment variables for the run.")
    timeout: int | None = Field(default=None, description="Seconds to wait for the code to finish.")


class DaytonaPythonTool(_DaytonaBase):
    """Python in a Daytona sandbox through the toolbox's ``/process/code-run``."""

    name: str = "Daytona Sandbox Python"
    description: str = ("Run a block of Python code inside a Daytona sandbox and get back the exit code, the "
                        "output and any artifacts (charts): analysis or scripts that should run isolated.")
    args_schema: type[BaseModel] = DaytonaPythonToolSchema

    def _run(self, code: str, argv: list[str] | None = None, env: dict[str, str] | None = None,
             timeout: int | None = None) -> dict[str, Any] | ToolFailure:
        def work(box: dict[str, Any]) -> dict[str, Any]:
            body: dict[str, Any] = {"code": code, "language": "python"}
            if argv is not None:
                body["argv"] = argv
            if env is not None:
                body["envs"] = env
            if timeout:
                body["timeout"] = int(timeout)
            reply = ok(self._box_call(box, "POST", "/process/code-run", json_body=body,
                                      timeout=(timeout or 360) + self.timeout))
            return {"exit_code": reply.get("exitCode"), "result": reply.get("result"), "artifacts": reply.get("artifacts")}

        return self._in_sandbox(work)


FileAction = Literal["read", "write", "append", "list", "delete", "mkdir", "info", "exists", "move", "find", "search",
                     "chmod", "replace"]

_NEEDS = {"move": ("destination",), "find": ("pattern",), "search": ("pattern",),
          "replace": ("paths", "pattern", "replacement")}


class DaytonaFileToolSchema(BaseModel):
    """Input for DaytonaFileTool."""

    action: FileAction = Field(..., description=(
        "'read', 'write' (create or replace), 'append' (send a large file as one empty 'write' and ~4KB 'append's), "
        "'list' a directory, 'delete', 'mkdir', 'info', 'exists', 'move' (needs 'destination'), 'find' (grep file "
        "contents for 'pattern'), 'search' (file names matching the glob 'pattern'), 'chmod' ('mode', 'owner' or "
        "'group'), 'replace' ('pattern' by 'replacement' in 'paths')."))
    path: str | None = Field(default=None, description="Absolute path in the sandbox (every action but 'replace').")
    content: str | None = Field(default=None, description="Content to write or append ('write' without it: an empty file).")
    binary: bool = Field(default=False, description="Content is base64 ('write'/'append'); return base64 ('read').")
    recursive: bool = Field(default=False, description="For 'delete': remove a directory and what it holds.")
    mode: str | None = Field(default=None, description="Octal mode: of a new directory ('mkdir', default '0755') or for 'chmod'.")
    destination: str | None = Field(default=None, description="For 'move': the absolute destination path.")
    pattern: str | None = Field(default=None, description="'find': text in file contents; 'search': a name glob; 'replace': text to replace.")
    replacement: str | None = Field(default=None, description="For 'replace': the new text.")
    paths: list[str] | None = Field(default=None, description="For 'replace': the files to change.")
    owner: str | None = Field(default=None, description="For 'chmod': the new owner.")
    group: str | None = Field(default=None, description="For 'chmod': the new group.")

    @model_validator(mode="after")
    def _arguments_for_the_action(self) -> DaytonaFileToolSchema:
        if self.action != "replace" and not self.path:
            raise ValueError(f"action={self.action!r} needs 'path'")
        if self.action == "append" and self.content is None:
            raise ValueError("action='append' needs 'content': the chunk to append")
        missing = [name for name in _NEEDS.get(self.action, ()) if getattr(self, name) in (None, "", [])]
        if self.action == "replace" and self.replacement == "":
            missing = [m for m in missing if m != "replacement"]  # replacing by nothing is a deletion
        if missing:
            raise ValueError(f"action={self.action!r} needs {', '.join(repr(m) for m in missing)}")
        if self.action == "chmod" and not (self.mode or self.owner or self.group):
            raise ValueError("action='chmod' needs 'mode', 'owner' or 'group'")
        return self


def _info(info: dict[str, Any]) -> dict[str, Any]:
    """The toolbox's FileInfo in CrewAI's keys."""
    return {"name": info.get("name"), "size": info.get("size"), "mode": info.get("mode"),
            "permissions": info.get("permissions"), "is_dir": info.get("isDir"), "mod_time": info.get("modTime"),
            "owner": info.get("owner"), "group": info.get("group")}


class DaytonaFileTool(_DaytonaBase):
    """Files in a Daytona sandbox (most useful with ``persistent=True`` or ``sandbox_id``)."""

    name: str = "Daytona Sandbox Files"
    description: str = ("Work with files inside a Daytona sandbox: read, write, append, list, delete, mkdir, info, "
                        "exists, move, find (grep contents), search (name glob), chmod, and replace across files. "
                        "Write a large file as one empty 'write' then ~4KB 'append' calls.")
    args_schema: type[BaseModel] = DaytonaFileToolSchema

    def _run(self, action: FileAction, path: str | None = None, content: str | None = None, binary: bool = False,
             recursive: bool = False, mode: str | None = None, destination: str | None = None,
             pattern: str | None = None, replacement: str | None = None, paths: list[str] | None = None,
             owner: str | None = None, group: str | None = None) -> dict[str, Any] | ToolFailure:
        args = {"content": content, "binary": binary, "recursive": recursive, "mode": mode, "destination": destination,
                "pattern": pattern, "replacement": replacement, "paths": paths, "owner": owner, "group": group}
        return self._in_sandbox(lambda box: self._act(box, action, path or "", args))

    def _upload(self, box: dict[str, Any], path: str, data: bytes) -> None:
        ok(self._box_call(box, "POST", "/files/upload", params={"path": path},
                          files={"file": (posixpath.basename(path) or "file", data)}))

    def _mkdir_parent(self, box: dict[str, Any], path: str) -> None:
        parent = posixpath.dirname(path)
        if parent and parent not in ("/", "."):
            self._box_call(box, "POST", "/files/folder", params={"path": parent, "mode": "0755"})  # exists: fine

    def _act(self, box: dict[str, Any], action: str, path: str, a: dict[str, Any]) -> dict[str, Any]:
        if action == "read":
            data = ok(self._box_call(box, "GET", "/files/download", params={"path": path}, raw=True)).content
            if a["binary"]:
                return {"path": path, "encoding": "base64", "content": base64.b64encode(data).decode("ascii")}
            try:
                return {"path": path, "encoding": "utf-8", "content": data.decode("utf-8")}
            except UnicodeDecodeError:
                return {"path": path, "encoding": "base64", "content": base64.b64encode(data).decode("ascii"),
                        "note": "File was not valid utf-8; returned as base64."}
        if action in ("write", "append"):
            chunk = base64.b64decode(a["content"] or "") if a["binary"] else (a["content"] or "").encode("utf-8")
            self._mkdir_parent(box, path)
            if action == "write":
                self._upload(box, path, chunk)
                return {"status": "written", "path": path, "bytes": len(chunk)}
            return self._append(box, path, chunk)
        if action == "list":
            entries = ok(self._box_call(box, "GET", "/files", params={"path": path}))
            return {"path": path, "entries": [_info(e) for e in entries or []]}
        if action == "delete":
            ok(self._box_call(box, "DELETE", "/files", params={"path": path, "recursive": str(a["recursive"]).lower()}))
            return {"status": "deleted", "path": path}
        if action == "mkdir":
            mode = a["mode"] or "0755"
            ok(self._box_call(box, "POST", "/files/folder", params={"path": path, "mode": mode}))
            return {"status": "created", "path": path, "mode": mode}
        if action == "info":
            return _info(ok(self._box_call(box, "GET", "/files/info", params={"path": path})))
        if action == "exists":
            info = self._box_call(box, "GET", "/files/info", params={"path": path})
            if isinstance(info, ToolFailure):
                if info.code != "http_404":
                    raise SandboxFailure(info)
                return {"path": path, "exists": False}
            return {"path": path, "exists": True, "is_dir": bool(info.get("isDir"))}
        if action == "move":
            ok(self._box_call(box, "POST", "/files/move", params={"source": path, "destination": a["destination"]}))
            return {"status": "moved", "from": path, "to": a["destination"]}
        if action == "find":
            found = ok(self._box_call(box, "GET", "/files/find", params={"path": path, "pattern": a["pattern"]}))
            return {"path": path, "pattern": a["pattern"],
                    "matches": [{"file": m.get("file"), "line": m.get("line"), "content": m.get("content")} for m in found or []]}
        if action == "search":
            found = ok(self._box_call(box, "GET", "/files/search", params={"path": path, "pattern": a["pattern"]}))
            return {"path": path, "pattern": a["pattern"], "files": list((found or {}).get("files") or [])}
        if action == "chmod":
            changes = {k: a[k] for k in ("mode", "owner", "group") if a[k] is not None}
            ok(self._box_call(box, "POST", "/files/permissions", params={"path": path, **changes}))
            return {"status": "permissions_set", "path": path, **changes}
        results = ok(self._box_call(box, "POST", "/files/replace",  # replace
                                    json_body={"files": a["paths"], "pattern": a["pattern"], "newValue": a["replacement"]}))
        return {"pattern": a["pattern"], "replacement": a["replacement"],
                "results": [{"file": r.get("file"), "success": r.get("success"), "error": r.get("error")} for r in results or []]}

    def _append(self, box: dict[str, Any], path: str, chunk: bytes) -> dict[str, Any]:
        """Upload the chunk beside the file and ``cat >>`` it there: each append moves only the chunk."""
        temp = f"/tmp/.crewgraph-append-{uuid.uuid4().hex}"  # the sandbox's /tmp
        self._mkdir_parent(box, temp)
        self._upload(box, temp, chunk)
        quoted_temp, quoted_path = shlex.quote(temp), shlex.quote(path)
        done = self._run_command(box, f"cat {quoted_temp} >> {quoted_path}; rc=$?; rm -f {quoted_temp}; exit $rc")
        if done["exit_code"] != 0:
            raise SandboxFailure(ToolFailure(message=f"append to {path} failed (exit {done['exit_code']}): {done['result']}",
                                             code="sandbox_error"))
        info = self._box_call(box, "GET", "/files/info", params={"path": path})
        total = None if isinstance(info, ToolFailure) else info.get("size")
        return {"status": "appended", "path": path, "appended_bytes": len(chunk), "total_bytes": total}
