"""``RayExecutor``: the policy that runs node steps as Ray tasks.

What stays on the driver (the process that called ``kickoff``): the scheduler
with its ready-set, joins, retries (the node's RetryPolicy), timeouts,
events, run records and checkpoints. What goes to a worker: one call of
``node.run(ctx)`` with a serialisable slice of the context (inputs, upstream
and earlier outputs, the run's default model, the tool cache, the extras). The
events the step emits on the worker come back with its ``NodeResult`` and are
re-emitted on the driver in order, so listeners, the executed graph and the
checkpoints see what a local run shows.

The nodes of one task that run one after another (agent step, its tool calls,
conversion, guardrails) go as one Ray task (``batch_chains``, the default): the worker
runs them in order and streams each step's reply back, and the driver's scheduler
still runs each node itself, answered from those replies (``_chain``).

Some steps never leave the driver: joins, conditions and plain routers are
bookkeeping (shipping them would cost more than running them), and a task
that asks a person (``human_input``) must ask where the person is.
"""

from __future__ import annotations

import asyncio
import math
import os
import socket
import threading
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from crewgraph.errors import ConfigurationError, CrewGraphError

if TYPE_CHECKING:
    from crewgraph.graph.execution_graph import ExecutionGraph
    from crewgraph.graph.node import Node

__all__ = ["RayExecutor", "WorkerLostError"]

DEFAULT_CONNECT_TIMEOUT = 10.0
"""Seconds a kickoff waits for a cluster address to answer before one clear error."""


class WorkerLostError(CrewGraphError):
    """The Ray worker (or its machine) running a node step died before the step finished.

    Retryable: the scheduler retries the node under its RetryPolicy, and Ray places the
    new attempt on a live worker.
    """

    retryable = True

    def __init__(self, message: str, *, node_id: str = "") -> None:
        super().__init__(message)
        self.node_id = node_id


def _check_resources(what: str, resources: Mapping[str, Any] | None) -> dict[str, float]:
    from crewgraph._internal.resources import check_resources

    try:
        return check_resources(what, resources)
    except ValueError as exc:
        raise ConfigurationError(str(exc)) from None


