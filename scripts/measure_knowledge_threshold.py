"""Measure the default embedder's similarity for relevant and irrelevant knowledge chunks.

The default knowledge threshold must fit the default (offline MiniLM) embedder: a chunk that
answers a task should pass, one about something else should not. This embeds a few real
documents (crewgraph's own docs, chunked as knowledge sources chunk them: 4000 characters,
200 overlap) and, for task-like queries whose answer is in a known document, prints the scores
of the chunks that hold the answer ("relevant") and of every chunk of the other documents
("irrelevant"). docs/knowledge.md quotes the result.

usage: python scripts/measure_knowledge_threshold.py
"""

from __future__ import annotations

import statistics
from pathlib import Path

from crewgraph.rag.embeddings.onnx_minilm import default_embedder
from crewgraph.rag.loaders import chunk_text

DOCS = Path(__file__).resolve().parents[1] / "docs"

# (document, task description as a crew would write it, a phrase the answering chunk contains)
QUERIES: list[tuple[str, str, str]] = [
    ("checkpoints.md", "Explain how to resume a crew run that crashed from its checkpoint.", "resume"),
    ("checkpoints.md", "Find out where the checkpoint database is stored by default.", ".crewgraph"),
    ("checkpoints.md", "Describe what happens to completed tasks when a run is resumed.", "resum"),
    ("memory.md", "Summarise how memories are scored when they are recalled.", "recency"),
    ("memory.md", "Answer: which embedder does memory use when no API key is configured?", "embedder"),
    ("memory.md", "Explain how to share memory between machines with a Qdrant server.", "Qdrant"),
    ("flows.md", "Explain how a router method chooses the next step of a flow.", "router"),
    ("flows.md", "Describe how flow state is kept and persisted between runs.", "state"),
    ("flows.md", "Write a short guide to starting a flow with @start and listening with @listen.", "@listen"),
    ("hierarchical.md", "Explain how the manager agent delegates tasks to coworkers.", "manager"),
    ("hierarchical.md", "What does a hierarchical crew need to be valid?", "manager_llm"),
    ("mcp.md", "Explain how to give an agent the tools of an MCP server.", "MCP"),
    ("mcp.md", "Describe how to filter which MCP tools an agent may use.", "filter"),
    ("ui.md", "Explain how to start the local web UI and what it shows.", "crewgraph ui"),
    ("ui.md", "Describe how a run is started from the web page.", "kickoff"),
]


def main() -> None:
    embed = default_embedder()
    names = sorted({doc for doc, _, _ in QUERIES})
    chunks = {name: chunk_text((DOCS / name).read_text(encoding="utf-8"), 4000, 200) for name in names}
    vectors = {name: embed(texts) for name, texts in chunks.items()}
    relevant: list[float] = []
    best_relevant: list[float] = []
    irrelevant: list[float] = []
    best_irrelevant: list[float] = []
    for doc, query, phrase in QUERIES:
        q = embed([query])[0]
        scores = {name: [sum(a * b for a, b in zip(q, v, strict=True)) for v in vecs] for name, vecs in vectors.items()}
        rel = [s for s, text in zip(scores[doc], chunks[doc], strict=True) if phrase.lower() in text.lower()]
        other = [s for name, ss in scores.items() if name != doc for s in ss]
        relevant += rel
        irrelevant += other
        best_relevant.append(max(rel))
        best_irrelevant.append(max(other))
        print(f"{max(rel):.3f} best relevant | {max(other):.3f} best irrelevant | {doc}: {query}")

    def show(label: str, values: list[float]) -> None:
        q = statistics.quantiles(values, n=10)
        print(f"{label:>22}: n={len(values):3d} min={min(values):.3f} p10={q[0]:.3f} "
              f"median={statistics.median(values):.3f} p90={q[-1]:.3f} max={max(values):.3f}")

    print()
    for threshold in (0.2, 0.25, 0.3, 0.35):
        kept = sum(s >= threshold for s in relevant) / len(relevant)
        best = sum(s >= threshold for s in best_relevant)
        noise = sum(s >= threshold for s in irrelevant) / len(irrelevant)
        print(f"threshold {threshold:.2f}: keeps {kept:4.0%} of relevant chunks, the best relevant chunk of "
              f"{best}/{len(best_relevant)} queries, {noise:4.0%} of irrelevant chunks")
    show("relevant chunks", relevant)
    show("best relevant/query", best_relevant)
    show("irrelevant chunks", irrelevant)
    show("best irrelevant/query", best_irrelevant)


if __name__ == "__main__":
    main()
