"""The ``do:`` actions of a ``crewai.flow/v1`` method, as callables ``run(flow, value)``.

Each is built once per flow class (refs imported, inline crews/agents checked
by building them) and run by the method the flow compiles to, so it runs on
the same scheduler, with the same events, as a method written in Python.
``code`` calls ``ref`` with the flow bound as ``self`` (keyword arguments from
``with``, else the trigger's output when it takes one); ``tool`` runs a tool;
``crew``/``agent`` kick off the inline definition; ``expression`` evaluates
CEL; ``script`` runs trusted inline Python only when
``CREWAI_ALLOW_FLOW_SCRIPT_EXECUTION`` (or ``CREWGRAPH_...``) is ``1``; ``each``
runs its steps per item and returns the list of the last step's outputs.
"""

from __future__ import annotations

import inspect
import os
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

from crewgraph.flow.expressions import Expression
from crewgraph.flow.flow_definition import (
    FlowAgentActionDefinition,
    FlowCodeActionDefinition,
    FlowCrewActionDefinition,
    FlowEachActionDefinition,
    FlowExpressionActionDefinition,
    FlowScriptActionDefinition,
    FlowToolActionDefinition,
)
from crewgraph.project.crew_definition import build_agent, build_crew, resolve_python_ref

__all__ = ["SCRIPT_ENV_VARS", "Action", "build_action"]

Action = Callable[[Any, Any, "dict[str, Any] | None"], Any]
"""``run(flow, value, local_context)``: one action's work."""

SCRIPT_ENV_VARS = ("CREWAI_ALLOW_FLOW_SCRIPT_EXECUTION", "CREWGRAPH_ALLOW_FLOW_SCRIPT_EXECUTION")


def _rendered(value: Any, flow: Any, local: dict[str, Any] | None) -> Any:
    return Expression.from_flow(value, flow, local_context=local).render_template()


def _import(ref: str, where: str, root: Path | None) -> Any:
    import sys

    added = root is not None and str(root) not in sys.path
    if added:
        sys.path.insert(0, str(root))
    try:
        return resolve_python_ref(ref, where)
    finally:
        if added:
            sys.path.remove(str(root))


def _code(action: FlowCodeActionDefinition, where: str, root: Path | None) -> Action:
    target = _import(action.ref, where, root)
    if not callable(target):
        raise ValueError(f"{where}: {action.ref!r} is not callable")

    def run(flow: Any, value: Any, local: dict[str, Any] | None) -> Any:
        handler = target
        if getattr(handler, "__self__", None) is None and inspect.isfunction(handler):
            handler = handler.__get__(flow, type(flow))  # a method of a flow class: bound to this flow
        if action.with_ is not None:
            return handler(**_rendered(action.with_, flow, local))
        params = [p for p in inspect.signature(handler).parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.VAR_POSITIONAL)]
        return handler(value) if params else handler()
    return run


def _tool(action: FlowToolActionDefinition, where: str, root: Path | None) -> Action:
    from crewgraph.tools import BaseTool

    cls: Any = _import(action.ref, where, root)
    if not (isinstance(cls, type) and issubclass(cls, BaseTool)):
        raise ValueError(f"{where}: {action.ref!r} is not a BaseTool class")
    make: Any = cls  # a tool class with its own defaults for name and description
    try:
        tool = make()
    except Exception as exc:
        raise ValueError(f"{where}: cannot create {action.ref!r} without arguments: {exc}") from None
    kwargs = action.with_ or {}
    return lambda flow, value, local: tool.run(**_rendered(kwargs, flow, local))


def _crew(action: FlowCrewActionDefinition, where: str, root: Path | None) -> Action:
    if action.with_ is not None:
        definition = action.with_
        build_crew(definition, f"{where}.with")  # mistakes fail when the flow is loaded
        template = {**definition.inputs, **(action.inputs or {})}

        def make() -> tuple[Any, dict[str, Any]]:
            return build_crew(definition, f"{where}.with"), template
    else:
        from crewgraph.project.json_project import load_json_crew

        path = Path(str(action.from_declaration)).expanduser()
        if root is not None and not path.is_absolute():
            path = root / path
        if root is not None and not path.resolve().is_relative_to(root.resolve()):
            raise ValueError(f"{where}.from_declaration: {action.from_declaration!r} is outside the flow's folder")
        load_json_crew(path)

        def make() -> tuple[Any, dict[str, Any]]:
            project = load_json_crew(path)
            return project.crew, {**project.inputs, **(action.inputs or {})}

    def run(flow: Any, value: Any, local: dict[str, Any] | None) -> Any:
        crew, inputs = make()  # a fresh crew per run: runs never share agents' state
        return crew.kickoff(inputs=_rendered(inputs, flow, local))
    return run