class RayExecutor:
    """Run node steps on a Ray cluster.

    - ``address``: ``None`` joins the Ray this process is already connected to, else
      starts a local one; ``"auto"`` joins the cluster ``ray start`` left on this machine
      (or ``$RAY_ADDRESS``); ``"host:6379"`` a cluster's head; ``"ray://host:10001"``
      a cluster through Ray Client.
    - ``num_cpus_per_node``: CPUs each step asks for (Ray's default is 1; fractions let
      several LLM-bound steps share a core).
    - ``resources``: extra resources every step asks for (a node's own ``resources``,
      from ``Task(resources=...)`` or a tool's ``resources``, are added to them).
    - ``runtime_env``: Ray's runtime environment for the workers (``working_dir``,
      ``pip``, ``env_vars``...) -- how the project's own code reaches a remote cluster.
    - ``connect_timeout``: how long kickoff waits for the address to answer.
    - ``batch_chains``: ship the nodes of one task that run one after another (agent step,
      its tool calls, output conversion, guardrails) as one Ray task, so a task costs one
      round trip instead of one per step (the default); ``False`` ships every step alone.

    ``dispatches`` counts the Ray tasks this executor submitted (steps, chains, flow method
    calls), for a benchmark or a test that checks round trips.
    """

    def __init__(
        self,
        address: str | None = None,
        *,
        num_cpus_per_node: float | None = None,
        resources: Mapping[str, float] | None = None,
        runtime_env: Mapping[str, Any] | None = None,
        connect_timeout: float = DEFAULT_CONNECT_TIMEOUT,
        batch_chains: bool = True,
    ) -> None:
        if address is not None and (not isinstance(address, str) or not address.strip()):
            raise ConfigurationError(f"RayExecutor: address must be None, 'auto' or 'host:port', got {address!r}")
        if num_cpus_per_node is not None and (
            isinstance(num_cpus_per_node, bool)
            or not isinstance(num_cpus_per_node, int | float)
            or not math.isfinite(num_cpus_per_node)
            or num_cpus_per_node < 0
        ):
            raise ConfigurationError(
                f"RayExecutor: num_cpus_per_node must be a non-negative number, got {num_cpus_per_node!r}"
            )
        if runtime_env is not None and not isinstance(runtime_env, Mapping):
            raise ConfigurationError(f"RayExecutor: runtime_env must be a mapping, got {type(runtime_env).__name__}")
        if not isinstance(connect_timeout, int | float) or connect_timeout <= 0:
            raise ConfigurationError(f"RayExecutor: connect_timeout must be positive seconds, got {connect_timeout!r}")
        self.address = address.strip() if isinstance(address, str) else None
        self.num_cpus_per_node = None if num_cpus_per_node is None else float(num_cpus_per_node)
        self.resources = _check_resources("RayExecutor", resources)
        self.runtime_env = dict(runtime_env or {})
        self.connect_timeout = float(connect_timeout)
        if not isinstance(batch_chains, bool):
            raise ConfigurationError(f"RayExecutor: batch_chains must be True or False, got {batch_chains!r}")
        self.batch_chains = batch_chains
        self.dispatches = 0
        self._lock = threading.Lock()
        self._connected = False
        self._started_here = False

    def __repr__(self) -> str:
        return f"RayExecutor(address={self.address!r})"

    def __reduce__(self) -> Any:
        # Sent along with a crew (a flow method kicking off a crew on a worker): the
        # configuration travels, the connection is made again where it is used.
        return (
            _rebuild,
            (self.address, self.num_cpus_per_node, self.resources, self.runtime_env, self.connect_timeout,
             self.batch_chains),
        )

    # ------------------------------------------------------------------ connection
    def connect(self) -> Any:
        """Connect to the cluster once (bounded by ``connect_timeout``); returns the ``ray`` module."""
        ray = import_ray()
        with self._lock:
            if self._connected and ray.is_initialized():
                return ray
            address = self.address
            if address is not None and address != "local":
                _check_reachable(address, self.connect_timeout)
            if ray.is_initialized():
                _check_same_cluster(ray, address)
                self._connected = True
                return ray
            os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")  # no telemetry the user did not ask for
            os.environ.setdefault("RAY_TQDM_PATCH_PRINT", "0")  # Ray must not replace builtins.print
            kwargs: dict[str, Any] = {
                # None means a Ray of our own: ray.init(address=None) would join whatever
                # cluster `ray start` last left on this machine.
                "address": "local" if address is None else address,
                "ignore_reinit_error": True,
                "log_to_driver": False,
                "include_dashboard": False,
            }
            if self.runtime_env:
                kwargs["runtime_env"] = self.runtime_env
            if address is None or address == "local":
                # A Ray started here is for this machine only: it listens on loopback.
                kwargs["_node_ip_address"] = "127.0.0.1"
            if address is not None and address.startswith("ray://"):
                kwargs.pop("include_dashboard")
            try:
                ray.init(**kwargs)
            except (ConnectionError, TimeoutError, RuntimeError, ValueError) as exc:
                raise ConfigurationError(
                    f"RayExecutor: could not connect to the Ray cluster at {address or 'a new local Ray'}: {exc}"
                ) from exc
            self._connected = True
            self._started_here = address is None
            return ray

    # ------------------------------------------------------------------ the executor protocol
    def prepare(
        self,
        graph: ExecutionGraph,
        *,
        state: Any = None,
        memory: Any = None,
        llm: Any = None,
        chains: Mapping[str, str] | None = None,
    ) -> Any:
        """At kickoff, before any token is spent: connect, check that what the graph's steps
        need can travel and can be placed, and return the run's session (its ``run_step``).
        ``chains`` is the scheduler's grouping of each task's nodes (``batch_chains``)."""
        from crewgraph.distributed._session import RaySession

        ray = self.connect()
        return RaySession(self, ray, graph, state=state, memory=memory, llm=llm, chains=chains)

    def count_dispatch(self) -> None:
        """One more Ray task submitted (``dispatches``)."""
        with self._lock:
            self.dispatches += 1

    # ------------------------------------------------------------------ placement
    def step_options(self, node: Node) -> dict[str, Any]:
        """Ray task options for one node: this executor's CPUs and resources plus the node's."""
        options: dict[str, Any] = {"max_retries": 0}  # the node's RetryPolicy retries, not Ray
        if self.num_cpus_per_node is not None:
            options["num_cpus"] = self.num_cpus_per_node
        wanted = dict(self.resources)
        tool = getattr(node, "tool", None)  # a tool call asks for what its tool needs
        for name, amount in [*(getattr(node, "resources", ()) or ()),
                             *(getattr(tool, "resources", None) or {}).items()]:
            wanted[name] = wanted.get(name, 0.0) + float(amount)
        cpus = wanted.pop("CPU", None)
        gpus = wanted.pop("GPU", None)
        memory = wanted.pop("memory", None)
        if cpus is not None:
            options["num_cpus"] = cpus
        if gpus is not None:
            options["num_gpus"] = gpus
        if memory is not None:
            options["memory"] = memory
        if wanted:
            options["resources"] = wanted
        return options


