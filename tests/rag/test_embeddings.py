"""Embedders: the offline ONNX default, OpenAI-compatible endpoints, build_embedder configs."""

from __future__ import annotations

import math
from typing import Any

import pytest

from crewgraph.rag.embeddings import SUPPORTED_PROVIDERS, build_embedder
from crewgraph.rag.embeddings.onnx_minilm import (
    DIMENSION,
    MiniLMEmbedder,
    default_embedder,
    tokenizer_path,
)
from crewgraph.rag.embeddings.openai_compat import OpenAICompatibleEmbedder
from crewgraph.testing import OpenAICompatServer, embedding_for


@pytest.fixture(scope="session")
def minilm() -> MiniLMEmbedder:
    emb = default_embedder()
    emb.warm_up()
    return emb


def _cos(a: list[float], b: list[float]) -> float:
    return sum(x * y for x, y in zip(a, b, strict=True))


def test_default_is_minilm_384_unit_vectors(minilm: MiniLMEmbedder) -> None:
    vectors = minilm(["We decided to use PostgreSQL.", "", "a" * 5000])
    assert [len(v) for v in vectors] == [DIMENSION] * 3 == [384] * 3
    assert all(math.isclose(math.sqrt(sum(x * x for x in v)), 1.0, rel_tol=1e-4) for v in vectors)
    assert tokenizer_path().name == "bert_uncased_vocab.txt"


def test_default_embedder_is_semantic(minilm: MiniLMEmbedder) -> None:
    q, db, port = minilm(
        ["What database did we choose?", "We decided to use PostgreSQL for the user database.", "Staging uses port 8080."]
    )
    assert _cos(q, db) > _cos(q, port) + 0.2
    same = minilm(["CrewAI supports complex workflows.", "CrewAI supports complex workflows."])
    assert _cos(same[0], same[1]) > 0.999


def test_batches_keep_input_order(minilm: MiniLMEmbedder) -> None:
    texts = [f"{'long ' * (i % 7)}sentence number {i}" for i in range(40)]
    small_batches = MiniLMEmbedder(batch_size=3)(texts)
    one_by_one = [minilm([t])[0] for t in texts[:5]]
    for got, want in zip(small_batches[:5], one_by_one, strict=True):
        assert _cos(got, want) > 0.9999


def test_build_embedder_local_aliases() -> None:
    assert build_embedder(None) is default_embedder()
    assert build_embedder({"provider": "onnx"}) is default_embedder()
    hf = {"provider": "huggingface", "config": {"model_name": "sentence-transformers/all-MiniLM-L6-v2"}}
    assert build_embedder(hf) is default_embedder()


def test_unknown_provider_lists_the_supported_ones() -> None:
    with pytest.raises(ValueError) as err:
        build_embedder({"provider": "nonesuch", "config": {}})
    for name in SUPPORTED_PROVIDERS:
        assert name in str(err.value)


def test_memory_rejects_a_misconfigured_embedder_when_built() -> None:
    from crewgraph.memory import Memory

    # Not at the first save: remember_many saves in the background, where it could only log.
    with pytest.raises(ValueError, match="unknown embedder provider 'nonesuch'"):
        Memory(embedder={"provider": "nonesuch", "config": {}})
    with pytest.raises(ValueError, match="azure embedder needs config\\['api_base'\\]"):
        Memory(embedder={"provider": "azure", "config": {"deployment_id": "d"}})


def test_custom_provider_and_bad_configs() -> None:
    fn = lambda texts: [[1.0] for _ in texts]  # noqa: E731
    assert build_embedder({"provider": "custom", "config": {"embedding_callable": fn}}) is fn
    with pytest.raises(ValueError):
        build_embedder({"provider": "custom", "config": {}})
    with pytest.raises(TypeError):
        build_embedder("openai")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="api_base"):
        build_embedder({"provider": "azure", "config": {"deployment_id": "d"}})


def test_building_remote_embedders_needs_no_key_or_network(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    emb = build_embedder({"provider": "openai", "config": {"model_name": "text-embedding-3-large"}})
    assert isinstance(emb, OpenAICompatibleEmbedder) and emb.model == "text-embedding-3-large"
    ollama = build_embedder({"provider": "ollama", "config": {"model_name": "mxbai-embed-large", "url": "http://localhost:11434/api/embeddings"}})
    assert isinstance(ollama, OpenAICompatibleEmbedder)
    assert ollama.base_url == "http://localhost:11434/v1" and ollama.model == "mxbai-embed-large"


def test_openai_compatible_endpoint_batches(openai_server: OpenAICompatServer) -> None:
    emb = build_embedder(
        {"provider": "openai", "config": {"model_name": "local-embed", "api_base": openai_server.base_url, "api_key": "k"}}
    )
    assert isinstance(emb, OpenAICompatibleEmbedder)
    emb.batch_size = 2
    texts = ["alpha", "beta", "gamma"]
    vectors = emb(texts)
    assert vectors == [pytest.approx(embedding_for(t, openai_server.embedding_dim)) for t in texts]
    bodies: list[dict[str, Any]] = openai_server.requests
    assert [b["input"] for b in bodies] == [["alpha", "beta"], ["gamma"]]
    assert all(b["model"] == "local-embed" for b in bodies)


def test_memory_with_an_openai_compatible_embedder(openai_server: OpenAICompatServer, tmp_path: Any) -> None:
    from crewgraph.memory import Memory

    m = Memory(
        storage=str(tmp_path / "m"),
        llm=None,
        embedder={"provider": "openai", "config": {"model_name": "e", "api_base": openai_server.base_url, "api_key": "k"}},
    )
    try:
        m.remember("hello from a remote embedder", scope="/", categories=[], importance=0.5)
        assert m.recall("hello from a remote embedder", depth="shallow")[0].score > 0.8
    finally:
        m.close()


def test_matches_the_sentence_transformers_reference(minilm: MiniLMEmbedder) -> None:
    # sentence-transformers' published similarities for all-MiniLM-L6-v2 (float32):
    # 0.6660, 0.1046, 0.1411. The int8 model with our pooling lands within 0.01.
    a, b, c = minilm(["The weather is lovely today.", "It's so sunny outside!", "He drove to the stadium."])
    assert _cos(a, b) == pytest.approx(0.6660, abs=0.01)
    assert _cos(a, c) == pytest.approx(0.1046, abs=0.01)
    assert _cos(b, c) == pytest.approx(0.1411, abs=0.01)
