"""The context window a server actually serves, learnt rather than guessed.

A model's name says what it was trained for (Qwen2.5: 32,768 tokens), not what
the server runs it with: ``llama-server -c 8192`` serves 8,192, and Ollama runs
most models at 4,096 unless told otherwise. Guessing from the name means the
agent never trims ahead of time and the first long turn is refused. So the
window is taken, in order, from:

1. the server's own metadata, read once per endpoint and model: ``/models``
   (``meta.n_ctx`` of llama.cpp, ``max_model_len`` of vLLM, ``context_length``
   of LM Studio / OpenRouter), llama.cpp's ``/props`` (``n_ctx``), Ollama's
   ``/api/show`` (``num_ctx``, else Ollama's default);
2. a refusal's text: llama.cpp, vLLM, Ollama and OpenAI each say the window
   when they refuse a long request, and :func:`window_from_refusal` reads it.

What is learnt is remembered per endpoint and model for the process, so every
later step on that model trims before it sends. The probe is bounded (a few
seconds) and only goes to a ``base_url`` the user configured, never to a hosted
provider whose ``/models`` says nothing about windows.
"""

from __future__ import annotations

import re
import threading
from typing import Any
from urllib.parse import urlsplit

__all__ = [
    "OLLAMA_DEFAULT_NUM_CTX",
    "endpoint_of",
    "forget_windows",
    "learn_window",
    "learned_window",
    "needs_probe",
    "probe_served_window",
    "requested_from_refusal",
    "served_window_of",
    "window_from_models_entry",
    "window_from_ollama_show",
    "window_from_props",
    "window_from_refusal",
]

OLLAMA_DEFAULT_NUM_CTX = 4096
"""Ollama's context when neither the Modelfile nor ``OLLAMA_CONTEXT_LENGTH`` sets one (recent
versions; older ones used 2048). Longer prompts are cut without an error."""

_HOSTED = (
    "api.openai.com", "openai.azure.com", "api.anthropic.com", "generativelanguage.googleapis.com",
    "api.groq.com", "api.mistral.ai", "api.deepseek.com", "api.together.xyz", "api.fireworks.ai",
    "api.x.ai", "api.cohere.com",
)
"""Hosts whose ``/models`` does not describe windows: the name table knows their models."""

_MODELS_KEYS = ("max_model_len", "context_length", "max_context_length", "context_window", "n_ctx")

# "request (12016 tokens) exceeds the available context size (8192 tokens)"       llama.cpp
# "This model's maximum context length is 4096 tokens. However, you requested ..." vLLM, OpenAI
# "... context length of only 4096 tokens"                                          vLLM (newer)
_REFUSAL_PATTERNS = (
    re.compile(r"available context size \((\d+) tokens?\)", re.I),
    re.compile(r"maximum context length is (\d+)", re.I),
    re.compile(r"context length of (?:only )?(\d+)", re.I),
    re.compile(r"context (?:window|size|length) (?:is|of) (\d+)", re.I),
    re.compile(r"\bn_ctx['\"]?\s*[:=]\s*(\d+)", re.I),
)

# "request (12016 tokens) exceeds ..." (llama.cpp); "you requested 5000 tokens" (vLLM);
# "your messages resulted in 130000 tokens" (OpenAI)
_REQUESTED_PATTERNS = (
    re.compile(r"request \((\d+) tokens?\)", re.I),
    re.compile(r"you requested (\d+) tokens", re.I),
    re.compile(r"resulted in (\d+) tokens", re.I),
    re.compile(r"\bn_prompt_tokens['\"]?\s*[:=]\s*(\d+)", re.I),
)

_PROBE_WAIT = 12.0
"""Longest a step waits for another step's probe of the same endpoint (3 requests of 3 s at most)."""

