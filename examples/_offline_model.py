"""A deterministic stand-in for a chat model, so the example works with no API key.

It cannot reason. It follows the obvious plan for the briefing crew's tasks —
list the files, outline the Python modules (several tool calls in one turn,
which crewgraph runs in parallel), gather statistics, then write an
extractive briefing from what the tools returned — and it speaks the same
BaseLLM contract as the real OpenAI-compatible client. Token counts are
estimated (4 characters per token).
"""

from __future__ import annotations

import json
import re
from typing import Any

from pydantic import BaseModel

from crewgraph.llm import BaseLLM, LLMResponse, ToolCall, ToolSpec
from crewgraph.outputs import UsageMetrics

__all__ = ["OfflineModel"]

MAX_OUTLINES = 24


def _usage(messages: list[dict[str, Any]], reply: str) -> UsageMetrics:
    prompt = sum(len(str(m.get("content") or "")) for m in messages) // 4 + 1
    completion = len(reply) // 4 + 1
    return UsageMetrics(prompt_tokens=prompt, completion_tokens=completion,
                        total_tokens=prompt + completion, successful_requests=1)


class OfflineModel(BaseLLM):
    """Rule-based model for the briefing example (see module docstring)."""

    model = "offline-extractive"

    def __init__(self) -> None:
        self._ids = 0

    async def acall(
        self,
        messages: list[dict[str, Any]],
        *,
        tools: list[ToolSpec] | None = None,
        response_model: type[BaseModel] | None = None,
        **kwargs: Any,
    ) -> LLMResponse:
        if tools:
            calls = self._next_calls(messages, {t.name for t in tools})
            if calls:
                return LLMResponse(tool_calls=calls, usage=_usage(messages, json.dumps([c.arguments for c in calls])),
                                   model=self.model)
        answer = self._answer(messages)
        return LLMResponse(content=answer, usage=_usage(messages, answer), model=self.model)

    # ------------------------------------------------------------------ tool plan
    def _call(self, name: str, args: dict[str, Any]) -> ToolCall:
        self._ids += 1
        return ToolCall(id=f"call_{self._ids}", name=name, arguments=json.dumps(args))

    def _next_calls(self, messages: list[dict[str, Any]], tools: set[str]) -> list[ToolCall]:
        results = [m for m in messages if m["role"] == "tool"]
        used = {m.get("name") for m in results}
        if "module_stats" in tools and "module_stats" not in used:
            return [self._call("module_stats", {})]
        lister = next((t for t in tools if t.lower().startswith("list_files")), None)
        if lister and lister not in used:
            return [self._call(lister, {})]
        if "outline_python" in tools and "outline_python" not in used and lister in used:
            listing = next(m["content"] for m in results if m.get("name") == lister)
            paths = [p for p in re.findall(r"^- (.+\.py)$", listing, re.M) if not p.endswith("__init__.py")]
            return [self._call("outline_python", {"path": p}) for p in paths[:MAX_OUTLINES]]
        return []

    # ------------------------------------------------------------------ answers
    def _answer(self, messages: list[dict[str, Any]]) -> str:
        results = [m for m in messages if m["role"] == "tool"]
        outlines = [m["content"] for m in results if m.get("name") == "outline_python"]
        stats = [m["content"] for m in results if m.get("name") == "module_stats"]
        if outlines:
            return "Module outlines:\n\n" + "\n\n".join(outlines)
        if stats:
            return stats[0]
        return self._briefing(str(messages[1].get("content", "")), str(messages[-1].get("content", "")))

    def _briefing(self, prompt: str, last: str) -> str:
        context = prompt.split("This is the context you're working with:", 1)[-1]
        folder = (re.search(r"code in (\S+)", prompt) or re.search(r"(\S+)", "the folder")).group(1)  # type: ignore[union-attr]
        modules = re.findall(r"^### (\S+) \((\d+) lines\)\n(.*)$", context, re.M)
        classes = len(re.findall(r"^- class ", context, re.M))
        functions = len(re.findall(r"^- def ", context, re.M))
        largest = re.findall(r"^\s*- (\S+): (\d+) lines", context, re.M)
        undocumented = re.findall(r"^\s*- (\S+) has no module docstring", context, re.M)
        lines = [f"# Briefing: {folder}", "", "## Overview", ""]
        lines.append(
            f"{len(modules)} Python modules outlined, defining {classes} classes and {functions} "
            f"top-level functions ({sum(int(n) for _, n, _ in modules)} lines in the outlined modules)."
        )
        lines += ["", "## Module map", ""]
        for path, n, doc in modules:
            summary = doc.strip() if doc.strip() and not doc.startswith("- ") else "(no docstring)"
            lines.append(f"- `{path}` ({n} lines): {summary}")
        lines += ["", "## Hotspots", ""]
        lines += [f"- `{p}` is among the largest modules ({n} lines)" for p, n in largest[:5]] or ["- none found"]
        lines += ["", "## Suggested next steps", ""]
        steps = [f"- Split or review `{p}` ({n} lines)." for p, n in largest[:2] if int(n) > 300]
        steps += [f"- Add a module docstring to `{p}`." for p in undocumented[:5]]
        lines += steps or ["- Nothing stands out: modules are small and documented."]
        if "not accepted" in last:
            lines += ["", "_Revised after guardrail feedback._"]
        return "\n".join(lines) + "\n"
