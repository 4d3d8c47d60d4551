"""FileReadTool, DirectoryReadTool, FileWriterTool: real files under tmp_path, base-dir confinement."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path
from typing import Any

import pytest

from crewgraph.graph import NodeContext
from crewgraph.llm.types import ToolCall
from crewgraph.nodes.tool_call import ToolCallNode
from crewgraph.toolkit import DirectoryReadTool, FileReadTool, FileWriterTool
from crewgraph.tools import BaseTool, ToolFailure


def _minimal_pdf(text: str) -> bytes:
    """A one-page PDF showing ``text`` in Helvetica, with a correct xref table."""
    stream = f"BT /F1 18 Tf 20 100 Td ({text}) Tj ET".encode()
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 300 200] /Contents 4 0 R "
        b"/Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for i, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % i + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    for off in offsets:
        out += b"%010d 00000 n \n" % off
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return bytes(out)


def _call(tool: BaseTool, args: dict[str, Any]) -> str:
    """Call the tool the way a model does (validated arguments, agent-facing text)."""
    node = ToolCallNode(id="t", call=ToolCall(id="c", name=tool.name, arguments=json.dumps(args)), tool=tool)
    result = asyncio.run(node.run(NodeContext()))
    return str(result.output.text)


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    base = tmp_path / "base"
    (base / "posts" / "old").mkdir(parents=True)
    (base / "posts" / "a.md").write_text("# A\nline 2\nline 3\nline 4\n", encoding="utf-8")
    (base / "posts" / "old" / "b.md").write_text("bee", encoding="utf-8")
    (tmp_path / "secret.txt").write_text("top secret", encoding="utf-8")
    return base


# --- FileReadTool ---------------------------------------------------------------


def test_read_whole_file_and_line_window(tree: Path) -> None:
    t = FileReadTool()
    assert t.run(file_path=str(tree / "posts" / "a.md")) == "# A\nline 2\nline 3\nline 4\n"
    assert t.run(file_path=str(tree / "posts" / "a.md"), start_line=2, line_count=2) == "line 2\nline 3\n"
    assert t.run(file_path=str(tree / "posts" / "a.md"), start_line=4) == "line 4\n"


def test_fixed_file_path_narrows_schema(tree: Path) -> None:
    t = FileReadTool(file_path=str(tree / "posts" / "a.md"))
    assert set(t.args_schema.model_fields) == {"start_line", "line_count"}
    assert "file_path" not in t.to_spec().parameters["properties"]
    assert "a.md" in t.description
    assert _call(t, {}) == "# A\nline 2\nline 3\nline 4\n"
    assert _call(t, {"file_path": "/etc/passwd", "line_count": 1}) == "# A\n"  # fixed path wins
    assert t.run() == "# A\nline 2\nline 3\nline 4\n"


def test_model_call_with_relative_path_inside_base(tree: Path) -> None:
    t = FileReadTool(base_dir=str(tree))
    assert _call(t, {"file_path": "posts/old/b.md"}) == "bee"
    assert _call(t, {"file_path": str(tree / "posts" / "old" / "b.md")}) == "bee"


@pytest.mark.parametrize("path", ["../secret.txt", "posts/../../secret.txt"])
def test_read_refuses_dotdot_escape(tree: Path, path: str) -> None:
    result = FileReadTool(base_dir=str(tree)).run(file_path=path)
    assert isinstance(result, ToolFailure)
    assert path in result.message and "outside the allowed base directory" in result.message
    assert result.code == "path_outside_base_dir"


def test_read_refuses_absolute_path_outside(tree: Path) -> None:
    outside = str(tree.parent / "secret.txt")
    text = _call(FileReadTool(base_dir=str(tree)), {"file_path": outside})
    assert "Access denied" in text and outside in text and "top secret" not in text


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="needs symlinks")
def test_read_refuses_symlink_pointing_out(tree: Path) -> None:
    (tree / "link.txt").symlink_to(tree.parent / "secret.txt")
    result = FileReadTool(base_dir=str(tree)).run(file_path="link.txt")
    assert isinstance(result, ToolFailure) and "'link.txt'" in result.message
    (tree / "inside.txt").symlink_to(tree / "posts" / "old" / "b.md")
    assert FileReadTool(base_dir=str(tree)).run(file_path="inside.txt") == "bee"


def test_read_missing_directory_and_binary(tree: Path) -> None:
    t = FileReadTool(base_dir=str(tree))
    missing = t.run(file_path="nope.txt")
    assert isinstance(missing, ToolFailure) and missing.code == "file_not_found" and "nope.txt" in missing.message
    assert t.run(file_path="posts").code == "is_a_directory"
    (tree / "blob.bin").write_bytes(b"\x00\x01\x02")
    assert t.run(file_path="blob.bin").code == "binary_file"
    unnamed = FileReadTool().run()  # file_path is optional in CrewAI's schema: the tool says what is missing
    assert isinstance(unnamed, ToolFailure) and unnamed.code == "missing_path" and "file_path" in unnamed.message


def test_read_truncates_long_content(tree: Path) -> None:
    (tree / "long.txt").write_text("x" * 50, encoding="utf-8")
    text = FileReadTool(base_dir=str(tree), max_chars=10).run(file_path="long.txt")
    assert text.startswith("x" * 10) and "truncated: 40 more characters" in text


def test_read_docx_and_pdf(tree: Path) -> None:
    import docx

    document = docx.Document()
    document.add_paragraph("First paragraph")
    document.add_paragraph("Second paragraph")
    document.save(str(tree / "doc.docx"))
    (tree / "doc.pdf").write_bytes(_minimal_pdf("Hello PDF world"))
    t = FileReadTool(base_dir=str(tree))
    assert t.run(file_path="doc.docx") == "First paragraph\nSecond paragraph"
    assert "Hello PDF world" in t.run(file_path="doc.pdf")
    (tree / "broken.pdf").write_bytes(b"not a pdf")
    assert t.run(file_path="broken.pdf").code == "unreadable_document"


# --- DirectoryReadTool ----------------------------------------------------------


def test_directory_listing_recursive_sorted(tree: Path) -> None:
    text = DirectoryReadTool(base_dir=str(tree)).run(directory="posts")
    assert text == "File paths: \n- posts/a.md\n- posts/old/b.md"


def test_fixed_directory_narrows_schema(tree: Path) -> None:
    t = DirectoryReadTool(directory=str(tree / "posts"))
    assert t.args_schema.model_fields == {}
    assert _call(t, {}).endswith("posts/a.md\n- " + str(tree / "posts") + "/old/b.md")


def test_directory_refuses_escape_and_reports_missing(tree: Path) -> None:
    t = DirectoryReadTool(base_dir=str(tree))
    assert t.run(directory="..").code == "path_outside_base_dir"
    assert t.run(directory="missing").code == "directory_not_found"
    assert t.run(directory="posts/a.md").code == "not_a_directory"
    (tree / "empty").mkdir()
    assert "contains no files" in t.run(directory="empty")


def test_directory_listing_is_capped(tree: Path) -> None:
    text = DirectoryReadTool(base_dir=str(tree), max_entries=1).run(directory=".")
    assert text == "File paths: \n- ./posts/a.md\n[... listing stopped at 1 files]"


# --- FileWriterTool -------------------------------------------------------------


def test_writer_creates_directories_and_refuses_to_clobber(tree: Path) -> None:
    t = FileWriterTool(base_dir=str(tree))
    assert _call(t, {"filename": "new.md", "directory": "out/deep", "content": "hello"}) == (
        "Content successfully written to out/deep/new.md"
    )
    assert (tree / "out" / "deep" / "new.md").read_text(encoding="utf-8") == "hello"
    again = t.run(filename="new.md", directory="out/deep", content="bye")
    assert isinstance(again, ToolFailure) and again.code == "file_exists"
    assert _call(t, {"filename": "new.md", "directory": "out/deep", "content": "bye", "overwrite": "true"})
    assert (tree / "out" / "deep" / "new.md").read_text(encoding="utf-8") == "bye"
    assert t.run(filename="new.md", directory="out/deep", content="x", overwrite="False").code == "file_exists"


def test_writer_refuses_escape(tree: Path) -> None:
    t = FileWriterTool(base_dir=str(tree))
    result = t.run(filename="../evil.txt", content="x")
    assert isinstance(result, ToolFailure) and "../evil.txt" in result.message
    assert not (tree.parent / "evil.txt").exists()
    assert t.run(filename="x.txt", directory=str(tree.parent), content="x").code == "path_outside_base_dir"


def test_writer_without_base_dir_uses_working_directory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert FileWriterTool().run(filename="note.txt", content="hi") == "Content successfully written to note.txt"
    assert (tmp_path / "note.txt").read_text(encoding="utf-8") == "hi"


# --- issue 16 item 5: only regular files, bounded reads, no check-then-open race ---------------
import subprocess  # noqa: E402
import sys  # noqa: E402
import threading  # noqa: E402
import tracemalloc  # noqa: E402


def _within(seconds: float, fn: Any) -> Any:
    """Run ``fn`` in a thread; fail (instead of hanging the suite) if it takes too long."""
    box: dict[str, Any] = {}
    worker = threading.Thread(target=lambda: box.update(result=fn()), daemon=True)
    worker.start()
    worker.join(seconds)
    assert not worker.is_alive(), f"the tool was still running after {seconds}s"
    return box["result"]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_fifo_is_refused_not_waited_on(tree: Path) -> None:
    os.mkfifo(tree / "pipe")
    read = _within(5, lambda: FileReadTool(base_dir=str(tree)).run(file_path="pipe"))
    assert isinstance(read, ToolFailure) and read.code == "not_a_regular_file"
    assert "FIFO" in read.message and str(tree) not in read.message
    write = _within(5, lambda: FileWriterTool(base_dir=str(tree)).run(filename="pipe", content="x", overwrite=True))
    assert isinstance(write, ToolFailure)


@pytest.mark.skipif(not os.path.exists("/dev/null"), reason="needs /dev")
@pytest.mark.parametrize("device", ["/dev/null", "/dev/zero"])
def test_devices_are_refused(device: str) -> None:
    result = _within(5, lambda: FileReadTool().run(file_path=device))
    assert isinstance(result, ToolFailure) and result.code == "not_a_regular_file"
    assert "a device" in result.message


def test_a_huge_file_is_read_only_as_far_as_the_cap_needs(tree: Path) -> None:
    big = tree / "big.log"
    with big.open("wb") as fh:
        fh.write(b"first line\n" * 1000)
        fh.truncate(200 * 1024 * 1024)  # 200 MB (sparse)
    tool = FileReadTool(base_dir=str(tree), max_chars=1000)
    tracemalloc.start()
    try:
        text = tool.run(file_path="big.log")
        window = tool.run(file_path="big.log", start_line=3, line_count=2)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert text.startswith("first line\n") and "truncated" in text and "more bytes" in text
    assert window == "first line\nfirst line\n"
    assert peak < 20 * 1024 * 1024, f"peak Python allocations {peak / 2**20:.0f} MB"


def test_nul_bytes_and_overlong_names_are_short_failures(tree: Path) -> None:
    tools: list[tuple[BaseTool, dict[str, Any]]] = [
        (FileReadTool(base_dir=str(tree)), {"file_path": "a\x00b"}),
        (FileReadTool(base_dir=str(tree)), {"file_path": "n" * 300}),
        (FileReadTool(base_dir=str(tree)), {"file_path": "d/" * 3000}),
        (DirectoryReadTool(base_dir=str(tree)), {"directory": "x\x00"}),
        (FileWriterTool(base_dir=str(tree)), {"filename": "w" * 300, "content": "x"}),
        (FileWriterTool(base_dir=str(tree)), {"filename": "w\x00.txt", "content": "x"}),
    ]
    for tool, args in tools:
        result = tool.run(**args)
        assert isinstance(result, ToolFailure) and result.code == "invalid_path", (tool.name, result)
        assert len(result.message) < 120 and str(tree) not in result.message, result.message


def test_file_writer_refuses_unknown_arguments(tree: Path) -> None:
    text = _call(FileWriterTool(base_dir=str(tree)), {"filename": "a.txt", "content": "x", "overwite": True})
    assert "overwite" in text and not (tree / "a.txt").exists()


_SWAPPER = """
import os, sys, time
base, outside = sys.argv[1], sys.argv[2]
sub, hidden = os.path.join(base, "sub"), os.path.join(base, ".sub")
parent, deadline = os.getppid(), time.monotonic() + 120
print("ready", flush=True)
# sub/ is a real directory, then briefly a symlink to a directory outside. Bounded: it stops
# after 2 minutes or when the test process is gone (a killed pytest must not leave it spinning).
while os.getppid() == parent and time.monotonic() < deadline:
    os.rename(sub, hidden)
    os.symlink(outside, sub)
    os.remove(sub)
    os.rename(hidden, sub)
