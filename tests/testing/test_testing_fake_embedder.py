"""FakeEmbedder: deterministic, normalised, similar for shared words, usable as a Memory embedder."""

from __future__ import annotations

import math
from pathlib import Path

from crewgraph.memory import Memory
from crewgraph.testing import FakeEmbedder


def cosine(a: list[float], b: list[float]) -> float:
    return sum(x * y for x, y in zip(a, b, strict=True))


def test_vectors_are_deterministic_normalised_and_word_sensitive() -> None:
    emb = FakeEmbedder(dimension=32)
    a, b, c = emb(["the database is postgres", "postgres database chosen", "lunch menu today"])
    assert emb(["the database is postgres"])[0] == a
    assert math.isclose(sum(x * x for x in a), 1.0)
    assert cosine(a, b) > cosine(a, c)
    assert emb.calls[0] == ["the database is postgres", "postgres database chosen", "lunch menu today"]
    assert emb.texts_embedded == 4


def test_it_drives_a_real_memory(tmp_path: Path) -> None:
    emb = FakeEmbedder()
    memory = Memory(storage=str(tmp_path / "mem"), embedder=emb)
    memory.remember("We chose PostgreSQL for the user database", scope="/project", importance=0.9)
    memory.remember("The cafeteria serves pasta on Fridays", scope="/office", importance=0.1)
    matches = memory.recall("which database did we choose", limit=1, depth="shallow")
    assert "PostgreSQL" in matches[0].record.content
    memory.close()
