"""What the pictures group: nodes per task (one cluster each) and runs of repeated tool calls.

A real run has dozens of tool calls; drawn as children of their step in one
row they make a picture thousands of pixels wide that nobody can read. So the
exports draw (and the node-link JSON describes) two groupings:

- **task clusters**: every planned node that belongs to a task (its
  ``task_name``), everything it spawned (tool calls, LLM calls, delegated
  steps, transitively) and the tools it may call;
- **call groups**: consecutive tool calls of one step to the same tool with the
  same argument names and the same outcome, drawn as one node with a count
  (``search_web ×7``). A failed call never hides in a group of successes.

Both are computed here once, for DOT and Mermaid alike.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from crewgraph.export.keyarg import call_arguments, format_key_arg, key_argument

if TYPE_CHECKING:
    from crewgraph.graph.digraph import Digraph
    from crewgraph.graph.run_record import RunRecord

__all__ = [
    "CallGroup",
    "TaskCluster",
    "call_groups",
    "children_of",
    "handled_failure",
    "record_of",
    "task_clusters",
    "tool_name",
]


@dataclass
class TaskCluster:
    """One task's box: ``key`` is stable (the crew's task key, else the task name),
    ``name`` the DOT subgraph name, ``nodes`` every node id inside, in graph order."""

    key: str
    name: str
    task: str
    agent: str | None = None
    nodes: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {"id": f"cluster:{self.key}", "task": self.task, "agent": self.agent, "nodes": list(self.nodes)}


@dataclass
class CallGroup:
    """Calls drawn as one node: ``id`` is the first member's id (the drawn node's id)."""

    members: list[str]
    kind: str
    tool: str | None = None
    key_arg: str | None = None
    key_args: list[str | None] = field(default_factory=list)
    signature: tuple[Any, ...] | None = field(default=None, repr=False, compare=False)

    def absorb(self, other: CallGroup) -> None:
        self.members.extend(other.members)
        self.key_args.extend(other.key_args)
        if self.key_arg != other.key_arg:
            self.key_arg = None

    @property
    def id(self) -> str:
        return self.members[0]

    @property
    def count(self) -> int:
        return len(self.members)

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "count": self.count,
            "kind": self.kind,
            "tool": self.tool,
            "key_arg": self.key_arg,
            "key_args": list(self.key_args),
            "members": list(self.members),
        }


def record_of(graph: Digraph, node_id: str) -> RunRecord:
    """The node's run record (a node the runtime added without one shows as never started)."""
    from crewgraph.graph.run_record import RunRecord

    data = graph.nodes[node_id]
    record = data.get("record")
    if isinstance(record, RunRecord):
        return record
    node = data.get("node")
    return RunRecord(
        node_id=node_id,
        kind=str(data.get("kind", getattr(node, "kind", "node"))),
        label=str(data.get("label", getattr(node, "display_label", node_id))),
    )


def handled_failure(record: RunRecord) -> str | None:
    """The error of a call that failed but was handled (its policy let the run go on):
    ``""`` when the record says it failed without saying why, None when it did not fail."""
    if record.status != "completed" or not record.info.get("failed"):
        return None
    return str(record.error or record.info.get("error") or "")


def tool_name(record: RunRecord) -> str:
    """The tool a call record is for (``info["tool"]``, else its label without ``()``)."""
    name = record.info.get("tool")
    if isinstance(name, str) and name:
        return name
    label = record.label or record.node_id
    return label[:-2] if label.endswith("()") else label


def _task_of(node: Any) -> tuple[str, str | None] | None:
    task = getattr(node, "task_name", None)
    if not isinstance(task, str) or not task:
        return None
    agent = getattr(node, "agent_role", None)
    return task, agent if isinstance(agent, str) and agent else None


def task_clusters(
    graph: Digraph, parent_of: dict[str, str] | None = None, keep: set[str] | None = None
) -> tuple[list[TaskCluster], dict[str, str]]:
    """The task clusters of ``graph`` and ``{node_id: cluster key}`` for the nodes in one.

    A planned node belongs to its ``task_name``; a spawned node to its parent's task
    (``parent_of``); a node the plan no longer knows (rebuilt from a checkpoint) to the
    node whose id is its dotted prefix; a tool template to the step that may call it.
    """
    parents = parent_of or {}
    clusters: dict[str, TaskCluster] = {}
    of: dict[str, str] = {}
    for node_id, data in graph.nodes(data=True):
        found = _task_of(data.get("node"))
        if found is None:
            continue
        task, agent = found
        key = node_id.split(".", 1)[0] if "." in node_id else task
        cluster = clusters.get(key)
        if cluster is None:
            cluster = clusters[key] = TaskCluster(key=key, name=f"cluster_t{len(clusters)}", task=task)
        if cluster.agent is None and agent is not None:
            cluster.agent = agent
        of[node_id] = key
    planned = sorted(of, key=len, reverse=True)

    def resolve(node_id: str, depth: int = 0) -> str | None:
        if node_id in of or depth > 50:
            return of.get(node_id)
        parent = parents.get(node_id)
        found = resolve(parent, depth + 1) if parent is not None and parent in graph else None
        if found is None:
            found = next((of[p] for p in planned if node_id.startswith(p + ".")), None)
        if found is None:
            callers = {u for u, _, k in graph.in_edges(node_id, data="kind") if k == "may_call"}
            if len(callers) == 1:
                found = resolve(callers.pop(), depth + 1)
        if found is not None:
            of[node_id] = found
        return found

    for node_id in graph.nodes:
        resolve(node_id)
    for node_id in graph.nodes:
        if node_id in of and (keep is None or node_id in keep):
            clusters[of[node_id]].nodes.append(node_id)
    ordered = [c for c in clusters.values() if c.nodes]
    return ordered, {n: k for n, k in of.items() if keep is None or n in keep}


