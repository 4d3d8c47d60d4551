"""Knowledge tests run in a fresh working directory (``./knowledge/`` is looked up there) with
stores on tmpfs when the machine has one, and a fast deterministic embedder."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from crewgraph.testing import FakeEmbedder


@pytest.fixture
def workdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    shm = Path("/dev/shm")
    base = Path(tempfile.mkdtemp(prefix="crewgraph-kn-", dir=shm)) if shm.is_dir() and os.access(shm, os.W_OK) else tmp_path / "store"
    monkeypatch.setenv("CREWGRAPH_STORAGE_DIR", str(base))
    monkeypatch.delenv("CREWGRAPH_QDRANT_URL", raising=False)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "knowledge").mkdir()
    yield tmp_path
    shutil.rmtree(base, ignore_errors=True)


@pytest.fixture
def embedder() -> FakeEmbedder:
    return FakeEmbedder(dimension=64)
