"""Daytona's three sandbox tools against a local stand-in of Daytona's API and toolbox that really runs them.

The stand-in (``_fake_sandboxes.FakeDaytona``) answers ``/sandbox`` (a new
sandbox is ``creating`` until polled again) and the toolbox behind the proxy
URL; commands are split the way Daytona's toolbox splits them (no shell) and
really run, so the tool's ``sh -c`` wrapping is what makes pipes and ``export``
work. Files are real files under the test's temporary directory.
"""

from __future__ import annotations

import base64
from collections.abc import Iterator
from pathlib import Path

import pytest
from _fake_sandboxes import FakeDaytona

from crewgraph.toolkit import DaytonaExecTool, DaytonaFileTool, DaytonaPythonTool
from crewgraph.tools import ToolFailure

KEY = "dtn_secret"


@pytest.fixture(scope="module")
def daytona() -> Iterator[FakeDaytona]:
    with FakeDaytona(api_key=KEY) as server:
        yield server


def _kw(daytona: FakeDaytona) -> dict[str, object]:
    return {"api_key": KEY, "api_url": daytona.api_url}


def test_exec_creates_waits_runs_and_deletes(daytona: FakeDaytona, tmp_path: Path) -> None:
    before = len(daytona.service.requests)
    tool = DaytonaExecTool(**_kw(daytona), target="eu", create_params={"language": "python", "env_vars": {"AT": "c"},
                                                                       "labels": {"team": "qa"}})
    result = tool.run(command="echo $GREETING | tr a-z A-Z; echo bad >&2; exit 2", env={"GREETING": "hi there"},
                      cwd=str(tmp_path))
    assert result == {"exit_code": 2, "result": "HI THERE\nbad\n", "artifacts": None}
    sent = daytona.service.requests[before:]
    create = next(r for r in sent if r.method == "POST" and r.path == "/api/sandbox")
    assert create.json == {"env": {"AT": "c"}, "labels": {"team": "qa", "code-toolbox-language": "python"}, "target": "eu"}
    assert create.headers["authorization"] == f"Bearer {KEY}"
    box_id = next(r for r in sent if r.path.endswith("/process/execute")).params["id"]
    assert [r.method for r in sent if r.path == f"/api/sandbox/{box_id}"] == ["GET", "DELETE"]  # polled once, then deleted
    execute = next(r for r in sent if r.path.endswith("/process/execute")).json
    assert execute["command"].startswith("sh -c \"echo '") and execute["cwd"] == str(tmp_path)
    assert not daytona.boxes[box_id]["alive"]


def test_python_tool_uses_code_run(daytona: FakeDaytona) -> None:
    out = DaytonaPythonTool(**_kw(daytona)).run(code="import os, sys\nprint(sys.argv[1:], os.environ['MODE'])",
                                                argv=["a", "b"], env={"MODE": "test"}, timeout=20)
    assert out == {"exit_code": 0, "result": "['a', 'b'] test\n", "artifacts": None}
    sent = daytona.service.requests_to(f"/toolbox/{_last_box(daytona)}/process/code-run")[-1].json
    assert sent == {"code": sent["code"], "language": "python", "argv": ["a", "b"], "envs": {"MODE": "test"}, "timeout": 20}


def _last_box(daytona: FakeDaytona) -> str:
    return sorted(daytona.boxes, key=lambda b: int(b[3:]))[-1]


