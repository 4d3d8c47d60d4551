"""Every Python block of docs/llm.md runs as written, offline (blocks that need a real server
say so in their first line and are skipped)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parents[2] / "docs" / "llm.md"
NEEDS_SERVER = ("# needs ", "# each line needs ")
BLOCKS = re.findall(r"^```python\n(.*?)^```$", DOC.read_text(), re.S | re.M)


EXPECTED = {  # marker in the block -> what it prints (as its comments say)
    "stands in for Groq": ["pong llama-3.1-8b-instant", "groq http://localhost:11434/v1"],
    "class EchoLLM": ["True"],
    "def flaky": ["6 6"],
    "A stand-in for llama.cpp serving Qwen2.5": [
        "2 + 3 = 5", "{'role': 'tool', 'tool_call_id': 'text1_0', 'name': 'Add', 'content': '5'}", "hermes"],
    "llama.cpp with a small Qwen": [
        "name='Oslo' population=709000", "name='Bergen' population=285000",
        "[(True, None), (True, None), (False, 'json_schema')]"],
}


@pytest.mark.parametrize("index", range(len(BLOCKS)))
def test_docs_llm_block_runs(index: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                            capsys: pytest.CaptureFixture[str]) -> None:
    block = BLOCKS[index]
    if block.lstrip().startswith(NEEDS_SERVER):
        pytest.skip(block.lstrip().splitlines()[0])
    monkeypatch.chdir(tmp_path)
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "MODEL", "CREWGRAPH_MODEL", "BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    exec(compile(block, f"{DOC}:block{index}", "exec"), {"__name__": f"llm_doc_{index}"})
    printed = capsys.readouterr().out.splitlines()
    for marker, lines in EXPECTED.items():
        if marker in block:
            assert printed == lines
