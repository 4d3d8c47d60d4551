"""Knowledge indexing cost: first index, an unchanged re-index, and one edited document.

    .venv/bin/python scripts/bench_knowledge.py [documents]

Writes ``documents`` text files (~4 KB each) under a temporary ./knowledge/, indexes them with
the default local embedder into a temporary embedded Qdrant store, then builds a fresh
``Knowledge`` over the same store (a later run) and indexes again, then edits one file and
indexes again; prints the time and the number of chunks embedded for each pass.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def main() -> None:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    work = Path(tempfile.mkdtemp(prefix="crewgraph-bench-knowledge-"))
    os.chdir(work)
    os.environ["CREWGRAPH_STORAGE_DIR"] = str(work / "store")
    (work / "knowledge").mkdir()
    for i in range(count):
        body = " ".join(f"Document {i} sentence {j} talks about topic {i * 7 + j}." for j in range(90))
        (work / "knowledge" / f"doc{i}.txt").write_text(body)

    from crewgraph.knowledge import Knowledge, TextFileKnowledgeSource
    from crewgraph.rag.embeddings.onnx_minilm import default_embedder

    embedder = default_embedder()
    embedder.warm_up()
    names = [f"doc{i}.txt" for i in range(count)]

    def index(label: str) -> None:
        knowledge = Knowledge("bench", [TextFileKnowledgeSource(file_paths=names, chunk_size=1000)], embedder=embedder)
        start = time.perf_counter()
        report = knowledge.add_sources()
        elapsed = time.perf_counter() - start
        print(f"{label:<34} {elapsed * 1000:8.0f} ms   {report.chunks:4d} chunks embedded, "
              f"{len(report.kept)} documents kept")
        knowledge.store.close()

    index(f"first index ({count} documents)")
    index("next run, nothing changed")
    (work / "knowledge" / "doc0.txt").write_text("An edited document about something else entirely.")
    index("next run, one document edited")


if __name__ == "__main__":
    main()
