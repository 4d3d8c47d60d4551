"""One Ray cluster for every Ray test of the session (started on first use, ~5-6 s).

The suite's network guard allows only loopback, and Ray would otherwise bind
and dial the machine's own address: ``RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0``
makes Ray resolve "this node" to 127.0.0.1, for the driver and for every Ray
process started from it. Usage stats stay off (no telemetry in tests).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest

NODE_B = "node_b"
"""Custom resource only the second node has: ``resources={NODE_B: 1}`` pins a step there."""


@dataclass(frozen=True)
class RayTestCluster:
    """What ``ray_cluster`` yields.

    - ``address``: the head's GCS address (``127.0.0.1:PORT``), for ``RayExecutor(address=...)``.
    - ``cluster``: the ``ray.cluster_utils.Cluster`` (to add or remove nodes; leave it as you found it).
    - ``head_cpus`` / ``node_b_cpus``: CPUs of the head and of the second node.
    - ``node_b``: the custom resource name (``"node_b"``, amount 1) only the second node has.
    """

    address: str
    cluster: Any
    head_cpus: int
    node_b_cpus: int
    node_b: str = NODE_B


def _loopback_ray() -> Any:
    os.environ["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] = "0"  # "this node" is 127.0.0.1
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    os.environ.setdefault("RAY_DEDUP_LOGS", "0")
    os.environ.setdefault("RAY_TQDM_PATCH_PRINT", "0")  # builtins.print stays print for the other tests
    import ray
    from ray._private import ray_constants

    ray_constants.ENABLE_RAY_CLUSTER = False  # in case ray was imported before the variable was set
    return ray


@pytest.fixture(scope="session")
def ray_cluster() -> Iterator[RayTestCluster]:
    """A two-node Ray cluster on 127.0.0.1, shared by the whole session, with this process
    connected to it as the driver (``ray.init(address=...)``), so ``RayExecutor()`` (no
    address) and ``RayExecutor(address=ray_cluster.address)`` both run on it.

    The head has 2 CPUs, the second node 1 CPU and the custom resource ``node_b``.
    Shut down at session end. Yields a :class:`RayTestCluster`."""
    ray = _loopback_ray()
    from ray.cluster_utils import Cluster

    head_cpus, node_b_cpus = 2, 1
    cluster = Cluster(
        initialize_head=True,
        connect=False,
        head_node_args={"num_cpus": head_cpus, "node_ip_address": "127.0.0.1", "include_dashboard": False},
    )
    cluster.add_node(num_cpus=node_b_cpus, resources={NODE_B: 1}, node_ip_address="127.0.0.1")
    ray.init(address=cluster.address, log_to_driver=False, _node_ip_address="127.0.0.1")
    try:
        yield RayTestCluster(
            address=cluster.address, cluster=cluster, head_cpus=head_cpus, node_b_cpus=node_b_cpus
        )
    finally:
        ray.shutdown()
        cluster.shutdown()


@pytest.fixture(autouse=True)
def _test_module_by_value(request: pytest.FixtureRequest) -> Iterator[None]:
    """Functions, tools and models defined in a test module travel to Ray workers by value
    (the workers cannot import test modules, which pytest imports from their folder)."""
    module = getattr(request, "module", None)
    if module is None or "ray_cluster" not in request.fixturenames:
        yield
        return
    _loopback_ray()
    from ray import cloudpickle

    cloudpickle.register_pickle_by_value(module)
    try:
        yield
    finally:
        cloudpickle.unregister_pickle_by_value(module)