def _rebuild(
    address: str | None,
    num_cpus: float | None,
    resources: dict[str, float],
    runtime_env: dict[str, Any],
    connect_timeout: float,
    batch_chains: bool = True,
) -> RayExecutor:
    return RayExecutor(
        address, num_cpus_per_node=num_cpus, resources=resources, runtime_env=runtime_env,
        connect_timeout=connect_timeout, batch_chains=batch_chains,
    )


def import_ray() -> Any:
    """The ``ray`` module, or a MissingExtraError naming ``crewgraph[ray]``."""
    from crewgraph._internal.extras import import_extra

    return import_extra("ray", "ray", "Ray execution (RayExecutor)")


def _host_port(address: str) -> tuple[str, int] | None:
    """``(host, port)`` of a ``host:port`` or ``ray://host:port`` address; None for ``auto``."""
    text = address.removeprefix("ray://")
    if text in ("auto", "local") or ":" not in text:
        if text == "auto":
            env = os.environ.get("RAY_ADDRESS", "").strip()
            return _host_port(env) if env and env != "auto" else None
        return None
    host, _, port = text.rpartition(":")
    try:
        return host.strip("[]"), int(port)
    except ValueError:
        raise ConfigurationError(f"RayExecutor: address {address!r} is not 'host:port'") from None


def _check_reachable(address: str, timeout: float) -> None:
    """One clear error, within ``timeout`` seconds, when nothing answers at ``address``.

    Ray itself keeps retrying an unreachable head for minutes before it gives up."""
    target = _host_port(address)
    if target is None:
        return
    host, port = target
    try:
        with socket.create_connection((host, port), timeout=timeout):
            pass
    except OSError as exc:
        raise ConfigurationError(
            f"RayExecutor: no Ray cluster answers at {address!r} (tried for {timeout:g}s: {exc}). "
            "Start one with `ray start --head` and pass its address, or use address=None for a local Ray."
        ) from None


def _check_same_cluster(ray: Any, address: str | None) -> None:
    """This process is already a driver of some cluster: it must be the one asked for."""
    target = _host_port(address) if address else None
    if target is None:
        return
    current = str(getattr(ray.get_runtime_context(), "gcs_address", "") or "")
    if current and current != f"{target[0]}:{target[1]}" and not address.startswith("ray://"):  # type: ignore[union-attr]
        raise ConfigurationError(
            f"RayExecutor: this process is already connected to the Ray cluster at {current!r}, "
            f"not {address!r}; a process drives one cluster (use address=None to run on the current one)"
        )


async def await_ref(ref: Any) -> Any:
    """Await a Ray ObjectRef on this event loop (cancelling the task if the await is cancelled)."""
    ray = import_ray()
    try:
        return await ref
    except asyncio.CancelledError:
        ray.cancel(ref, force=True)
        raise
