"""Shared fixtures for the memory tests: a deterministic embedder, stores, memories.

Most tests use :class:`WordHashEmbedder` (bag of hashed words, 64 dims): texts
sharing words are similar, identical texts have cosine 1.0, and it costs
microseconds. The real ONNX default is one session-scoped instance.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from memory_helpers import WordHashEmbedder

from crewgraph.memory import Memory
from crewgraph.testing import FakeLLM


@pytest.fixture
def store_dir(tmp_path: Path) -> Iterator[Path]:
    """A directory for stores: on tmpfs when the machine has one.

    Creating a Qdrant edge shard fsyncs once per payload index (~0.15 s each on
    disk, ~0.03 s on tmpfs); durability semantics are the same on both.
    """
    shm = Path("/dev/shm")
    if shm.is_dir() and os.access(shm, os.W_OK):
        path = Path(tempfile.mkdtemp(prefix="crewgraph-mem-", dir=shm))
        yield path
        shutil.rmtree(path, ignore_errors=True)
    else:
        yield tmp_path


@pytest.fixture
def embedder() -> WordHashEmbedder:
    return WordHashEmbedder()


@pytest.fixture(scope="session")
def onnx_embedder() -> Any:
    from crewgraph.rag.embeddings.onnx_minilm import default_embedder

    emb = default_embedder()
    emb.warm_up()
    return emb


def _backend(kind: str, tmp_path: Path) -> Any:
    if kind == "edge":
        from crewgraph.memory.storage.qdrant_edge import QdrantEdgeStorage

        return QdrantEdgeStorage(tmp_path / "edge")
    from crewgraph.memory.storage.qdrant_server import QdrantServerStorage

    if kind == "client-memory":
        from qdrant_client import QdrantClient

        return QdrantServerStorage(client=QdrantClient(":memory:"))
    url = os.environ.get("CREWGRAPH_QDRANT_URL")
    if not url:
        pytest.skip("Qdrant server tests need CREWGRAPH_QDRANT_URL (e.g. http://localhost:6333)")
    collection = f"crewgraph_test_{os.getpid()}_{abs(hash(str(tmp_path))) % 10**8}"
    return QdrantServerStorage(url, api_key=os.environ.get("CREWGRAPH_QDRANT_API_KEY"), collection=collection)


BACKENDS = ["edge", "client-memory", pytest.param("server", marks=pytest.mark.qdrant_server)]


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest, store_dir: Path) -> Iterator[Any]:
    store = _backend(request.param, store_dir)
    yield store
    try:
        if request.param == "server":
            store.reset()
    finally:
        store.close()


@pytest.fixture
def no_llm() -> FakeLLM:
    """A model that must not be called (any call fails the assertion on call_count)."""
    return FakeLLM([])


@pytest.fixture
def make_memory(store_dir: Path, embedder: WordHashEmbedder) -> Iterator[Callable[..., Memory]]:
    made: list[Memory] = []

    def factory(**kwargs: Any) -> Memory:
        kwargs.setdefault("storage", str(store_dir / "mem"))
        kwargs.setdefault("embedder", embedder)
        kwargs.setdefault("llm", FakeLLM([]))
        memory = Memory(**kwargs)
        made.append(memory)
        return memory

    yield factory
    for memory in made:
        memory.close()
