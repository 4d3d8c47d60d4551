"""Suite-wide set-up that keeps the whole suite fast on two cores (``pytest -n 3``: one worker per core
plus one, as ``scripts/test.sh`` runs it).

* Bytecode: where ``PYTHONDONTWRITEBYTECODE`` is set (this machine, some CI) nothing writes
  ``__pycache__``, so every subprocess a test starts (``crewgraph run``, doc blocks, fresh
  interpreters) compiled crewgraph from source: ~0.3-0.6 s of CPU each, hundreds of times. The
  controller compiles crewgraph, the examples and the tests' helper modules once before the
  workers start (``compileall`` skips files whose bytecode is current), as ``scripts/setup.sh``
  does for the installed tree; a worktree run on ``PYTHONPATH`` gets the same. And the pytest
  processes themselves write bytecode (``sys.dont_write_bytecode = False`` here, before any test
  module is collected): pytest keeps each test module's assertion-rewritten code in
  ``tests/**/__pycache__`` only when it may, and without it each xdist worker rewrote and compiled
  all ~340 test modules again: collecting the suite took 31.7 s of CPU per process instead of
  19.0 s (``pytest --collect-only -n 0``, load 18). Subprocesses keep the environment's setting.
* Distribution: pyproject runs xdist with ``--dist loadgroup``. A test that uses a fixture shared
  beyond one test (``scope="module"``/``"class"``/``"package"``, defined in a test module or a
  conftest) joins its module's group, and one that uses a session fixture of the suite's
  conftests (the Ray cluster, the MiniLM embedder) joins that fixture's group: one worker runs
  them all, so the server, cluster, scaffolded project or recorded run is made once instead of
  once per worker. Ungrouped tests are handed out one at a time, as with ``--dist load``.
* PostgreSQL: one real server per test session (Debian's package, a temporary data dir,
  127.0.0.1 on a free port; see ``_db_servers.py``), started on first use of
  ``postgres_server``; each module takes a database (``_db_servers.fresh_database``) or a
  schema (``postgres_store_url``) of its own, so one server serves them all.
"""

from __future__ import annotations

import compileall
import os
import secrets
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from _db_servers import serve_postgres

ROOT = Path(__file__).resolve().parents[1]
sys.dont_write_bytecode = False  # pytest's assertion-rewrite cache for the test modules (above)
_SHARED_SCOPES = {"module", "class", "package"}


def pytest_configure(config: pytest.Config) -> None:
    if hasattr(config, "workerinput"):  # an xdist worker: the controller compiled already
        return
    if os.environ.get("PYTHONDONTWRITEBYTECODE"):
        _compile_once()


def _compile_once() -> None:
    """Write the bytecode subprocesses would otherwise compile anew each time."""
    for folder in ("crewgraph", "examples", "tests"):
        path = ROOT / folder
        if path.is_dir():
            compileall.compile_dir(str(path), quiet=2, workers=0)


def _group(item: pytest.Item) -> str | None:
    info = getattr(item, "_fixtureinfo", None)
    if info is None:
        return None
    module = item.nodeid.split("::", 1)[0]
    shared_in_module = False
    for name in info.names_closure:
        defs = info.name2fixturedefs.get(name)
        if not defs:
            continue
        fixturedef = defs[-1]
        if not fixturedef.baseid:  # pytest's and plugins' own fixtures (tmp_path_factory...)
            continue
        if fixturedef.scope == "session":
            return f"session-{name}"
        if fixturedef.scope in _SHARED_SCOPES:
            shared_in_module = True
    return module if shared_in_module else None


def _name_group(item: pytest.Item, group: str) -> None:
    """Suffix the node id with ``@group``, which is how ``--dist loadgroup`` reads groups.

    pytest-xdist 3.8 does this by assigning ``item._nodeid``, which pytest 9.2 no longer reads
    (the id lives in ``item._id``): its groups were silently ignored and this suite ran as
    ``--dist load``. Done here for both; skipped when the id already has the suffix."""
    nodeid = item.nodeid
    if nodeid.rfind("@") > nodeid.rfind("]"):
        return
    named = f"{nodeid}@{group}"
    if hasattr(item, "_id"):
        from _pytest.nodeid import NodeId

        item._id = NodeId.parse(named)
    else:  # pytest < 9.2
        item._nodeid = named  # type: ignore[attr-defined]


@pytest.hookimpl(tryfirst=True)  # before xdist's own hook reads the groups
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    grouping = bool(getattr(config.option, "loadgroup", False))  # set in xdist's workers
    for item in items:
        marker = item.get_closest_marker("xdist_group")
        if marker is not None:
            group = str(marker.args[0] if marker.args else marker.kwargs.get("name", "default"))
        else:
            found = _group(item)
            if found is None:
                continue
            group = found
            item.add_marker(pytest.mark.xdist_group(group))
        if grouping:
            _name_group(item, group)


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[str]:
    """``postgresql://crew@127.0.0.1:PORT/postgres`` of the session's server (skipped, saying why,
    when PostgreSQL or psycopg is not installed)."""
    pytest.importorskip("psycopg", reason="psycopg is not installed (pip install 'crewgraph[postgres]')")
    yield from serve_postgres()


@pytest.fixture
def postgres_store_url(postgres_server: str) -> str:
    """A store URL with a schema of its own for this test (``?schema=t_RANDOM``)."""
    return f"{postgres_server}?schema=t_{secrets.token_hex(6)}"
