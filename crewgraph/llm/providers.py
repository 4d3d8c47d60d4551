"""The one registry of model providers: prefix -> OpenAI-compatible endpoint, key variable, quirks.

CrewAI users write provider-prefixed model strings (``anthropic/claude-...``,
``ollama/llama3.2``, ``azure/my-deployment``) and CrewAI routes them through
LiteLLM. crewgraph speaks only the ``openai`` SDK, so each provider is
reached through its OpenAI-compatible endpoint. This module is the single
place that knows those endpoints: :func:`resolve` turns a model string
(plus an optional ``base_url``/``api_key`` override) into a
:class:`Resolved` target that :class:`crewgraph.llm.LLM` connects to.

Rules that keep keys where they belong:

- no prefix, or ``openai/``: OpenAI (or ``$OPENAI_BASE_URL``/``$OPENAI_API_BASE``)
  with ``$OPENAI_API_KEY``;
- a known prefix: that provider's endpoint and key variable, never
  ``OPENAI_API_KEY`` (a missing key is an error naming the variable to set);
- an unknown prefix with no ``base_url`` configured: a ``ConfigurationError``
  listing the known prefixes (so ``antropic/claude`` is not sent to
  api.openai.com); with a ``base_url`` the whole string is the model name,
  as vLLM and gateways name models (``Qwen/Qwen2.5-7B-Instruct``).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from crewgraph.errors import ConfigurationError

__all__ = [
    "PROVIDERS",
    "Provider",
    "ProviderConfigError",
    "Resolved",
    "check_model_name",
    "known_prefixes",
    "resolve",
]

DEFAULT_AZURE_API_VERSION = "2024-10-21"
"""Azure OpenAI's GA data-plane version, sent when neither ``api_version`` nor a variable gives one."""


@dataclass(frozen=True)
class Provider:
    """How to reach one provider through the openai SDK."""

    name: str
    base_url: str | None
    """Default OpenAI-compatible endpoint; None means the user must configure one."""
    key_envs: tuple[str, ...] = ()
    """Variables holding the API key, first set wins."""
    base_url_envs: tuple[str, ...] = ()
    """Variables that override the endpoint, first set wins."""
    needs_key: bool = True
    """False for local servers, which get a placeholder key."""
    local: bool = False
    openai_path: str = ""
    """Appended to a configured base URL that lacks it (Ollama's ``/v1``)."""
    skip_modes: frozenset[str] = field(default_factory=frozenset)
    """Structured-output modes the endpoint ignores, so ``auto`` does not try them."""
    azure: bool = False
    timeout: float | None = None
    """Default total seconds per attempt, when neither ``timeout=`` nor the environment sets one."""
    idle_timeout: float | None = None
    """Default longest pause in a stream (it makes calls stream); local models are slow but steady."""


LOCAL_TIMEOUT = 600.0
LOCAL_IDLE_TIMEOUT = 120.0
"""Local servers (Ollama, LM Studio, vLLM) run models on the user's own hardware, where one
answer can take minutes: calls stream, and are judged by the pause between tokens."""

PROVIDERS: dict[str, Provider] = {p.name: p for p in (
    Provider("openai", "https://api.openai.com/v1", ("OPENAI_API_KEY",),
             ("OPENAI_BASE_URL", "OPENAI_API_BASE")),
    # Anthropic's compatibility layer ignores response_format: structured output goes through tools.
    Provider("anthropic", "https://api.anthropic.com/v1", ("ANTHROPIC_API_KEY",), ("ANTHROPIC_API_BASE",),
             skip_modes=frozenset({"json_schema", "json"})),
    Provider("gemini", "https://generativelanguage.googleapis.com/v1beta/openai",
             ("GEMINI_API_KEY", "GOOGLE_API_KEY"), ("GEMINI_API_BASE",)),
    Provider("ollama", "http://localhost:11434/v1", ("OLLAMA_API_KEY",),
             ("OLLAMA_BASE_URL", "OLLAMA_API_BASE"), needs_key=False, local=True, openai_path="/v1",
             timeout=LOCAL_TIMEOUT, idle_timeout=LOCAL_IDLE_TIMEOUT),
    Provider("groq", "https://api.groq.com/openai/v1", ("GROQ_API_KEY",), ("GROQ_API_BASE",)),
    Provider("mistral", "https://api.mistral.ai/v1", ("MISTRAL_API_KEY",), ("MISTRAL_API_BASE",)),
    # DeepSeek accepts json_object but not json_schema.
    Provider("deepseek", "https://api.deepseek.com/v1", ("DEEPSEEK_API_KEY",), ("DEEPSEEK_API_BASE",),
             skip_modes=frozenset({"json_schema"})),
    Provider("openrouter", "https://openrouter.ai/api/v1", ("OPENROUTER_API_KEY",), ("OPENROUTER_API_BASE",)),
    Provider("together_ai", "https://api.together.xyz/v1", ("TOGETHERAI_API_KEY", "TOGETHER_API_KEY"),
             ("TOGETHERAI_API_BASE", "TOGETHER_API_BASE")),
    Provider("lm_studio", "http://localhost:1234/v1", ("LM_STUDIO_API_KEY",), ("LM_STUDIO_API_BASE",),
             needs_key=False, local=True, openai_path="/v1", timeout=LOCAL_TIMEOUT, idle_timeout=LOCAL_IDLE_TIMEOUT),
    Provider("hosted_vllm", None, ("HOSTED_VLLM_API_KEY",), ("HOSTED_VLLM_API_BASE",),
             needs_key=False, local=True, timeout=LOCAL_TIMEOUT, idle_timeout=LOCAL_IDLE_TIMEOUT),
    Provider("azure", None, ("AZURE_API_KEY", "AZURE_OPENAI_API_KEY"),
             ("AZURE_API_BASE", "AZURE_OPENAI_ENDPOINT"), azure=True),
)}

