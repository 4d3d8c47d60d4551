"""A tiny OpenAI-compatible HTTP server for offline integration tests.

It lets tests run the *real* ``openai`` SDK, instructor and crewgraph's retry
logic end to end without a network model: replies are scripted, errors are
injected with real status codes and ``Retry-After`` headers, and every request
body is kept for assertions. Standard library only (``http.server`` on a
background thread), so importing it costs nothing.

Example::

    with OpenAICompatServer([ServerReply.error(429, retry_after=0), "hello"]) as server:
        llm = LLM(model="test", base_url=server.base_url, api_key="x")
        assert llm.call("hi").content == "hello"
        assert len(server.chat_requests) == 2
"""

from __future__ import annotations

import base64
import json
import struct
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler
from typing import Any

from crewgraph.testing._local_server import LocalServer
from crewgraph.testing._server_data import (
    UNSET,
    RecordedRequest,
    ScriptItem,
    ServerReply,
    embedding_for,
)
from crewgraph.testing._server_faults import Faults, RawBody
from crewgraph.testing._server_llamacpp import LlamaCpp
from crewgraph.testing._server_shapes import SlowModel, client_gone, written_tool_calls
from crewgraph.testing._server_stream import SSE_DONE, sse_frame, stream_chunks

__all__ = [
    "Faults", "LlamaCpp", "OpenAICompatServer", "RecordedRequest", "ServerReply", "SlowModel", "embedding_for",
]