_lock = threading.Lock()
_learnt: dict[tuple[str, str], int] = {}
_probed: set[tuple[str, str]] = set()
_inflight: dict[tuple[str, str], threading.Event] = {}
"""Probes under way: a second step on the same endpoint waits for the first one's answer
(bounded) rather than sending a conversation sized on a guess."""


def _key(base_url: str | None, model: str) -> tuple[str, str]:
    return ((base_url or "").rstrip("/"), model)


def learn_window(base_url: str | None, model: str, tokens: int) -> None:
    """Remember that ``model`` at ``base_url`` serves ``tokens`` tokens (a refusal's figure wins
    over metadata: it is what the server just enforced)."""
    if tokens > 0:
        with _lock:
            _learnt[_key(base_url, model)] = int(tokens)


def learned_window(base_url: str | None, model: str) -> int | None:
    """The window learnt for ``model`` at ``base_url`` in this process, if any."""
    with _lock:
        return _learnt.get(_key(base_url, model))


def forget_windows(base_url: str | None = None) -> None:
    """Forget what was learnt (for one endpoint, or all): a new server on a port is a new server."""
    with _lock:
        for key in [k for k in _learnt if base_url is None or k[0] == (base_url or "").rstrip("/")]:
            del _learnt[key]
        for key in [k for k in _probed if base_url is None or k[0] == (base_url or "").rstrip("/")]:
            _probed.discard(key)


def window_from_refusal(text: str) -> int | None:
    """The window a server states in its refusal of a too-long request, else None."""
    for pattern in _REFUSAL_PATTERNS:
        match = pattern.search(text)
        if match:
            return int(match.group(1))
    return None


def requested_from_refusal(text: str) -> int | None:
    """The size of the refused request in the server's own tokens, when the refusal states it."""
    for pattern in _REQUESTED_PATTERNS:
        match = pattern.search(text)
        if match:
            return int(match.group(1))
    return None


def window_from_models_entry(entry: dict[str, Any]) -> tuple[int, str] | None:
    """The served window in one ``/models`` entry and the key it came from.

    llama.cpp's ``meta.n_ctx`` is what it serves; ``meta.n_ctx_train`` is only what the model
    was trained for, so it is never taken for the window."""
    for key in _MODELS_KEYS:
        if isinstance(entry.get(key), int) and entry[key] > 0:
            return entry[key], key
    meta = entry.get("meta") or {}
    if isinstance(meta, dict) and isinstance(meta.get("n_ctx"), int) and meta["n_ctx"] > 0:
        return meta["n_ctx"], "meta.n_ctx"
    return None


def window_from_props(props: Any) -> int | None:
    """llama.cpp's ``/props``: ``n_ctx`` at the top (newer servers) or in its default settings."""
    if not isinstance(props, dict):
        return None
    settings = props.get("default_generation_settings") or {}
    for value in (props.get("n_ctx"), settings.get("n_ctx") if isinstance(settings, dict) else None):
        if isinstance(value, int) and value > 0:
            return value
    return None


def window_from_ollama_show(shown: Any) -> tuple[int, int | None, bool] | None:
    """Ollama's ``/api/show``: (the window it runs with, the trained one, whether num_ctx was set)."""
    if not isinstance(shown, dict):
        return None
    info = shown.get("model_info") or {}
    trained = next((v for k, v in info.items() if k.endswith(".context_length") and isinstance(v, int)), None)
    match = re.search(r"(?m)^\s*num_ctx\s+(\d+)", str(shown.get("parameters") or ""))
    num_ctx = int(match.group(1)) if match else None
    if trained is None and num_ctx is None:
        return None
    return (num_ctx or OLLAMA_DEFAULT_NUM_CTX), trained, num_ctx is not None


def _probe_worthy(base_url: str | None) -> bool:
    if not base_url:
        return False
    host = (urlsplit(base_url).hostname or "").lower()
    return bool(host) and not any(host == h or host.endswith("." + h) for h in _HOSTED)


