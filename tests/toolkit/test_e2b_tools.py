"""E2B's three sandbox tools against a local stand-in of E2B's APIs that really runs the commands.

The stand-in (``_fake_sandboxes.FakeE2B``) speaks E2B's control API, envd's
Connect RPC and ``/files``, and the code interpreter's ``/execute`` stream; a
sandbox is a temporary directory, commands run in bash, Python in a real
interpreter. The tests check what the tools sent and what they made of it.
"""

from __future__ import annotations

import base64
from collections.abc import Iterator

import pytest
from _fake_sandboxes import FakeE2B

from crewgraph.toolkit import E2BExecTool, E2BFileTool, E2BPythonTool
from crewgraph.tools import ToolFailure

KEY = "e2b_0123abcd"


@pytest.fixture(scope="module")
def e2b() -> Iterator[FakeE2B]:
    with FakeE2B(api_key=KEY) as server:
        yield server


def _kw(e2b: FakeE2B) -> dict[str, object]:
    return {"api_key": KEY, "base_url": e2b.url, "sandbox_url": e2b.url}


def test_exec_runs_in_a_fresh_sandbox_and_kills_it(e2b: FakeE2B) -> None:
    before = len(e2b.service.requests)
    tool = E2BExecTool(**_kw(e2b), metadata={"run": "t1"})
    result = tool.run(command="echo hello; echo oops >&2; exit 3")
    assert result == {"exit_code": 3, "stdout": "hello\n", "stderr": "oops\n", "error": "exit status 3"}
    sent = e2b.service.requests[before:]
    create = next(r for r in sent if r.path == "/sandboxes")
    assert create.json == {"templateID": "base", "timeout": 300, "metadata": {"run": "t1"}}
    assert create.headers["x-api-key"] == KEY
    start = next(r for r in sent if r.path == "/process.Process/Start")
    assert start.headers["connect-protocol-version"] == "1" and start.headers["connect-timeout-ms"] == "60000"
    assert start.headers["authorization"] == "Basic " + base64.b64encode(b"user:").decode()
    box_id = create_id = start.headers["e2b-sandbox-id"]
    assert [r.method for r in sent if r.path == f"/sandboxes/{create_id}"] == ["DELETE"]
    assert not e2b.boxes[box_id]["alive"]


def test_exec_cwd_envs_and_sandbox_envs(e2b: FakeE2B) -> None:
    tool = E2BExecTool(**_kw(e2b), envs={"AT_CREATE": "c"})
    result = tool.run(command="pwd; echo $AT_CREATE $PER_CALL", cwd="/home",
                      envs={"PER_CALL": "p"})
    assert result["exit_code"] == 0 and result["error"] is None
    assert result["stdout"].splitlines()[0].endswith("/home") and result["stdout"].splitlines()[1] == "c p"


def test_a_command_out_of_time_is_a_retryable_timeout(e2b: FakeE2B) -> None:
    result = E2BExecTool(**_kw(e2b)).run(command="sleep 5", timeout=0.3)
    assert isinstance(result, ToolFailure) and result.code == "timeout" and result.retryable
    assert "deadline_exceeded" in result.message


def test_persistent_file_tool_keeps_one_sandbox_until_close(e2b: FakeE2B) -> None:
    before = len(e2b.requests_to_create())
    files = E2BFileTool(**_kw(e2b), persistent=True)
    assert files.run(action="write", path="/home/user/notes/a.txt", content="one\n") == {
        "status": "written", "path": "/home/user/notes/a.txt", "bytes": 4}
    assert files.run(action="append", path="/home/user/notes/a.txt", content="two\n") == {
        "status": "appended", "path": "/home/user/notes/a.txt", "appended_bytes": 4, "total_bytes": 8}
    assert files.run(action="read", path="/home/user/notes/a.txt") == {
        "path": "/home/user/notes/a.txt", "encoding": "utf-8", "content": "one\ntwo\n"}
    raw = base64.b64encode(b"\xff\x00\xfe").decode()
    files.run(action="write", path="/home/user/notes/b.bin", content=raw, binary=True)
    read = files.run(action="read", path="/home/user/notes/b.bin")
    assert read["encoding"] == "base64" and read["content"] == raw and "note" in read
    listed = files.run(action="list", path="/home/user/notes")
    assert [(e["name"], e["type"], e["size"]) for e in listed["entries"]] == [("a.txt", "file", 8), ("b.bin", "file", 3)]
    info = files.run(action="info", path="/home/user/notes")
    assert info["type"] == "dir" and info["path"] == "/home/user/notes" and info["modified_time"]
    assert files.run(action="mkdir", path="/home/user/new") == {"status": "created", "path": "/home/user/new", "created": True}
    assert files.run(action="mkdir", path="/home/user/new")["created"] is False
    assert files.run(action="delete", path="/home/user/notes/a.txt") == {"status": "deleted", "path": "/home/user/notes/a.txt"}
    assert files.run(action="exists", path="/home/user/notes/a.txt") == {"path": "/home/user/notes/a.txt", "exists": False}
    missing = files.run(action="read", path="/home/user/nope")
    assert isinstance(missing, ToolFailure) and missing.code == "not_found"
    assert len(e2b.requests_to_create()) == before + 1
    box_id = files._persistent_sandbox.id
    assert e2b.boxes[box_id]["alive"]
    files.close()
    assert not e2b.boxes[box_id]["alive"]