def children_of(graph: Digraph, keep: set[str]) -> dict[str, list[str]]:
    """``{parent: [children in spawn order]}`` for the nodes a run spawned (a record's
    ``parent``, or a ``spawned`` edge when the record does not say)."""
    children: dict[str, list[str]] = {}
    for node_id in graph.nodes:
        if node_id not in keep:
            continue
        parent = record_of(graph, node_id).parent
        if parent is None:
            spawners = [u for u, _, k in graph.in_edges(node_id, data="kind") if k == "spawned"]
            parent = spawners[0] if spawners else None
        if parent is not None and parent in keep and parent != node_id:
            children.setdefault(parent, []).append(node_id)
    return children


def _signature(record: RunRecord, args: dict[str, Any] | None) -> tuple[Any, ...] | None:
    """Calls with equal signatures may be drawn as one node; None: never grouped."""
    if record.kind == "llm":
        return ("llm", record.status, _retries(record) > 0)
    if record.kind != "tool":
        return None
    names = tuple(sorted(str(k) for k in args)) if args else ()
    return ("tool", tool_name(record), names, record.status, handled_failure(record) is not None)


def _retries(record: RunRecord) -> int:
    return max(0, record.attempts - record.executions)


def _plain_llm(group: CallGroup) -> bool:
    return group.kind == "llm" and group.signature == ("llm", "completed", False)


def _fold_loops(groups: list[CallGroup]) -> list[CallGroup]:
    """An agent loop that calls the same tool turn after turn (LLM, search, LLM, search...)
    as two nodes, ``LLM ×n`` then ``search ×n``: the LLM turns between repeated calls of
    one tool do not keep those calls apart. Only plain successful LLM turns are folded."""
    out: list[CallGroup] = []
    i = 0
    while i < len(groups):
        llm, call = groups[i], groups[i + 1] if i + 1 < len(groups) else None
        folded = False
        if _plain_llm(llm) and call is not None and call.kind == "tool" and call.signature is not None:
            j = i + 2
            while (
                j + 1 < len(groups)
                and _plain_llm(groups[j])
                and groups[j + 1].kind == "tool"
                and groups[j + 1].signature == call.signature
            ):
                if not folded:
                    llm, call = _copy(llm), _copy(call)
                    folded = True
                llm.absorb(groups[j])
                call.absorb(groups[j + 1])
                j += 2
            if folded:
                out.extend((llm, call))
                i = j
                continue
        out.append(groups[i])
        i += 1
    return out


def _copy(group: CallGroup) -> CallGroup:
    return CallGroup(
        members=list(group.members),
        kind=group.kind,
        tool=group.tool,
        key_arg=group.key_arg,
        key_args=list(group.key_args),
        signature=group.signature,
    )


def call_groups(graph: Digraph, children: list[str], *, collapse: bool = True) -> list[CallGroup]:
    """``children`` (one parent's, in order) as drawn nodes: runs of consecutive calls with
    the same signature become one group, and so do repeated calls of one tool in an agent
    loop (see :func:`_fold_loops`); each call is its own group with ``collapse=False``."""
    groups: list[CallGroup] = []
    for node_id in children:
        record = record_of(graph, node_id)
        args = call_arguments(record.info, graph.nodes[node_id].get("node")) if record.kind == "tool" else None
        found = key_argument(args)
        arg = format_key_arg(*found) if found is not None else None
        signature = _signature(record, args)
        tool = tool_name(record) if record.kind == "tool" else None
        group = CallGroup(
            members=[node_id], kind=record.kind, tool=tool, key_arg=arg, key_args=[arg], signature=signature
        )
        last = groups[-1] if groups else None
        # consecutive tool calls alike are one node; consecutive LLM turns are not "repeated calls"
        same = last is not None and signature is not None and signature == last.signature
        if collapse and same and last is not None and record.kind == "tool":
            last.absorb(group)
            continue
        groups.append(group)
    return _fold_loops(groups) if collapse else groups
