"""Benchmark: the main job against a slow local model that writes its tool calls as text.

Starts crewgraph's OpenAI-compatible test server shaped like llama.cpp serving
a small Qwen on a laptop CPU: one generation slot, ``--tokens-per-second``
generation after ``--prefill`` seconds per request, tool calls answered as
``<tool_call>`` text (``--format``). A scripted "model" plays each agent of
examples/project_briefing.py: the cartographer lists the folder then outlines
two modules, the auditor asks for the module statistics, each answers from
what its tools returned, and the writer writes the briefing.

The main job then runs, in a subprocess, from each source tree given with
``--tree`` (default: this checkout; pass an older checkout, e.g. one made
with ``git archive``, for "before"). Reported per tree: wall time, model
calls the server received, slot time the server spent (including for
clients that had gone), tool calls that ran, and whether the briefing holds
what the tools returned (otherwise the job "succeeded" without using them:
the analysts' tool calls were taken as their final answers).

    python scripts/bench_real_server.py                       # this checkout
    python scripts/bench_real_server.py --tree /tmp/before --tree .
    python scripts/bench_real_server.py --format mistral --env CREWGRAPH_LLM_IDLE_TIMEOUT=30
    python scripts/bench_real_server.py --n-ctx 8192 --laptop   # the README's llama-server -c 8192 and settings
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from crewgraph.nodes._step_continue import CONTINUE_MESSAGE  # noqa: E402
from crewgraph.testing import LlamaCpp, OpenAICompatServer, ServerReply, SlowModel  # noqa: E402

LAPTOP = ["CREWGRAPH_LLM_IDLE_TIMEOUT=180", "CREWGRAPH_LLM_TIMEOUT=900", "CREWGRAPH_LLM_MAX_TOKENS=512",
          "CREWGRAPH_LLM_CONCURRENCY=1"]
"""The README's "Real models on a laptop" settings (``--laptop``)."""

BRIEFING = """## Overview
{folder} is a Python framework for teams of LLM agents; crews compile to a graph of typed nodes.

## Module map
{modules}

## Hotspots
{hotspots}

## Suggested next steps
- Split the largest modules and document the ones without docstrings.
- Keep the public namespace small and tested.
"""


def _tool_results(messages: list[dict[str, Any]]) -> list[str]:
    results = [str(m.get("content") or "") for m in messages if m.get("role") == "tool"]
    results += [str(m["content"])[len("Observation: "):] for m in messages
                if m.get("role") == "user" and str(m.get("content") or "").startswith("Observation: ")]
    return results


def play(body: dict[str, Any]) -> ServerReply:
    """What the small model answers to one request of the briefing job."""
    messages = body.get("messages") or []
    system = str(messages[0].get("content") or "") if messages else ""
    tools = {t["function"]["name"]: t["function"] for t in body.get("tools") or []}
    seen = _tool_results(messages)
    if "Code Cartographer" in system:
        directory = next((n for n in tools if n != "outline_python"), None)
        if tools and not seen and directory is not None:
            return ServerReply.tool_calls((directory, {}))
        if tools and len(seen) == 1:
            files = re.findall(r"(crewgraph/[\w/]+\.py)", seen[0])[:2] or ["crewgraph/crew.py"]
            return ServerReply.tool_calls(*[("outline_python", {"path": f}) for f in files])
        outlines = [r.splitlines()[0] for r in seen[1:] if r.startswith("###")]
        return ServerReply.text("Outline of the modules:\n" + "\n".join(f"- {line}" for line in outlines or ["(none)"]))
    if "Code Auditor" in system:
        if tools and not seen:
            return ServerReply.tool_calls(("module_stats", {}))
        stats = seen[0].splitlines()[:6] if seen else ["(no statistics)"]
        return ServerReply.text("Hotspots:\n" + "\n".join(stats))
    continuing = str(messages[-1].get("content") or "") == CONTINUE_MESSAGE
    if continuing:  # asked to go on after a cut answer: the rest of the briefing
        written = str(messages[-2].get("content") or "")
        messages = messages[:-2]
    prompt = "\n".join(str(m.get("content") or "") for m in messages)
    modules = [line for line in prompt.splitlines() if line.startswith("- ###")][:4] or ["- (no outline received)"]
    hotspots = [line for line in prompt.splitlines() if line.strip().startswith("- crewgraph/")][:4]
    whole = BRIEFING.format(folder="crewgraph", modules="\n".join(modules),
                            hotspots="\n".join(hotspots or ["- (no statistics received)"]))
    return ServerReply.text(whole[len(written):] if continuing else whole)


