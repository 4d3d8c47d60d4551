"""CodeInterpreterTool: run model-written Python in a child process and report what happened.

NOT A SECURITY SANDBOX. The code runs as the current user with the same
permissions, network and filesystem access as your program. What this tool
does provide: a separate interpreter (``sys.executable -I``: isolated mode,
no user site-packages, ``PYTHON*`` variables ignored), a fresh temporary
working directory deleted afterwards, a wall-clock deadline after which
nothing is read or waited for, every process the code started killed when the
tool returns (its process group, its session, and any process that inherited
the run's environment marker), and output capped while it is read (memory
stays bounded however much the code prints). See ``_child_process``. Run it inside a container or VM if
the code may be hostile.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from pydantic import BaseModel, Field

from crewgraph.toolkit._child_process import StreamBuffer, run_child
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


def _clip(buffer: StreamBuffer, limit: int) -> str:
    text = bytes(buffer.data).decode("utf-8", errors="replace")
    if len(text) <= limit and not buffer.dropped:
        return text
    if not buffer.dropped:
        return text[:limit] + f"\n[... {len(text) - limit} more characters cut]"
    rest = len(text[limit:].encode("utf-8", errors="replace")) + buffer.dropped
    return text[:limit] + f"\n[... more characters cut: the output went on for {rest} more bytes]"


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
            done = run_child(
                [sys.executable, "-I", str(script)],
                cwd=workdir,
                timeout=self.timeout,
                cap_bytes=self.max_output_chars * 4,  # a UTF-8 character is at most 4 bytes
            )
        return CodeExecutionResult(
            stdout=_clip(done.stdout, self.max_output_chars),
            stderr=_clip(done.stderr, self.max_output_chars),
            exit_code=done.returncode,
            timed_out=done.timed_out,
        )

    def format_output_for_agent(self, raw_result: object) -> str:
        if isinstance(raw_result, CodeExecutionResult):
            return str(raw_result)
        return super().format_output_for_agent(raw_result)
