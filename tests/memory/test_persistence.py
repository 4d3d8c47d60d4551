"""Durability and concurrency of the embedded store: restarts, processes, threads,
dimension changes; and the cheap-import guarantee."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest
from memory_helpers import WordHashEmbedder, explicit

from crewgraph.memory import (
    EmbeddingDimensionMismatchError,
    Memory,
    MemoryStorageError,
    StorageLockedError,
)

ROOT = Path(__file__).resolve().parents[2]


def _python(code: str, *, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=f"{ROOT}{os.pathsep}{Path(__file__).parent}")
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=True,
        cwd=cwd,
    )


WRITER = """
    import sys
    from memory_helpers import WordHashEmbedder
    from crewgraph.memory import Memory
    m = Memory(storage=sys.argv[1] if len(sys.argv) > 1 else {path!r}, embedder=WordHashEmbedder(), llm=None)
    m.remember("written by a child process", scope="/proc", categories=["p"], importance=0.7)
    m.remember_many(["batch one from child", "batch two from child"], scope="/proc", categories=[], importance=0.5)
    {ending}
"""


@pytest.mark.parametrize("ending", ["m.close()", "pass  # no close: atexit flushes", "import os; os._exit(0)  # WAL"])
def test_data_survives_the_process(store_dir: Path, ending: str) -> None:
    path = str(store_dir / "store")
    code = WRITER.format(path=path, ending=ending)
    if "os._exit" in ending:
        code = code.replace('m.remember_many(["batch one from child", "batch two from child"]', "m.remember_many([]")
    _python(code)
    m = Memory(storage=path, embedder=WordHashEmbedder(), llm=None)
    try:
        records = m.list_records()
        assert "written by a child process" in {r.content for r in records}
        first = m.recall("written by a child", depth="shallow")[0].record
        assert (first.scope, first.categories, first.importance) == ("/proc", ["p"], 0.7)
        if "os._exit" not in ending:
            assert len(records) == 3
    finally:
        m.close()


def test_a_second_process_gets_a_clear_error_then_can_open_after_close(store_dir: Path) -> None:
    path = str(store_dir / "store")
    m = Memory(storage=path, embedder=WordHashEmbedder(), llm=None)
    m.remember("held by the parent", **explicit())
    probe = f"""
        from memory_helpers import WordHashEmbedder
        from crewgraph.memory import Memory, StorageLockedError
        from crewgraph.memory.storage.qdrant_edge import QdrantEdgeStorage
        m = Memory(storage=QdrantEdgeStorage({path!r}, lock_timeout=0.2), embedder=WordHashEmbedder(), llm=None)
        try:
            m.recall("held", depth="shallow")
        except StorageLockedError as exc:
            print("LOCKED", exc)
        else:
            print("OPENED", len(m.list_records()))
    """
    out = _python(probe).stdout
    assert out.startswith("LOCKED") and f"pid {os.getpid()}" in out and "CREWGRAPH_QDRANT_URL" in out
    m.close()
    assert _python(probe).stdout.strip() == "OPENED 1"


def test_several_memories_and_threads_on_one_path_lose_nothing(store_dir: Path) -> None:
    path = str(store_dir / "store")
    memories = [Memory(storage=path, embedder=WordHashEmbedder(), llm=None) for _ in range(3)]
    errors: list[BaseException] = []

    def writer(mem: Memory, worker: int) -> None:
        try:
            for i in range(15):
                mem.remember(f"worker {worker} item {i}", scope=f"/w{worker}", categories=[], importance=0.5)
            mem.remember_many([f"worker {worker} batch {i}" for i in range(10)], scope=f"/w{worker}", categories=[], importance=0.5)
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=writer, args=(memories[i % 3], i)) for i in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    for mem in memories:
        mem.drain_writes()
    assert not errors
    assert memories[0].info("/").record_count == 6 * 25
    assert all(memories[0].info(f"/w{i}").record_count == 25 for i in range(6))
    for mem in memories:
        mem.close()
    reopened = Memory(storage=path, embedder=WordHashEmbedder(), llm=None)
    assert reopened.info("/").record_count == 150
    reopened.close()


def test_dimension_mismatch_then_reset(store_dir: Path) -> None:
    path = str(store_dir / "store")
    first = Memory(storage=path, embedder=WordHashEmbedder(dim=64), llm=None)
    first.remember("made with 64 dims", **explicit())
    first.close()
    second = Memory(storage=path, embedder=WordHashEmbedder(dim=32), llm=None)
    try:
        with pytest.raises(EmbeddingDimensionMismatchError) as err:
            second.recall("anything", depth="shallow")
        message = str(err.value)
        assert "64" in message and "32" in message and path in message
        assert "crewgraph reset-memories -m" in message and "reset()" in message
        with pytest.raises(EmbeddingDimensionMismatchError):
            second.remember("new", **explicit())
        second.reset()
        second.remember("made with 32 dims", **explicit())
        assert [r.content for r in second.list_records()] == ["made with 32 dims"]
    finally:
        second.close()


def test_storage_that_cannot_be_a_directory_is_named(store_dir: Path) -> None:
    a_file = store_dir / "notes.txt"
    a_file.write_text("not a store")
    memory = Memory(storage=str(a_file), embedder=WordHashEmbedder(), llm=None)
    with pytest.raises(MemoryStorageError, match=r"must name a directory.*notes\.txt is a file"):
        memory.remember("x", **explicit())
    below_a_file = Memory(storage=str(a_file / "mem"), embedder=WordHashEmbedder(), llm=None)
    with pytest.raises(MemoryStorageError, match="cannot create the memory store directory"):
        below_a_file.recall("x", depth="shallow")


@pytest.mark.parametrize("damage", ["metadata", "shard"])
def test_a_damaged_store_says_so_and_reset_repairs_it(store_dir: Path, damage: str) -> None:
    path = store_dir / "store"
    first = Memory(storage=str(path), embedder=WordHashEmbedder(), llm=None)
    first.remember("before the damage", **explicit())
    first.close()
    if damage == "metadata":
        (path / "crewgraph_memory.json").write_text("{")
    else:
        for file in (path / "shard").rglob("*"):
            if file.is_file():
                file.write_bytes(b"junk")
    memory = Memory(storage=str(path), embedder=WordHashEmbedder(), llm=None)
    try:
        with pytest.raises(MemoryStorageError) as err:
            memory.recall("anything", depth="shallow")
        message = str(err.value)
        assert str(path) in message and f"reset-memories -m --storage-path {path}" in message
        with pytest.raises(MemoryStorageError):  # every use, not only the first
            memory.remember("still damaged", **explicit())
        memory.reset()  # the advertised repair works on the damaged store itself
        memory.remember("after the reset", **explicit())
        assert [r.content for r in memory.list_records()] == ["after the reset"]
    finally:
        memory.close()


def test_an_unreachable_qdrant_server_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    from qdrant_client.qdrant_remote import QdrantRemote

    # qdrant-client checks the server version in a background thread that would warn later,
    # during another test; this test is about our error, so skip that check.
    monkeypatch.setattr(QdrantRemote, "_check_compatibility", staticmethod(lambda *a, **k: None))
    memory = Memory(storage="http://127.0.0.1:9", embedder=WordHashEmbedder(), llm=None)
    try:
        with pytest.raises(MemoryStorageError, match=r"Qdrant server at http://127\.0\.0\.1:9.*Is it running"):
            memory.recall("anything", depth="shallow")
    finally:
        memory.close()


def test_lock_error_type_is_exported() -> None:
    assert issubclass(StorageLockedError, Exception)


def test_import_is_cheap_and_construction_is_fast(store_dir: Path) -> None:
    out = _python(
        """
        import sys, time
        t = time.perf_counter()
        import crewgraph.memory
        from crewgraph.memory import Memory
        t1 = time.perf_counter()
        m = Memory()
        m2 = Memory(storage="http://localhost:6333", embedder={"provider": "openai", "config": {}})
        t2 = time.perf_counter()
        heavy = sorted({k.split(".")[0] for k in sys.modules} & {"qdrant_edge", "qdrant_client", "onnxruntime", "tokenizers", "numpy", "openai", "instructor", "httpx"})
        print(heavy, t2 - t1)
        """,
        cwd=store_dir,
    )
    heavy, construct = out.stdout.rsplit(" ", 1)
    assert heavy == "[]", out.stdout
    assert float(construct) < 0.2
    assert not (store_dir / ".crewgraph").exists()


def test_default_storage_location(monkeypatch: pytest.MonkeyPatch, store_dir: Path) -> None:
    from crewgraph.memory.storage import default_storage_path, resolve_storage
    from crewgraph.memory.storage.qdrant_edge import QdrantEdgeStorage
    from crewgraph.memory.storage.qdrant_server import QdrantServerStorage

    monkeypatch.delenv("CREWGRAPH_STORAGE_DIR", raising=False)
    monkeypatch.delenv("CREWGRAPH_QDRANT_URL", raising=False)
    assert default_storage_path() == Path(".crewgraph") / "memory"
    monkeypatch.setenv("CREWGRAPH_STORAGE_DIR", str(store_dir))
    backend = resolve_storage(None)
    assert isinstance(backend, QdrantEdgeStorage) and backend.path == store_dir / "memory"
    assert isinstance(resolve_storage("lancedb"), QdrantEdgeStorage)  # CrewAI's default name
    blank = resolve_storage("  ")  # the default, not the working directory itself
    assert isinstance(blank, QdrantEdgeStorage) and blank.path == store_dir / "memory"
    assert isinstance(resolve_storage(str(store_dir / "x")), QdrantEdgeStorage)
    assert isinstance(resolve_storage(store_dir / "x"), QdrantEdgeStorage)
    server = resolve_storage("http://localhost:6333")
    assert isinstance(server, QdrantServerStorage) and server.url == "http://localhost:6333"
    monkeypatch.setenv("CREWGRAPH_QDRANT_URL", "http://qdrant.local:6333")
    monkeypatch.setenv("CREWGRAPH_QDRANT_API_KEY", "k")
    env_server = resolve_storage(None)
    assert isinstance(env_server, QdrantServerStorage) and env_server.api_key == "k"
    in_memory = resolve_storage(":memory:")
    assert isinstance(in_memory, QdrantServerStorage) and in_memory.url is None
    with pytest.raises(TypeError):
        resolve_storage(42)


def test_in_memory_qdrant_client_storage() -> None:
    m = Memory(storage=":memory:", embedder=WordHashEmbedder(), llm=None)
    m.remember("kept in RAM only", **explicit(scope="/ram"))
    assert [x.record.scope for x in m.recall("kept in RAM", depth="shallow")] == ["/ram"]
    m.close()


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_a_forked_child_does_not_use_the_parents_shard(store_dir: Path) -> None:
    # Run in a fresh interpreter: forking this (multi-threaded) test process could inherit
    # locks held by unrelated threads.
    out = _python(
        f"""
        import os
        from memory_helpers import WordHashEmbedder
        from crewgraph.memory import Memory, StorageLockedError
        m = Memory(storage={str(store_dir / "store")!r}, embedder=WordHashEmbedder(), llm=None)
        m.remember("parent fact", scope="/", categories=[], importance=0.5)
        m.storage_backend.lock_timeout = 0.1
        pid = os.fork()
        if pid == 0:
            try:
                m.recall("parent fact", depth="shallow")
                code = 3
            except StorageLockedError:
                code = 0
            except BaseException:
                code = 4
            os._exit(code)
        _, status = os.waitpid(pid, 0)
        print("child", os.waitstatus_to_exitcode(status))
        print("parent", m.recall("parent fact", depth="shallow")[0].record.content)
        m.close()
        """
    )
    assert out.stdout.split("\n")[:2] == ["child 0", "parent parent fact"]
