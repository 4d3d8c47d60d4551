"""The provider registry: prefixed model strings reach that provider's endpoint with its key,
on the openai SDK; the local test server stands in for each provider via the base-URL override."""

from __future__ import annotations

import pytest

from crewgraph import LLM, Agent, Crew, Task
from crewgraph.errors import ConfigurationError, LLMError
from crewgraph.llm.providers import PROVIDERS, ProviderConfigError, known_prefixes, resolve
from crewgraph.testing import OpenAICompatServer

ALL_ENV = sorted({name for p in PROVIDERS.values() for name in (*p.key_envs, *p.base_url_envs)}
                 | {"AZURE_API_VERSION", "OPENAI_API_VERSION", "CREWGRAPH_LLM_TIMEOUT", "CREWGRAPH_LLM_IDLE_TIMEOUT"})


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ALL_ENV:
        monkeypatch.setenv(name, "unset")  # recorded, so what a test (or a .env it loads) sets is undone
        monkeypatch.delenv(name)


@pytest.fixture
def server() -> OpenAICompatServer:
    with OpenAICompatServer(default="pong") as srv:
        yield srv  # type: ignore[misc]


@pytest.mark.parametrize(("model", "endpoint", "sent", "key_env"), [
    ("gpt-4o-mini", "https://api.openai.com/v1", "gpt-4o-mini", "OPENAI_API_KEY"),
    ("openai/gpt-4o", "https://api.openai.com/v1", "gpt-4o", "OPENAI_API_KEY"),
    ("anthropic/claude-3-5-haiku-latest", "https://api.anthropic.com/v1", "claude-3-5-haiku-latest",
     "ANTHROPIC_API_KEY"),
    ("gemini/gemini-2.0-flash", "https://generativelanguage.googleapis.com/v1beta/openai", "gemini-2.0-flash",
     "GEMINI_API_KEY"),
    ("groq/llama-3.1-8b-instant", "https://api.groq.com/openai/v1", "llama-3.1-8b-instant", "GROQ_API_KEY"),
    ("mistral/mistral-small-latest", "https://api.mistral.ai/v1", "mistral-small-latest", "MISTRAL_API_KEY"),
    ("deepseek/deepseek-chat", "https://api.deepseek.com/v1", "deepseek-chat", "DEEPSEEK_API_KEY"),
    ("openrouter/meta-llama/llama-3.1-8b-instruct", "https://openrouter.ai/api/v1",
     "meta-llama/llama-3.1-8b-instruct", "OPENROUTER_API_KEY"),
    ("together_ai/meta-llama/Llama-3-8b-chat-hf", "https://api.together.xyz/v1", "meta-llama/Llama-3-8b-chat-hf",
     "TOGETHERAI_API_KEY"),
])
def test_hosted_providers_resolve_to_their_endpoint_and_key(
    model: str, endpoint: str, sent: str, key_env: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-openai")
    monkeypatch.setenv(key_env, "k-provider")
    target = resolve(model)
    assert (target.endpoint, target.model) == (endpoint, sent)
    assert target.api_key == "k-provider"
    monkeypatch.delenv(key_env)
    if key_env != "OPENAI_API_KEY":  # never falls back to the OpenAI key
        missing = resolve(model)
        assert missing.api_key is None and missing.missing_key and key_env in missing.missing_key


def test_local_providers_stream_with_long_deadlines_by_default(monkeypatch: pytest.MonkeyPatch) -> None:
    ollama = LLM(model="ollama/qwen2.5-coder:1.5b")
    assert (ollama.timeout, ollama.idle_timeout) == (600.0, 120.0)
    assert (LLM(model="gpt-4o-mini").timeout, LLM(model="gpt-4o-mini").idle_timeout) == (60.0, None)
    monkeypatch.setenv("CREWGRAPH_LLM_IDLE_TIMEOUT", "30")
    assert LLM(model="lm_studio/x", timeout=90).timeout == 90 and LLM(model="lm_studio/x").idle_timeout == 30


def test_local_providers_need_no_key_and_take_their_base_variables(monkeypatch: pytest.MonkeyPatch) -> None:
    assert resolve("ollama/llama3.2").endpoint == "http://localhost:11434/v1"
    assert resolve("lm_studio/qwen2.5-7b-instruct").endpoint == "http://localhost:1234/v1"
    monkeypatch.setenv("OLLAMA_API_BASE", "http://gpu:11434")  # CrewAI's form, without /v1
    assert resolve("ollama/llama3.2").endpoint == "http://gpu:11434/v1"
    with pytest.raises(ProviderConfigError, match="HOSTED_VLLM_API_BASE"):
        resolve("hosted_vllm/Qwen/Qwen2.5-7B-Instruct")
    monkeypatch.setenv("HOSTED_VLLM_API_BASE", "http://gpu:8000/v1")
    vllm = resolve("hosted_vllm/Qwen/Qwen2.5-7B-Instruct")
    assert (vllm.endpoint, vllm.model, vllm.missing_key) == ("http://gpu:8000/v1", "Qwen/Qwen2.5-7B-Instruct", None)


def test_unknown_prefix_is_an_error_listing_the_known_ones() -> None:
    with pytest.raises(ConfigurationError) as info:
        LLM(model="antropic/claude-3-5-haiku")
    message = str(info.value)
    assert "'antropic/'" in message and all(prefix in message for prefix in known_prefixes())
    with pytest.raises(ValueError, match="unknown model provider prefix"):  # a pydantic validation error too
        Agent(role="R", goal="G", backstory="B", llm="antropic/claude-3-5-haiku")
    # With a configured server, the slash is part of the name, sent as is.
    assert LLM(model="antropic/x", base_url="http://gw/v1").model == "antropic/x"


def test_a_prefixed_model_reaches_the_local_server_with_its_own_key(
    server: OpenAICompatServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-openai-must-not-leak")
    monkeypatch.setenv("GROQ_API_KEY", "gsk-groq")
    llm = LLM(model="groq/llama-3.1-8b-instant", base_url=server.base_url)
    agent = Agent(role="R", goal="G", backstory="B", llm=llm)
    out = Crew(agents=[agent], tasks=[Task(description="Ping", expected_output="pong", agent=agent)]).kickoff()
    assert out.raw == "pong"
    assert server.chat_requests[0]["model"] == "llama-3.1-8b-instant"
    assert server.log[0].headers["authorization"] == "Bearer gsk-groq"


def test_a_missing_provider_key_fails_before_any_request(
    server: OpenAICompatServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-openai-must-not-leak")
    with pytest.raises(LLMError, match="set MISTRAL_API_KEY"):
        LLM(model="mistral/mistral-small-latest", base_url=server.base_url).call("hi")
    assert server.log == []


def test_provider_base_variable_points_at_the_server(server: OpenAICompatServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DEEPSEEK_API_BASE", server.base_url)
    monkeypatch.setenv("DEEPSEEK_API_KEY", "k-ds")
    llm = LLM(model="deepseek/deepseek-chat")
    assert llm.call("hi").content == "pong"
    assert server.log[0].headers["authorization"] == "Bearer k-ds"
    # Quirk: DeepSeek ignores json_schema, so structured output never tries it.
    assert "json_schema" in llm._unsupported_modes


def test_azure_uses_the_sdks_azure_client(server: OpenAICompatServer, monkeypatch: pytest.MonkeyPatch) -> None:
    root = server.base_url.removesuffix("/v1")
    monkeypatch.setenv("AZURE_API_KEY", "az-key")
    monkeypatch.setenv("AZURE_API_BASE", root)
    monkeypatch.setenv("AZURE_API_VERSION", "2024-10-21")
    llm = LLM(model="azure/my-gpt4o-deployment")
    assert llm.call("hi").content == "pong"
    request = server.log[0]
    assert request.path == "/openai/deployments/my-gpt4o-deployment/chat/completions?api-version=2024-10-21"
    assert request.headers["api-key"] == "az-key"
    monkeypatch.delenv("AZURE_API_BASE")
    with pytest.raises(ConfigurationError, match="AZURE_API_BASE"):
        LLM(model="azure/my-gpt4o-deployment")


def test_openai_prefix_without_a_key_names_the_key(monkeypatch: pytest.MonkeyPatch) -> None:
    """``openai/gpt-4o-mini`` with no key once took OpenAI's own endpoint for a configured local
    server, sent a placeholder key and retried a connection to api.openai.com."""
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_API_BASE", "BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    from crewgraph.llm import LLM

    target = LLM(model="openai/gpt-4o-mini").target()
    assert target.missing_key is not None and "OPENAI_API_KEY" in target.missing_key
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    assert LLM(model="openai/gpt-4o-mini").target().missing_key is None  # a configured server needs none