class OpenAICompatServer:
    """OpenAI-compatible server on ``127.0.0.1`` (random port) in a background thread.

    ``replies`` is the script for chat completions, consumed in order; items
    are :class:`ServerReply`, plain strings (text replies) or callables taking
    the request body and returning either. When the script is exhausted,
    ``default`` is used if given, else the request fails with a 400 saying so.
    ``supports_tools=False`` rejects requests carrying ``tools`` (400, without
    consuming the script), ``supports_json_schema=False`` does the same for
    ``response_format`` of type ``json_schema``, ``supports_json_object=False``
    for type ``json_object``; they exercise fallbacks.
    Requests with ``"stream": true`` are answered with SSE ``data:`` lines
    (text deltas, tool-call deltas, a usage chunk when ``stream_options``
    asks for one, then ``[DONE]``); ``supports_stream_options=False`` rejects
    ``stream_options`` with a 400, as older servers do.
    Shapes of real local servers (see :mod:`crewgraph.testing._server_shapes`):
    ``tool_calls_as_text="hermes"`` (or another format) writes every tool call,
    and every forced structured-output call, into the content instead of
    ``tool_calls``, as open models do; ``slow_model=SlowModel(...)`` makes
    replies take a slow model's time on few generation slots;
    ``context_window=N`` is reported by ``GET /models`` as vLLM does (``max_model_len``);
    ``llama_cpp=LlamaCpp(n_ctx=8192)`` serves as ``llama-server -c 8192`` does (its ``/models``
    and ``/props``, its refusal of a prompt over the window, answers cut at ``max_tokens`` with
    ``finish_reason: "length"``, SSE keep-alive comments; see :mod:`._server_llamacpp`).
    Misbehaving servers (see :mod:`crewgraph.testing._server_faults`):
    ``faults=Faults(rate=0.7, seed=1)`` fails that share of chat requests with
    429/500/503 before the script is read; ``ServerReply.drip``, ``garbage``,
    ``html``, ``null_message``, ``empty_choices``, ``bad_usage``, ``cut_off``
    and ``disconnect`` script broken replies.
    Use as a context manager, or call :meth:`start`/:meth:`stop`.
    """

    def __init__(
        self,
        replies: Iterable[ScriptItem] = (),
        *,
        supports_tools: bool = True,
        supports_json_schema: bool = True,
        supports_json_object: bool = True,
        supports_stream_options: bool = True,
        embedding_dim: int = 32,
        model: str = "crewgraph-test",
        default: ScriptItem | None = None,
        tool_calls_as_text: str | None = None,
        slow_model: SlowModel | None = None,
        context_window: int | None = None,
        faults: Faults | None = None,
        llama_cpp: LlamaCpp | None = None,
    ) -> None:
        if tool_calls_as_text is not None:
            written_tool_calls(tool_calls_as_text, [])  # an unknown format fails here, not per request
        self.tool_calls_as_text = tool_calls_as_text
        self.slow_model = slow_model
        self.context_window = context_window
        self.llama_cpp = llama_cpp
        self.faults = faults
        self.supports_tools = supports_tools
        self.supports_json_schema = supports_json_schema
        self.supports_json_object = supports_json_object
        self.supports_stream_options = supports_stream_options
        self.embedding_dim = embedding_dim
        self.model = model
        self.default = default
        self.log: list[RecordedRequest] = []
        self._script: list[ScriptItem] = list(replies)
        self._lock = threading.Lock()
        self._counter = 0
        self._server = LocalServer("OpenAICompatServer")

    # -- lifecycle ---------------------------------------------------------------
    def start(self) -> OpenAICompatServer:
        """Bind a free port and serve in a daemon thread (idempotent)."""
        if not self._server.running:
            self._server.start(_make_handler(self))
            _forget_structured_modes(self.base_url)
        return self

    def stop(self) -> None:
        """Stop serving and release the port."""
        self._server.stop()

    def __enter__(self) -> OpenAICompatServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        return self._server.port

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:PORT/v1``, ready for ``LLM(base_url=...)``."""
        return f"http://127.0.0.1:{self.port}/v1"

    # -- scripting and inspection ---------------------------------------------
    def add(self, *replies: ScriptItem) -> None:
        """Append replies to the script (thread-safe)."""
        with self._lock:
            self._script.extend(replies)

    @property
    def remaining(self) -> int:
        """Scripted replies not yet used."""
        with self._lock:
            return len(self._script)

    @property
    def requests(self) -> list[dict[str, Any]]:
        """Every request body received (chat completions, embeddings, images), in order."""
        with self._lock:
            return [r.body for r in self.log]

    @property
    def chat_requests(self) -> list[dict[str, Any]]:
        """Bodies of ``/chat/completions`` requests only."""
        with self._lock:
            return [r.body for r in self.log if r.path.endswith("/chat/completions")]

    # -- request handling (called on server threads) ---------------------------
    def _record(self, method: str, path: str, headers: dict[str, str], body: dict[str, Any]) -> int:
        with self._lock:
            self.log.append(RecordedRequest(method, path, headers, body))
            self._counter += 1
            return self._counter

    def _next_reply(self, body: dict[str, Any], number: int) -> ServerReply:
        with self._lock:
            item = self._script.pop(0) if self._script else self.default
        if item is None:
            return ServerReply.error(
                400, f"OpenAICompatServer: no scripted reply left for request #{number}"
            )
        if callable(item) and not isinstance(item, ServerReply):
            item = item(body)
        return ServerReply.text(item) if isinstance(item, str) else item

    def _chat(
        self, body: dict[str, Any], number: int
    ) -> tuple[int, dict[str, str], Any] | _Stream | RawBody | None:
        """Status, headers and payload for a chat request, or the chunks to stream
        (``"stream": true``); None means drop the connection."""
        if body.get("tools") and not self.supports_tools:
            return _error(400, "This model does not support tools (tool calling is disabled).")
        fmt = body.get("response_format") or {}
        if fmt.get("type") == "json_schema" and not self.supports_json_schema:
            return _error(400, "response_format of type json_schema is not supported.")
        if fmt.get("type") == "json_object" and not self.supports_json_object:
            return _error(400, "response_format of type json_object is not supported.")
        if body.get("stream_options") is not None and not self.supports_stream_options:
            return _error(400, "Unrecognized request argument supplied: stream_options")
        if self.llama_cpp is not None:
            refused = self.llama_cpp.refusal(body)
            if refused is not None:
                return refused
        injected = self.faults.draw() if self.faults is not None else None
        if injected is not None:
            status, headers, payload = _error(injected[0], f"injected fault {injected[0]}")
            return status, {**headers, **injected[1]}, payload
        reply = self._next_reply(body, number)
        if reply.delay > 0:
            time.sleep(reply.delay)
        if reply.drop_connection:
            return None
        if reply.status >= 400:
            status, headers, payload = _error(reply.status, reply.error_message, reply.error_body)
            return status, {**headers, **reply.headers}, payload
        completion = self._completion(body, reply, number)
        if reply.misbehave is not None:
            return reply.misbehave.render(completion)
        if body.get("stream"):
            include_usage = bool((body.get("stream_options") or {}).get("include_usage"))
            chunks = stream_chunks(completion, include_usage=include_usage)
            tokens = int(completion["usage"]["completion_tokens"])
            keepalives = self.llama_cpp.keepalive_comments if self.llama_cpp is not None else 0
            return _Stream(chunks, reply.headers, reply.chunk_delay, reply.stream_break_after, tokens,
                           keepalives=keepalives,
                           keepalive_delay=self.llama_cpp.keepalive_delay if self.llama_cpp is not None else 0.0)
        return 200, reply.headers, completion

    def _completion(self, body: dict[str, Any], reply: ServerReply, number: int) -> dict[str, Any]:
        content, calls = reply.content, list(reply.calls)
        finish_reason = reply.finish_reason
        if self.llama_cpp is not None and not calls:
            content, was_cut = self.llama_cpp.cut(body, content)
            finish_reason = "length" if was_cut else finish_reason
        if reply.payload is not UNSET:
            forced = _forced_tool_name(body)
            if forced is not None:
                calls = [(forced, json.dumps(reply.payload))]
            else:
                content = json.dumps(reply.payload)
        if calls and self.tool_calls_as_text is not None and body.get("tools"):
            content, calls = written_tool_calls(self.tool_calls_as_text, calls, prose=content or ""), []
        message: dict[str, Any] = {"role": "assistant", "content": content}
        if calls:
            message["tool_calls"] = [
                {"id": f"call_{number}_{i}", "type": "function",
                 "function": {"name": name, "arguments": args}}
                for i, (name, args) in enumerate(calls)
            ]
        produced = (content or "") + "".join(a for _, a in calls)
        prompt = max(1, len(json.dumps(body.get("messages", []))) // 4)
        completion = max(1, len(produced) // 4)
        if reply.usage:
            prompt = reply.usage.get("prompt_tokens", prompt)
            completion = reply.usage.get("completion_tokens", completion)
        usage: dict[str, Any] = {
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": prompt + completion,
        }
        if reply.cached_tokens:
            usage["prompt_tokens_details"] = {"cached_tokens": reply.cached_tokens}
        return {
            "id": f"chatcmpl-{number}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body.get("model") or self.model,
            "choices": [{
                "index": 0,
                "message": message,
                "finish_reason": finish_reason or ("tool_calls" if calls else "stop"),
            }],
            "usage": usage,
        }

    def _embeddings(self, body: dict[str, Any]) -> tuple[int, dict[str, str], Any]:
        raw = body.get("input", [])
        texts = [raw] if isinstance(raw, str) else [str(t) for t in raw]
        dim = int(body.get("dimensions") or self.embedding_dim)
        as_base64 = body.get("encoding_format") == "base64"
        data = []
        for i, text in enumerate(texts):
            vec = embedding_for(text, dim)
            encoded: Any = (
                base64.b64encode(struct.pack(f"<{dim}f", *vec)).decode() if as_base64 else vec
            )
            data.append({"object": "embedding", "index": i, "embedding": encoded})
        tokens = max(1, sum(len(t) for t in texts) // 4)
        return 200, {}, {
            "object": "list",
            "data": data,
            "model": body.get("model") or self.model,
            "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
        }

    def _images(self, body: dict[str, Any]) -> tuple[int, dict[str, str], Any]:
        """``/images/generations``: ``n`` images, each a URL on this server and a revised prompt."""
        prompt = str(body.get("prompt") or "")
        if not prompt:
            return _error(400, "prompt is required")
        count = int(body.get("n") or 1)
        data = [
            {"url": f"http://127.0.0.1:{self.port}/images/{i}.png", "revised_prompt": f"A picture of {prompt}"}
            for i in range(count)
        ]
        return 200, {}, {"created": int(time.time()), "data": data}

    def _models(self) -> tuple[int, dict[str, str], Any]:
        if self.llama_cpp is not None:
            return 200, {}, {"object": "list", "data": [self.llama_cpp.models_entry(self.model)]}
        entry: dict[str, Any] = {"id": self.model, "object": "model", "created": 0, "owned_by": "crewgraph"}
        if self.context_window is not None:
            entry["max_model_len"] = self.context_window  # as vLLM reports it
        return 200, {}, {"object": "list", "data": [entry]}


@dataclass
class _Stream:
    """A streamed answer: the chunks, headers, pause between chunks, and where to hang up."""

    chunks: list[dict[str, Any]]
    headers: dict[str, str]
    delay: float = 0.0
    break_after: int | None = None
    tokens: int = 0
    gone: Any = None
    """Set for a :class:`SlowModel`: returns True once the client has closed the stream."""
    keepalives: int = 0
    """SSE comment lines (``: keep-alive``) sent before the first chunk."""
    keepalive_delay: float = 0.0


def _forget_structured_modes(base_url: str) -> None:
    """A new server on a port is a new server: what clients learnt about an earlier one there
    (the structured-output mode that worked, a concurrency limit) no longer holds."""
    from crewgraph.llm._served_window import forget_windows
    from crewgraph.llm._slots import forget_endpoint
    from crewgraph.llm.structured import forget_modes

    forget_modes(base_url)
    forget_endpoint(base_url)
    forget_windows(base_url)


def _forced_tool_name(body: dict[str, Any]) -> str | None:
    """The function name a request forces with ``tool_choice`` (instructor TOOLS mode)."""
    choice = body.get("tool_choice")
    if isinstance(choice, dict):
        name = (choice.get("function") or {}).get("name")
        return str(name) if name else None
    tools = body.get("tools") or []
    if choice == "required" and len(tools) == 1:
        return str(tools[0]["function"]["name"])
    return None


def _error(status: int, message: str, body: Any = None) -> tuple[int, dict[str, str], Any]:
    if body is None:
        kind = "rate_limit_error" if status == 429 else (
            "server_error" if status >= 500 else "invalid_request_error"
        )
        body = {"error": {"message": message, "type": kind, "param": None, "code": status}}
    return status, {}, body


def _make_handler(server: OpenAICompatServer) -> type[BaseHTTPRequestHandler]:
    class _Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:  # quiet test output
            return

        def do_GET(self) -> None:
            if self.path.rstrip("/").endswith("/models"):
                self._send(*server._models())
            elif self.path.rstrip("/") == "/props" and server.llama_cpp is not None and server.llama_cpp.serve_props:
                self._send(200, {}, server.llama_cpp.props(server.model))
            else:
                self._send(*_error(404, f"unknown path {self.path}"))

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            try:
                body = json.loads(raw or b"{}")
            except json.JSONDecodeError:
                self._send(*_error(400, "request body is not JSON"))
                return
            headers = {k.lower(): v for k, v in self.headers.items()}
            number = server._record("POST", self.path, headers, body)
            try:
                self._dispatch(body, number)
            except (BrokenPipeError, ConnectionResetError):
                self.close_connection = True  # the client gave up (timeout test): nothing to say
            except Exception as exc:  # a bug in a scripted callable: answer, don't hang
                self._send(*_error(500, f"OpenAICompatServer: {type(exc).__name__}: {exc}"))

        def _dispatch(self, body: dict[str, Any], number: int) -> None:
            path = self.path.split("?", 1)[0].rstrip("/")
            if path.endswith("/chat/completions"):
                result = server._chat(body, number)
                if result is None:
                    self.close_connection = True
                elif isinstance(result, RawBody):
                    result.send(self)
                elif server.slow_model is not None and (isinstance(result, _Stream) or result[0] == 200):
                    self._slowly(server.slow_model, result, number)
                elif isinstance(result, _Stream):
                    self._stream(result)
                else:
                    self._send(*result)
            elif path.endswith("/embeddings"):
                self._send(*server._embeddings(body))
            elif path.endswith("/images/generations"):
                self._send(*server._images(body))
            else:
                self._send(*_error(404, f"unknown path {self.path}"))

        def _stream(self, answer: _Stream) -> None:
            """SSE over chunked transfer encoding, flushed per chunk so clients see each one arrive."""
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-cache")
            self.send_header("Transfer-Encoding", "chunked")
            for key, value in answer.headers.items():
                self.send_header(key, value)
            self.end_headers()
            for _ in range(answer.keepalives):  # comments while the prompt is processed
                if answer.keepalive_delay > 0:
                    time.sleep(answer.keepalive_delay)
                self._write_chunk(b": keep-alive\n\n")
            for sent, chunk in enumerate(answer.chunks):
                if answer.break_after is not None and sent >= answer.break_after:
                    self.close_connection = True  # hang up mid-stream, without the last frame
                    return
                if sent and answer.delay > 0:
                    time.sleep(answer.delay)
                if answer.gone is not None and answer.gone():
                    raise BrokenPipeError("the client closed the stream")
                self._write_chunk(sse_frame(chunk))
            self._write_chunk(SSE_DONE)
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()

        def _slowly(self, slow: SlowModel, result: tuple[int, dict[str, str], Any] | _Stream, number: int) -> None:
            """Answer as a slow model on a few slots would (see ``SlowModel``): wait for a slot,
            generate at its pace; a non-streamed generation runs to the end even if the client
            has gone, a streamed one stops at the next token after the client closed it."""
            streamed = isinstance(result, _Stream)
            tokens = result.tokens if isinstance(result, _Stream) else int(result[2]["usage"]["completion_tokens"])
            gen = slow.start(number, tokens, stream=streamed)
            abandoned = stopped = False
            try:
                if isinstance(result, _Stream):
                    result.delay = max(result.delay, gen.tokens * slow.seconds_per_token / max(1, len(result.chunks)))
                    result.gone = lambda: client_gone(self.connection)
                    self._stream(result)
                else:
                    slow.generate(gen, gen.tokens)
                    abandoned = client_gone(self.connection)
                    if abandoned:
                        self.close_connection = True
                    else:
                        self._send(*result)
            except (BrokenPipeError, ConnectionResetError):
                stopped, abandoned = streamed, not streamed
                self.close_connection = True
            finally:
                slow.finish(gen, abandoned=abandoned, stopped_early=stopped)

        def _write_chunk(self, data: bytes) -> None:
            self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
            self.wfile.flush()

        def _send(self, status: int, headers: dict[str, str], payload: Any) -> None:
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for key, value in headers.items():
                self.send_header(key, value)
            self.end_headers()
            self.wfile.write(data)

    return _Handler
