"""The checks a Ray run makes at kickoff, before any step ships.

A node that cannot be pickled, or that asks for resources the cluster does not have, would
otherwise fail (or wait forever) in the middle of the run; here it fails at kickoff, naming the
node and its task. The helpers that name a node are shared with the session's error messages.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from crewgraph.distributed._pickling import dumps_checked
from crewgraph.errors import ConfigurationError

if TYPE_CHECKING:
    from crewgraph.distributed._pickling import StepPickler
    from crewgraph.graph.execution_graph import ExecutionGraph
    from crewgraph.graph.node import Node

__all__ = ["check_shippable", "global_hooks", "node_label"]


def check_shippable(
    pickler: StepPickler,
    executor: Any,
    totals: dict[str, float],
    graph: ExecutionGraph,
    *,
    ships: Any,
    tools: dict[tuple[Any, str], Any],
    extras: dict[str, Any] | None,
    state: Any,
    memory: Any,
    llm: Any,
) -> None:
    """Every shipped node, and what the run sends with it, pickles and fits the cluster.

    ``tools`` is filled with the driver's tool objects by (agent role, name) on the way.
    """
    for nid, data in graph.digraph.nodes(data=True):
        node = data["node"]
        if node.plan_only or not ships(node):
            continue
        for tool in getattr(node, "tools", ()) or ():
            tools.setdefault((getattr(node, "agent_role", None), str(getattr(tool, "name", ""))), tool)
        what = node_label(node, nid)
        check_placement(what, executor.step_options(node), totals)
        dumps_checked(pickler, node, what)
    if llm is not None:
        dumps_checked(pickler, llm, "the run's default model")
    if memory is not None:
        dumps_checked(pickler, memory, "the crew's memory")
    if state is not None:
        dumps_checked(pickler, extras, "the run's settings (hooks, input provider)")
        dumps_checked(pickler, state.limiters, "the run's rate limiters")
    dumps_checked(pickler, global_hooks(), "the global execution hooks")


def node_label(node: Node, nid: str | None = None) -> str:
    """``node 'x' (agent_step, task 'y')``: how errors name a node."""
    name = getattr(node, "task_name", None)
    task = f", task {name!r}" if name else ""
    ident = node.id if nid is None else nid
    return f"node {ident!r} ({node.kind}{task})"


def global_hooks() -> dict[str, list[Any]]:
    """The global execution hooks registered in this process, to run on the workers too."""
    from crewgraph.hooks import _registry

    return {kind: hooks for kind in _registry.KINDS if (hooks := _registry.listed(kind))}


def check_placement(what: str, options: dict[str, Any], totals: dict[str, float]) -> None:
    """A step asking for more CPU, GPU, memory or custom resources than the whole cluster has
    would wait forever: refuse it at kickoff."""
    wanted = dict(options.get("resources") or {})
    for option, name in (("num_cpus", "CPU"), ("num_gpus", "GPU"), ("memory", "memory")):
        if options.get(option):
            wanted[name] = options[option]
    for name, amount in wanted.items():
        have = float(totals.get(name, 0.0))
        if amount > have:
            known = ", ".join(f"{k}={v:g}" for k, v in sorted(totals.items()) if not k.startswith("node:"))
            raise ConfigurationError(
                f"{what} asks for {name}={amount:g} but the Ray cluster has {have:g} in all "
                f"(it has {known}); it would wait forever. Change the task's or tool's resources, "
                "or add a node that has them (`ray start --address=... --resources='{...}'`)."
            )
