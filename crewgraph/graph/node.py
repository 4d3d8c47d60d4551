"""The node contract: small immutable objects with ``async run(ctx) -> NodeResult``.

A node holds its resolved configuration (never a pointer back to a facade such
as Crew or Flow), its retry and timeout policies as data, and nothing else.
A node that needs other work done first (an agent step asking for tools)
returns ``NodeResult(spawn=[...], resume=state)``: the scheduler runs the
spawned nodes, then calls ``run`` again with ``ctx.resume=state`` and
``ctx.spawned`` holding their results. So every ``run`` is one pure step.
"""

from __future__ import annotations

import dataclasses
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Generic, TypeVar

from crewgraph.graph.policies import NO_RETRY, NO_TIMEOUT, RetryPolicy, TimeoutPolicy
from crewgraph.graph.reads import NO_READS, Reads
from crewgraph.outputs import UsageMetrics

if TYPE_CHECKING:
    from crewgraph.graph.context import NodeContext

__all__ = ["Node", "NodeResult", "NodeTemplate"]

_N = TypeVar("_N", bound="Node")


@dataclass(slots=True)
class NodeResult:
    """What one step of a node produced.

    - ``output``: the node's value, handed to its successors (final steps only).
    - ``usage``: tokens this step spent.
    - ``spawn`` / ``resume``: run these nodes, then call me again with ``resume``.
    - ``route``: for routers, the label that decides which successors run.
    - ``info``: small JSON-able facts for the executed graph (iterations, model...).
    - ``pending``: the node waits for input (see the field).
    """

    output: Any = None
    usage: UsageMetrics | None = None
    spawn: list[Node] = field(default_factory=list)
    resume: Any = None
    route: str | None = None
    info: dict[str, Any] = field(default_factory=dict)
    pending: dict[str, Any] | None = None
    """Set when the node must wait for outside input (a person's answer): it has no
    output, its successors do not run, and the run ends paused, resumable later."""

    @property
    def suspended(self) -> bool:
        return bool(self.spawn)


@dataclass(frozen=True, kw_only=True)
class Node(ABC):
    """Base of every node kind. Subclasses set ``kind`` and implement ``run``."""

    kind: ClassVar[str] = "node"
    plan_only: ClassVar[bool] = False
    """True for nodes that only document the plan (tool templates); never scheduled."""

    id: str
    label: str = ""
    # Shared immutable defaults, not factories: a factory built two policies (two frozen
    # dataclass inits) for every node made without them (each task's tool templates, guardrail
    # and convert nodes; each tool call at run time).
    retry: RetryPolicy = NO_RETRY
    timeout: TimeoutPolicy = NO_TIMEOUT
    resources: tuple[tuple[str, float], ...] = ()
    """What a step needs where it runs (``(("GPU", 1.0),)``): placement for executors that
    place steps (Ray); a local run ignores it."""

    @abstractmethod
    async def run(self, ctx: NodeContext) -> NodeResult:
        """Run one step of this node."""

    def reads(self) -> Reads:
        """What ``run`` reads of other nodes' outputs beyond its upstream (read whole): see
        :mod:`crewgraph.graph.reads`. Default: nothing. A node that reads ``ctx.results`` or
        ``ctx.output_of`` of a node must name it here: an executor that ships the step to
        another process (Ray) sends only what this says (and the upstream)."""
        return NO_READS

    @classmethod
    def assemble(cls: type[_N], **values: Any) -> _N:
        """``cls(**values)``, the same node, built without the generated ``__init__``.

        Why: a frozen dataclass's ``__init__`` sets each field through ``object.__setattr__``;
        an agent step has over 40 fields, so building one was a third of a crew's compile
        (about 10 us a task). This fills the instance's ``__dict__`` at once, with the same
        checks (an unknown or missing field is a ``TypeError``), defaults, default factories
        and ``__post_init__``. A class with slots, ``init=False`` fields or ``InitVar`` fields is
        built by its ``__init__``."""
        return cls.assemble_from(values)

    @classmethod
    def assemble_from(cls: type[_N], values: dict[str, Any]) -> _N:
        """:meth:`assemble` of a dict the caller hands over (not kept, not changed): a compile
        builds each step's fields in one dict, and ``assemble(**fields)`` copied it once more."""
        recipe = _RECIPES.get(cls)
        if recipe is None:
            recipe = _RECIPES[cls] = _recipe(cls)
        if recipe is _BY_INIT:
            return cls(**values)
        defaults, factories, required, names = recipe
        if not names.issuperset(values):
            unknown = sorted(set(values) - names)
            raise TypeError(f"{cls.__name__}.__init__() got unexpected keyword argument(s) {unknown}")
        if not required.issubset(values):
            raise TypeError(f"{cls.__name__}.__init__() missing required argument(s) {sorted(required - set(values))}")
        state = dict(defaults)
        for name, factory in factories:
            if name not in values:
                state[name] = factory()
        state.update(values)
        node = object.__new__(cls)
        object.__setattr__(node, "__dict__", state)  # the built dict itself, not a copy of it
        post = getattr(node, "__post_init__", None)
        if post is not None:
            post()
        return node

    @classmethod
    def template(cls: type[_N], shared: dict[str, Any]) -> NodeTemplate[_N]:
        """The fields many nodes of ``cls`` share (an agent's, for each of its tasks), checked and
        merged with the class's defaults once; :meth:`NodeTemplate.build` adds each node's own.

        Why: a compile builds one agent step per task, and some 25 of a step's fields come from
        its agent alone. Merging them into every step's field dict, then checking and merging
        that dict with the defaults, was repeated for each task; now each step is one copy of
        the merged dict (in C) and an update with the task's 15-odd fields."""
        return NodeTemplate(cls, shared)

    @property
    def display_label(self) -> str:
        return self.label or self.id

    def describe(self) -> dict[str, Any]:
        """JSON-able facts about this node for exports (DOT tooltips, node-link JSON)."""
        return {"id": self.id, "kind": self.kind, "label": self.display_label}


