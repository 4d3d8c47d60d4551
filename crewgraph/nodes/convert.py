"""``convert`` node: turns a task's text answer into its pydantic / JSON output.

It first repairs and parses the text locally (fenced or partial JSON), so a
model that already answered in JSON costs no extra call; only if that fails
does it ask the model for the structure (instructor, with validation errors
fed back). Failure after that is a StructuredOutputError naming the task.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from pydantic import BaseModel

from crewgraph._internal.interpolate import interpolate
from crewgraph.errors import StructuredOutputError
from crewgraph.graph.context import NodeContext
from crewgraph.graph.node import Node, NodeResult
from crewgraph.nodes._llm_call import call_llm, resolve_llm
from crewgraph.outputs import OutputFormat, TaskOutput, UsageMetrics

__all__ = ["ConvertNode"]


@dataclass(frozen=True, kw_only=True)
class ConvertNode(Node):
    """Fills ``TaskOutput.pydantic`` (or ``json_dict`` when ``as_json``)."""

    kind: ClassVar[str] = "convert"

    task_name: str
    source_node: str
    model: type[BaseModel]
    as_json: bool = False
    llm: Any = None
    rpm_keys: tuple[str, ...] = ()
    given: Any = None

    async def run(self, ctx: NodeContext) -> NodeResult:
        output = self.given if self.given is not None else ctx.upstream.get(self.source_node)
        if not isinstance(output, TaskOutput):
            raise StructuredOutputError(f"convert step of task {interpolate(self.task_name, ctx.inputs)!r} got no task output")
        usage: UsageMetrics | None = None
        parsed = _local_parse(output.raw, self.model)
        if parsed is None:
            llm = resolve_llm(self.llm, ctx, f"task {interpolate(self.task_name, ctx.inputs)!r}")
            messages = [
                {
                    "role": "system",
                    "content": "Convert the text you are given into the requested structure. "
                    "Use only information present in the text.",
                },
                {"role": "user", "content": output.raw},
            ]
            try:
                reply = await call_llm(ctx, llm, messages, response_model=self.model, rpm_keys=self.rpm_keys)
            except StructuredOutputError as exc:
                raise StructuredOutputError(
                    f"task {interpolate(self.task_name, ctx.inputs)!r}: could not turn the answer into {self.model.__name__}: {exc}"
                ) from exc
            usage = reply.usage
            parsed = reply.parsed
            if not isinstance(parsed, self.model):
                raise StructuredOutputError(
                    f"task {interpolate(self.task_name, ctx.inputs)!r}: the model did not return a {self.model.__name__}"
                )
        update: dict[str, Any] = {"token_usage": output.token_usage.add(usage)}
        if self.as_json:
            update.update(json_dict=parsed.model_dump(mode="json"), output_format=OutputFormat.JSON)
        else:
            update.update(pydantic=parsed, output_format=OutputFormat.PYDANTIC)
        return NodeResult(output=output.model_copy(update=update), usage=usage, info={"model": self.model.__name__})

    def describe(self) -> dict[str, Any]:
        d = super().describe()
        d.update(task=self.task_name, model=self.model.__name__, as_json=self.as_json)
        return d


def _local_parse(text: str, model: type[BaseModel]) -> BaseModel | None:
    try:
        from crewgraph.llm.structured import parse_model_output
    except ImportError:  # pragma: no cover - shipped with the llm package
        try:
            return model.model_validate_json(text)
        except ValueError:
            return None
    try:
        return parse_model_output(text, model)
    except Exception:
        return None
