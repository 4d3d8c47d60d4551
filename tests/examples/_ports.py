"""Running the CrewAI ports under examples/crewai_ports/ in subprocesses, as a user would."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

PORTS = Path(__file__).resolve().parents[2] / "examples" / "crewai_ports"
REPO = PORTS.parents[1]
SCRIPTS = sorted(p.name for p in PORTS.glob("*.py"))
PROJECTS = sorted(p.name for p in PORTS.iterdir() if (p / "pyproject.toml").is_file())

_IMPORT = re.compile(r"^(\s*)(from|import) crewgraph(\.toolkit)?\b", re.M)


def to_crewai(source: str) -> str:
    """The CrewAI original of a port: crewgraph.toolkit -> crewai_tools, crewgraph -> crewai
    (import lines only, as the port changed only those)."""
    return _IMPORT.sub(lambda m: f"{m[1]}{m[2]} {'crewai_tools' if m[3] else 'crewai'}", source)


def copy_port(name: str, dest: Path, *, crewai: bool) -> Path:
    """``examples/crewai_ports/name`` copied to ``dest`` (as its CrewAI original when ``crewai``)."""
    source = PORTS / name
    target = dest / name
    if source.is_dir():
        shutil.copytree(source, target, ignore=shutil.ignore_patterns("__pycache__", ".crewgraph", "report.md"))
    else:
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(source, target)
    if crewai:
        for path in [target] if target.is_file() else target.rglob("*.py"):
            path.write_text(to_crewai(path.read_text(encoding="utf-8")), encoding="utf-8")
    return target


def offline_env(tmp: Path, **extra: str) -> dict[str, str]:
    """No key, no real model: every model call of the process goes to the demo model."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "MODEL", "CREWGRAPH_MODEL", "CREWGRAPH_LLM")}
    env.update(PYTHONPATH=str(REPO), CREWGRAPH_STORAGE_DIR=str(tmp / "store"), NO_COLOR="1",
               PYTHONWARNINGS="default::DeprecationWarning", **extra)
    return env


def run(args: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=180)
