"""What an OpenAI-compatible server (and the model behind it) can do, found in a few short calls.

``crewgraph doctor`` reports these probes. Each is one small request (a few
dozen tokens at most) under a bounded wait, sent with plain httpx rather than
crewgraph's client, so what is seen is the server's own behaviour: no retries,
no fallbacks. A probe's outcome is a :class:`Probe` with a status:

- ``ok``: works as asked;
- ``text``: the server accepted the request but the model wrote its answer in
  text (a tool call in ``<tool_call>`` form, say); crewgraph copes with that;
- ``ignored``: accepted, and the model's reply did not do what was asked;
- ``rejected``: the server refused the request (the status and its message);
- ``error``: the probe itself failed (timeout, broken reply);
- ``unknown``: the server does not say (context window).
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass, field
from typing import Any

from crewgraph.cli._errors import UserError

__all__ = ["Probe", "ServerReport", "probe_server"]

_WEATHER_DESCRIPTION = "Current weather for a city."
_WEATHER_PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {"city": {"type": "string", "description": "the city name"}},
    "required": ["city"],
}
_WEATHER: dict[str, Any] = {
    "type": "function",
    "function": {"name": "get_weather", "description": _WEATHER_DESCRIPTION, "parameters": _WEATHER_PARAMETERS},
}
_CITY_SCHEMA = {
    "type": "object",
    "properties": {"city": {"type": "string"}, "country": {"type": "string"}},
    "required": ["city", "country"],
}
_CITY_PROMPT = (
    "Give the capital of France as a JSON object with the keys \"city\" and \"country\". "
    "Reply with the JSON object only."
)
_TOOL_PROMPT = "What is the weather in Paris right now? Use the get_weather tool."


@dataclass
class Probe:
    """One probe's outcome; ``detail`` says what was seen, ``seconds`` how long it took."""

    name: str
    status: str
    detail: str = ""
    seconds: float = 0.0
    data: dict[str, Any] = field(default_factory=dict)


@dataclass
class ServerReport:
    """Every probe of one server and model, in the order they ran."""

    base_url: str
    model: str
    probes: list[Probe] = field(default_factory=list)

    def get(self, name: str) -> Probe | None:
        return next((p for p in self.probes if p.name == name), None)

    def status(self, name: str) -> str:
        probe = self.get(name)
        return probe.status if probe is not None else "unknown"

    def to_dict(self) -> dict[str, Any]:
        return {"base_url": self.base_url, "model": self.model, "probes": [asdict(p) for p in self.probes]}


class _Client:
    """A bounded httpx client for one server: every wait is at most ``timeout`` seconds."""

    def __init__(self, base_url: str, api_key: str | None, timeout: float) -> None:
        import httpx

        self.base_url = base_url.rstrip("/")
        headers = {"Authorization": f"Bearer {api_key or 'not-needed'}"}
        self.timeout = timeout
        self.http = httpx.Client(headers=headers, timeout=httpx.Timeout(timeout, connect=min(timeout, 10.0)))

    def close(self) -> None:
        self.http.close()

    def get(self, path: str) -> Any:
        return self.http.get(f"{self.base_url}{path}")

    def chat(self, body: dict[str, Any]) -> tuple[int, Any, float]:
        """(status, JSON body or text, seconds) of one chat completion."""
        started = time.perf_counter()
        response = self.http.post(f"{self.base_url}/chat/completions", json=body)
        elapsed = time.perf_counter() - started
        try:
            payload = response.json()
        except ValueError:
            payload = response.text
        return response.status_code, payload, elapsed


def probe_server(base_url: str, model: str | None, api_key: str | None, timeout: float) -> ServerReport:
    """Run every probe against ``base_url``; raises ``UserError`` (one line) if it is unreachable."""
    import httpx

    client = _Client(base_url, api_key, timeout)
    try:
        models = _models(client)
        chosen = model or (models.data["ids"][0] if models.data.get("ids") else None)
        if chosen is None:
            raise UserError(f"{base_url} lists no models; name one with --model")
        report = ServerReport(base_url=client.base_url, model=chosen, probes=[models])
        for probe in (_chat, _native_tools, _text_tools, _forced_tool, _json_schema, _json_object, _streaming):
            report.probes.append(_bounded(probe, client, chosen))
        chat = report.get("chat")
        report.probes.insert(2, _usage(chat))
        report.probes.append(_context_window(client, chosen, models))
        return report
    except httpx.ConnectError as exc:
        raise UserError(f"cannot reach {base_url}: {_reason(exc)} (is the server running, and is the URL right?)") from None
    except httpx.TimeoutException:
        raise UserError(f"{base_url} did not answer within {timeout:g}s (raise --timeout for a slow server)") from None
    finally:
        client.close()


