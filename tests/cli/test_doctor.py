"""``crewgraph doctor`` against the test server in the shapes of real local servers."""

from __future__ import annotations

import json
import socket
from typing import Any

from crewgraph.nodes._text_tools import FORMAT_MARKER
from crewgraph.testing import OpenAICompatServer, ServerReply, SlowModel

PARIS = {"city": "Paris", "country": "France"}


def cooperative(body: dict[str, Any]) -> ServerReply:
    """A model that does what each probe asks (the server's shape decides how it comes back)."""
    if body.get("tools") and isinstance(body.get("tool_choice"), dict):
        return ServerReply.structured(PARIS)
    if body.get("tools"):
        return ServerReply.tool_calls(("get_weather", {"city": "Paris"}))
    if body.get("response_format"):
        return ServerReply.structured(PARIS)
    if FORMAT_MARKER in str(body["messages"][0].get("content")):
        return ServerReply.text('Thought: I need the weather\nAction: get_weather\nAction Input: {"city": "Paris"}')
    return ServerReply.text("one two three four five six seven eight nine ten")


def doctor(cli: Any, server: OpenAICompatServer, *args: str) -> Any:
    return cli("doctor", "--base-url", server.base_url, "--model", "qwen2.5-1.5b", "--timeout", "5", *args)


def lines_with(output: str, label: str) -> str:
    return next(line for line in output.splitlines() if label in line)


def test_a_server_that_does_everything(cli: Any) -> None:
    with OpenAICompatServer(default=cooperative, model="qwen2.5-1.5b", context_window=32768) as server:
        result = doctor(cli, server)
        url = server.base_url
    assert result.exit_code == 0, result.output
    out = result.output
    for label in ("chat", "usage reporting", "native tool calls", "text tool calls", "forced tool call",
                  "json_schema", "json_object", "streaming", "context window"):
        assert lines_with(out, label).strip().startswith("ok"), label
    assert "32768 tokens (/models max_model_len)" in out
    assert "tools:             native tool calls" in out
    assert "structured_mode='tools'" in out
    assert f"export OPENAI_BASE_URL={url}" in out and "export CREWGRAPH_MODEL=qwen2.5-1.5b" in out


def test_a_model_that_writes_tool_calls_as_text(cli: Any) -> None:
    with OpenAICompatServer(default=cooperative, tool_calls_as_text="hermes") as server:
        result = doctor(cli, server, "--json")
    assert result.exit_code == 0, result.output
    found = json.loads(result.output)
    status = {p["name"]: p["status"] for p in found["probes"]}
    assert status["native tools"] == "text" and status["forced tool"] == "text"
    assert "(hermes)" in found["crewgraph"]["tools"]
    assert found["crewgraph"]["structured_output"] == "tools"  # the object is read from the text
    assert status["context window"] == "unknown"


def test_a_server_without_tools_or_schemas(cli: Any) -> None:
    with OpenAICompatServer(default=cooperative, supports_tools=False, supports_json_schema=False) as server:
        result = doctor(cli, server)
    assert result.exit_code == 0, result.output
    out = result.output
    assert lines_with(out, "native tool calls").strip().startswith("no")
    assert "HTTP 400: This model does not support tools" in out
    assert lines_with(out, "text tool calls").strip().startswith("ok")
    assert "the text protocol (Action / Action Input)" in out
    assert "structured_mode='json_object'" in out and "--jinja" in out


def test_an_unreachable_server_is_one_line(cli: Any) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    result = cli("doctor", "--base-url", f"http://127.0.0.1:{port}/v1", "--model", "m", "--timeout", "2")
    assert result.exit_code == 1
    assert result.stderr.startswith(f"Error: cannot reach http://127.0.0.1:{port}/v1")
    assert len(result.stderr.strip().splitlines()) == 1 and "Traceback" not in result.output + result.stderr


def test_bad_base_url_is_refused(cli: Any) -> None:
    result = cli("doctor", "--base-url", "localhost:8080", "--model", "m")
    assert result.exit_code == 1 and "must start with http://" in result.stderr


