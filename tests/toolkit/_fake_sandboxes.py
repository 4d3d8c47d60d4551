"""Local stand-ins of E2B's and Daytona's sandbox APIs, on FakeHTTPService, that really run things.

Each sandbox is a temporary directory standing for the sandbox's ``/``;
commands run for real in a subprocess (bash, with the sandbox's cwd and
environment), files are real files, and Python runs in a real interpreter. The
wire formats are the vendors' documented ones: E2B's control API, envd's
Connect RPC (JSON envelopes on ``process.Process/Start``, unary
``filesystem.Filesystem/*``) and ``/files``, the code interpreter's ``/execute``
JSON lines; Daytona's ``/sandbox`` API and its toolbox (``/process/execute``,
``/process/code-run``, ``/files/*``). What is checked is what a tool sent and
what it made of real answers.
"""

from __future__ import annotations

import base64
import email.parser
import fnmatch
import itertools
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from crewgraph.testing import FakeHTTPService, FakeRequestRecord

_RUNNER = r"""
import ast, json, sys
source = sys.stdin.read()
tree = ast.parse(source)
last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
scope = {"__name__": "__main__"}
try:
    exec(compile(tree, "<cell>", "exec"), scope)
    if last is not None:
        value = eval(compile(ast.Expression(last.value), "<cell>", "eval"), scope)
        if value is not None:
            sys.stdout.flush()
            sys.__stderr__.write("\x00RESULT" + json.dumps(repr(value)) + "\n")
except Exception as exc:
    import traceback
    sys.__stderr__.write("\x00ERROR" + json.dumps([type(exc).__name__, str(exc), traceback.format_exc()]) + "\n")
"""


def multipart_file(record: FakeRequestRecord) -> bytes:
    """The bytes of the (first) file part of a multipart/form-data body."""
    head = f"Content-Type: {record.headers['content-type']}\r\n\r\n".encode()
    message = email.parser.BytesParser().parsebytes(head + record.body)
    for part in message.walk():
        if part.get_filename() is not None:
            return part.get_payload(decode=True) or b""  # type: ignore[return-value]
    raise AssertionError("no file part in the upload")


class _Boxes:
    """Sandboxes as directories (``/`` of each is its own temporary directory)."""

    def __init__(self) -> None:
        self.tmp = Path(tempfile.mkdtemp(prefix="fake-sandboxes-"))
        self.boxes: dict[str, dict[str, Any]] = {}
        self._ids = itertools.count(1)

    def new(self, **info: Any) -> tuple[str, dict[str, Any]]:
        box_id = f"sbx{next(self._ids)}"
        root = self.tmp / box_id
        (root / "home" / "user").mkdir(parents=True)
        self.boxes[box_id] = {"root": root, "alive": True, **info}
        return box_id, self.boxes[box_id]

    def host(self, box_id: str, path: str) -> Path:
        return self.boxes[box_id]["root"] / path.lstrip("/")

    def run(self, box_id: str, argv: list[str], *, cwd: str | None, env: dict[str, str], timeout: float,
            stdin: str | None = None) -> subprocess.CompletedProcess[bytes] | None:
        box = self.boxes[box_id]
        where = self.host(box_id, cwd) if cwd else box["root"] / "home" / "user"
        full_env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(box["root"] / "home" / "user"),
                    **box.get("env", {}), **env}
        try:
            return subprocess.run(argv, cwd=where, env=full_env, capture_output=True, timeout=timeout,
                                  input=stdin.encode() if stdin is not None else None, check=False)
        except subprocess.TimeoutExpired:
            return None

    def close(self) -> None:
        shutil.rmtree(self.tmp, ignore_errors=True)


# -- E2B -------------------------------------------------------------------------------------------
def _envelope(message: dict[str, Any], flags: int = 0) -> bytes:
    data = json.dumps(message).encode()
    return struct.pack(">BI", flags, len(data)) + data


