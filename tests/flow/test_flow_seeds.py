"""Every flow snippet of the seeds, as written (``crewai`` read as ``crewgraph``)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from pydantic import ValidationError

from crewgraph.compiler.flow_compiler import FlowCompileWarning


def test_seed_002_flow_dsl_as_written() -> None:
    """002, section 10.3: begin -> process -> decide -("success")-> finish."""
    with pytest.warns(FlowCompileWarning, match="router 'decide' may return 'retry'"):
        from crewgraph.flow.flow import Flow, and_, listen, or_, router, start

        class MyFlow(Flow[dict]):
            @start()
            def begin(self):
                return {"step": "started"}

            @listen(begin)
            def process(self, data):
                return {"step": "processed"}

            @router(process)
            def decide(self, data):
                if data["step"] == "processed":
                    return "success"
                return "retry"

            @listen("success")
            def finish(self, data):
                return {"done": True}

    assert and_ is not None and or_ is not None  # the seed imports them too
    flow = MyFlow()
    assert flow.kickoff() == {"done": True}
    assert flow.method_outputs == [{"step": "started"}, {"step": "processed"}, "success", {"done": True}]
    dot = flow.to_dot()
    assert "\tdecide [" in dot and "label=<decide> shape=diamond" in dot
    assert "\tdecide -> finish [" in dot and "label=success" in dot


def test_seed_001_research_flow_memory(monkeypatch: pytest.MonkeyPatch, fake_memory: Any) -> None:
    """001, "与流程一起使用": self.remember / self.recall in methods, default memory."""
    import crewgraph.flow._memory as flow_memory

    monkeypatch.setattr(flow_memory, "_default_memory", lambda flow_name: fake_memory)

    from crewgraph.flow.flow import Flow, listen, start

    class ResearchFlow(Flow):
        @start()
        def gather_data(self):
            findings = "PostgreSQL handles 10k concurrent connections. MySQL caps at 5k."
            self.remember(findings, scope="/research/databases")
            return findings

        @listen(gather_data)
        def write_report(self, findings):
            # Recall past research to provide context
            past = self.recall("database performance benchmarks")
            context = "\n".join(f"- {m.record.content}" for m in past)
            return f"Report:\nNew findings: {findings}\nPrevious context:\n{context}"

    report = ResearchFlow().kickoff()
    findings = "PostgreSQL handles 10k concurrent connections. MySQL caps at 5k."
    assert report == f"Report:\nNew findings: {findings}\nPrevious context:\n- {findings}"
    assert fake_memory.saved == [(findings, {"scope": "/research/databases"})]
    assert fake_memory.queries == ["database performance benchmarks"]
    assert fake_memory.drained == 1  # pending writes are flushed when the kickoff ends


@pytest.mark.block_network
def test_seed_001_research_flow_with_the_real_default_memory(
    storage_dir: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same snippet on the real default Memory (embedded Qdrant, local embedder), offline:
    without an API key the LLM analysis falls back to safe defaults."""
    for var in ("OPENAI_API_KEY", "OPENAI_BASE_URL"):
        monkeypatch.delenv(var, raising=False)
    from crewgraph.flow.flow import Flow, listen, start

    class ResearchFlow(Flow):
        @start()
        def gather_data(self):
            findings = "PostgreSQL handles 10k concurrent connections. MySQL caps at 5k."
            self.remember(findings, scope="/research/databases")
            return findings

        @listen(gather_data)
        def write_report(self, findings):
            # Recall past research to provide context
            past = self.recall("database performance benchmarks")
            context = "\n".join(f"- {m.record.content}" for m in past)
            return f"Report:\nNew findings: {findings}\nPrevious context:\n{context}"

    flow = ResearchFlow()
    report = flow.kickoff()
    assert report.endswith("Previous context:\n- PostgreSQL handles 10k concurrent connections. MySQL caps at 5k.")
    assert type(flow._flow_memory()).__name__ == "Memory"
    assert (storage_dir / "memory").exists()
    # CrewAI's default flow memory lives under /flow/<flow name>
    assert flow.memory.root_scope == "/flow/ResearchFlow"
    assert [r.scope for r in flow.memory.list_records()] == ["/flow/ResearchFlow/research/databases"]


def _seed_000_agent(fake_llm: Any) -> tuple[Any, Any]:
    from crewgraph import Agent
    from crewgraph.testing import FakeToolCall
    from crewgraph.tools import BaseTool

    class AsyncCustomTool(BaseTool):
        name: str = "async_custom_tool"
        description: str = "An asynchronous custom tool"

        async def _run(self, query: str = "") -> str:
            """Asynchronously run the tool"""
            await asyncio.sleep(0)
            return f"Processed {query} asynchronously"

    llm = fake_llm([FakeToolCall("async_custom_tool", {"query": "flows"}), "flow done"])
    agent = Agent(role="researcher", goal="Research", backstory="Curious", tools=[AsyncCustomTool()], llm=llm)
    return agent, llm


def test_seed_000_async_tools_in_a_flow(fake_llm: Any) -> None:
    """000, "使用异步工具" (In Flow): an async start method awaits crew.kickoff_async()."""
    from crewgraph import Crew, Task
    from crewgraph.flow.flow import Flow, start

    agent, llm = _seed_000_agent(fake_llm)
    task = Task(description="Research flows", expected_output="A summary", agent=agent)

    class MyFlow(Flow):
        @start()
        async def begin(self):
            crew = Crew(agents=[agent], tasks=[task])
            result = await crew.kickoff_async()
            return result

    result = MyFlow().kickoff()
    assert result.raw == "flow done"
    assert any(m.get("content") == "Processed flows asynchronously" for m in llm.calls[-1].messages)


def test_seed_000_snippet_verbatim_reports_the_taskless_crew(fake_llm: Any) -> None:
    """Verbatim, the snippet's crew has agents but no task: the flow raises the crew's
    definition error (a ValidationError naming ``tasks``, from inside the method)."""
    from crewgraph import Crew
    from crewgraph.flow.flow import Flow, start

    agent, _ = _seed_000_agent(fake_llm)

    class MyFlow(Flow):
        @start()
        async def begin(self):
            crew = Crew(agents=[agent])
            result = await crew.kickoff_async()
            return result

    with pytest.raises(ValidationError, match="at least one task") as err:
        MyFlow().kickoff()
    assert err.value.errors()[0]["loc"] == ("tasks",)