"""


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="needs symlinks")
def test_a_symlink_swapped_in_after_the_check_leaks_nothing(tree: Path) -> None:
    (tree / "sub").mkdir()
    (tree / "sub" / "notes.txt").write_text("harmless", encoding="utf-8")
    outside = tree.parent / "outside"
    outside.mkdir()
    (outside / "notes.txt").write_text("top secret", encoding="utf-8")
    # Another process swaps sub/ for a symlink to outside/ and back, as fast as the OS allows.
    swapper = subprocess.Popen(
        [sys.executable, "-c", _SWAPPER, str(tree), str(outside)],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    assert swapper.stdout is not None and swapper.stdout.readline() == b"ready\n"
    tool = FileReadTool(base_dir=str(tree))
    writer = FileWriterTool(base_dir=str(tree))
    leaks = 0
    try:
        for i in range(1000):
            if "top secret" in str(tool.run(file_path="sub/notes.txt")):
                leaks += 1
            if i % 3 == 0:
                writer.run(filename="notes.txt", directory="sub", content="overwritten", overwrite=True)
    finally:
        swapper.kill()
        swapper.wait()
    assert leaks == 0
    assert (outside / "notes.txt").read_text(encoding="utf-8") == "top secret"


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="needs symlinks")
def test_a_swap_exactly_between_check_and_open_is_caught(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The race made deterministic: the directory becomes a symlink right after the check."""
    from crewgraph.toolkit import _paths, directory_read_tool, file_read_tool, file_writer_tool

    outside = tree.parent / "outside"
    outside.mkdir()
    (outside / "notes.txt").write_text("top secret", encoding="utf-8")

    def arm() -> None:
        (tree / "sub").mkdir(exist_ok=True)
        (tree / "sub" / "notes.txt").write_text("harmless", encoding="utf-8")

    def checked_then_swapped(path: str, base_dir: str | None) -> Any:
        result = _paths.confine(path, base_dir)
        if (tree / "sub").is_dir() and not (tree / "sub").is_symlink():
            (tree / "sub" / "notes.txt").unlink()
            (tree / "sub").rmdir()
            (tree / "sub").symlink_to(outside)
        return result

    for module in (file_read_tool, file_writer_tool, directory_read_tool):
        monkeypatch.setattr(module, "confine", checked_then_swapped)
    arm()
    read = FileReadTool(base_dir=str(tree)).run(file_path="sub/notes.txt")
    assert isinstance(read, ToolFailure) and read.code == "path_outside_base_dir", read
    assert str(outside) not in read.message
    (tree / "sub").unlink()
    arm()
    listing = DirectoryReadTool(base_dir=str(tree)).run(directory="sub")
    assert isinstance(listing, ToolFailure) and listing.code == "path_outside_base_dir", listing
    (tree / "sub").unlink()
    arm()
    wrote = FileWriterTool(base_dir=str(tree)).run(
        filename="notes.txt", directory="sub", content="overwritten", overwrite=True
    )
    assert isinstance(wrote, ToolFailure) and wrote.code == "path_outside_base_dir", wrote
    assert (outside / "notes.txt").read_text(encoding="utf-8") == "top secret"