def _bounded(probe: Any, client: _Client, model: str) -> Probe:
    """One probe; a timeout or a broken reply is that probe's ``error``, not the whole run's."""
    import httpx

    name = probe.__name__.lstrip("_").replace("_", " ")
    started = time.perf_counter()
    try:
        result: Probe = probe(client, model)
        return result
    except httpx.TimeoutException:
        return Probe(name, "error", f"no answer within {client.timeout:g}s", time.perf_counter() - started)
    except httpx.HTTPError as exc:
        return Probe(name, "error", _reason(exc), time.perf_counter() - started)
    except (KeyError, IndexError, TypeError, ValueError) as exc:
        return Probe(name, "error", f"unexpected reply ({type(exc).__name__}: {exc})", time.perf_counter() - started)


def _reason(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[-1] if text else type(exc).__name__


# ------------------------------------------------------------------ probes
def _models(client: _Client) -> Probe:
    started = time.perf_counter()
    response = client.get("/models")
    elapsed = time.perf_counter() - started
    if response.status_code != 200:
        return Probe("models", "rejected", f"GET /models: HTTP {response.status_code}", elapsed)
    try:
        entries = response.json().get("data") or []
    except (ValueError, AttributeError):
        return Probe("models", "error", "GET /models did not return JSON", elapsed)
    ids = [str(e.get("id")) for e in entries if isinstance(e, dict) and e.get("id")]
    return Probe("models", "ok", ", ".join(ids[:5]) + (" ..." if len(ids) > 5 else ""), elapsed,
                 {"ids": ids, "entries": [e for e in entries if isinstance(e, dict)]})


def _message(payload: Any) -> dict[str, Any]:
    return dict(payload["choices"][0]["message"])


def _refusal(status: int, payload: Any) -> str:
    message = payload.get("error", {}).get("message") if isinstance(payload, dict) else None
    if not message and isinstance(payload, dict):
        message = payload.get("detail") or payload.get("message")
    text = str(message or payload)[:160].replace("\n", " ")
    return f"HTTP {status}: {text}"


def _chat(client: _Client, model: str) -> Probe:
    status, payload, seconds = client.chat({
        "model": model, "max_tokens": 32, "temperature": 0,
        "messages": [{"role": "user", "content": "Count from one to ten in words, on one line."}],
    })
    if status != 200:
        return Probe("chat", "rejected", _refusal(status, payload), seconds)
    content = str(_message(payload).get("content") or "").strip()
    usage = payload.get("usage") or {}
    tokens = int(usage.get("completion_tokens") or 0)
    data = {"usage": usage, "tokens_per_second": tokens / seconds if tokens and seconds > 0 else None}
    if not content:
        return Probe("chat", "ignored", "the model returned an empty reply", seconds, data)
    return Probe("chat", "ok", f"answered {content[:40]!r}", seconds, data)


def _usage(chat: Probe | None) -> Probe:
    usage = (chat.data.get("usage") if chat is not None else None) or {}
    if chat is None or chat.status not in ("ok", "ignored"):
        return Probe("usage", "unknown", "no chat reply to read it from")
    if usage.get("prompt_tokens") is not None and usage.get("completion_tokens") is not None:
        return Probe("usage", "ok", f"prompt {usage['prompt_tokens']}, completion {usage['completion_tokens']} tokens")
    return Probe("usage", "ignored", "no token counts in the reply (crewgraph counts zeros)")


def _native_tools(client: _Client, model: str) -> Probe:
    from crewgraph.nodes._content_calls import find_content_calls

    status, payload, seconds = client.chat({
        "model": model, "max_tokens": 96, "temperature": 0, "tools": [_WEATHER], "tool_choice": "auto",
        "messages": [{"role": "user", "content": _TOOL_PROMPT}],
    })
    if status != 200:
        return Probe("native tools", "rejected", _refusal(status, payload), seconds)
    message = _message(payload)
    calls = message.get("tool_calls") or []
    if calls:
        function = calls[0].get("function") or {}
        return Probe("native tools", "ok", f"called {function.get('name')}({function.get('arguments')})", seconds)
    written = find_content_calls(message.get("content"), ["get_weather"])
    if written is not None:
        call = written.calls[0]
        return Probe("native tools", "text", f"accepted tools; the model wrote the call as text ({written.format}): "
                     f"{call.name}({call.arguments})", seconds, {"format": written.format})
    return Probe("native tools", "ignored", f"accepted tools; the model answered without calling one: "
                 f"{str(message.get('content') or '')[:80]!r}", seconds)


def _text_tools(client: _Client, model: str) -> Probe:
    """The text (ReAct) protocol crewgraph falls back to when a server refuses ``tools``."""
    from crewgraph.llm.types import ToolSpec
    from crewgraph.nodes._text_tools import TextAction, parse_reply, tools_prompt

    spec = ToolSpec(name="get_weather", description=_WEATHER_DESCRIPTION, parameters=_WEATHER_PARAMETERS)
    status, payload, seconds = client.chat({
        "model": model, "max_tokens": 96, "temperature": 0,
        "messages": [{"role": "system", "content": tools_prompt([spec])}, {"role": "user", "content": _TOOL_PROMPT}],
    })
    if status != 200:
        return Probe("text tools", "rejected", _refusal(status, payload), seconds)
    content = str(_message(payload).get("content") or "")
    parsed = parse_reply(content)
    if isinstance(parsed, TextAction):
        return Probe("text tools", "ok", f"followed the Action/Action Input format: {parsed.tool}({parsed.arguments})",
                     seconds)
    from crewgraph.nodes._content_calls import find_content_calls

    written = find_content_calls(content, ["get_weather"])
    if written is not None:
        return Probe("text tools", "text", f"wrote the call in its own format ({written.format}), which is read too",
                     seconds, {"format": written.format})
    return Probe("text tools", "ignored", f"did not call the tool: {content[:80]!r}", seconds)


def _forced_tool(client: _Client, model: str) -> Probe:
    """Structured output's ``tools`` mode: a forced call whose arguments are the object."""
    tool = {"type": "function", "function": {"name": "City", "description": "Correctly extracted City",
                                             "parameters": _CITY_SCHEMA}}
    status, payload, seconds = client.chat({
        "model": model, "max_tokens": 96, "temperature": 0, "tools": [tool],
        "tool_choice": {"type": "function", "function": {"name": "City"}},
        "messages": [{"role": "user", "content": _CITY_PROMPT}],
    })
    if status != 200:
        return Probe("forced tool", "rejected", _refusal(status, payload), seconds)
    message = _message(payload)
    calls = message.get("tool_calls") or []
    if calls and _city(str((calls[0].get("function") or {}).get("arguments") or "")):
        return Probe("forced tool", "ok", "returned the object as the forced call's arguments", seconds)
    if _city(str(message.get("content") or ""), unwrap=True):
        return Probe("forced tool", "text", "accepted the forced call; the model wrote the object as text "
                     "(crewgraph reads it from there)", seconds)
    return Probe("forced tool", "ignored", "accepted the forced call; the reply held no object", seconds)


def _json_schema(client: _Client, model: str) -> Probe:
    return _response_format(client, model, "json schema", {
        "type": "json_schema", "json_schema": {"name": "City", "schema": _CITY_SCHEMA, "strict": True},
    })


def _json_object(client: _Client, model: str) -> Probe:
    return _response_format(client, model, "json object", {"type": "json_object"})


def _response_format(client: _Client, model: str, name: str, fmt: dict[str, Any]) -> Probe:
    status, payload, seconds = client.chat({
        "model": model, "max_tokens": 96, "temperature": 0, "response_format": fmt,
        "messages": [{"role": "user", "content": _CITY_PROMPT}],
    })
    if status != 200:
        return Probe(name, "rejected", _refusal(status, payload), seconds)
    content = str(_message(payload).get("content") or "")
    try:
        strict = isinstance(json.loads(content), dict) and _city(content)
    except ValueError:
        strict = False
    if strict:
        return Probe(name, "ok", "the reply was the JSON object", seconds)
    if _city(content, unwrap=True):
        return Probe(name, "text", "the object came wrapped in other text (crewgraph repairs that)", seconds)
    return Probe(name, "ignored", f"no JSON object in the reply: {content[:80]!r}", seconds)


def _city(text: str, unwrap: bool = False) -> bool:
    from crewgraph.llm._json_repair import extract_json

    try:
        data = json.loads(text) if not unwrap else extract_json(text)
    except ValueError:
        return False
    if unwrap and isinstance(data, dict) and isinstance(data.get("arguments"), dict):
        data = data["arguments"]
    return isinstance(data, dict) and isinstance(data.get("city"), str)


def _streaming(client: _Client, model: str) -> Probe:
    body = {"model": model, "max_tokens": 24, "temperature": 0, "stream": True,
            "stream_options": {"include_usage": True},
            "messages": [{"role": "user", "content": "Count from one to five in words."}]}
    started = time.perf_counter()
    status, chunks, usage, refusal = _stream(client, body)
    if status in (400, 422) and "stream_options" in refusal:
        body.pop("stream_options")
        status, chunks, usage, refusal = _stream(client, body)
        refusal = refusal or "stream_options refused"
    seconds = time.perf_counter() - started
    if status != 200:
        return Probe("streaming", "rejected", refusal, seconds)
    if chunks == 0:
        return Probe("streaming", "ignored", "the stream held no text", seconds)
    note = "with usage" if usage else "no usage in the stream"
    return Probe("streaming", "ok", f"{chunks} text chunks, {note}", seconds, {"usage": usage})


def _stream(client: _Client, body: dict[str, Any]) -> tuple[int, int, bool, str]:
    """(status, text chunks, whether a usage chunk came, refusal text) of one streamed call;
    stops reading after the whole probe's ``timeout``."""
    deadline = time.monotonic() + client.timeout
    chunks, usage = 0, False
    with client.http.stream("POST", f"{client.base_url}/chat/completions", json=body) as response:
        if response.status_code != 200:
            response.read()
            try:
                payload: Any = response.json()
            except ValueError:
                payload = response.text
            return response.status_code, 0, False, _refusal(response.status_code, payload)
        for line in response.iter_lines():
            if time.monotonic() > deadline:
                break
            if not line.startswith("data:") or line.strip() == "data: [DONE]":
                continue
            event = json.loads(line[5:])
            usage = usage or bool(event.get("usage"))
            for choice in event.get("choices") or []:
                if (choice.get("delta") or {}).get("content"):
                    chunks += 1
    return 200, chunks, usage, ""


def _context_window(client: _Client, model: str, models: Probe) -> Probe:
    """The window the server serves: ``/models`` (llama.cpp ``meta.n_ctx``, vLLM ``max_model_len``,
    LM Studio/OpenRouter ``context_length``), else llama.cpp's ``/props``, else Ollama's
    ``/api/show``; unknown if none says. llama.cpp's ``meta.n_ctx_train`` is only what the model
    was trained for (a server started with ``-c 8192`` serves 8,192 whatever it says), so it is
    shown beside the served window, never taken for it. The parsing is the client's own
    (``crewgraph.llm._served_window``), so doctor reports what a run will use."""
    from crewgraph.llm._served_window import window_from_models_entry, window_from_props

    trained: int | None = None
    for entry in models.data.get("entries", []):
        if entry.get("id") != model:
            continue
        meta = entry.get("meta") or {}
        trained = meta.get("n_ctx_train") if isinstance(meta.get("n_ctx_train"), int) else None
        found = window_from_models_entry(entry)
        if found is not None:
            return _window_probe(found[0], f"/models {found[1]}", trained)
    root = client.base_url.removesuffix("/v1")
    try:
        import httpx

        response = client.http.get(f"{root}/props")
        n_ctx = window_from_props(response.json()) if response.status_code == 200 else None
    except (ValueError, AttributeError, httpx.HTTPError):
        n_ctx = None
    if n_ctx is not None:
        return _window_probe(n_ctx, "llama.cpp /props", trained)
    ollama = _ollama_context(client, root, model)
    if ollama is not None:
        return ollama
    if trained is not None:
        return Probe("context window", "unknown",
                     f"the server does not say what it serves (the model was trained for {trained} tokens)")
    return Probe("context window", "unknown", "the server does not report it")


def _window_probe(tokens: int, source: str, trained: int | None) -> Probe:
    detail = f"{tokens} tokens ({source})"
    if trained is not None and trained > tokens:
        detail += f"; the model was trained for {trained}"
    return Probe("context window", "ok", detail, data={"tokens": tokens, "trained": trained})


def _ollama_context(client: _Client, root: str, model: str) -> Probe | None:
    """Ollama's ``/api/show``: the model's trained context and the ``num_ctx`` it runs with."""
    import httpx

    from crewgraph.llm._served_window import window_from_ollama_show

    try:
        response = client.http.post(f"{root}/api/show", json={"model": model})
        shown = window_from_ollama_show(response.json()) if response.status_code == 200 else None
    except (ValueError, httpx.HTTPError):
        return None
    if shown is None:
        return None
    used, trained, set_explicitly = shown
    detail = f"{used} tokens (Ollama num_ctx{'' if set_explicitly else ', its default'})"
    if trained is not None and trained > used:
        detail += (f"; the model was trained for {trained}: longer prompts are cut silently, "
                   "set OLLAMA_CONTEXT_LENGTH or num_ctx to use more")
    return Probe("context window", "ok", detail, data={"tokens": used, "trained": trained})
