"""Flow -> ExecutionGraph: methods, routers and joins, checked before anything runs.

The facade (``crewgraph.flow``) describes a flow class as plain data -- a
:class:`FlowSpec` of :class:`FlowMethodSpec` with :class:`TriggerSpec`
conditions -- so this layer never imports it. The plan:

- one ``flow_method`` or ``router`` node per method, id = method name, join
  mode ``any`` (a method runs each time its trigger fires);
- ``listen`` edges from a method to its listeners; ``route`` edges (attrs
  ``route`` and ``label``) from a router to the listeners of one of its labels;
- a ``join`` node per ``and_``/``or_`` (id ``<listener>.and``...), fed by
  ``and``/``or`` edges (see :mod:`crewgraph.nodes.join` for the modes);
- a ``label:<name>`` join when a label inside a condition comes from several
  routers (or twice from one), so "the label fired" is one arrival;
- ``meta["entry"]``: the start methods.

Validation (:func:`validate_flow`, also run at class definition) reports
every problem at once, naming the methods: triggers nothing produces, cycles
that do not pass through a router label (the only legal loops -- the loop
guard bounds them at run time), ``and_`` conditions that can never complete.
Router labels nobody listens to are warnings, as are methods nothing triggers.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Literal

from crewgraph.errors import FlowDefinitionError
from crewgraph.graph.digraph import find_cycle
from crewgraph.graph.execution_graph import ExecutionGraph
from crewgraph.graph.node import Node
from crewgraph.nodes.flow_method import FlowMethodNode
from crewgraph.nodes.join import PASS, JoinNode
from crewgraph.nodes.router import RouterNode

__all__ = [
    "FlowCompileWarning",
    "FlowMethodSpec",
    "FlowSpec",
    "TriggerSpec",
    "compile_flow",
    "entry_methods",
    "validate_flow",
]


class FlowCompileWarning(UserWarning):
    """A flow compiles but something in it looks unintended (an unheard router label...)."""


@dataclass(frozen=True)
class TriggerSpec:
    """``op`` over ``items``: method names or router labels (str) and nested conditions.
    ``methods`` are the items given as callables -- they must name flow methods."""

    op: Literal["or", "and"]
    items: tuple[str | TriggerSpec, ...]
    methods: frozenset[str] = frozenset()

    def show(self) -> str:
        inner = ", ".join(i.show() if isinstance(i, TriggerSpec) else repr(i) for i in self.items)
        return f"{self.op}_({inner})"


@dataclass(frozen=True)
class FlowMethodSpec:
    """One decorated method. ``labels``: what a router may return (``open_labels``:
    it may also return others, e.g. a computed string)."""

    name: str
    fn: Callable[..., Any]
    start: bool = False
    router: bool = False
    trigger: TriggerSpec | None = None
    labels: tuple[str, ...] = ()
    open_labels: bool = False
    declared_labels: bool = False
    is_async: bool = False
    takes_arg: bool = False
    arg_optional: bool = False
    payload_param: str | None = None


@dataclass(frozen=True)
class FlowSpec:
    name: str
    methods: tuple[FlowMethodSpec, ...]


Leaf = tuple[Literal["method", "label"], str]


@dataclass
class _Analysis:
    spec: FlowSpec
    methods: dict[str, FlowMethodSpec] = field(default_factory=dict)
    producers: dict[str, list[str]] = field(default_factory=dict)
    open_routers: list[str] = field(default_factory=list)
    problems: list[tuple[str, str]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    def label_producers(self, label: str) -> list[str]:
        found = list(self.producers.get(label, ()))
        return found + [r for r in self.open_routers if r not in found]

    def leaf(self, owner: str, item: str, as_method: bool) -> Leaf | None:
        if item in self.methods:
            if not as_method and item in self.producers:
                routers = ", ".join(map(repr, self.producers[item]))
                self.problems.append(
                    (owner, f"method {owner!r} listens to {item!r}, which is both a method name and "
                            f"a label router {routers} returns; rename the method or the label")
                )
                return None
            return ("method", item)
        if as_method:
            self.problems.append(
                (owner, f"method {owner!r} listens to {item!r}, which is not a flow method "
                        "(decorate it with @start, @listen or @router)")
            )
            return None
        if self.label_producers(item):
            return ("label", item)
        # As CrewAI: a label no router returns statically is legal (it may simply never
        # fire); say so once, since it is also what a typo looks like.
        known = sorted(self.producers)
        hint = f" (routers return: {', '.join(map(repr, known))})" if known else " (the flow has no router)"
        warning = (f"method {owner!r} listens to {item!r}, but no flow method has that name "
                   f"and no router returns it{hint}; that trigger never fires")
        if warning not in self.warnings:
            self.warnings.append(warning)
        return None

    def alive(self, item: str | TriggerSpec, as_method: bool = False) -> bool:
        """Whether ``item`` can fire at all (a label some router may return, a method,
        a condition over such items); dead items are left out of the graph."""
        if isinstance(item, TriggerSpec):
            test = all if item.op == "and" else any
            return test(self.alive(i, i in item.methods) for i in item.items)
        return as_method or item in self.methods or bool(self.label_producers(item))


def _leaves(trigger: TriggerSpec) -> Iterable[tuple[str, bool]]:
    for item in trigger.items:
        if isinstance(item, TriggerSpec):
            yield from _leaves(item)
        else:
            yield item, item in trigger.methods


def _analyse(spec: FlowSpec) -> _Analysis:
    a = _Analysis(spec)
    for m in spec.methods:
        a.methods[m.name] = m
        if m.router:
            for label in dict.fromkeys(m.labels):
                a.producers.setdefault(label, []).append(m.name)
            if m.open_labels:
                a.open_routers.append(m.name)
    if not any(m.start for m in spec.methods):
        a.problems.append(("", f"flow {spec.name!r} has no @start() method, so nothing would run"))
    heard: set[str] = set()
    for m in spec.methods:
        if m.trigger is None:
            if not m.start:
                a.problems.append((m.name, f"method {m.name!r} has no trigger (use @start() or pass one)"))
            continue
        for item, as_method in _leaves(m.trigger):
            found = a.leaf(m.name, item, as_method)
            if found is not None and found[0] == "label":
                heard.add(found[1])
    for m in spec.methods:
        unheard = [lbl for lbl in dict.fromkeys(m.labels) if lbl not in heard and lbl not in a.methods]
        if m.router and unheard:
            names = ", ".join(map(repr, unheard))
            a.warnings.append(f"router {m.name!r} may return {names}, but no method listens to it")
    _check_cycles(a)
    _check_reachability(a)
    return a


def _edges(a: _Analysis, with_labels: bool) -> dict[str, list[str]]:
    """Method-level successor lists: trigger method -> listener (and router -> label listener)."""
    succ: dict[str, list[str]] = {name: [] for name in a.methods}
    for m in a.spec.methods:
        if m.trigger is None:
            continue
        for item, _ in _leaves(m.trigger):
            if item in a.methods:
                succ[item].append(m.name)
            elif with_labels:
                for router in a.label_producers(item):
                    succ[router].append(m.name)
    return succ


def _check_cycles(a: _Analysis) -> None:
    cycle = find_cycle(_edges(a, with_labels=False))
    if cycle is not None:
        path = " -> ".join(map(repr, cycle))
        a.problems.append(
            (cycle[0], f"methods {path} form a cycle that passes through no router label; "
                       "a flow may only loop through a @router's label (e.g. @listen('retry'))")
        )


def _can_fire(a: _Analysis, item: str | TriggerSpec, runs: set[str]) -> bool:
    if isinstance(item, TriggerSpec):
        test = all if item.op == "and" else any
        return test(_can_fire(a, i, runs) for i in item.items)
    if item in a.methods:
        return item in runs
    return any(r in runs for r in a.label_producers(item))


def _known(a: _Analysis, item: str | TriggerSpec) -> bool:
    """False for a label nothing returns (already reported as such)."""
    return isinstance(item, TriggerSpec) or item in a.methods or bool(a.label_producers(item))


def _and_groups(trigger: TriggerSpec) -> Iterable[TriggerSpec]:
    if trigger.op == "and":
        yield trigger
    for item in trigger.items:
        if isinstance(item, TriggerSpec):
            yield from _and_groups(item)


def _check_reachability(a: _Analysis) -> None:
    """Least fixpoint of "may run"; an ``and_`` outside it can never complete."""
    succ = _edges(a, with_labels=True)
    runs = set(entry_methods(a.spec))
    todo = list(runs)
    while todo:  # worklist: re-check only the listeners of what just became runnable
        for name in succ[todo.pop()]:
            trigger = a.methods[name].trigger
            if name not in runs and trigger is not None and _can_fire(a, trigger, runs):
                runs.add(name)
                todo.append(name)
    never: list[str] = []
    for m in a.spec.methods:
        groups = list(_and_groups(m.trigger)) if m.trigger is not None else []
        for group in groups:
            blocked = [i for i in group.items if not _can_fire(a, i, runs) and _known(a, i)]
            if blocked and m.name not in runs:
                why = []
                for item in blocked:
                    name = item.show() if isinstance(item, TriggerSpec) else repr(item)
                    own = isinstance(item, str) and item in a.methods and _reaches(succ, m.name, item)
                    why.append(f"{name} can only run after {m.name!r} itself" if own else f"{name} never runs")
                a.problems.append(
                    (m.name, f"method {m.name!r} waits for {group.show()}, which can never complete: "
                             + "; ".join(why))
                )
            _check_exclusive_labels(a, m.name, group, succ)
        if m.name not in runs and not groups:
            never.append(m.name)
    if never and not a.problems:
        a.warnings.append(
            f"methods {', '.join(map(repr, never))} can never run: nothing that runs triggers them"
        )


def _check_exclusive_labels(a: _Analysis, owner: str, group: TriggerSpec, succ: dict[str, list[str]]) -> None:
    by_router: dict[str, list[str]] = {}
    for item in group.items:
        if isinstance(item, str) and item not in a.methods:
            routers = a.label_producers(item)
            if len(routers) == 1:
                by_router.setdefault(routers[0], []).append(item)
    for router, labels in by_router.items():
        if len(set(labels)) > 1 and not _reaches(succ, router, router):
            names = ", ".join(map(repr, dict.fromkeys(labels)))
            a.problems.append(
                (owner, f"method {owner!r} waits for {group.show()}, which can never complete: "
                        f"labels {names} all come from router {router!r}, which returns one label "
                        "per call and is not in a loop")
            )


def _reaches(succ: dict[str, list[str]], src: str, dst: str) -> bool:
    seen: set[str] = set()
    todo = list(succ.get(src, ()))
    while todo:
        n = todo.pop()
        if n == dst:
            return True
        if n not in seen:
            seen.add(n)
            todo.extend(succ.get(n, ()))
    return False


def entry_methods(spec: FlowSpec) -> list[str]:
    """What runs at kickoff: the unconditional ``@start()`` methods. A conditional start
    (``@start("label")``) runs only when its condition fires -- unless every start is
    conditional, then they all run at kickoff too (as CrewAI)."""
    plain = [m.name for m in spec.methods if m.start and m.trigger is None]
    return plain or [m.name for m in spec.methods if m.start]


def validate_flow(spec: FlowSpec) -> list[str]:
    """Raise one CompileError listing every problem (``.task`` names the first method);
    return the warnings. Pure Python: cheap enough to run at class definition."""
    a = _analyse(spec)
    if a.problems:
        msgs = [msg for _, msg in a.problems]
        first = next((owner for owner, _ in a.problems if owner), None)
        head = msgs[0] if len(msgs) == 1 else f"{len(msgs)} problems found:\n" + "\n".join(f"  - {m}" for m in msgs)
        raise FlowDefinitionError(f"flow {spec.name!r}: {head}", task=first, problems=msgs)
    return a.warnings


# ---------------------------------------------------------------------- building
@dataclass
class _Builder:
    a: _Analysis
    edges: dict[tuple[str, str], dict[str, Any]] = field(default_factory=dict)
    joins: dict[str, dict[str, Any]] = field(default_factory=dict)
    counts: dict[str, int] = field(default_factory=dict)

    def edge(self, src: str, dst: str, **attrs: Any) -> None:
        self.edges[(src, dst)] = attrs

    def label_source(self, label: str, target: str) -> tuple[str, dict[str, Any]]:
        """Where a label arrives from: its router directly, or a shared ``label:`` join."""
        routers = self.a.label_producers(label)
        if len(routers) == 1 and (routers[0], target) not in self.edges:
            return routers[0], {"kind": "route", "route": label, "label": label}
        node_id = f"label:{label}"
        if node_id not in self.joins:
            self.joins[node_id] = {"mode": "or", "listener": "", "label": label}
            for router in routers:
                self.edge(router, node_id, kind="route", route=label, label=label)
        return node_id, {}

    def wire(self, trigger: TriggerSpec, target: str, into: str) -> None:
        """Connect ``trigger`` to ``target``; ``into`` is the edge kind of plain arrivals."""
        items = [i for i in dict.fromkeys(trigger.items) if self.a.alive(i, i in trigger.methods)]
        if not items or (trigger.op == "and" and len(items) < len(set(trigger.items))):
            return  # can never fire (warned): no edges
        if len(items) == 1 and into == "listen":
            self.wire_item(items[0], target, into)
            return
        n = self.counts[f"{target}.{trigger.op}"] = self.counts.get(f"{target}.{trigger.op}", 0) + 1
        join_id = f"{target}.{trigger.op}" + ("" if n == 1 else f".{n}")
        self.joins[join_id] = {"mode": trigger.op, "listener": target}
        order = sorted(items, key=lambda i: 2 if isinstance(i, str) and i not in self.a.methods else 1)
        for item in order:
            self.wire_item(item, join_id, trigger.op)
        self.joins[join_id]["out"] = (target, into)

    def wire_item(self, item: str | TriggerSpec, target: str, into: str) -> None:
        if isinstance(item, TriggerSpec):
            self.wire(item, target, into)
        elif item in self.a.methods:
            self.edge(item, target, kind=into)
        elif target in self.a.methods:
            for router in self.a.label_producers(item):
                self.edge(router, target, kind="route", route=item, label=item)
        else:
            src, attrs = self.label_source(item, target)
            self.edge(src, target, **(attrs or {"kind": into}))


class _LoopFinder:
    """``reaches(src, dst)`` over the built edges, one BFS per source (memoized)."""

    def __init__(self, edges: dict[tuple[str, str], dict[str, Any]]) -> None:
        self.succ: dict[str, list[str]] = {}
        for src, dst in edges:
            self.succ.setdefault(src, []).append(dst)
        self.seen: dict[str, set[str]] = {}

    def reaches(self, src: str, dst: str) -> bool:
        found = self.seen.get(src)
        if found is None:
            found = set()
            todo = list(self.succ.get(src, ()))
            while todo:
                n = todo.pop()
                if n not in found:
                    found.add(n)
                    todo.extend(self.succ.get(n, ()))
            self.seen[src] = found
        return dst in found


def _nested_joins(b: _Builder) -> dict[str, list[str]]:
    """For each ``or`` join, every join nested (at any depth) in its condition."""
    parent = {j: info["out"][0] for j, info in b.joins.items() if info.get("out") and info["out"][0] in b.joins}
    found: dict[str, list[str]] = {}
    for join_id in parent:
        up = parent.get(join_id)
        while up is not None:
            if b.joins[up]["mode"] == "or":
                found.setdefault(up, []).append(join_id)
            up = parent.get(up)
    return found


def compile_flow(spec: FlowSpec, bind: Callable[[FlowMethodSpec], Callable[..., Any]] | None = None) -> ExecutionGraph:
    """Validate ``spec`` and build its plan. ``bind`` turns a method spec into the callable
    its node holds (the flow instance's bound method); by default ``spec.fn`` itself."""
    a = _analyse(spec)
    if a.problems:
        validate_flow(spec)  # raises with every problem
    b = _Builder(a)
    for m in spec.methods:
        if m.trigger is not None:
            b.wire(m.trigger, m.name, "listen")
    under = _nested_joins(b)  # before the "out" entries become edges
    for join_id, info in list(b.joins.items()):
        if "out" in info:
            target, into = info.pop("out")
            b.edge(join_id, target, kind=into)
    preds: dict[str, list[tuple[str, dict[str, Any]]]] = {}
    for (src, dst), attrs in b.edges.items():
        preds.setdefault(dst, []).append((src, attrs))

    def label_preds(node_id: str) -> frozenset[str]:
        return frozenset(s for s, attrs in preds.get(node_id, ()) if "route" in attrs)

    graph = ExecutionGraph(name=spec.name)
    for m in spec.methods:
        cls = RouterNode if m.router else FlowMethodNode
        extra: dict[str, Any] = {}
        if m.router:
            extra = {"labels": None if m.open_labels else m.labels, "strict": m.declared_labels}
        node: Node = cls(
            id=m.name, method=m.name, fn=bind(m) if bind else m.fn, flow_name=spec.name,
            is_async=m.is_async, takes_arg=m.takes_arg, arg_optional=m.arg_optional,
            payload_param=m.payload_param, label_preds=label_preds(m.name), **extra,
        )
        graph.add_node(node, join="any", start=m.start)
    gated_ids: set[str] = set()
    loops = _LoopFinder(b.edges)
    counting = {j for ids in under.values() for j in ids if b.joins[j]["mode"] == "and"}
    for join_id, info in b.joins.items():
        incoming = [s for s, _ in preds.get(join_id, [])]
        mode = info["mode"]
        listener = a.methods.get(info["listener"])
        needs = frozenset[str]()
        if mode == "and" and join_id in counting:
            # Nested in an or_, which clears it when it fires: it counts its own arrivals.
            sched, gated, rearm, needs = "any", False, frozenset[str](), frozenset(incoming)
        elif mode == "and":
            sched, gated, rearm = "all", False, frozenset[str]()
        elif listener is None or listener.router:
            # A shared label join passes every firing of its label; a router's or_ fires on
            # every arrival (CrewAI: routers are decision points, never fire-once).
            sched, gated, rearm = "any", False, frozenset(incoming)
        else:
            # A listener's or_ fires once per pass: the first arrival wins, later ones are
            # held -- except arrivals that come back around a loop through the listener
            # itself, which start the next pass (CrewAI's fire-once, re-armed by a cycle).
            rearm = frozenset(s for s in incoming if loops.reaches(listener.name, s))
            gated = bool(rearm) and len(rearm) < len(incoming)
            sched = "any" if rearm else "any_once"
        resets = tuple(j for j in under.get(join_id, ()) if j in counting) if mode == "or" else ()
        join = JoinNode(
            id=join_id, label=info.get("label", ""), mode=mode, listener=info["listener"],
            gated=gated, rearm=rearm, label_preds=label_preds(join_id), needs=needs, resets=resets,
        )
        graph.add_node(join, join=sched)
        if gated or needs:
            gated_ids.add(join_id)
    for (src, dst), attrs in b.edges.items():
        graph.add_edge(src, dst, **({**attrs, "route": PASS} if src in gated_ids else attrs))
    graph.meta.update(
        kind="flow",
        flow=spec.name,
        entry=entry_methods(spec),
        methods=[m.name for m in spec.methods],
        routers={m.name: (None if m.open_labels else list(m.labels)) for m in spec.methods if m.router},
        warnings=list(a.warnings),
    )
    return graph
