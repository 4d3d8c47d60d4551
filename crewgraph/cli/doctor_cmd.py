"""``crewgraph doctor``: what a model server can do, what crewgraph will use there, what to set.

Local servers differ (llama.cpp, llama-cpp-python, Ollama, vLLM, LM Studio),
and so do the models behind them: one takes ``tools`` but its model writes
calls as text, another accepts a JSON schema and ignores it. The doctor
finds out in a few short calls (see :mod:`crewgraph.cli._probes`) instead of
a crew failing ten minutes in.
"""

from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING, Annotated

import typer

from crewgraph.cli._errors import UserError, guarded
from crewgraph.cli._options import QuietOpt

if TYPE_CHECKING:
    from crewgraph.cli._probes import ServerReport

__all__ = ["doctor", "plan_for"]

_MARKS = {"ok": "ok", "text": "text", "ignored": "no", "rejected": "no", "error": "fail", "unknown": "?"}
_LABELS = {
    "models": "model list", "chat": "chat", "usage": "usage reporting", "native tools": "native tool calls",
    "text tools": "text tool calls", "forced tool": "forced tool call", "json schema": "json_schema",
    "json object": "json_object", "streaming": "streaming", "context window": "context window",
}


@guarded
def doctor(
    model: Annotated[
        str | None,
        typer.Option("--model", "-m", help="Model to probe (default: $CREWGRAPH_MODEL, $OPENAI_MODEL_NAME, "
                     "else the first the server lists).", show_default=False),
    ] = None,
    base_url: Annotated[
        str | None,
        typer.Option("--base-url", help="Server to probe (default: $OPENAI_BASE_URL, else OpenAI).",
                     show_default=False),
    ] = None,
    timeout: Annotated[
        float, typer.Option("--timeout", min=0.1, help="Seconds to wait for each probe.")
    ] = 60.0,
    as_json: Annotated[bool, typer.Option("--json", help="Print the findings as JSON.")] = False,
    quiet: QuietOpt = False,
) -> None:
    """Probe a model server in a few short calls: chat, tool calls (native and written as text),
    structured output modes, streaming, usage and context window; then say what crewgraph will
    use there and which settings suit it."""
    url = base_url or os.environ.get("OPENAI_BASE_URL") or "https://api.openai.com/v1"
    if not url.startswith(("http://", "https://")):
        raise UserError(f"--base-url must start with http:// or https://, got {url!r}")
    api_key = os.environ.get("OPENAI_API_KEY")
    if api_key is None and "api.openai.com" in url:
        raise UserError("probing OpenAI needs OPENAI_API_KEY; for a local server pass --base-url")
    name = model or os.environ.get("CREWGRAPH_MODEL") or os.environ.get("OPENAI_MODEL_NAME")
    if not as_json and not quiet:
        typer.echo(f"Probing {url} (each probe waits at most {timeout:g}s)...")
    from crewgraph.cli._probes import probe_server

    report = probe_server(url, name, api_key, timeout)
    plan = plan_for(report)
    if as_json:
        typer.echo(json.dumps({**report.to_dict(), "crewgraph": plan}, indent=2))
        return
    typer.echo(render(report, plan))
    if report.status("chat") != "ok":
        raise typer.Exit(1)


