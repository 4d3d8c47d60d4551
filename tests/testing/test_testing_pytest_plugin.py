"""The pytest plugin, exercised in a child pytest run (fixtures, marker, suite-wide opt-in)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

DEFAULT_SUITE = '''
import socket
import pytest
from crewgraph.testing import NetworkBlockedError
from crewgraph.testing.network import is_network_blocked


def _connect():
    sock = socket.socket()
    try:
        sock.connect(("10.255.255.1", 9))
    finally:
        sock.close()


def test_fake_llm_factory(fake_llm):
    llm = fake_llm(["x"], model="f")
    assert llm.call("q").content == "x" and llm.model == "f"


def test_openai_server(openai_server):
    import json, urllib.request
    openai_server.add("hi")
    req = urllib.request.Request(
        openai_server.base_url + "/chat/completions",
        data=json.dumps({"messages": []}).encode(),
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(req, timeout=10) as resp:
        assert json.loads(resp.read())["choices"][0]["message"]["content"] == "hi"


@pytest.mark.block_network
def test_marker_blocks():
    with pytest.raises(NetworkBlockedError):
        _connect()


def test_fixture_blocks(block_network):
    with pytest.raises(NetworkBlockedError):
        _connect()


def test_not_blocked_by_default():
    assert not is_network_blocked()
'''

SUITE_WIDE = '''
import pytest
from crewgraph.testing.network import is_network_blocked


def test_blocked():
    assert is_network_blocked()


@pytest.mark.allow_network
def test_exempt():
    assert not is_network_blocked()
'''


def _run(tmp_path: Path, source: str, ini: str = "", env: dict[str, str] | None = None) -> str:
    (tmp_path / "test_child.py").write_text(source)
    (tmp_path / "pytest.ini").write_text("[pytest]\n" + ini)
    child_env = {k: v for k, v in os.environ.items() if not k.startswith("CREWGRAPH_")}
    child_env.update(env or {})
    child_env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"  # load exactly our plugin, installed or not
    child_env["PYTHONPATH"] = os.pathsep.join([str(ROOT), child_env.get("PYTHONPATH", "")])
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "crewgraph.testing.pytest_plugin",
         "-p", "no:cacheprovider", "-q", str(tmp_path)],
        cwd=tmp_path, env=child_env, capture_output=True, text=True, timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


def test_fixtures_and_marker(tmp_path: Path) -> None:
    assert "5 passed" in _run(tmp_path, DEFAULT_SUITE)


@pytest.mark.parametrize(
    ("ini", "env"),
    [("crewgraph_block_network = true\n", {}), ("", {"CREWGRAPH_BLOCK_NETWORK": "1"})],
    ids=["ini", "env"],
)
def test_suite_wide_opt_in(tmp_path: Path, ini: str, env: dict[str, str]) -> None:
    assert "2 passed" in _run(tmp_path, SUITE_WIDE, ini, env)
