"""Model environment variables mean the same in the library, the CLI and the examples."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from crewgraph import LLM, Agent, Crew, Task
from crewgraph.errors import ConfigurationError
from crewgraph.llm.settings import MODEL_ENVS, default_llm, default_model_name, load_dotenv_file
from crewgraph.testing import OpenAICompatServer

SETTINGS = ("CREWGRAPH_LLM_TIMEOUT", "CREWGRAPH_LLM_IDLE_TIMEOUT", "CREWGRAPH_LLM_MAX_TOKENS",
            "CREWGRAPH_LLM_MAX_RETRIES", "CREWGRAPH_LLM_TIMEOUT_RETRIES", "CREWGRAPH_LLM_CONCURRENCY")


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in (*MODEL_ENVS, *SETTINGS, "BASE_URL", "API_BASE", "OPENAI_BASE_URL", "OPENAI_API_BASE",
                 "OPENAI_API_KEY", "CREWGRAPH_LLM"):
        monkeypatch.setenv(name, "unset")  # recorded, so what a test (or a .env it loads) sets is undone
        monkeypatch.delenv(name)


@pytest.fixture
def server() -> Iterator[OpenAICompatServer]:
    with OpenAICompatServer(default="from the env model") as srv:
        yield srv


def test_default_model_precedence(monkeypatch: pytest.MonkeyPatch) -> None:
    assert default_model_name() == "gpt-4o-mini"
    for name in reversed(MODEL_ENVS):  # OPENAI_MODEL_NAME, MODEL_NAME, MODEL, CREWGRAPH_MODEL
        monkeypatch.setenv(name, f"model-from-{name}")
        assert default_model_name() == f"model-from-{name}"


def test_an_agent_without_llm_uses_model_and_base_url(server: OpenAICompatServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MODEL", "openai/env-model")  # what `crewai create` writes into .env
    monkeypatch.setenv("BASE_URL", server.base_url)
    agent = Agent(role="R", goal="G", backstory="B")
    out = Crew(agents=[agent], tasks=[Task(description="Hi", expected_output="x", agent=agent)]).kickoff()
    assert out.raw == "from the env model"
    assert server.chat_requests[0]["model"] == "env-model"
    assert default_llm().endpoint == server.base_url
    # BASE_URL is for the default model only: an explicit LLM is not redirected by it.
    assert LLM(model="gpt-4o").endpoint == "https://api.openai.com/v1"


def test_request_settings_from_the_environment(server: OpenAICompatServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CREWGRAPH_LLM_TIMEOUT", "900")
    monkeypatch.setenv("CREWGRAPH_LLM_IDLE_TIMEOUT", "120")
    monkeypatch.setenv("CREWGRAPH_LLM_MAX_TOKENS", "256")
    monkeypatch.setenv("CREWGRAPH_LLM_MAX_RETRIES", "3")
    monkeypatch.setenv("CREWGRAPH_LLM_CONCURRENCY", "1")
    llm = LLM(model="m", base_url=server.base_url)
    assert (llm.timeout, llm.idle_timeout, llm.max_tokens, llm.max_retries, llm.max_concurrency) == (
        900.0, 120.0, 256, 3, 1)
    assert llm.call("hi").content == "from the env model"
    request = server.chat_requests[0]
    assert request["max_tokens"] == 256 and request["stream"] is True  # idle_timeout streams
    explicit = LLM(model="m", timeout=5, max_tokens=10, max_retries=0)
    assert (explicit.timeout, explicit.max_tokens, explicit.max_retries) == (5, 10, 0)
    monkeypatch.setenv("CREWGRAPH_LLM_TIMEOUT", "soon")
    with pytest.raises(ConfigurationError, match="CREWGRAPH_LLM_TIMEOUT='soon' is not a number"):
        LLM(model="m")


def test_dotenv_loads_without_overriding(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert load_dotenv_file(tmp_path) is None
    (tmp_path / ".env").write_text("MODEL=groq/llama-3.1-8b-instant\nOPENAI_MODEL_NAME=from-dotenv\n")
    monkeypatch.setenv("OPENAI_MODEL_NAME", "already-set")
    assert load_dotenv_file(tmp_path) == tmp_path / ".env"
    import os

    assert os.environ["MODEL"] == "groq/llama-3.1-8b-instant" and os.environ["OPENAI_MODEL_NAME"] == "already-set"


def test_crewgraph_run_reads_the_projects_dotenv(
    server: OpenAICompatServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from typer.testing import CliRunner

    from crewgraph.cli.app import app
    from crewgraph.cli.create_cmd import scaffold_crew

    root = scaffold_crew("dotenv demo", tmp_path)
    (root / ".env").write_text(f"MODEL=openai/dotenv-model\nBASE_URL={server.base_url}\n"
                               "CREWGRAPH_LLM_MAX_TOKENS=64\n")
    monkeypatch.chdir(root)
    monkeypatch.setenv("CREWGRAPH_STORAGE_DIR", str(tmp_path / "store"))
    monkeypatch.setattr(sys, "path", list(sys.path))
    try:
        result = CliRunner().invoke(app, ["run", "-q", "--no-checkpoint"])
    finally:
        for name, module in list(sys.modules.items()):
            if str(getattr(module, "__file__", None) or "").startswith(str(tmp_path)):
                del sys.modules[name]
    assert result.exit_code == 0, result.output
    assert result.stdout.strip() == "from the env model"
    assert {r["model"] for r in server.chat_requests} == {"dotenv-model"}
    assert {r["max_tokens"] for r in server.chat_requests} == {64}  # request settings from .env too