class FakeE2B(_Boxes):
    """E2B's control API, envd and the code interpreter's /execute on one FakeHTTPService."""

    def __init__(self, api_key: str = "e2b_test") -> None:
        super().__init__()
        self.api_key = api_key
        self.service = FakeHTTPService({
            "POST /sandboxes": self._create,
            "POST /sandboxes/{id}/connect": self._connect,
            "DELETE /sandboxes/{id}": self._kill,
            "POST /process.Process/Start": self._start,
            "GET /files": self._read,
            "POST /files": self._write,
            "POST /filesystem.Filesystem/{method}": self._fs,
            "POST /execute": self._execute,
        })

    def __enter__(self) -> FakeE2B:
        self.service.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.service.stop()
        self.close()

    @property
    def url(self) -> str:
        return self.service.url

    def requests_to_create(self) -> list[FakeRequestRecord]:
        return [r for r in self.service.requests if r.path == "/sandboxes" and r.method == "POST"]

    def _authorized(self, record: FakeRequestRecord) -> bool:
        return record.headers.get("x-api-key") == self.api_key

    def _reply(self, box_id: str) -> dict[str, Any]:
        box = self.boxes[box_id]
        return {"sandboxID": box_id, "templateID": box["template"], "clientID": "c1", "envdVersion": "0.2.4",
                "envdAccessToken": box["token"], "domain": None}

    def _create(self, record: FakeRequestRecord) -> Any:
        if not self._authorized(record):
            return 401, {"code": 401, "message": "Invalid API key"}
        body = record.json
        box_id, _ = self.new(template=body["templateID"], env=body.get("envVars") or {},
                             token=f"tok-{len(self.boxes) + 1}")
        return 201, self._reply(box_id)

    def _connect(self, record: FakeRequestRecord) -> Any:
        box_id = record.params["id"]
        if not self._authorized(record):
            return 401, {"code": 401, "message": "Invalid API key"}
        if box_id not in self.boxes or not self.boxes[box_id]["alive"]:
            return 404, {"code": 404, "message": f"sandbox {box_id} not found"}
        return 201, self._reply(box_id)

    def _kill(self, record: FakeRequestRecord) -> Any:
        self.boxes[record.params["id"]]["alive"] = False
        return 204, b""

    def _box(self, record: FakeRequestRecord) -> str:
        box_id = record.headers["e2b-sandbox-id"]
        box = self.boxes[box_id]
        assert box["alive"], f"{box_id} was used after it was killed"
        assert record.headers.get("x-access-token") == box["token"], "envd needs the sandbox's access token"
        return box_id

    def _start(self, record: FakeRequestRecord) -> Any:
        box_id = self._box(record)
        assert record.headers["content-type"] == "application/connect+json"
        size = struct.unpack(">I", record.body[1:5])[0]
        request = json.loads(record.body[5 : 5 + size])
        process = request["process"]
        timeout = int(record.headers.get("connect-timeout-ms", "60000")) / 1000
        done = self.run(box_id, [process["cmd"], *process["args"]], cwd=process.get("cwd"),
                        env=process.get("envs") or {}, timeout=timeout)
        if done is None:
            body = _envelope({"event": {"start": {"pid": 7}}}) + _envelope(
                {"error": {"code": "deadline_exceeded", "message": "the command ran out of time"}}, flags=2)
        else:
            body = _envelope({"event": {"start": {"pid": 7}}})
            for stream in ("stdout", "stderr"):
                data = getattr(done, stream)
                if data:
                    body += _envelope({"event": {"data": {stream: base64.b64encode(data).decode()}}})
            end: dict[str, Any] = {"exited": True, "status": f"exit status {done.returncode}"}
            if done.returncode:
                end.update(exitCode=done.returncode, error=f"exit status {done.returncode}")
            body += _envelope({"event": {"end": end}}) + _envelope({}, flags=2)
        return 200, body, {"Content-Type": "application/connect+json"}

    def _read(self, record: FakeRequestRecord) -> Any:
        path = self.host(self._box(record), record.query["path"][0])
        if not path.is_file():
            return 404, {"code": 404, "message": "file not found"}
        return 200, path.read_bytes(), {"Content-Type": "application/octet-stream"}

    def _write(self, record: FakeRequestRecord) -> Any:
        box_id = self._box(record)
        target = self.host(box_id, record.query["path"][0])
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(multipart_file(record))
        return [{"name": target.name, "type": "file", "path": record.query["path"][0]}]

    def _info(self, box_id: str, path: Path) -> dict[str, Any]:
        stat = path.stat()
        inner = "/" + str(path.relative_to(self.boxes[box_id]["root"]))
        return {"name": path.name, "path": inner, "type": "FILE_TYPE_DIRECTORY" if path.is_dir() else "FILE_TYPE_FILE",
                "size": str(stat.st_size), "mode": stat.st_mode & 0o777, "permissions": "-rw-r--r--",
                "owner": "user", "group": "user", "modifiedTime": "2026-01-01T00:00:00Z"}

    def _fs(self, record: FakeRequestRecord) -> Any:
        box_id = self._box(record)
        assert record.headers["content-type"] == "application/json"
        message, method = record.json, record.params["method"]
        path = self.host(box_id, message["path"])
        if method == "MakeDir":
            if path.exists():
                return 409, {"code": "already_exists", "message": "directory already exists"}
            path.mkdir(parents=True)
            return {"entry": self._info(box_id, path)}
        if not path.exists():
            return 404, {"code": "not_found", "message": f"{message['path']} not found"}
        if method == "Stat":
            return {"entry": self._info(box_id, path)}
        if method == "Remove":
            shutil.rmtree(path) if path.is_dir() else path.unlink()
            return {}
        if method == "ListDir":
            depth = int(message.get("depth", 1))
            found = [p for p in sorted(path.rglob("*")) if len(p.relative_to(path).parts) <= depth]
            return {"entries": [self._info(box_id, p) for p in found]}
        return 404, {"code": "unimplemented", "message": method}

    def _execute(self, record: FakeRequestRecord) -> Any:
        box_id = self._box(record)
        assert record.headers["e2b-sandbox-port"] == "49999"
        body = record.json
        box = self.boxes[box_id]
        box["executions"] = box.get("executions", 0) + 1
        done = self.run(box_id, [sys.executable, "-c", _RUNNER], cwd=None, env=body.get("env_vars") or {},
                        timeout=30, stdin=body["code"])
        assert done is not None
        lines = []
        if done.stdout:
            lines.append({"type": "stdout", "text": done.stdout.decode(), "timestamp": 1})
        for line in done.stderr.decode().splitlines(keepends=True):
            if line.startswith("\x00RESULT"):
                lines.append({"type": "result", "text": json.loads(line[7:]), "is_main_result": True})
            elif line.startswith("\x00ERROR"):
                name, value, trace = json.loads(line[6:])
                lines.append({"type": "error", "name": name, "value": value, "traceback": trace})
            else:
                lines.append({"type": "stderr", "text": line, "timestamp": 2})
        lines += [{"type": "number_of_executions", "execution_count": box["executions"]}, {"type": "end_of_execution"}]
        return 200, "".join(json.dumps(item) + "\n" for item in lines), {"Content-Type": "application/x-ndjson"}


