"""FileCompressorTool: real archives written and read back; paths confined to base_dir."""

from __future__ import annotations

import os
import tarfile
import zipfile
from pathlib import Path

import pytest

from crewgraph.toolkit import FileCompressorTool
from crewgraph.tools import ToolFailure


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    base = tmp_path / "base"
    (base / "logs" / "old").mkdir(parents=True)
    (base / "logs" / "app.log").write_text("started\n")
    (base / "logs" / "old" / "app.1.log").write_text("older\n")
    (tmp_path / "secret.txt").write_text("do not ship")
    os.symlink(tmp_path / "secret.txt", base / "logs" / "leak.txt")
    return base


def test_zip_of_a_directory_leaves_out_links_that_leave_base_dir(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tree)
    tool = FileCompressorTool(base_dir=str(tree))
    out = tool.run(input_path="logs")
    assert out == "Successfully compressed 'logs' into 'logs.zip' (1 item(s) skipped for safety: links, or resolved outside the allowed directory)"
    with zipfile.ZipFile(tree / "logs.zip") as archive:
        assert sorted(archive.namelist()) == ["app.log", "old/app.1.log"]
        assert archive.read("old/app.1.log") == b"older\n"
    again = tool.run(input_path="logs")
    assert isinstance(again, ToolFailure) and again.code == "file_exists"
    assert "Successfully" in tool.run(input_path="logs", overwrite=True)


@pytest.mark.parametrize("fmt", ["tar", "tar.gz", "tar.bz2", "tar.xz"])
def test_tar_formats(tree: Path, fmt: str) -> None:
    out = FileCompressorTool(base_dir=str(tree)).run(input_path="logs", output_path=f"out/logs.{fmt}", format=fmt)
    assert out.startswith(f"Successfully compressed 'logs' into 'out/logs.{fmt}'") and "1 item(s) skipped" in out
    with tarfile.open(tree / "out" / f"logs.{fmt}") as archive:
        names = sorted(archive.getnames())
    assert names == ["logs", "logs/app.log", "logs/old", "logs/old/app.1.log"]


def test_a_single_file_and_bad_requests(tree: Path, tmp_path: Path) -> None:
    tool = FileCompressorTool()
    target = tmp_path / "one.zip"
    assert "Successfully" in tool.run(input_path=str(tree / "logs" / "app.log"), output_path=str(target))
    with zipfile.ZipFile(target) as archive:
        assert archive.namelist() == ["app.log"]
    cases = [
        ({"input_path": str(tree / "nope")}, "file_not_found"),
        ({"input_path": str(tree / "logs"), "format": "rar"}, "unsupported_format"),
        ({"input_path": str(tree / "logs"), "output_path": str(tmp_path / "x.tar"), "format": "zip"}, "wrong_extension"),
        ({"input_path": str(tree / "logs"), "output_path": str(tree / "logs" / "self.zip")}, "archive_inside_input"),
    ]
    for args, code in cases:
        failure = tool.run(**args)
        assert isinstance(failure, ToolFailure) and failure.code == code, (args, failure)
    outside = FileCompressorTool(base_dir=str(tree)).run(input_path="../secret.txt")
    assert isinstance(outside, ToolFailure) and "outside the allowed base directory" in outside.message
    assert set(tool.to_spec().parameters["properties"]) == {"input_path", "output_path", "overwrite", "format"}