def probe_served_window(base_url: str, model: str, *, api_key: str | None = None,
                        timeout: float = 3.0) -> int | None:
    """Ask the server at ``base_url`` which window it serves ``model`` with (bounded by ``timeout``
    per request); None when it does not say. Blocking: call it from a worker thread.

    Over the httpx the openai SDK is built on (``httpx2`` in recent SDKs), which the run loads
    anyway, rather than a second HTTP stack (plain httpx and httpcore: ~0.3 s of CPU to import)."""
    from crewgraph.llm._transport import sdk_httpx

    httpx = sdk_httpx()
    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    root = base_url.rstrip("/").removesuffix("/v1")
    with httpx.Client(timeout=timeout, headers=headers) as http:
        try:
            response = http.get(f"{base_url.rstrip('/')}/models")
            entries = response.json().get("data") or [] if response.status_code == 200 else []
        except (ValueError, AttributeError, httpx.HTTPError):
            entries = []
        ollama = False
        for entry in entries:
            if isinstance(entry, dict) and entry.get("id") == model:
                found = window_from_models_entry(entry)
                if found is not None:
                    return found[0]
                ollama = entry.get("owned_by") == "library"  # how Ollama's /v1/models marks its models
        if ollama:
            try:
                response = http.post(f"{root}/api/show", json={"model": model})
                shown = window_from_ollama_show(response.json()) if response.status_code == 200 else None
            except (ValueError, httpx.HTTPError):
                shown = None
            return shown[0] if shown is not None else OLLAMA_DEFAULT_NUM_CTX
        try:
            response = http.get(f"{root}/props")
            return window_from_props(response.json()) if response.status_code == 200 else None
        except (ValueError, httpx.HTTPError):
            return None


def needs_probe(llm: Any) -> bool:
    """True when :func:`served_window_of` would ask ``llm``'s server (first call for the endpoint)."""
    base_url, model = endpoint_of(llm), getattr(llm, "model", None)
    if not isinstance(model, str) or not isinstance(base_url, str) or not _probe_worthy(base_url):
        return False
    with _lock:
        key = _key(base_url, model)
        return key not in _learnt and (key not in _probed or key in _inflight)


def endpoint_of(llm: Any) -> str | None:
    """The base URL ``llm``'s calls go to: its ``endpoint`` (``base_url``, ``OPENAI_BASE_URL`` or a
    provider's own), else its ``base_url``; None for clients that have neither."""
    try:
        endpoint = getattr(llm, "endpoint", None)
    except Exception:  # a client that cannot resolve its target has no endpoint to ask
        endpoint = None
    if isinstance(endpoint, str) and endpoint:
        return endpoint
    base_url = getattr(llm, "base_url", None)
    return base_url if isinstance(base_url, str) and base_url else None


def served_window_of(llm: Any) -> int | None:
    """The window ``llm``'s server serves (learnt, else probed once per endpoint and model);
    None for clients without an endpoint or when the server does not say.
    Blocking on the first call for an endpoint: call it from a worker thread."""
    base_url, model = endpoint_of(llm), getattr(llm, "model", None)
    if not isinstance(model, str) or not isinstance(base_url, str):
        return None
    known = learned_window(base_url, model)
    if known is not None or not _probe_worthy(base_url):
        return known
    key = _key(base_url, model)
    with _lock:
        waiting = _inflight.get(key)
        first = key not in _probed
        if first:
            _probed.add(key)
            waiting = _inflight[key] = threading.Event()
    if not first:
        if waiting is not None:
            waiting.wait(timeout=_PROBE_WAIT)
        return learned_window(base_url, model)
    try:
        tokens = probe_served_window(base_url, model, api_key=getattr(llm, "api_key", None))
        if tokens is not None:
            with _lock:
                _learnt.setdefault(key, tokens)
    finally:
        with _lock:
            _inflight.pop(key, None)
        assert waiting is not None
        waiting.set()
    return learned_window(base_url, model)
