"""CheckpointConfig defaults and the Crew(checkpoint=...) coercion."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from pydantic import ValidationError

import crewgraph
from crewgraph.checkpoint import (
    CheckpointConfig,
    SQLiteCheckpointStore,
    default_checkpoint_path,
)

REPO_ROOT = Path(crewgraph.__file__).resolve().parents[1]


def test_default_path_without_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CREWGRAPH_STORAGE_DIR", raising=False)
    assert default_checkpoint_path() == Path(".crewgraph/checkpoints/checkpoints.db")
    assert CheckpointConfig().path == Path(".crewgraph/checkpoints/checkpoints.db")


def test_default_path_follows_storage_dir(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("CREWGRAPH_STORAGE_DIR", str(tmp_path / "store"))
    cfg = CheckpointConfig()
    assert cfg.path == tmp_path / "store" / "checkpoints.db"
    assert cfg.enabled is True
    assert cfg.run_id is None and cfg.branch is None and cfg.keep_last is None


def test_fields_and_validation(tmp_path: Path) -> None:
    cfg = CheckpointConfig(path=str(tmp_path / "c.db"), run_id="abc", branch="try-2", keep_last=3)
    assert isinstance(cfg.path, Path)
    assert (cfg.run_id, cfg.branch, cfg.keep_last) == ("abc", "try-2", 3)
    with pytest.raises(ValidationError):
        CheckpointConfig(keep_last=0)
    with pytest.raises(ValidationError):
        CheckpointConfig(unknown_field=1)  # type: ignore[call-arg]


def test_coerce() -> None:
    assert CheckpointConfig.coerce(None) is None
    assert CheckpointConfig.coerce(False) is None
    assert isinstance(CheckpointConfig.coerce(True), CheckpointConfig)
    cfg = CheckpointConfig(run_id="x")
    assert CheckpointConfig.coerce(cfg) is cfg
    assert CheckpointConfig.coerce(CheckpointConfig(enabled=False)) is None
    with pytest.raises(TypeError):
        CheckpointConfig.coerce("yes")  # type: ignore[arg-type]


def test_open_store_creates_folders(tmp_path: Path) -> None:
    cfg = CheckpointConfig(path=tmp_path / "deep" / "er" / "c.db", keep_last=2)
    with cfg.open_store() as store:
        assert isinstance(store, SQLiteCheckpointStore)
        assert store.keep_last == 2
    assert cfg.path.exists()


def test_import_is_light() -> None:
    code = (
        "import sys, crewgraph.checkpoint, crewgraph.export;"
        "heavy = [m for m in ('networkx', 'graphviz') if m in sys.modules];"
        "print(','.join(heavy))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        env={"PYTHONPATH": str(REPO_ROOT), "PATH": "/usr/bin:/bin"},
    )
    assert out.stdout.strip() == ""


def test_public_names() -> None:
    import crewgraph.checkpoint as cp

    # ruff's RUF022 keeps __all__ sorted (isort style); here: the promised names exist.
    for name in (
        "CheckpointConfig",
        "Checkpointer",
        "SQLiteCheckpointStore",
        "CheckpointInfo",
        "list_checkpoints",
        "delete_checkpoint",
    ):
        assert name in cp.__all__
        assert hasattr(cp, name)
