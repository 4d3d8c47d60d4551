"""`crewgraph run flow.yaml` on CrewAI's own example declarative flow, in a real subprocess.

The file is CrewAI's documented crewai.flow/v1 example, unchanged; its agents
have no llm, so they use the default model, here a local OpenAI-compatible
server (OPENAI_BASE_URL) scripted per agent.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from crewgraph.testing.openai_server import OpenAICompatServer

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "tests" / "flow" / "data" / "crewai_flow_example.yaml"


def _reply(body: dict[str, Any]) -> str:
    text = " ".join(str(m.get("content")) for m in body["messages"])
    if "Follow-up router" in text:
        return "followup"
    if "Executive communications" in text:
        return "Executive memo: adopt the orchestration layer."
    return "Findings: AI agent orchestration cuts toil."


def run(*args: str, cwd: Path, base_url: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO), "OPENAI_BASE_URL": base_url, "OPENAI_API_KEY": "x",
           "CREWGRAPH_STORAGE_DIR": str(cwd / "store")}
    env.pop("CREWGRAPH_LLM", None)
    return subprocess.run([sys.executable, "-m", "crewgraph.cli", "run", *args], cwd=cwd, env=env,
                          stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120)


def test_crewais_example_flow_runs_unchanged(tmp_path: Path) -> None:
    with OpenAICompatServer(default=_reply) as server:
        proc = run(str(EXAMPLE), cwd=tmp_path, base_url=server.base_url)
        prompts = [" ".join(str(m["content"]) for m in r["messages"]) for r in server.chat_requests]
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "Executive memo: adopt the orchestration layer."
    for step in ("research_task", "review_task", "route_followup", "write_followup"):
        assert f"✔ {step}" in proc.stderr
    assert "Running flow 'ResearchReviewFlow'" in proc.stderr
    assert len(prompts) == 4
    assert "Research AI agent orchestration for platform engineering leaders." in prompts[0]  # ${state.*} inputs
    assert "Reviewed research: Findings: AI agent orchestration cuts toil." in prompts[2]  # ${outputs.*.raw}


def test_an_unknown_format_names_the_schema_key(tmp_path: Path) -> None:
    flow = tmp_path / "flow.yaml"
    flow.write_text(EXAMPLE.read_text(encoding="utf-8").replace("crewai.flow/v1", "crewai.flow/v9"), encoding="utf-8")
    proc = run("flow.yaml", cwd=tmp_path, base_url="http://127.0.0.1:9/v1")
    assert proc.returncode == 1
    assert proc.stderr.strip().endswith(
        f"{flow}:1: schema: unknown flow definition format 'crewai.flow/v9': crewgraph reads 'crewai.flow/v1' "
        "(CrewAI's declarative flows); fix or remove the schema key"
    )
    assert "Traceback" not in proc.stderr
