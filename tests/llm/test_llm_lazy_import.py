"""``import crewgraph.llm`` (and the testing kit) must not load the heavy HTTP/LLM stack."""

from __future__ import annotations

import json
import subprocess
import sys

HEAVY = ["openai", "instructor", "httpx", "httpx2", "httpcore", "anyio", "tenacity"]


def test_importing_llm_and_testing_does_not_import_openai() -> None:
    code = (
        "import json, sys\n"
        "import crewgraph.llm, crewgraph.testing\n"
        "from crewgraph.llm import LLM\n"
        "LLM(model='openai/gpt-4o-mini')\n"
        f"print(json.dumps(sorted(m for m in {HEAVY!r} if m in sys.modules)))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    assert json.loads(out.stdout.strip().splitlines()[-1]) == []


def _isort_key(name: str) -> tuple[int, str]:
    """The order ruff's RUF022 enforces: CONSTANTS, then Classes, then functions."""
    group = 0 if name.isupper() else 1 if name[:1].isupper() else 2
    return group, name


def test_public_namespaces_are_sorted_and_complete() -> None:
    import crewgraph.llm
    import crewgraph.testing

    for module in (crewgraph.llm, crewgraph.testing):
        assert module.__all__ == sorted(module.__all__, key=_isort_key)
        for name in module.__all__:
            assert getattr(module, name) is not None
