"""S3ReaderTool / S3WriterTool: read and write a text object at ``s3://bucket/key`` (boto3).

As in CrewAI the region and credentials come from ``CREW_AWS_REGION``
(default ``us-east-1``), ``CREW_AWS_ACCESS_KEY_ID`` and
``CREW_AWS_SEC_ACCESS_KEY``, else boto3's own chain. ``endpoint_url=`` (or
boto3's ``AWS_ENDPOINT_URL_S3``) targets any S3-compatible server (MinIO,
Ceph, a local stand-in). Objects are read and written as UTF-8; an object
larger than ``max_bytes`` is refused rather than loaded. Errors are
``ToolFailure``s carrying S3's code. Install with ``pip install 'crewgraph[aws]'``.
"""

from __future__ import annotations

import importlib.util
import os
from typing import Any

from pydantic import BaseModel, Field

from crewgraph.toolkit._aws import boto3_client, client_error_text
from crewgraph.toolkit._hosted import missing_library
from crewgraph.tools.base_tool import BaseTool
from crewgraph.tools.tool_failure import ToolFailure

__all__ = ["S3ReaderTool", "S3ReaderToolInput", "S3WriterTool", "S3WriterToolInput", "parse_s3_path"]

_RETRYABLE = {"SlowDown", "InternalError", "ServiceUnavailable", "RequestTimeout", "ConnectTimeoutError",
              "ReadTimeoutError", "EndpointConnectionError"}


class S3ReaderToolInput(BaseModel):
    """Input for S3ReaderTool."""

    file_path: str = Field(..., description="S3 file path (e.g., 's3://bucket-name/file-name')")


class S3WriterToolInput(BaseModel):
    """Input for S3WriterTool."""

    file_path: str = Field(..., description="S3 file path (e.g., 's3://bucket-name/file-name')")
    content: str = Field(..., description="Content to write to the file")


def parse_s3_path(file_path: str) -> tuple[str, str] | None:
    """``(bucket, key)`` of ``s3://bucket/key`` (the scheme may be left out); None when either is missing."""
    rest = file_path.strip()
    if rest.startswith("s3://"):
        rest = rest[len("s3://"):]
    bucket, _, key = rest.partition("/")
    return (bucket, key) if bucket and key else None


class _S3Tool(BaseTool):
    endpoint_url: str | None = Field(default=None, description="S3-compatible endpoint (else boto3's configuration)")
    timeout: float = Field(default=30.0, gt=0, description="Seconds allowed to connect and for each read")

    @classmethod
    def env_var_names(cls) -> tuple[str, ...]:
        """The variables read for the client (CrewAI's), then boto3's endpoint override."""
        return ("CREW_AWS_REGION", "CREW_AWS_ACCESS_KEY_ID", "CREW_AWS_SEC_ACCESS_KEY", "AWS_ENDPOINT_URL_S3")

    def config_problems(self) -> list[str]:
        if importlib.util.find_spec("boto3") is None:
            return [missing_library(type(self).__name__, "boto3", "'crewgraph[aws]'")]
        return []

    def _client(self) -> Any:
        return boto3_client(type(self).__name__, "s3", region=os.getenv("CREW_AWS_REGION", "us-east-1"),
                            endpoint_url=self.endpoint_url, access_key=os.getenv("CREW_AWS_ACCESS_KEY_ID"),
                            secret_key=os.getenv("CREW_AWS_SEC_ACCESS_KEY"), timeout=self.timeout)

    @staticmethod
    def _target(file_path: str) -> tuple[str, str] | ToolFailure:
        parsed = parse_s3_path(file_path)
        if parsed is None:
            return ToolFailure(message=f"{file_path!r} is not an S3 path: use s3://bucket-name/object-key",
                               code="invalid_path")
        return parsed

    @staticmethod
    def _failure(what: str, exc: Exception) -> ToolFailure:
        code, message = client_error_text(exc)
        return ToolFailure(message=f"Error {what} S3: {code}: {message}", code="s3_error",
                           retryable=code in _RETRYABLE or type(exc).__name__ in _RETRYABLE)


class S3ReaderTool(_S3Tool):
    """Returns the object's text."""

    name: str = "S3 Reader Tool"
    description: str = "Reads a file from Amazon S3 given an S3 file path"
    args_schema: type[BaseModel] = S3ReaderToolInput
    max_bytes: int = Field(default=20 * 1024 * 1024, ge=1, description="Largest object read")

    def _run(self, file_path: str) -> str | ToolFailure:
        target = self._target(file_path)
        if isinstance(target, ToolFailure):
            return target
        bucket, key = target
        try:
            response = self._client().get_object(Bucket=bucket, Key=key)
            size = int(response.get("ContentLength") or 0)
            if size > self.max_bytes:
                response["Body"].close()
                return ToolFailure(message=f"{file_path} is {size} bytes, more than max_bytes={self.max_bytes}.",
                                   code="object_too_large")
            data: bytes = response["Body"].read(self.max_bytes + 1)
        except ImportError as exc:
            return ToolFailure(message=str(exc), code="missing_library")
        except Exception as exc:  # botocore's ClientError, connection and timeout errors
            return self._failure("reading file from", exc)
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
            return ToolFailure(message=f"{file_path} is not UTF-8 text ({len(data)} bytes).", code="binary_object")


class S3WriterTool(_S3Tool):
    """Writes the text as the object (replacing it), UTF-8 encoded."""

    name: str = "S3 Writer Tool"
    description: str = "Writes content to a file in Amazon S3 given an S3 file path"
    args_schema: type[BaseModel] = S3WriterToolInput

    def _run(self, file_path: str, content: str) -> str | ToolFailure:
        target = self._target(file_path)
        if isinstance(target, ToolFailure):
            return target
        bucket, key = target
        try:
            self._client().put_object(Bucket=bucket, Key=key, Body=content.encode("utf-8"),
                                      ContentType="text/plain; charset=utf-8")
        except ImportError as exc:
            return ToolFailure(message=str(exc), code="missing_library")
        except Exception as exc:
            return self._failure("writing file to", exc)
        return f"Successfully wrote content to {file_path}"