def test_append_needs_content() -> None:
    tool = E2BFileTool(api_key=KEY)
    with pytest.raises(ValueError, match="action='append' needs 'content'"):
        tool.run(action="append", path="/x")


def test_attaching_to_a_sandbox_never_kills_it(e2b: FakeE2B) -> None:
    owner = E2BExecTool(**_kw(e2b), persistent=True)
    owner.run(command="echo state > kept")
    box_id = owner._persistent_sandbox.id
    attached = E2BExecTool(**_kw(e2b), sandbox_id=box_id)
    assert attached.run(command="cat kept")["stdout"] == "state\n"
    assert e2b.service.requests_to(f"/sandboxes/{box_id}/connect")[-1].json == {"timeout": 300}
    assert e2b.boxes[box_id]["alive"]
    owner.close()
    gone = E2BExecTool(**_kw(e2b), sandbox_id=box_id).run(command="true")
    assert isinstance(gone, ToolFailure) and gone.code == "http_404"


def test_python_tool_runs_code_in_the_code_interpreter(e2b: FakeE2B) -> None:
    tool = E2BPythonTool(**_kw(e2b))
    out = tool.run(code="import os\nx = 6\nprint('side', os.environ['GREETING'])\nx * 7", envs={"GREETING": "hi"})
    assert out["text"] == "42" and out["stdout"] == ["side hi\n"] and out["stderr"] == [] and out["error"] is None
    assert out["results"][0]["is_main_result"] is True and out["results"][0]["text"] == "42"
    assert out["execution_count"] == 1
    create = [r for r in e2b.service.requests if r.path == "/sandboxes"][-1]
    assert create.json["templateID"] == "code-interpreter-v1"
    execute = e2b.service.requests_to("/execute")[-1]
    assert execute.json == {"code": execute.json["code"], "context_id": None, "language": None,
                            "env_vars": {"GREETING": "hi"}}
    failed = tool.run(code="1 / 0")
    assert failed["error"]["name"] == "ZeroDivisionError" and "division by zero" in failed["error"]["value"]
    assert failed["text"] is None


def test_missing_key_fails_compile_and_call(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("E2B_API_KEY", raising=False)
    tool = E2BPythonTool()
    assert tool.config_problems() == ["E2BPythonTool needs a E2B API key: set E2B_API_KEY or pass api_key=..."]
    result = tool.run(code="1")
    assert isinstance(result, ToolFailure) and result.code == "missing_api_key" and "E2B_API_KEY" in result.message
    monkeypatch.setenv("E2B_API_KEY", KEY)
    assert E2BPythonTool().config_problems() == []


def test_a_wrong_key_names_the_variable(e2b: FakeE2B, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("E2B_API_URL", e2b.url)
    monkeypatch.setenv("E2B_SANDBOX_URL", e2b.url)
    result = E2BExecTool(api_key="e2b_wrong").run(command="true")
    assert isinstance(result, ToolFailure) and result.code == "http_401" and "E2B_API_KEY" in result.message


def test_addresses_follow_the_domain(monkeypatch: pytest.MonkeyPatch) -> None:
    from crewgraph.toolkit.e2b_tools import _Sandbox

    monkeypatch.delenv("E2B_API_URL", raising=False)
    monkeypatch.delenv("E2B_SANDBOX_URL", raising=False)
    monkeypatch.setenv("E2B_DOMAIN", "e2b.example")
    tool = E2BExecTool(api_key=KEY)
    assert tool.endpoint("/sandboxes") == "https://api.e2b.example/sandboxes"
    base, headers = tool._address(_Sandbox("abc", None, "t"), 49983)
    assert base == "https://49983-abc.e2b.example" and headers["X-Access-Token"] == "t"
    assert set(E2BExecTool.env_var_names()) >= {"E2B_API_KEY", "E2B_DOMAIN"}
