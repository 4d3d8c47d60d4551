"""Import paths, exports and weight: ``import crewgraph.flow`` and a first kickoff stay light."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import crewgraph.flow
import crewgraph.flow.flow


def test_seed_import_path_and_package_exports() -> None:
    for name in ("Flow", "start", "listen", "router", "and_", "or_"):
        assert getattr(crewgraph.flow.flow, name) is getattr(crewgraph.flow, name)
    assert crewgraph.flow.__all__ == sorted(crewgraph.flow.__all__)
    from crewgraph.flow.persistence import SQLiteFlowPersistence, persist

    assert callable(persist) and SQLiteFlowPersistence


def _modules_after(code: str) -> dict[str, bool]:
    script = textwrap.dedent(code) + textwrap.dedent(
        """
        import json, sys
        heavy = ["networkx", "openai", "instructor", "qdrant_edge", "qdrant_client",
                 "onnxruntime", "sqlite3", "graphviz", "crewgraph.memory", "crewgraph.llm.openai_llm"]
        print(json.dumps({m: m in sys.modules for m in heavy}))
        """
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True, timeout=120)
    return dict(json.loads(out.stdout.strip().splitlines()[-1]))


def test_import_is_light() -> None:
    loaded = _modules_after("import crewgraph.flow")
    assert not any(loaded.values()), loaded


def test_first_kickoff_loads_nothing_the_flow_does_not_use() -> None:
    loaded = _modules_after(
        """
        from crewgraph.flow import Flow, listen, router, start

        class F(Flow[dict]):
            @start()
            def a(self):
                return 1

            @router(a)
            def r(self, n):
                return "go"

            @listen("go")
            async def b(self, n):
                return n + 1

        assert F().kickoff() == 2
        """
    )
    for name in ("openai", "instructor", "qdrant_edge", "qdrant_client", "onnxruntime", "sqlite3", "crewgraph.memory"):
        assert not loaded[name], f"{name} was imported by a plain flow kickoff"
