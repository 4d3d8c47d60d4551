"""A full disk under the embedded memory store is an error that says so, never a crash.

Qdrant's embedded engine maps its files into memory: a write into a mapped file on a full
disk kills the process with SIGBUS (found on a 200 MiB tmpfs: the save loop and then even
opening the store died with "Bus error"), and nothing can catch that. The store checks the
free space before it opens or writes, and says the disk is full and that nothing is lost.
"""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from crewgraph.memory.storage.backend import MemoryStorageError
from crewgraph.memory.storage.qdrant_edge import QdrantEdgeStorage
from crewgraph.memory.types import MemoryRecord


def _records(n: int, size: int = 8) -> list[MemoryRecord]:
    return [MemoryRecord(content=f"fact {uuid.uuid4()}", embedding=[float(i % 3 + 1)] * size) for i in range(n)]


def test_a_disk_reported_full_refuses_the_write_with_advice(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = QdrantEdgeStorage(tmp_path / "mem")
    store.save(_records(3))
    import crewgraph._internal.store_errors as store_errors

    real = store_errors.shutil.disk_usage

    def nearly_full(path: Any) -> Any:
        usage = real(path)
        return type(usage)(usage.total, usage.total - 2**20, 2**20)  # 1 MiB free

    monkeypatch.setattr(store_errors.shutil, "disk_usage", nearly_full)
    with pytest.raises(MemoryStorageError) as caught:
        store.save(_records(2))
    message = str(caught.value)
    assert "the disk is full (1.0 MiB free" in message and "nothing saved is" in message
    assert "corrupt" not in message and "delete" not in message
    with pytest.raises(MemoryStorageError, match="the disk is full"):
        store.reset("/team")  # a delete is written to the log too
    monkeypatch.undo()
    assert store.count() == 3  # what was saved before is all there
    store.save(_records(2))
    assert store.count() == 5
    store.close()


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A real 200 MiB filesystem (tmpfs), when this machine lets us mount one (root)."""
    mount = tmp_path / "disk"
    mount.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=200m", "tmpfs", str(mount)],
                          capture_output=True, text=True, timeout=30)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs here: {done.stderr.strip() or done.returncode}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], capture_output=True, timeout=30)


_CHILD = """
import sys
from crewgraph.memory.storage.backend import MemoryStorageError
from crewgraph.memory.storage.qdrant_edge import QdrantEdgeStorage
from crewgraph.memory.types import MemoryRecord
store = QdrantEdgeStorage(sys.argv[1])
try:
    store.save([MemoryRecord(content="more", embedding=[1.0] * 8)])
    print("COUNT", store.count())
except MemoryStorageError as exc:
    print("REFUSED", exc)
"""


def test_a_really_full_disk_is_refused_in_time_and_the_store_survives(small_disk: Path) -> None:
    root = small_disk / "mem"
    store = QdrantEdgeStorage(root)
    store.save(_records(4))
    store.close()
    filler = small_disk / "filler"
    free = os.statvfs(small_disk).f_bavail * os.statvfs(small_disk).f_frsize
    with filler.open("wb") as f:  # leave 8 MiB: less than the engine needs to open or write
        f.truncate(0)
        chunk = b"\0" * 2**20
        for _ in range(max(0, free // 2**20 - 8)):
            f.write(chunk)
    # In a child process: without the check, the engine's SIGBUS would kill the test runner.
    run = [sys.executable, "-c", _CHILD, str(root)]
    full = subprocess.run(run, capture_output=True, text=True, timeout=120)
    assert full.returncode == 0, full.stderr[-2000:]
    assert "REFUSED" in full.stdout and "the disk is full" in full.stdout
    filler.unlink()
    freed = subprocess.run(run, capture_output=True, text=True, timeout=120)
    assert freed.returncode == 0, freed.stderr[-2000:]
    assert "REFUSED" not in freed.stdout and "COUNT 5" in freed.stdout
