"""Benchmark of the unified memory (not a test): construction, saves, recall latency.

    .venv/bin/python scripts/bench_memory.py                 # 1k, 10k, 100k
    .venv/bin/python scripts/bench_memory.py --sizes 1000 10000 --saves 100

What it measures, all on the default embedded Qdrant store and the default
offline embedder (all-MiniLM-L6-v2 int8 ONNX, 384 dims):

- ``Memory()`` construction time (and ``import crewgraph.memory`` in a fresh process);
- ``remember`` with explicit scope/categories/importance (no LLM call): time per
  call split into embedding and everything else (dedup search + write);
- ``remember_many`` throughput (batches of 100);
- shallow ``recall`` with a scope filter at each store size, split into query
  embedding and search + composite scoring. Stores are filled with random unit
  vectors written straight to storage (embedding 100k texts would take ~15 min
  on 2 cores; search cost does not depend on where vectors came from).

The store directories live in a temporary folder (on disk, not tmpfs) and are removed at the end.
"""

from __future__ import annotations

import argparse
import logging
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from crewgraph.memory import Memory, MemoryRecord  # noqa: E402
from crewgraph.rag.embeddings.onnx_minilm import default_embedder  # noqa: E402


def _vocabulary() -> list[str]:
    """Plain English words from the embedder's own WordPiece vocabulary (varied test sentences)."""
    import json

    from crewgraph.rag.embeddings.onnx_minilm import tokenizer_path

    vocab = json.loads(tokenizer_path().read_text("utf-8"))["model"]["vocab"]
    return sorted(w for w in vocab if w.isalpha() and w.isascii() and len(w) >= 4)


WORDS = _vocabulary()


class _NoLLM:
    """Counts calls; memory must not need one when every field is given."""

    calls = 0

    async def acall(self, *args: Any, **kwargs: Any) -> Any:
        _NoLLM.calls += 1
        raise RuntimeError("the benchmark gives every field: no LLM call expected")


class _TimedEmbedder:
    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.seconds = 0.0
        self.dimension = 384

    def __call__(self, texts: list[str]) -> list[list[float]]:
        start = time.perf_counter()
        try:
            return self.inner(texts)  # type: ignore[no-any-return]
        finally:
            self.seconds += time.perf_counter() - start


def _sentence(rng: random.Random, i: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(12)) + "."


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.2f} ms"


def bench_construction() -> None:
    samples = []
    for _ in range(200):
        start = time.perf_counter()
        Memory()
        samples.append(time.perf_counter() - start)
    code = "import time; t=time.perf_counter(); import crewgraph.memory; print(time.perf_counter()-t)"
    imports = [float(subprocess.check_output([sys.executable, "-c", code], cwd=ROOT, text=True)) for _ in range(3)]
    print(f"Memory() construction: median {_ms(statistics.median(samples))}, max {_ms(max(samples))}")
    print(f"import crewgraph.memory (fresh process): median {_ms(statistics.median(imports))}")


def bench_saves(base: Path, n: int) -> None:
    rng = random.Random(1)
    emb = _TimedEmbedder(default_embedder())
    emb(["warm up"])
    emb.seconds = 0.0
    m = Memory(storage=str(base / "saves"), embedder=emb, llm=_NoLLM())
    m.remember("first record creates the store", scope="/bench", categories=[], importance=0.5)  # store creation
    emb.seconds = 0.0
    start = time.perf_counter()
    for i in range(n):
        m.remember(_sentence(rng, i), scope=f"/bench/s{i % 10}", categories=["bench"], importance=0.5)
    total = time.perf_counter() - start
    print(
        f"remember x{n}: {_ms(total / n)} per call = embedding {_ms(emb.seconds / n)}"
        f" + rest {_ms((total - emb.seconds) / n)} (LLM calls: {_NoLLM.calls})"
    )
    batches, size = 10, 100
    emb.seconds = 0.0
    start = time.perf_counter()
    for b in range(batches):
        m.remember_many([_sentence(rng, b * size + i) for i in range(size)], scope="/bench/many", categories=[], importance=0.5)
    queued = time.perf_counter() - start
    m.drain_writes()
    total = time.perf_counter() - start
    count = batches * size
    print(
        f"remember_many {batches}x{size}: returns in {_ms(queued / batches)} per call; "
        f"{count / total:.0f} records/s end to end (embedding {emb.seconds / total:.0%} of the time; "
        f"consolidation checks that asked the stub LLM so far: {_NoLLM.calls})"
    )
    m.close()


def _fill(m: Memory, size: int, rng: random.Random) -> None:
    import numpy as np

    gen = np.random.default_rng(size)
    storage = m.storage_backend
    for start in range(0, size, 1000):
        count = min(1000, size - start)
        vecs = gen.standard_normal((count, 384)).astype(np.float32)
        vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
        storage.save(
            [
                MemoryRecord(
                    content=_sentence(rng, start + i),
                    scope=f"/project/p{(start + i) % 20}",
                    categories=[WORDS[(start + i) % len(WORDS)]],
                    importance=rng.random(),
                    embedding=vecs[i].tolist(),
                    private=(start + i) % 10 == 0,
                    source=f"user:{(start + i) % 5}",
                )
                for i in range(count)
            ]
        )


def bench_recall(base: Path, size: int, queries: int) -> None:
    rng = random.Random(size)
    emb = _TimedEmbedder(default_embedder())
    m = Memory(storage=str(base / f"recall-{size}"), embedder=emb, llm=_NoLLM())
    start = time.perf_counter()
    _fill(m, size, rng)
    fill = time.perf_counter() - start
    totals, embeds = [], []
    for q in range(queries + 3):
        emb.seconds = 0.0
        begin = time.perf_counter()
        m.recall(f"what did we decide about the {rng.choice(WORDS)} {rng.choice(WORDS)}?", scope=f"/project/p{q % 20}", limit=10, depth="shallow")
        if q >= 3:  # warm-up rounds excluded
            totals.append(time.perf_counter() - begin)
            embeds.append(emb.seconds)
    search = sorted(t - e for t, e in zip(totals, embeds, strict=True))
    p95 = search[int(0.95 * (len(search) - 1))]
    print(
        f"recall @ {size:>6} records (scope filter = 1/20 of them, filled in {fill:.1f} s): "
        f"embedding {_ms(statistics.median(embeds))}, search+scoring median {_ms(statistics.median(search))} "
        f"p95 {_ms(p95)}"
    )
    m.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000, 100000])
    parser.add_argument("--saves", type=int, default=200)
    parser.add_argument("--queries", type=int, default=50)
    args = parser.parse_args()
    logging.getLogger("crewgraph.memory").setLevel(logging.ERROR)  # the stub LLM's refusals are expected
    print(f"load average before: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs; Python {sys.version.split()[0]}")
    base = Path(tempfile.mkdtemp(prefix="crewgraph-bench-"))
    try:
        bench_construction()
        bench_saves(base, args.saves)
        for size in args.sizes:
            bench_recall(base, size, args.queries)
    finally:
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