class NodeTemplate(Generic[_N]):
    """Nodes of one class that share most of their fields: see :meth:`Node.template`.

    ``build(values)`` is ``cls(**shared, **values)`` (a value given in both is ``values``'),
    with the same checks, defaults, a default factory called per node and ``__post_init__``.
    Every node's field dict is a fresh copy: nodes built from one template share their field
    *values* (immutable configuration), never the dict."""

    __slots__ = ("_by_init", "_cls", "_factories", "_names", "_required", "_shared", "_state")

    def __init__(self, cls: type[_N], shared: dict[str, Any]) -> None:
        self._cls = cls
        self._shared = dict(shared)
        recipe = _RECIPES.get(cls)
        if recipe is None:
            recipe = _RECIPES[cls] = _recipe(cls)
        self._by_init = recipe is _BY_INIT
        if self._by_init:  # built by cls(**...): nothing to merge ahead
            self._state: dict[str, Any] = {}
            self._factories: tuple[tuple[str, Callable[[], Any]], ...] = ()
            self._required: frozenset[str] = frozenset()
            self._names: frozenset[str] = frozenset()
            return
        defaults, factories, required, names = recipe
        if not names.issuperset(shared):
            unknown = sorted(set(shared) - names)
            raise TypeError(f"{cls.__name__}.__init__() got unexpected keyword argument(s) {unknown}")
        self._state = {**defaults, **shared}
        self._factories = tuple((n, f) for n, f in factories if n not in shared)
        self._required = required.difference(shared)
        self._names = names

    def build(self, values: dict[str, Any]) -> _N:
        """One node: the shared fields with ``values`` (not kept, not changed) over them."""
        cls = self._cls
        if self._by_init:
            return cls(**{**self._shared, **values})
        if not self._names.issuperset(values):
            unknown = sorted(set(values) - self._names)
            raise TypeError(f"{cls.__name__}.__init__() got unexpected keyword argument(s) {unknown}")
        if not self._required.issubset(values):
            missing = sorted(self._required - set(values))
            raise TypeError(f"{cls.__name__}.__init__() missing required argument(s) {missing}")
        state = self._state.copy()
        for name, factory in self._factories:
            if name not in values:
                state[name] = factory()
        state.update(values)
        node = object.__new__(cls)
        object.__setattr__(node, "__dict__", state)  # the copy itself, as in Node.assemble_from
        post = getattr(node, "__post_init__", None)
        if post is not None:
            post()
        return node


_Recipe = tuple[dict[str, Any], tuple[tuple[str, Callable[[], Any]], ...], frozenset[str], frozenset[str]]
_BY_INIT: Any = object()
_RECIPES: dict[type, Any] = {}


def _recipe(cls: type) -> _Recipe | Any:
    """What :meth:`Node.assemble` needs of ``cls``: defaults, factories, required and all names."""
    if not cls.__dictoffset__ or any(k.__dict__.get("__slots__") for k in cls.__mro__):
        return _BY_INIT  # fields in slots: the instance __dict__ is not where they live
    declared = getattr(cls, "__dataclass_fields__", {})
    if any(type(f.type) is dataclasses.InitVar or f.type == "InitVar" or str(f.type).startswith("InitVar[")
           for f in declared.values()):
        return _BY_INIT
    defaults: dict[str, Any] = {}
    factories: list[tuple[str, Callable[[], Any]]] = []
    required: set[str] = set()
    for f in dataclasses.fields(cls):
        if not f.init:
            return _BY_INIT
        defaults[f.name] = None  # a placeholder: the instance's __dict__ keeps the fields' order
        if f.default is not dataclasses.MISSING:
            defaults[f.name] = f.default
        elif f.default_factory is not dataclasses.MISSING:
            factories.append((f.name, f.default_factory))
        else:
            required.add(f.name)
    names = frozenset(f.name for f in dataclasses.fields(cls))
    return defaults, tuple(factories), frozenset(required), names
