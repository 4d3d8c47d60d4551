"""Every ```python block in README.md and docs/*.md runs, offline, as written.

Each file runs in a process of its own (``_doc_runner.py``) in its own temporary
directory, with the network blocked but for loopback and the OpenAI SDK pointed at the
project's local OpenAI-compatible server, which answers any chat request: text for plain
turns, an example of the requested schema for structured ones. A block that cannot run
offline says so with ``<!-- fragment: why -->`` on the line before its fence.

The processes are forked from one interpreter that has imported crewgraph, its testing
helpers and the openai SDK (``tests/_forkserver.py``): a new process per file as before, with
its own namespace, directory, environment and exit, without paying 0.4 - 2 s of CPU of those
imports 22 times. Everything a block imports itself is still imported by the block.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from _doc_server import ROOT, answer
from _forkserver import ForkServer

from crewgraph.testing import OpenAICompatServer

RUNNER = Path(__file__).with_name("_doc_runner.py")
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


# What (almost) every doc file imports: crewgraph's public API and its testing helpers, the
# OpenAI-compatible client and the SDK under it.
PRELOAD = ["crewgraph", "crewgraph.testing", "crewgraph.testing.network", "crewgraph.llm.openai_llm", "openai"]


@pytest.fixture(scope="module")
def server() -> Iterator[OpenAICompatServer]:
    with OpenAICompatServer(default=answer) as srv:
        yield srv


def _doc_env(server: OpenAICompatServer) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "CREWGRAPH_", "ANTHROPIC_"))}
    env.update(
        OPENAI_BASE_URL=server.base_url,
        OPENAI_API_KEY="sk-local-test",
        PYTHONPATH=os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")]).rstrip(os.pathsep),
    )
    return env


@pytest.fixture(scope="module")
def forks(server: OpenAICompatServer, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ForkServer]:
    with ForkServer(PRELOAD, env=_doc_env(server), cwd=tmp_path_factory.mktemp("forkserver")) as fs:
        yield fs


@pytest.mark.parametrize("doc", DOCS, ids=[d.relative_to(ROOT).as_posix() for d in DOCS])
def test_python_blocks_run(doc: Path, server: OpenAICompatServer, forks: ForkServer, tmp_path: Path) -> None:
    env = _doc_env(server) | {"CREWGRAPH_STORAGE_DIR": str(tmp_path / "storage")}
    proc = forks.run([str(RUNNER), str(doc)], cwd=tmp_path, env=env, timeout=240)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-6000:]