def test_read_and_write_take_crewai_s_encoding(tmp_path: Path) -> None:
    from crewgraph.toolkit import FileReadTool, FileWriterTool

    writer = FileWriterTool(base_dir=str(tmp_path), encoding="latin-1")
    assert "successfully" in writer.run(filename="café.txt", content="crème brûlée")
    assert (tmp_path / "café.txt").read_bytes() == "crème brûlée".encode("latin-1")
    assert FileReadTool(base_dir=str(tmp_path), encoding="latin-1").run(file_path="café.txt") == "crème brûlée"
    assert "\ufffd" in FileReadTool(base_dir=str(tmp_path)).run(file_path="café.txt")  # read as UTF-8: replaced
    (tmp_path / "wide.txt").write_text("line one\nline two\n", encoding="utf-16")
    wide = FileReadTool(base_dir=str(tmp_path), encoding="utf-16")
    assert wide.run(file_path="wide.txt") == "line one\nline two\n"
    assert wide.run(file_path="wide.txt", start_line=2, line_count=1).strip().endswith("line two")
    refused = FileWriterTool(base_dir=str(tmp_path), encoding="ascii").run(filename="a.txt", content="naïve")
    assert isinstance(refused, ToolFailure) and refused.code == "encoding_error"
    with pytest.raises(ValueError, match="no such text encoding"):
        FileReadTool(encoding="utf-42")
