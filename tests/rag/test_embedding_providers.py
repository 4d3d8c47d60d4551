"""Every embedder provider of the memory page, each against a local fake of its embedding API.

The fakes answer with the reply shapes the providers document, with vectors
from ``embedding_for`` (deterministic), so a test can check both the request
the client built and that each text got its own vector, in order.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from crewgraph.rag.embeddings import SUPPORTED_PROVIDERS, build_embedder
from crewgraph.rag.embeddings._http import EmbedderError
from crewgraph.rag.embeddings.onnx_minilm import default_embedder
from crewgraph.testing import FakeHTTPService, FakeRequestRecord, embedding_for

DIM = 8


def _vec(text: str, dim: int = DIM) -> list[float]:
    return embedding_for(text, dim)


def _bearer(expected: str) -> Any:
    def check(request: FakeRequestRecord) -> bool:
        return request.headers.get("authorization") == f"Bearer {expected}"
    return check


def _routes() -> dict[str, Any]:
    def cohere(r: FakeRequestRecord) -> Any:
        if not _bearer("co-key")(r):
            return 401, {"id": "x", "message": "invalid api token"}
        body = r.json
        return {"id": "e1", "texts": body["texts"], "embeddings": {"float": [_vec(t) for t in body["texts"]]},
                "meta": {"api_version": {"version": "2"}, "billed_units": {"input_tokens": 3}},
                "response_type": "embeddings_by_type"}

    def openai_like(key: str, dim: int) -> Any:
        def handler(r: FakeRequestRecord) -> Any:
            if not _bearer(key)(r):
                return 401, {"detail": "Provided API key is invalid."}
            texts = r.json["input"]
            rows = [{"object": "embedding", "embedding": _vec(t, dim), "index": i} for i, t in enumerate(texts)]
            return {"object": "list", "data": list(reversed(rows)), "model": r.json["model"], "usage": {"total_tokens": 5}}
        return handler

    def gemini(r: FakeRequestRecord) -> Any:
        if r.headers.get("x-goog-api-key") != "g-key":
            return 400, {"error": {"code": 400, "message": "API key not valid. Please pass a valid API key.", "status": "INVALID_ARGUMENT"}}
        return {"embeddings": [{"values": _vec(q["content"]["parts"][0]["text"])} for q in r.json["requests"]]}

    def vertex(r: FakeRequestRecord) -> Any:
        if r.headers.get("authorization") != "Bearer vertex-token" and r.headers.get("x-goog-api-key") != "express":
            return 401, {"error": {"code": 401, "message": "Request had invalid authentication credentials.", "status": "UNAUTHENTICATED"}}
        return {"predictions": [{"embeddings": {"statistics": {"truncated": False, "token_count": 4}, "values": _vec(i["content"])}}
                                for i in r.json["instances"]],
                "metadata": {"billableCharacterCount": 10}}

    def hf(r: FakeRequestRecord) -> Any:
        return [_vec(t) for t in r.json["inputs"]]

    def iam(r: FakeRequestRecord) -> Any:
        if r.form.get("apikey") != "ibm-key" or r.form.get("grant_type") != "urn:ibm:params:oauth:grant-type:apikey":
            return 400, {"errorCode": "BXNIM0415E", "errorMessage": "Provided API key could not be found."}
        return {"access_token": "ibm-token", "refresh_token": "not_supported", "token_type": "Bearer",
                "expires_in": 3600, "expiration": 4102444800, "scope": "ibm openid"}

    def watsonx(r: FakeRequestRecord) -> Any:
        if not _bearer("ibm-token")(r):
            return 401, {"errors": [{"code": "authentication_token_not_valid", "message": "Failed to authenticate"}]}
        body = r.json
        return {"model_id": body["model_id"], "results": [{"embedding": _vec(t)} for t in body["inputs"]],
                "created_at": "2024-05-01T00:00:00.000Z", "input_token_count": 4}

    def bedrock(r: FakeRequestRecord) -> Any:
        assert r.headers["authorization"].startswith("AWS4-HMAC-SHA256 Credential=test-key/")
        body = r.json
        if r.params["model"].startswith("cohere."):
            return {"id": "x", "texts": body["texts"], "embeddings": [_vec(t) for t in body["texts"]], "response_type": "embeddings_floats"}
        return {"embedding": _vec(body["inputText"]), "inputTextTokenCount": 3}

    return {
        "POST /v2/embed": cohere,
        "POST /voyage/v1/embeddings": openai_like("voy-key", DIM),
        "POST /voyage16/v1/embeddings": openai_like("voy-key", 16),
        "POST /jina/v1/embeddings": openai_like("jina-key", DIM),
        "POST /v1beta/models/gemini-embedding-001:batchEmbedContents": gemini,
        "POST /v1/projects/my-proj/locations/us-central1/publishers/google/models/text-embedding-005:predict": vertex,
        "POST /v1/publishers/google/models/gemini-embedding-001:predict": vertex,
        "POST /hf/pipeline": hf,
        "POST /tei/embed": hf,
        "POST /identity/token": iam,
        "POST /ml/v1/text/embeddings": watsonx,
        "POST /model/{model}/invoke": bedrock,
    }


@pytest.fixture(scope="module")
def api() -> Iterator[FakeHTTPService]:
    with FakeHTTPService(_routes()) as service:
        yield service


TEXTS = ["alpha", "beta", "gamma"]


def test_cohere(api: FakeHTTPService, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COHERE_API_KEY", "co-key")
    emb = build_embedder({"provider": "cohere", "config": {"model_name": "embed-english-v3.0", "base_url": api.url}})
    emb.batch_size = 2  # type: ignore[attr-defined]
    assert emb(TEXTS) == [pytest.approx(_vec(t)) for t in TEXTS]
    bodies = [r.json for r in api.requests_to("/v2/embed")[-2:]]
    assert bodies == [
        {"model": "embed-english-v3.0", "texts": ["alpha", "beta"], "input_type": "search_document", "embedding_types": ["float"]},
        {"model": "embed-english-v3.0", "texts": ["gamma"], "input_type": "search_document", "embedding_types": ["float"]},
    ]


def test_cohere_errors(api: FakeHTTPService, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("COHERE_API_KEY", raising=False)
    monkeypatch.delenv("CO_API_KEY", raising=False)
    with pytest.raises(ValueError, match="cohere embedder needs an API key: set COHERE_API_KEY"):
        build_embedder({"provider": "cohere", "config": {}})
    bad = build_embedder({"provider": "cohere", "config": {"api_key": "wrong", "base_url": api.url}})
    with pytest.raises(EmbedderError, match=r"HTTP 401 .*invalid api token .*COHERE_API_KEY"):
        bad(["x"])


def test_voyageai_and_jina_put_rows_back_in_input_order(api: FakeHTTPService) -> None:
    voyage = build_embedder({"provider": "voyageai", "config": {"model": "voyage-3", "api_key": "voy-key", "base_url": api.url + "/voyage"}})
    assert voyage(TEXTS) == [pytest.approx(_vec(t)) for t in TEXTS]
    assert api.requests_to("/voyage/v1/embeddings")[-1].json == {"model": "voyage-3", "input": TEXTS, "input_type": "document"}
    jina = build_embedder({"provider": "jina", "config": {"api_key": "jina-key", "base_url": api.url + "/jina"}})
    assert jina(TEXTS) == [pytest.approx(_vec(t)) for t in TEXTS]
    assert api.requests_to("/jina/v1/embeddings")[-1].json == {"model": "jina-embeddings-v2-base-en", "input": TEXTS}


def test_google_generativeai(api: FakeHTTPService, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GOOGLE_API_KEY", "g-key")
    emb = build_embedder({"provider": "google-generativeai", "config": {"model_name": "gemini-embedding-001", "base_url": api.url}})
    assert emb(TEXTS) == [pytest.approx(_vec(t)) for t in TEXTS]
    sent = api.requests_to("/v1beta/models/gemini-embedding-001:batchEmbedContents")[-1].json
    assert sent["requests"][0] == {"model": "models/gemini-embedding-001", "content": {"parts": [{"text": "alpha"}]},
                                   "taskType": "RETRIEVAL_DOCUMENT"}
    bad = build_embedder({"provider": "google-generativeai", "config": {"api_key": "no", "base_url": api.url}})
    with pytest.raises(EmbedderError, match="API key not valid"):
        bad(["x"])


def test_google_vertex_with_credentials_and_express_key(api: FakeHTTPService) -> None:
    from google.oauth2.credentials import Credentials

    emb = build_embedder({"provider": "google-vertex", "config": {
        "model_name": "text-embedding-005", "project_id": "my-proj", "location": "us-central1",
        "credentials": Credentials(token="vertex-token"), "base_url": api.url}})
    assert emb(TEXTS) == [pytest.approx(_vec(t)) for t in TEXTS]
    path = "/v1/projects/my-proj/locations/us-central1/publishers/google/models/text-embedding-005:predict"
    assert api.requests_to(path)[-1].json["instances"][0] == {"content": "alpha", "task_type": "RETRIEVAL_DOCUMENT"}
    express = build_embedder({"provider": "google-vertex", "config": {"api_key": "express", "base_url": api.url}})
    assert express(TEXTS) == [pytest.approx(_vec(t)) for t in TEXTS]
    assert len(api.requests_to("/v1/publishers/google/models/gemini-embedding-001:predict")) >= 3  # one text per call


def test_google_vertex_needs_a_project() -> None:
    with pytest.raises(ValueError, match="needs config\\['project_id'\\]"):
        build_embedder({"provider": "google-vertex", "config": {"model_name": "gemini-embedding-001"}})


def test_huggingface_inference_api_and_tei(api: FakeHTTPService) -> None:
    hf = build_embedder({"provider": "huggingface", "config": {"model_name": "BAAI/bge-small-en-v1.5", "api_url": api.url + "/hf/pipeline", "api_key": "hf"}})
    assert hf(TEXTS) == [pytest.approx(_vec(t)) for t in TEXTS]
    sent = api.requests_to("/hf/pipeline")[-1]
    assert sent.json == {"inputs": TEXTS, "options": {"wait_for_model": True}} and sent.headers["authorization"] == "Bearer hf"
    tei = build_embedder({"provider": "huggingface", "config": {"model_name": "bge", "api_url": api.url + "/tei/embed"}})
    assert tei(["x"]) == [pytest.approx(_vec("x"))]
    assert api.requests_to("/tei/embed")[-1].json == {"inputs": ["x"]}


def test_sentence_transformer_minilm_is_the_bundled_model() -> None:
    assert build_embedder({"provider": "sentence-transformer", "config": {"model_name": "all-MiniLM-L6-v2"}}) is default_embedder()
    assert build_embedder({"provider": "sentence-transformers"}) is default_embedder()
    assert build_embedder({"provider": "huggingface"}) is default_embedder()


def test_another_local_model_needs_sentence_transformers(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.util

    if importlib.util.find_spec("sentence_transformers") is not None:
        pytest.skip("sentence-transformers is installed here")
    monkeypatch.delenv("HF_TOKEN", raising=False)
    monkeypatch.delenv("HUGGINGFACE_API_KEY", raising=False)
    with pytest.raises(ValueError, match=r"not bundled.*pip install sentence-transformers"):
        build_embedder({"provider": "sentence-transformer", "config": {"model_name": "all-mpnet-base-v2"}})


def test_watsonx_exchanges_the_key_once(api: FakeHTTPService, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WATSONX_APIKEY", "ibm-key")
    before = len(api.requests_to("/identity/token"))
    emb = build_embedder({"provider": "watsonx", "config": {
        "model_id": "ibm/slate-30m-english-rtrvr", "project_id": "p1", "url": api.url, "iam_url": api.url}})
    assert emb(TEXTS) == [pytest.approx(_vec(t)) for t in TEXTS]
    assert emb(["again"]) == [pytest.approx(_vec("again"))]
    assert len(api.requests_to("/identity/token")) == before + 1
    sent = api.requests_to("/ml/v1/text/embeddings")[-1]
    assert sent.query["version"] == ["2024-05-01"]
    assert sent.json == {"inputs": ["again"], "model_id": "ibm/slate-30m-english-rtrvr", "project_id": "p1"}
    bad = build_embedder({"provider": "watsonx", "config": {"api_key": "nope", "project_id": "p1", "url": api.url, "iam_url": api.url}})
    with pytest.raises(EmbedderError, match="Provided API key could not be found"):
        bad(["x"])


def test_amazon_bedrock_through_boto3(api: FakeHTTPService) -> None:
    import boto3

    session = boto3.Session(aws_access_key_id="test-key", aws_secret_access_key="secret", region_name="us-east-1")
    titan = build_embedder({"provider": "amazon-bedrock", "config": {
        "model_name": "amazon.titan-embed-text-v1", "session": session, "endpoint_url": api.url}})
    assert titan(TEXTS) == [pytest.approx(_vec(t)) for t in TEXTS]
    assert api.requests_to("/model/amazon.titan-embed-text-v1/invoke")[-1].json == {"inputText": "gamma"}
    cohere = build_embedder({"provider": "amazon-bedrock", "config": {
        "model_name": "cohere.embed-english-v3", "session": session, "endpoint_url": api.url}})
    assert cohere(TEXTS) == [pytest.approx(_vec(t)) for t in TEXTS]
    assert api.requests_to("/model/cohere.embed-english-v3/invoke")[-1].json == {"texts": TEXTS, "input_type": "search_document"}


def test_every_provider_of_the_memory_page_is_supported() -> None:
    page = ["openai", "azure", "ollama", "google-generativeai", "google-vertex", "cohere", "voyageai",
            "amazon-bedrock", "huggingface", "jina", "watsonx", "sentence-transformer", "custom"]
    assert set(page) <= set(SUPPORTED_PROVIDERS)


def test_a_store_built_with_another_dimension_says_how_to_reset(api: FakeHTTPService, tmp_path: Path) -> None:
    from crewgraph.memory import Memory
    from crewgraph.memory.storage import EmbeddingDimensionMismatchError

    store = str(tmp_path / "m")
    first = Memory(storage=store, llm=None, embedder={"provider": "voyageai", "config": {"api_key": "voy-key", "base_url": api.url + "/voyage"}})
    try:
        first.remember("the deploy runs on Fridays", scope="/", categories=[], importance=0.5)
        assert first.recall("the deploy runs on Fridays", depth="shallow")[0].score > 0.8
    finally:
        first.close()
    second = Memory(storage=store, llm=None, embedder={"provider": "voyageai", "config": {"api_key": "voy-key", "base_url": api.url + "/voyage16"}})
    try:
        with pytest.raises(EmbeddingDimensionMismatchError) as info:
            second.remember("another fact", scope="/", categories=[], importance=0.5)
        text = str(info.value)
        assert "8-dimensional" in text and "16" in text and "reset-memories" in text
    finally:
        second.close()


def test_ollama_and_azure_against_an_openai_compatible_server() -> None:
    from crewgraph.testing import OpenAICompatServer

    with OpenAICompatServer(embedding_dim=DIM) as server:
        root = server.base_url.removesuffix("/v1")
        ollama = build_embedder({"provider": "ollama", "config": {"model_name": "mxbai-embed-large", "url": root + "/api/embeddings"}})
        assert ollama(TEXTS) == [pytest.approx(embedding_for(t, DIM)) for t in TEXTS]
        assert server.log[-1].path == "/v1/embeddings" and server.requests[-1]["model"] == "mxbai-embed-large"
        azure = build_embedder({"provider": "azure", "config": {
            "deployment_id": "embed-prod", "api_key": "az-key", "api_base": root, "api_version": "2024-02-01"}})
        assert azure(["x"]) == [pytest.approx(embedding_for("x", DIM))]
        sent = server.log[-1]
        assert sent.path.startswith("/openai/deployments/embed-prod/embeddings?api-version=2024-02-01")
        assert sent.headers["api-key"] == "az-key"
