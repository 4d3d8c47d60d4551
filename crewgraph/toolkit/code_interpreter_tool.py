"""CodeInterpreterTool: run model-written Python in a child process and report what happened.

NOT A SECURITY SANDBOX. The code runs as the current user with the same
permissions, network and filesystem access as your program. What this tool
does provide: a separate interpreter (``sys.executable -I``: isolated mode,
no user site-packages, ``PYTHON*`` variables ignored), a fresh temporary
working directory deleted afterwards, a wall-clock timeout that kills the
whole process group, and capped output. Run it inside a container or VM if
the code may be hostile.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

from pydantic import BaseModel, Field

from crewgraph.tools.base_tool import BaseTool

__all__ = ["CodeExecutionResult", "CodeInterpreterSchema", "CodeInterpreterTool"]


class CodeInterpreterSchema(BaseModel):
    """Input for CodeInterpreterTool."""

    code: str = Field(..., description="Python 3 code to run; print() what you want to see")
    libraries_used: list[str] | None = Field(
        default=None,
        description="Libraries the code imports. Informational only: nothing is installed.",
    )


class CodeExecutionResult(BaseModel):
    """What a run produced. ``str()`` (and what the model reads) is a short report."""

    stdout: str = ""
    stderr: str = ""
    exit_code: int | None = None
    timed_out: bool = False

    @property
    def ok(self) -> bool:
        return self.exit_code == 0 and not self.timed_out

    def __str__(self) -> str:
        head = "timed out (process killed)" if self.timed_out else f"exit code: {self.exit_code}"
        parts = [head]
        if self.stdout:
            parts.append(f"stdout:\n{self.stdout.rstrip()}")
        if self.stderr:
            parts.append(f"stderr:\n{self.stderr.rstrip()}")
        if not self.stdout and not self.stderr:
            parts.append("(no output; use print() to show results)")
        return "\n".join(parts)


def _clip(data: bytes, limit: int) -> str:
    text = data.decode("utf-8", errors="replace")
    if len(text) > limit:
        return text[:limit] + f"\n[... {len(text) - limit} more characters cut]"
    return text


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError, AttributeError):
        proc.kill()


class CodeInterpreterTool(BaseTool):
    """Runs Python code in a subprocess with a timeout. NOT a security sandbox (see module doc).

    ``libraries_used`` is accepted for CrewAI compatibility and ignored: the
    code can import what the current interpreter has installed, nothing more.
    """

    name: str = "Code Interpreter"
    description: str = (
        "Runs Python 3 code and returns its exit code, stdout and stderr. Use print() to show "
        "results. Each run starts in a fresh empty directory; nothing is installed."
    )
    args_schema: type[BaseModel] = CodeInterpreterSchema
    timeout: float = Field(default=30.0, gt=0, description="Seconds before the process is killed")
    max_output_chars: int = Field(default=20_000, ge=1, description="Most characters kept per stream")

    def _run(self, code: str, libraries_used: list[str] | None = None) -> CodeExecutionResult:
        with tempfile.TemporaryDirectory(prefix="crewgraph-code-") as workdir:
            script = Path(workdir) / "main.py"
            script.write_text(code, encoding="utf-8")
            proc = subprocess.Popen(
                [sys.executable, "-I", str(script)],
                cwd=workdir,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                start_new_session=os.name == "posix",
            )
            try:
                out, err = proc.communicate(timeout=self.timeout)
                timed_out = False
            except subprocess.TimeoutExpired:
                _kill_group(proc)
                out, err = proc.communicate()
                timed_out = True
        return CodeExecutionResult(
            stdout=_clip(out, self.max_output_chars),
            stderr=_clip(err, self.max_output_chars),
            exit_code=None if timed_out else proc.returncode,
            timed_out=timed_out,
        )

    def format_output_for_agent(self, raw_result: object) -> str:
        if isinstance(raw_result, CodeExecutionResult):
            return str(raw_result)
        return super().format_output_for_agent(raw_result)