def test_file_tool_actions(daytona: FakeDaytona, tmp_path: Path) -> None:
    files = DaytonaFileTool(**_kw(daytona), persistent=True)
    target = str(tmp_path / "src" / "app.py")
    assert files.run(action="write", path=target, content="print('v1')\n") == {"status": "written", "path": target, "bytes": 12}
    appended = files.run(action="append", path=target, content="# end\n")
    assert appended == {"status": "appended", "path": target, "appended_bytes": 6, "total_bytes": 18}
    assert files.run(action="read", path=target)["content"] == "print('v1')\n# end\n"
    assert not list(Path("/tmp").glob(".crewgraph-append-*")), "the append's temporary file is removed"
    info = files.run(action="info", path=target)
    assert info["name"] == "app.py" and info["size"] == 18 and info["is_dir"] is False and set(info) == {
        "name", "size", "mode", "permissions", "is_dir", "mod_time", "owner", "group"}
    assert files.run(action="exists", path=str(tmp_path / "nope")) == {"path": str(tmp_path / "nope"), "exists": False}
    assert files.run(action="exists", path=str(tmp_path / "src"))["is_dir"] is True
    assert [e["name"] for e in files.run(action="list", path=str(tmp_path / "src"))["entries"]] == ["app.py"]
    found = files.run(action="find", path=str(tmp_path), pattern="v1")
    assert found["matches"] == [{"file": target, "line": 1, "content": "print('v1')"}]
    assert files.run(action="search", path=str(tmp_path), pattern="*.py")["files"] == [target]
    replaced = files.run(action="replace", paths=[target, str(tmp_path / "gone.py")], pattern="v1", replacement="v2")
    assert [(r["file"], r["success"]) for r in replaced["results"]] == [(target, True), (str(tmp_path / "gone.py"), False)]
    assert Path(target).read_text() == "print('v2')\n# end\n"
    assert files.run(action="chmod", path=target, mode="755") == {"status": "permissions_set", "path": target, "mode": "755"}
    assert Path(target).stat().st_mode & 0o777 == 0o755
    moved = str(tmp_path / "main.py")
    assert files.run(action="move", path=target, destination=moved) == {"status": "moved", "from": target, "to": moved}
    assert files.run(action="mkdir", path=str(tmp_path / "d"), mode="0700")["mode"] == "0700"
    raw = base64.b64encode(b"\x00\xff").decode()
    files.run(action="write", path=str(tmp_path / "d" / "x.bin"), content=raw, binary=True)
    assert files.run(action="read", path=str(tmp_path / "d" / "x.bin"))["encoding"] == "base64"
    not_empty = files.run(action="delete", path=str(tmp_path / "d"))
    assert isinstance(not_empty, ToolFailure) and not_empty.code == "http_400"
    assert files.run(action="delete", path=str(tmp_path / "d"), recursive=True)["status"] == "deleted"
    box_id = files._persistent_sandbox["id"]
    files.close()
    assert not daytona.boxes[box_id]["alive"]


def test_schema_checks_each_action_s_arguments() -> None:
    tool = DaytonaFileTool(api_key=KEY)
    for args, message in (({"action": "read"}, "needs 'path'"), ({"action": "move", "path": "/a"}, "'destination'"),
                          ({"action": "chmod", "path": "/a"}, "'mode', 'owner' or 'group'"),
                          ({"action": "replace", "paths": ["/a"], "pattern": "x"}, "'replacement'")):
        with pytest.raises(ValueError, match=message):
            tool.run(**args)


def test_attaching_and_bad_create_params(daytona: FakeDaytona, tmp_path: Path) -> None:
    owner = DaytonaExecTool(**_kw(daytona), persistent=True)
    owner.run(command=f"echo kept > {tmp_path}/state")
    box_id = owner._persistent_sandbox["id"]
    attached = DaytonaExecTool(**_kw(daytona), sandbox_id=box_id)
    assert attached.run(command=f"cat {tmp_path}/state")["result"] == "kept\n"
    assert daytona.boxes[box_id]["alive"]
    owner.close()
    with pytest.raises(ValueError, match=r"create_params=\.\.\.\) does not know cpu_count"):
        DaytonaExecTool(api_key=KEY, create_params={"cpu_count": 2})


def test_missing_and_wrong_key(daytona: FakeDaytona, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DAYTONA_API_KEY", raising=False)
    tool = DaytonaExecTool(api_url=daytona.api_url)
    assert tool.config_problems() == ["DaytonaExecTool needs a Daytona API key: set DAYTONA_API_KEY or pass api_key=..."]
    missing = tool.run(command="true")
    assert isinstance(missing, ToolFailure) and missing.code == "missing_api_key"
    monkeypatch.setenv("DAYTONA_API_KEY", "dtn_wrong")
    monkeypatch.setenv("DAYTONA_API_URL", daytona.api_url)
    wrong = DaytonaExecTool().run(command="true")
    assert isinstance(wrong, ToolFailure) and wrong.code == "http_401" and "DAYTONA_API_KEY" in wrong.message
    assert DaytonaExecTool.env_var_names()[:3] == ("DAYTONA_API_KEY", "DAYTONA_TARGET", "DAYTONA_API_URL")