# -- Daytona ---------------------------------------------------------------------------------------
def toolbox_argv(command: str) -> list[str]:
    """The toolbox's own split of a command (quotes group, no shell), as Daytona's daemon does it."""
    args, current, quote = [], "", ""
    for ch in command:
        if ch in "\"'" and (not quote or quote == ch):
            quote = "" if quote else ch
        elif ch == " " and not quote:
            if current:
                args.append(current)
                current = ""
        else:
            current += ch
    return [*args, current] if current else args


class FakeDaytona(_Boxes):
    """Daytona's control API and the sandbox toolbox (behind the toolbox proxy) on one FakeHTTPService.

    Unlike the E2B stand-in, a sandbox's paths are this machine's own (the
    box's directory is only the default working directory): Daytona's tools
    put absolute paths into shell commands (``cat /tmp/... >> path``), which a
    directory standing for ``/`` could not honour. Tests use paths under
    their own temporary directory.
    """

    def host(self, box_id: str, path: str) -> Path:
        return Path(path)

    def __init__(self, api_key: str = "dtn_test") -> None:
        super().__init__()
        self.api_key = api_key
        self.service = FakeHTTPService({
            "POST /api/sandbox": self._create,
            "GET /api/sandbox/{id}/toolbox-proxy-url": self._proxy_url,
            "GET /api/sandbox/{id}": self._get,
            "DELETE /api/sandbox/{id}": self._delete,
            "POST /toolbox/{id}/process/execute": self._exec,
            "POST /toolbox/{id}/process/code-run": self._code_run,
            "GET /toolbox/{id}/files/download": self._download,
            "POST /toolbox/{id}/files/upload": self._upload,
            "GET /toolbox/{id}/files/info": self._file_info,
            "GET /toolbox/{id}/files/find": self._find,
            "GET /toolbox/{id}/files/search": self._search,
            "POST /toolbox/{id}/files/folder": self._folder,
            "POST /toolbox/{id}/files/move": self._move,
            "POST /toolbox/{id}/files/permissions": self._permissions,
            "POST /toolbox/{id}/files/replace": self._replace,
            "GET /toolbox/{id}/files": self._list,
            "DELETE /toolbox/{id}/files": self._remove,
        })

    def __enter__(self) -> FakeDaytona:
        self.service.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.service.stop()
        self.close()

    @property
    def api_url(self) -> str:
        return self.service.url + "/api"

    def _authorized(self, record: FakeRequestRecord) -> bool:
        return record.headers.get("authorization") == f"Bearer {self.api_key}"

    def _sandbox(self, box_id: str) -> dict[str, Any]:
        box = self.boxes[box_id]
        polls = box["polls"] = box.get("polls", 0) + 1
        state = "started" if polls > 1 or not box["slow"] else "creating"
        return {"id": box_id, "name": box_id, "state": state if box["alive"] else "destroyed",
                "target": box["target"], "env": box.get("env", {}), "labels": box["labels"]}

    def _create(self, record: FakeRequestRecord) -> Any:
        if not self._authorized(record):
            return 401, {"statusCode": 401, "message": "Invalid credentials"}
        body = record.json
        box_id, _ = self.new(env=body.get("env") or {}, labels=body.get("labels") or {},
                               target=body.get("target", "us"), slow=True)
        return self._sandbox(box_id)

    def _get(self, record: FakeRequestRecord) -> Any:
        if not self._authorized(record):
            return 401, {"statusCode": 401, "message": "Invalid credentials"}
        if record.params["id"] not in self.boxes:
            return 404, {"statusCode": 404, "message": "Sandbox not found"}
        return self._sandbox(record.params["id"])

    def _proxy_url(self, record: FakeRequestRecord) -> Any:
        assert self._authorized(record)
        return {"url": self.service.url + "/toolbox"}

    def _delete(self, record: FakeRequestRecord) -> Any:
        assert self._authorized(record)
        self.boxes[record.params["id"]]["alive"] = False
        return {}

    def _box(self, record: FakeRequestRecord) -> str:
        assert self._authorized(record), "the toolbox takes the same bearer key"
        box_id = record.params["id"]
        assert self.boxes[box_id]["alive"], f"{box_id} was used after it was deleted"
        return box_id

    def _path(self, record: FakeRequestRecord, name: str = "path") -> Path:
        return self.host(record.params["id"], record.query[name][0])

    def _exec(self, record: FakeRequestRecord) -> Any:
        box_id = self._box(record)
        body = record.json
        done = self.run(box_id, toolbox_argv(body["command"]), cwd=body.get("cwd"), env={},
                        timeout=float(body.get("timeout") or 360))
        if done is None:
            return 408, {"statusCode": 408, "message": "command execution timeout"}
        return {"exitCode": done.returncode, "result": (done.stdout + done.stderr).decode()}

    def _code_run(self, record: FakeRequestRecord) -> Any:
        box_id = self._box(record)
        body = record.json
        assert body["language"] == "python"
        done = self.run(box_id, [sys.executable, "-c", body["code"], *body.get("argv", [])], cwd=None,
                        env=body.get("envs") or {}, timeout=float(body.get("timeout") or 360))
        if done is None:
            return 408, {"statusCode": 408, "message": "command execution timeout"}
        return {"exitCode": done.returncode, "result": (done.stdout + done.stderr).decode()}

    def _file(self, box_id: str, path: Path) -> dict[str, Any]:
        stat = path.stat()
        return {"name": path.name, "size": stat.st_size, "mode": oct(stat.st_mode & 0o777)[2:], "modTime": "2026-01-01T00:00:00Z",
                "isDir": path.is_dir(), "owner": "daytona", "group": "daytona", "permissions": oct(stat.st_mode & 0o777)}

    def _download(self, record: FakeRequestRecord) -> Any:
        self._box(record)
        path = self._path(record)
        if not path.is_file():
            return 404, {"statusCode": 404, "message": "file not found"}
        return 200, path.read_bytes(), {"Content-Type": "application/octet-stream"}

    def _upload(self, record: FakeRequestRecord) -> Any:
        self._box(record)
        path = self._path(record)
        if not path.parent.is_dir():
            return 400, {"statusCode": 400, "message": "parent directory does not exist"}
        path.write_bytes(multipart_file(record))
        return {}

    def _file_info(self, record: FakeRequestRecord) -> Any:
        box_id = self._box(record)
        path = self._path(record)
        if not path.exists():
            return 404, {"statusCode": 404, "message": "file not found"}
        return self._file(box_id, path)

    def _list(self, record: FakeRequestRecord) -> Any:
        box_id = self._box(record)
        return [self._file(box_id, p) for p in sorted(self._path(record).iterdir())]

    def _remove(self, record: FakeRequestRecord) -> Any:
        self._box(record)
        path = self._path(record)
        if path.is_dir():
            if record.query.get("recursive") != ["true"] and any(path.iterdir()):
                return 400, {"statusCode": 400, "message": "directory is not empty"}
            shutil.rmtree(path)
        else:
            path.unlink()
        return {}

    def _folder(self, record: FakeRequestRecord) -> Any:
        self._box(record)
        path = self._path(record)
        if path.exists():
            return 409, {"statusCode": 409, "message": "folder exists"}
        path.mkdir(mode=int(record.query["mode"][0], 8), parents=True)
        return {}

    def _move(self, record: FakeRequestRecord) -> Any:
        self._box(record)
        self._path(record, "source").rename(self._path(record, "destination"))
        return {}

    def _find(self, record: FakeRequestRecord) -> Any:
        self._box(record)
        root, pattern = self._path(record), record.query["pattern"][0]
        matches = []
        for file in sorted(p for p in root.rglob("*") if p.is_file()):
            for number, line in enumerate(file.read_text(errors="replace").splitlines(), 1):
                if pattern in line:
                    matches.append({"file": str(file), "line": number, "content": line})
        return matches

    def _search(self, record: FakeRequestRecord) -> Any:
        self._box(record)
        root, pattern = self._path(record), record.query["pattern"][0]
        found = [p for p in sorted(root.rglob("*")) if fnmatch.fnmatch(p.name, pattern)]
        return {"files": [str(p) for p in found]}

    def _permissions(self, record: FakeRequestRecord) -> Any:
        self._box(record)
        if "mode" in record.query:
            self._path(record).chmod(int(record.query["mode"][0], 8))
        return {}

    def _replace(self, record: FakeRequestRecord) -> Any:
        box_id = self._box(record)
        body = record.json
        results = []
        for name in body["files"]:
            path = self.host(box_id, name)
            if not path.is_file():
                results.append({"file": name, "success": False, "error": "file not found"})
                continue
            path.write_text(path.read_text().replace(body["pattern"], body["newValue"]))
            results.append({"file": name, "success": True})
        return results


__all__ = ["FakeDaytona", "FakeE2B", "multipart_file", "toolbox_argv"]
