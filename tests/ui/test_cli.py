"""``crewgraph ui`` / ``crewgraph serve`` as commands: lazy imports, the missing extra, a real server."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from _forkserver import run_python

ROOT = Path(__file__).resolve().parents[2]


def _env(project: Any) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    env["CREWGRAPH_STORAGE_DIR"] = str(project.root / "store")
    return env


def test_help_imports_no_web_server() -> None:
    code = (
        "import sys, json\n"
        "from crewgraph.cli import main\n"
        "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
        "try:\n    main(['serve', '--help'])\nexcept SystemExit:\n    pass\n"
        "print(json.dumps([m for m in ('starlette', 'uvicorn') if m in sys.modules]))"
    )
    out = run_python(["-c", code], cwd=ROOT)
    assert out.returncode == 0, out.stderr
    assert "serve" in out.stdout and "--token" in out.stdout
    assert json.loads(out.stdout.strip().splitlines()[-1]) == []


def test_a_missing_extra_names_crewgraph_ui() -> None:
    code = (
        "import sys\n"
        "sys.modules['starlette'] = None\n"
        "from crewgraph.errors import MissingExtraError\n"
        "from crewgraph.ui import create_app\n"
        "try:\n    create_app()\nexcept MissingExtraError as exc:\n    print(exc.extra, '|', exc)\n"
    )
    out = run_python(["-c", code], cwd=ROOT)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("ui |") and "crewgraph[ui]" in out.stdout


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _start(project: Any, *args: str) -> tuple[subprocess.Popen[str], list[str]]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "crewgraph.cli", "serve", *args],
        cwd=project.root, env=_env(project), stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True,
    )
    lines: list[str] = []
    deadline = time.monotonic() + 30
    assert proc.stderr is not None
    while time.monotonic() < deadline:
        line = proc.stderr.readline()
        if not line:
            break
        lines.append(line.strip())
        if line.startswith("crewgraph UI on") and (not any("0.0.0.0" in a for a in args) or len(lines) >= 2):
            return proc, lines
        if line.startswith("API token"):
            return proc, lines
    proc.kill()
    raise AssertionError(f"the server did not start: {lines}")


def _stop(proc: subprocess.Popen[str]) -> None:
    proc.terminate()
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(5)


def test_serve_starts_uvicorn_with_the_registered_crew(project: Any) -> None:
    port = _free_port()
    proc, lines = _start(project, "--port", str(port), "--crew", project.crew, "--no-project")
    try:
        assert lines[0] == f"crewgraph UI on http://127.0.0.1:{port}/"
        targets = httpx.get(f"http://127.0.0.1:{port}/targets", timeout=5).json()["targets"]
        assert [t["name"] for t in targets] == ["democrew"]
    finally:
        _stop(proc)


def test_serve_on_a_public_host_prints_a_generated_token(project: Any) -> None:
    port = _free_port()
    proc, lines = _start(project, "--host", "0.0.0.0", "--port", str(port), "--no-project")
    try:
        token = next(line.split(": ", 1)[1] for line in lines if line.startswith("API token"))
        assert f"?token={token}" in lines[0]
        assert httpx.get(f"http://127.0.0.1:{port}/runs", timeout=5).status_code == 401
        ok = httpx.get(f"http://127.0.0.1:{port}/runs", headers={"Authorization": f"Bearer {token}"}, timeout=5)
        assert ok.status_code == 200 and ok.json()["runs"] == []
    finally:
        _stop(proc)


@pytest.mark.parametrize("spec", ["nosuchmodule:crew"])
def test_a_bad_target_is_one_line_error(project: Any, spec: str) -> None:
    out = run_python(["-m", "crewgraph.cli", "serve", "--crew", spec, "--port", str(_free_port())],
                     cwd=project.root, env=_env(project), timeout=60)
    assert out.returncode == 1
    assert out.stderr.startswith("Error:") and "nosuchmodule" in out.stderr and "Traceback" not in out.stderr


def test_the_ui_works_without_networkx(project: Any) -> None:
    """networkx is an extra: the run list, the drawing and the node panel use crewgraph's Digraph."""
    code = (
        "import sys, time\n"
        "sys.modules['networkx'] = None\n"
        "from pathlib import Path\n"
        "from starlette.testclient import TestClient\n"
        "from crewgraph.ui import UISettings, create_app\n"
        f"settings = UISettings(targets=[{project.crew!r}, {project.flow!r}], cwd=Path.cwd())\n"
        "with TestClient(create_app(settings), base_url='http://127.0.0.1') as c:\n"
        "    for target, inputs in (('democrew', {'topic': 'cats'}), ('AskFlow', {})):\n"
        "        job = c.post('/kickoff', json={'target': target, 'inputs': inputs}).json()\n"
        "        for _ in range(200):\n"
        "            job = c.get(f\"/jobs/{job['job_id']}\").json()\n"
        "            if job['status'] not in ('queued', 'running'): break\n"
        "            time.sleep(0.05)\n"
        "        run = c.get(f\"/runs/{job['run_id']}\").json()\n"
        "        assert '<svg' in c.get(f\"/runs/{job['run_id']}/graph.svg\").text\n"
        "        node = c.get(f\"/runs/{job['run_id']}/nodes/{run['nodes'][0]['id']}\").json()\n"
        "        print(target, job['status'], run['status'], node['status'])\n"
    )
    out = run_python(["-c", code], cwd=project.root, env=_env(project), timeout=120)
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.split("\n")[:2] == ["democrew completed completed completed", "AskFlow paused paused completed"]