def plan_for(report: ServerReport) -> dict[str, object]:
    """What crewgraph will do on this server, and the settings suggested for it."""
    native, text = report.status("native tools"), report.status("text tools")
    native_probe = report.get("native tools")
    written = native_probe.data.get("format") if native_probe is not None else None
    if native == "ok":
        tools = "native tool calls"
    elif native == "text":
        tools = f"native tools; the calls the model writes as text ({written}) are run as tool calls"
    elif native == "rejected":
        tools = "the text protocol (Action / Action Input), since the server refuses tools" + (
            "" if text in ("ok", "text") else "; the model did not follow it in the probe, so tool use may fail")
    else:
        tools = "native tools, but the model did not call one in the probe: tool use may fail"
    modes = [("forced tool", "tools"), ("json schema", "json_schema"), ("json object", "json_object")]
    structured = next((mode for probe, mode in modes if report.status(probe) in ("ok", "text")), "json")
    chat = report.get("chat")
    rate = chat.data.get("tokens_per_second") if chat is not None else None
    window = report.get("context window")
    tokens = window.data.get("tokens") if window is not None else None
    settings: list[str] = [f"OPENAI_BASE_URL={report.base_url}", f"CREWGRAPH_MODEL={report.model}"]
    llm_args = [f'model="{report.model}"', f'base_url="{report.base_url}"']
    if structured != "tools":
        llm_args.append(f'structured_mode="{structured}"')
    slow = isinstance(rate, float) and rate < 30
    if slow and isinstance(rate, float):
        # Stream with an idle timeout (prompt processing on a CPU takes a while before the first
        # token), bound each answer, and allow two 512-token answers plus prompt time per attempt.
        seconds = int(min(3600, max(300, 2 * 512 / rate + 300)))
        settings += ["CREWGRAPH_LLM_IDLE_TIMEOUT=180", f"CREWGRAPH_LLM_TIMEOUT={seconds}",
                     "CREWGRAPH_LLM_MAX_TOKENS=512", "CREWGRAPH_LLM_CONCURRENCY=1"]
        llm_args += ["idle_timeout=180", f"timeout={seconds}", "max_tokens=512", "max_concurrency=1"]
    return {
        "tools": tools,
        "structured_output": structured,
        "streaming": report.status("streaming") == "ok",
        "tokens_per_second": round(rate, 1) if isinstance(rate, float) else None,
        "context_window": tokens,
        "environment": settings,
        "llm": f"LLM({', '.join(llm_args)})",
        "notes": _notes(report, slow, tokens),
    }


def _notes(report: ServerReport, slow: bool, window: object) -> list[str]:
    notes = []
    if report.status("native tools") == "rejected":
        notes.append("to get native tool calls: llama.cpp needs --jinja, vLLM --enable-auto-tool-choice "
                     "--tool-call-parser ..., Ollama a model with tool support")
    if report.status("usage") != "ok":
        notes.append("the server reports no token usage: crewgraph's token totals will read 0")
    if slow:
        notes.append("a slow model: a single-slot server keeps generating a request the client gave up on, "
                     "so give calls a long timeout rather than retrying them, and one call at a time")
    if isinstance(window, int) and window <= 16384:
        # Sized on the served window: what an agent's conversation may hold once the reply's room
        # is kept (the client trims to this ahead of time, see respect_context_window).
        reply = min(2048, window // 4)
        notes.append(
            f"a small context window ({window} tokens): a conversation may hold about "
            f"{int(window * 0.85) - reply} tokens with {reply} kept for the answer, so keep task descriptions "
            f"and tool outputs short, keep respect_context_window=True (the default: older turns are "
            f"summarised), and do not set max_tokens above {reply}"
        )
    return notes


def render(report: ServerReport, plan: dict[str, object]) -> str:
    lines = [f"Server {report.base_url}, model {report.model}", ""]
    for probe in report.probes:
        mark = _MARKS.get(probe.status, probe.status)
        took = f" ({probe.seconds:.1f}s)" if probe.seconds >= 0.05 else ""
        lines.append(f"  {mark:<5} {_LABELS.get(probe.name, probe.name):<18} {probe.detail}{took}")
    lines += ["", "crewgraph will use:",
              f"  tools:             {plan['tools']}",
              f"  structured output: structured_mode={plan['structured_output']!r}"
              + ("" if plan["structured_output"] == "tools" else " (auto finds it too, after failed tries)"),
              f"  streaming:         {'yes' if plan['streaming'] else 'no'}"]
    if plan["tokens_per_second"] is not None:
        lines.append(f"  speed:             about {plan['tokens_per_second']} tokens/s")
    lines += ["", "Suggested settings:"]
    environment = plan["environment"]
    assert isinstance(environment, list)
    lines += [f"  export {item}" for item in environment]
    lines.append(f"  or in code: {plan['llm']}")
    notes = plan["notes"]
    assert isinstance(notes, list)
    if notes:
        lines += ["", "Notes:"] + [f"  - {note}" for note in notes]
    return "\n".join(lines)