_PLACEHOLDER_KEY = "not-needed"


class ProviderConfigError(ConfigurationError, ValueError):
    """A model string or endpoint the registry cannot resolve (a ``ValueError`` too, so
    pydantic validators of ``llm=`` fields report it as a validation error)."""


def known_prefixes() -> list[str]:
    """The provider prefixes :func:`resolve` understands, as users write them (``"groq/"``)."""
    return [f"{name}/" for name in PROVIDERS]


@dataclass(frozen=True)
class Resolved:
    """Where one model string goes: provider, name sent, endpoint, key (or why it is missing)."""

    provider: Provider
    model: str
    """The name sent in the request (the prefix removed)."""
    base_url: str | None
    """None only for OpenAI itself with no override (the SDK's default endpoint)."""
    api_key: str | None
    missing_key: str | None = None
    """When no key was found for a provider that needs one: what to set."""
    api_version: str | None = None
    """Azure only."""

    @property
    def endpoint(self) -> str:
        return self.base_url or (self.provider.base_url or "")


def _env(names: tuple[str, ...]) -> str | None:
    for name in names:
        value = os.environ.get(name, "").strip()
        if value:
            return value
    return None


def _with_path(url: str, path: str) -> str:
    """``url`` ending in ``path`` (``http://host:11434`` -> ``http://host:11434/v1``)."""
    if not path:
        return url
    trimmed = url.rstrip("/")
    if urlsplit(trimmed).path.rstrip("/").endswith(path):
        return trimmed
    return trimmed + path


def check_model_name(model: str) -> None:
    """Raise :class:`ProviderConfigError` now for a prefix no provider has (nothing else is checked:
    keys and endpoints are read when the model is first called)."""
    prefix, _ = split_prefix(model.strip())
    if prefix is not None and prefix not in PROVIDERS:
        resolve(model)


def split_prefix(model: str) -> tuple[str | None, str]:
    """``("groq", "llama-3.1-8b")`` for ``"groq/llama-3.1-8b"``; ``(None, model)`` without a slash."""
    prefix, sep, rest = model.partition("/")
    if not sep or not prefix or not rest:
        return None, model
    return prefix.lower(), rest


def resolve(
    model: str,
    *,
    base_url: str | None = None,
    api_key: str | None = None,
    api_version: str | None = None,
) -> Resolved:
    """The endpoint, key and request name for ``model`` (see the module docstring for the rules).

    ``base_url`` overrides the provider's endpoint (tests point a prefixed
    model at a local server this way); ``api_key`` overrides its key variable.
    Raises ``ConfigurationError`` for an unknown prefix without a base URL and
    for providers that have no default endpoint (``hosted_vllm``, ``azure``)
    when none is configured.
    """
    prefix, rest = split_prefix(model.strip())
    if prefix is None or prefix not in PROVIDERS:
        openai = PROVIDERS["openai"]
        configured = base_url or _env(openai.base_url_envs)
        if prefix is not None and configured is None:
            raise ProviderConfigError(
                f"unknown model provider prefix {prefix + '/'!r} in model {model!r}: crewgraph knows "
                f"{', '.join(known_prefixes())} (no prefix means OpenAI). To send this name as is to an "
                "OpenAI-compatible server (vLLM, a gateway), give base_url=... or set OPENAI_BASE_URL."
            )
        return _target(openai, model.strip(), configured, api_key, None, configured=configured is not None)
    provider = PROVIDERS[prefix]
    configured = base_url or _env(provider.base_url_envs)
    if configured is not None:
        configured = _with_path(configured, provider.openai_path)
    if provider.base_url is None and configured is None:
        raise ProviderConfigError(
            f"model {model!r}: the {provider.name} provider has no default endpoint; give base_url=... "
            f"or set {' or '.join(provider.base_url_envs)}"
        )
    if provider.azure:
        api_version = api_version or _env(("AZURE_API_VERSION", "OPENAI_API_VERSION")) or DEFAULT_AZURE_API_VERSION
    return _target(provider, rest, configured or provider.base_url, api_key, api_version,
                   configured=configured is not None)


def _target(
    provider: Provider,
    model: str,
    base_url: str | None,
    api_key: str | None,
    api_version: str | None,
    *,
    configured: bool,
) -> Resolved:
    """``configured``: the user pointed at a server (base_url or its variable); the provider's own
    default endpoint is not that, so ``openai/gpt-4o`` without a key still says which key to set."""
    key = api_key or _env(provider.key_envs)
    missing = None
    if not key:
        if not provider.needs_key:
            key = _PLACEHOLDER_KEY if provider.name != "ollama" else "ollama"
        elif provider.name == "openai" and configured:
            key = _PLACEHOLDER_KEY  # a configured OpenAI-compatible server (often local) needs none
        else:
            names = " or ".join(provider.key_envs)
            missing = f"set {names} (or pass api_key=...)"
    return Resolved(provider, model, base_url, key, missing, api_version)
