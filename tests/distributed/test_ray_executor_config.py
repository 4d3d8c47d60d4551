"""RayExecutor's configuration is checked when it is made; importing it loads no Ray."""

from __future__ import annotations

import subprocess
import sys

import pytest

from crewgraph.distributed import RayExecutor
from crewgraph.errors import ConfigurationError


def test_importing_crewgraph_distributed_does_not_import_ray() -> None:
    code = "import sys\nimport crewgraph.distributed\nprint('ray' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


def test_a_ray_executor_keeps_its_configuration() -> None:
    ex = RayExecutor("auto", num_cpus_per_node=0.5, resources={"node_b": 1}, runtime_env={"env_vars": {"A": "1"}})
    assert ex.address == "auto"
    assert ex.num_cpus_per_node == 0.5
    assert ex.resources == {"node_b": 1.0}
    assert ex.runtime_env == {"env_vars": {"A": "1"}}


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"address": ""}, "address"),
        ({"num_cpus_per_node": -1}, "num_cpus_per_node"),
        ({"resources": {"GPU": -1}}, "'GPU' must be a non-negative number"),
        ({"resources": {"GPU": "one"}}, "'GPU' must be a non-negative number"),
        ({"resources": {"": 1}}, "resource names"),
        ({"resources": ["GPU"]}, "mapping"),
        ({"connect_timeout": 0}, "connect_timeout"),
    ],
)
def test_bad_configuration_is_refused_with_the_field_named(kwargs: dict, message: str) -> None:
    with pytest.raises(ConfigurationError, match=message):
        RayExecutor(**kwargs)


def test_an_executor_travels_as_its_configuration() -> None:
    import pickle

    ex = pickle.loads(pickle.dumps(RayExecutor("127.0.0.1:6379", num_cpus_per_node=2)))
    assert (ex.address, ex.num_cpus_per_node) == ("127.0.0.1:6379", 2.0)


def test_an_unreachable_cluster_is_one_clear_error_naming_the_address() -> None:
    import socket

    with socket.socket() as s:  # a loopback port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(ConfigurationError, match=rf"127\.0\.0\.1:{port}.*ray start --head"):
        RayExecutor(f"127.0.0.1:{port}", connect_timeout=2).connect()


def test_a_ray_test_gets_the_shared_cluster(ray_cluster) -> None:
    import ray

    assert ray.is_initialized()
    resources = ray.cluster_resources()
    assert resources["CPU"] == ray_cluster.head_cpus + ray_cluster.node_b_cpus
    assert resources[ray_cluster.node_b] == 1
    assert ray_cluster.address.startswith("127.0.0.1:")


def test_without_ray_installed_connecting_names_the_extra() -> None:
    code = (
        "import sys\nsys.modules['ray'] = None\n"
        "from crewgraph.distributed import RayExecutor\n"
        "from crewgraph.errors import MissingExtraError\n"
        "try:\n    RayExecutor().connect()\nexcept MissingExtraError as e:\n    print(e)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert "crewgraph[ray]" in out