def test_a_slow_server_gets_bounded_probes_and_timeout_advice(cli: Any) -> None:
    slow = SlowModel(seconds_per_token=0.05)
    with OpenAICompatServer(default=cooperative, slow_model=slow) as server:
        result = doctor(cli, server, "--json")
    assert result.exit_code == 0, result.output
    plan = json.loads(result.output)["crewgraph"]
    assert plan["tokens_per_second"] < 30
    assert any(item.startswith("CREWGRAPH_LLM_TIMEOUT=") for item in plan["environment"])
    assert "timeout=" in plan["llm"] and any("slow model" in note for note in plan["notes"])

    stalled = SlowModel(seconds_per_token=0.0, prompt_seconds=1.0)
    with OpenAICompatServer(default=cooperative, slow_model=stalled) as server:
        result = doctor(cli, server, "--timeout", "0.3")
    assert result.exit_code == 1  # the chat probe did not answer
    assert "no answer within 0.3s" in lines_with(result.output, "chat")


def test_ollama_reports_the_num_ctx_it_runs_with() -> None:
    """Ollama's /api/show (a minimal fake of it): the trained context and the smaller num_ctx."""
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    from crewgraph.cli._probes import Probe, _Client, _context_window

    shows = [{"model_info": {"qwen2.context_length": 32768}, "parameters": "stop \"<|im_end|>\""},
             {"model_info": {"qwen2.context_length": 32768}, "parameters": "num_ctx 16384\ntemperature 0.7"}]

    class Ollama(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            return

        def _answer(self, status: int, body: Any) -> None:
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:
            self._answer(404, {"error": "not found"})  # no llama.cpp /props

        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            if self.path == "/api/show":
                self._answer(200, shows.pop(0))
            else:
                self._answer(404, {})

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Ollama)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    client = _Client(f"http://127.0.0.1:{httpd.server_address[1]}/v1", None, 5)
    try:
        models = Probe("models", "ok", data={"entries": [{"id": "qwen2.5:1.5b", "owned_by": "library"}]})
        default = _context_window(client, "qwen2.5:1.5b", models)
        configured = _context_window(client, "qwen2.5:1.5b", models)
    finally:
        client.close()
        httpd.shutdown()
        httpd.server_close()
    assert default.data == {"tokens": 4096, "trained": 32768}
    assert "its default" in default.detail and "cut silently" in default.detail
    assert configured.data == {"tokens": 16384, "trained": 32768}


def test_a_server_that_lists_no_models_needs_model(cli: Any) -> None:
    with OpenAICompatServer(default=cooperative) as server:
        server.model = ""
        result = cli("doctor", "--base-url", server.base_url, "--timeout", "5")
    assert result.exit_code == 1 and "lists no models; name one with --model" in result.stderr


def test_llama_cpp_reports_the_window_it_serves_not_the_trained_one(cli: Any) -> None:
    """``llama-server -c 8192`` with a model trained for 32,768: the served 8,192 is reported
    (``meta.n_ctx``), and the advice is sized on it."""
    from crewgraph.testing import LlamaCpp

    with OpenAICompatServer(default=cooperative, model="qwen2.5-1.5b",
                            llama_cpp=LlamaCpp(n_ctx=8192, n_ctx_train=32768)) as server:
        result = doctor(cli, server, "--json")
        assert result.exit_code == 0, result.output
        found = json.loads(result.output)
        assert found["crewgraph"]["context_window"] == 8192
        window = next(p for p in found["probes"] if p["name"] == "context window")
        assert "8192 tokens (/models meta.n_ctx); the model was trained for 32768" in window["detail"]
        assert any("small context window (8192 tokens)" in note for note in found["crewgraph"]["notes"])
    with OpenAICompatServer(default=cooperative, model="qwen2.5-1.5b",
                            llama_cpp=LlamaCpp(n_ctx=4096, report_n_ctx=False)) as server:
        found = json.loads(doctor(cli, server, "--json").output)
        window = next(p for p in found["probes"] if p["name"] == "context window")
        assert window["detail"].startswith("4096 tokens (llama.cpp /props)")
