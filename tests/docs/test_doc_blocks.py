"""Every ```python block in README.md and docs/*.md runs, offline, as written.

Each file runs in a fresh interpreter (``_doc_runner.py``) in its own temporary
directory, with the network blocked but for loopback and the OpenAI SDK pointed at the
project's local OpenAI-compatible server, which answers any chat request: text for plain
turns, an example of the requested schema for structured ones. A block that cannot run
offline says so with ``<!-- fragment: why -->`` on the line before its fence.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from _doc_server import ROOT, answer

from crewgraph.testing import OpenAICompatServer

RUNNER = Path(__file__).with_name("_doc_runner.py")
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


@pytest.fixture(scope="module")
def server() -> Iterator[OpenAICompatServer]:
    with OpenAICompatServer(default=answer) as srv:
        yield srv


@pytest.mark.parametrize("doc", DOCS, ids=[d.relative_to(ROOT).as_posix() for d in DOCS])
def test_python_blocks_run(doc: Path, server: OpenAICompatServer, tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "CREWGRAPH_", "ANTHROPIC_"))}
    env.update(
        OPENAI_BASE_URL=server.base_url,
        OPENAI_API_KEY="sk-local-test",
        CREWGRAPH_STORAGE_DIR=str(tmp_path / "storage"),
        PYTHONPATH=os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")]).rstrip(os.pathsep),
    )
    proc = subprocess.run(
        [sys.executable, str(RUNNER), str(doc)],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=240,
    )
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-6000:]