def _agent(action: FlowAgentActionDefinition, where: str, root: Path | None) -> Action:
    definition = action.with_
    build_agent(definition, f"{where}.with")
    response_format = None
    if definition.response_format is not None:
        response_format = _import(definition.response_format.python, f"{where}.with.response_format", root)

    def run(flow: Any, value: Any, local: dict[str, Any] | None) -> Any:
        text = _rendered(definition.input, flow, local)
        if not isinstance(text, str | list):
            raise ValueError(f"{where}.with.input: must render to text, got {text!r}")
        return build_agent(definition, f"{where}.with").kickoff(text, response_format=response_format)
    return run


def _expression(action: FlowExpressionActionDefinition) -> Action:
    return lambda flow, value, local: Expression.from_flow(action.expr, flow, local_context=local).evaluate()


def _script(action: FlowScriptActionDefinition, where: str, name: str) -> Action:
    if not any(os.environ.get(var, "").strip().lower() in ("1", "true", "yes") for var in SCRIPT_ENV_VARS):
        raise ValueError(
            f"{where}: inline script actions are off by default (they run the document's Python); "
            f"set {SCRIPT_ENV_VARS[0]}=1 for trusted flow definitions"
        )
    source = "def _flow_script(state, outputs, input, item):\n" + textwrap.indent(action.code or "pass", "    ")
    namespace: dict[str, Any] = {"__name__": f"crewgraph.flow.script.{name}"}
    try:
        exec(compile(source, f"<flow script {where}>", "exec"), namespace)
    except SyntaxError as exc:
        raise ValueError(f"{where}.code: invalid Python: {exc.msg} (line {exc.lineno})") from None
    fn = namespace["_flow_script"]

    def run(flow: Any, value: Any, local: dict[str, Any] | None) -> Any:
        outputs = dict(getattr(flow, "_declared_outputs", {}) or {})
        outputs.update((local or {}).get("outputs") or {})
        return fn(flow.state, outputs, value, (local or {}).get("item"))
    return run


def _each(action: FlowEachActionDefinition, where: str, root: Path | None, name: str) -> Action:
    steps = [(step.name, step.if_, build_action(step.action, f"{where}.do[{i}].action", root, name))
             for i, step in enumerate(action.do)]

    def run(flow: Any, value: Any, local: dict[str, Any] | None) -> Any:
        items = Expression.from_flow(action.in_, flow).evaluate()
        if not isinstance(items, list):
            raise ValueError(f"{where}.in: must evaluate to a list, got {items!r}")
        results = []
        for item in items:
            outputs: dict[str, Any] = {}
            context = {"item": item, "outputs": outputs}
            last = None
            for step_name, condition, step in steps:
                if condition is not None:
                    ok = Expression.from_flow(condition, flow, local_context=context).evaluate()
                    if not isinstance(ok, bool):
                        raise ValueError(f"{where}: if of step {step_name!r} must be true or false, got {ok!r}")
                    if not ok:
                        continue
                last = step(flow, value, context)
                outputs[step_name] = last
            results.append(last)
        return results
    return run


def build_action(action: Any, where: str, root: Path | None, name: str) -> Action:
    """The callable of one action (``ValueError`` naming ``where`` when it cannot be built)."""
    if isinstance(action, FlowCodeActionDefinition):
        return _code(action, where, root)
    if isinstance(action, FlowToolActionDefinition):
        return _tool(action, where, root)
    if isinstance(action, FlowCrewActionDefinition):
        return _crew(action, where, root)
    if isinstance(action, FlowAgentActionDefinition):
        return _agent(action, where, root)
    if isinstance(action, FlowExpressionActionDefinition):
        return _expression(action)
    if isinstance(action, FlowScriptActionDefinition):
        return _script(action, where, name)
    if isinstance(action, FlowEachActionDefinition):
        return _each(action, where, root, name)
    raise ValueError(f"{where}: unknown action {action!r}")
