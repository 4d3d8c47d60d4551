"""boto3 clients for the AWS tools: region, credentials and endpoint from CrewAI's variables.

boto3 is in the ``aws`` extra and imported on first use. An ``endpoint_url``
argument (or boto3's own ``AWS_ENDPOINT_URL`` / ``AWS_ENDPOINT_URL_<SERVICE>``)
points a tool at an S3-compatible server or a local stand-in; credentials and
region not given fall back to boto3's usual chain.
"""

from __future__ import annotations

from typing import Any

from crewgraph.toolkit._hosted import missing_library

__all__ = ["boto3_client", "client_error_text", "import_boto3"]


def import_boto3(tool: str) -> Any:
    """boto3, or ImportError naming the extra."""
    try:
        import boto3
    except ImportError:
        raise ImportError(missing_library(tool, "boto3", "'crewgraph[aws]'")) from None
    return boto3


def boto3_client(tool: str, service: str, *, region: str | None, endpoint_url: str | None = None,
                 access_key: str | None = None, secret_key: str | None = None, timeout: float = 30.0) -> Any:
    """A boto3 client with bounded connect/read timeouts and two attempts."""
    boto3 = import_boto3(tool)
    from botocore.config import Config

    config = Config(connect_timeout=timeout, read_timeout=timeout, retries={"max_attempts": 2, "mode": "standard"})
    return boto3.client(service, region_name=region, endpoint_url=endpoint_url or None,
                        aws_access_key_id=access_key or None, aws_secret_access_key=secret_key or None, config=config)


def client_error_text(exc: Exception) -> tuple[str, str]:
    """``(code, message)`` of a botocore ClientError (or of any exception)."""
    response = getattr(exc, "response", None)
    if isinstance(response, dict) and "Error" in response:
        error = response["Error"]
        return str(error.get("Code", "Unknown")), str(error.get("Message", exc))
    return type(exc).__name__, str(exc)