def run_tree(tree: Path, args: argparse.Namespace) -> dict[str, Any]:
    slow = SlowModel(seconds_per_token=1 / args.tokens_per_second, prompt_seconds=args.prefill, slots=1)
    shape = LlamaCpp(n_ctx=args.n_ctx) if args.n_ctx else None
    with OpenAICompatServer(default=play, tool_calls_as_text=args.format, slow_model=slow, llama_cpp=shape,
                            model="qwen2.5-1.5b-instruct") as server, tempfile.TemporaryDirectory() as out:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "CREWGRAPH_"))}
        env.update(OPENAI_BASE_URL=server.base_url, OPENAI_API_KEY="not-needed",
                   CREWGRAPH_MODEL="qwen2.5-1.5b-instruct", PYTHONPATH=str(tree))
        env.update(dict(item.split("=", 1) for item in (LAPTOP if args.laptop else []) + args.env))
        started = time.perf_counter()
        job = subprocess.run(
            [sys.executable, str(tree / "examples" / "project_briefing.py"), str(REPO / "crewgraph"), "--out", out],
            capture_output=True, text=True, env=env, timeout=args.limit, cwd=out,
        )
        wall = time.perf_counter() - started
        calls = len(server.chat_requests)
        refused = sum(1 for b in server.chat_requests if shape is not None and shape.prompt_tokens(b) > shape.n_ctx)
        run = json.loads((Path(out) / "run.json").read_text()) if (Path(out) / "run.json").exists() else {}
        briefing = (Path(out) / "briefing.md").read_text() if (Path(out) / "briefing.md").exists() else ""
    records = run.get("records") or run.get("nodes") or []
    tools_run = sum(1 for r in records if isinstance(r, dict) and r.get("kind") == "tool" and r.get("status") == "completed")
    # The writer copies the outline and statistics it was given; placeholders mean the analysts'
    # answers held no tool results (their tool calls were taken as final answers).
    grounded = "### crewgraph/" in briefing and "crewgraph/" in briefing.split("## Hotspots", 1)[-1]
    return {
        "tree": str(tree), "exit": job.returncode, "wall_s": round(wall, 1), "model_calls": calls,
        "slot_busy_s": round(slow.busy_seconds, 1), "slot_wasted_s": round(slow.wasted_seconds, 1),
        "tool_calls_run": tools_run, "briefing_from_tool_results": grounded, "refused_for_context": refused,
        "continued_answers": sum(1 for b in server.chat_requests
                                 if str((b.get("messages") or [{}])[-1].get("content")) == CONTINUE_MESSAGE),
        "error": job.stderr.strip().splitlines()[-1] if job.returncode and job.stderr.strip() else "",
    }


_ANALYSIS = """
import asyncio, json, sys, time
from crewgraph import LLM
from crewgraph.memory.analysis import Analyst

async def main():
    analyst = Analyst(lambda: LLM(model="qwen2.5-0.5b-instruct", base_url=sys.argv[1], api_key="x"))
    started, results = time.perf_counter(), []
    for i in range(int(sys.argv[2])):
        analysis = await analyst.analyze_for_save(f"Decision {i}: the team moves the API to v2.", ["/"], [])
        results.append(analysis.suggested_scope != "/")
    print(json.dumps({"seconds": time.perf_counter() - started, "analysed": sum(results),
                      "crewgraph": __import__("crewgraph").__file__}))

asyncio.run(main())
"""
SAVE_ANSWER = {"suggested_scope": "/project/api", "categories": ["decision"], "importance": 0.8,
               "extracted_metadata": {"entities": ["API"], "dates": [], "topics": ["versioning"]}}


def analyse(body: dict[str, Any]) -> ServerReply:
    """The small model answering a memory save analysis (its object, whatever mode was asked)."""
    return ServerReply.structured(SAVE_ANSWER)


def run_memory(tree: Path, args: argparse.Namespace) -> dict[str, Any]:
    """Memory save analysis (a structured call) when the server accepts a forced tool call and
    its model answers in text: calls per save, time, and saves actually analysed."""
    slow = SlowModel(seconds_per_token=1 / args.tokens_per_second, prompt_seconds=args.prefill, slots=1)
    with OpenAICompatServer(default=analyse, tool_calls_as_text=args.format, slow_model=slow) as server:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "CREWGRAPH_"))}
        env["PYTHONPATH"] = str(tree)
        env.update(dict(item.split("=", 1) for item in args.env))
        job = subprocess.run([sys.executable, "-c", _ANALYSIS, server.base_url, str(args.saves)],
                             capture_output=True, text=True, env=env, timeout=args.limit, cwd=tempfile.gettempdir())
        calls = len(server.chat_requests)
    found = json.loads(job.stdout.strip().splitlines()[-1]) if job.returncode == 0 else {}
    return {"tree": str(tree), "job": "memory save analysis", "saves": args.saves, "model_calls": calls,
            "wall_s": round(found.get("seconds", 0.0), 1), "analysed": found.get("analysed"),
            "imported": found.get("crewgraph"),
            "error": job.stderr.strip().splitlines()[-1] if job.returncode and job.stderr.strip() else ""}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tree", action="append", type=Path, help="source tree to run (repeatable)")
    parser.add_argument("--format", default="hermes", help="how the model writes tool calls (default hermes)")
    parser.add_argument("--tokens-per-second", type=float, default=20.0)
    parser.add_argument("--prefill", type=float, default=0.5, help="seconds of prompt processing per request")
    parser.add_argument("--limit", type=float, default=900, help="seconds before a job run is abandoned")
    parser.add_argument("--saves", type=int, default=5, help="memory saves to analyse")
    parser.add_argument("--n-ctx", type=int, default=0,
                        help="serve as llama-server -c N (its window, refusals, answers cut at max_tokens)")
    parser.add_argument("--laptop", action="store_true", help="the README's laptop settings (" + " ".join(LAPTOP) + ")")
    parser.add_argument("--env", action="append", default=[], metavar="KEY=VALUE",
                        help="environment for the job, e.g. CREWGRAPH_LLM_IDLE_TIMEOUT=180 (repeatable)")
    args = parser.parse_args()
    for tree in args.tree or [REPO]:
        print(json.dumps({"job": "main job", **run_tree(tree.resolve(), args)}))
        print(json.dumps(run_memory(tree.resolve(), args)))


if __name__ == "__main__":
    main()
