"""S3ReaderTool / S3WriterTool through boto3 against a real local S3 server (moto's, started for this module)."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from crewgraph.toolkit import S3ReaderTool, S3WriterTool
from crewgraph.tools import ToolFailure


def _require_aws_libraries() -> None:
    """Skips the test; called at setup, not at import, so collecting the suite does not import the library."""
    pytest.importorskip("boto3", reason="boto3 is not installed (pip install 'crewgraph[aws]')")
    pytest.importorskip("moto.server", reason="moto[server] is not installed (the dev extra brings it)")


@pytest.fixture(autouse=True)
def _aws_libraries_installed() -> None:
    """Function scope: a module-scoped autouse fixture would make the module one xdist group."""
    _require_aws_libraries()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def s3_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    _require_aws_libraries()  # before starting moto's server (module fixtures set up before the autouse one)
    port = _free_port()
    log_path = tmp_path_factory.mktemp("moto") / "server.log"
    with log_path.open("w") as log:
        server = subprocess.Popen([sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
                                  stdout=log, stderr=subprocess.STDOUT)
        try:
            deadline = time.monotonic() + 30
            while True:
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=1).close()
                    break
                except OSError:
                    if server.poll() is not None or time.monotonic() > deadline:
                        pytest.skip(f"the S3 server did not start: {Path(log_path).read_text()[-300:]}")
                    time.sleep(0.1)
            yield f"http://127.0.0.1:{port}"
        finally:
            server.terminate()
            try:
                server.wait(timeout=10)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait(timeout=5)


@pytest.fixture(autouse=True)
def _aws(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CREW_AWS_REGION", "eu-central-1")
    monkeypatch.setenv("CREW_AWS_ACCESS_KEY_ID", "crew-key")
    monkeypatch.setenv("CREW_AWS_SEC_ACCESS_KEY", "crew-secret")
    for name in ("AWS_PROFILE", "AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_S3"):
        monkeypatch.delenv(name, raising=False)


def _bucket(url: str, name: str) -> None:
    import boto3

    client = boto3.client("s3", endpoint_url=url, region_name="eu-central-1", aws_access_key_id="crew-key",
                          aws_secret_access_key="crew-secret")
    client.create_bucket(Bucket=name, CreateBucketConfiguration={"LocationConstraint": "eu-central-1"})


def test_write_then_read_back(s3_url: str) -> None:
    _bucket(s3_url, "reports")
    writer, reader = S3WriterTool(endpoint_url=s3_url), S3ReaderTool(endpoint_url=s3_url)
    assert writer.run(file_path="s3://reports/2026/q4.md", content="Revenue grew 12% — café") == (
        "Successfully wrote content to s3://reports/2026/q4.md")
    assert reader.run(file_path="s3://reports/2026/q4.md") == "Revenue grew 12% — café"
    assert set(writer.to_spec().parameters["properties"]) == {"file_path", "content"}
    assert reader.config_problems() == []


def test_errors_are_failures_with_s3s_code(s3_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    _bucket(s3_url, "docs")
    reader = S3ReaderTool(endpoint_url=s3_url)
    missing = reader.run(file_path="s3://docs/nope.txt")
    assert isinstance(missing, ToolFailure) and missing.message.startswith("Error reading file from S3: NoSuchKey")
    no_bucket = S3WriterTool(endpoint_url=s3_url).run(file_path="s3://ghost/x.txt", content="x")
    assert isinstance(no_bucket, ToolFailure) and "NoSuchBucket" in no_bucket.message
    bad = reader.run(file_path="s3://only-a-bucket")
    assert isinstance(bad, ToolFailure) and bad.code == "invalid_path"
    S3WriterTool(endpoint_url=s3_url).run(file_path="s3://docs/big.txt", content="x" * 100)
    big = S3ReaderTool(endpoint_url=s3_url, max_bytes=10).run(file_path="s3://docs/big.txt")
    assert isinstance(big, ToolFailure) and big.code == "object_too_large"
    monkeypatch.setenv("AWS_ENDPOINT_URL_S3", s3_url)  # boto3's own endpoint variable works too
    assert S3ReaderTool().run(file_path="docs/big.txt") == "x" * 100
