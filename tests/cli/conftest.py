"""CLI tests: a CliRunner, scaffolded projects and small modules in tmp_path, isolated imports."""

from __future__ import annotations

import sys
import textwrap
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from crewgraph.cli.app import app
from crewgraph.cli.create_cmd import scaffold_crew


@pytest.fixture(autouse=True)
def _isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Each test runs in its own folder and storage dir; imports it adds are undone."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("CREWGRAPH_STORAGE_DIR", str(tmp_path / "store"))
    monkeypatch.delenv("CREWGRAPH_LLM", raising=False)
    monkeypatch.delenv("CREWGRAPH_DEBUG", raising=False)
    path = list(sys.path)
    yield
    sys.path[:] = path
    for name, module in list(sys.modules.items()):
        if str(getattr(module, "__file__", None) or "").startswith(str(tmp_path)):
            del sys.modules[name]


class Invoke:
    """``cli("run", "--llm", "fake")`` -> click Result (stdout and stderr kept apart)."""

    def __init__(self) -> None:
        self.runner = CliRunner()

    def __call__(self, *args: str, input: str | None = None):  # type: ignore[no-untyped-def]
        return self.runner.invoke(app, list(args), input=input)


@pytest.fixture
def cli() -> Invoke:
    return Invoke()


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A freshly scaffolded crew project (unique package name); the cwd is its root."""
    root = scaffold_crew(f"demo {uuid.uuid4().hex[:8]}", tmp_path)
    monkeypatch.chdir(root)
    return root


@pytest.fixture
def write_module(tmp_path: Path) -> Callable[[str], str]:
    """Write ``source`` to a uniquely named module in the cwd; returns the module name."""

    def write(source: str) -> str:
        name = f"m_{uuid.uuid4().hex[:8]}"
        (Path.cwd() / f"{name}.py").write_text(textwrap.dedent(source), encoding="utf-8")
        return name

    return write
