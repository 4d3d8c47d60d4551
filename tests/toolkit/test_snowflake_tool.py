"""SnowflakeSearchTool against a local stand-in of Snowflake's SQL API v2 that verifies the key-pair JWT."""

from __future__ import annotations

import base64
import functools
import json
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from crewgraph.testing import FakeHTTPService
from crewgraph.testing.fake_http import FakeRequestRecord
from crewgraph.toolkit import SnowflakeConfig, SnowflakeSearchTool
from crewgraph.tools import ToolFailure

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.rsa import RSAPrivateKey

_CALLS = {"poll": 0}


@pytest.fixture(scope="module")
def key() -> RSAPrivateKey:
    """The key pair, made here rather than at import so collecting the suite neither imports cryptography
    nor spends CPU on an RSA key."""
    pytest.importorskip("cryptography", reason="cryptography is not installed")
    from cryptography.hazmat.primitives.asymmetric import rsa

    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


def _verified(key: RSAPrivateKey, request: FakeRequestRecord) -> dict[str, Any] | None:
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import padding

    if request.headers.get("x-snowflake-authorization-token-type") != "KEYPAIR_JWT":
        return None
    head, claims, sig = request.headers["authorization"].removeprefix("Bearer ").split(".")
    pad = lambda s: base64.urlsafe_b64decode(s + "=" * (-len(s) % 4))  # noqa: E731
    try:
        key.public_key().verify(pad(sig), f"{head}.{claims}".encode(), padding.PKCS1v15(), hashes.SHA256())
    except Exception:
        return None
    return json.loads(pad(claims))


def _submit(key: RSAPrivateKey, request: FakeRequestRecord) -> Any:
    claims = _verified(key, request)
    if claims is None or claims["sub"] != "ACME.ANALYST":
        return 401, {"code": "390144", "message": "JWT token is invalid."}
    if "nope" in request.json["statement"]:
        return 422, {"code": "002003", "message": "SQL compilation error: Object 'NOPE' does not exist."}
    _CALLS["poll"] = 0
    return 202, {"statementHandle": "h-1", "message": "Asynchronous execution in progress."}


def _poll(request: FakeRequestRecord) -> Any:
    _CALLS["poll"] += 1
    return {"resultSetMetaData": {"rowType": [{"name": "REGION"}, {"name": "TOTAL"}]},
            "data": [["EMEA", "120"], ["APAC", "80"]], "statementHandle": "h-1"}


@pytest.fixture(scope="module")
def snowflake(key: RSAPrivateKey) -> Iterator[FakeHTTPService]:
    with FakeHTTPService({"POST /api/v2/statements": functools.partial(_submit, key), "GET /api/v2/statements/h-1": _poll}) as api:
        yield api


@pytest.fixture
def key_file(key: RSAPrivateKey, tmp_path: Path) -> Path:
    from cryptography.hazmat.primitives import serialization

    path = tmp_path / "rsa_key.p8"
    path.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                       serialization.NoEncryption()))
    return path


def test_query_with_keypair_auth_and_polling(snowflake: FakeHTTPService, key_file: Path) -> None:
    config = SnowflakeConfig(account="acme", user="analyst", private_key_path=str(key_file), warehouse="WH",
                             database="SALES", snowflake_schema="PUBLIC")
    tool = SnowflakeSearchTool(config=config, base_url=snowflake.url, poll_interval=0.05)
    assert tool.config_problems() == []
    rows = tool.run(query="SELECT region, total FROM totals")
    assert rows == [{"REGION": "EMEA", "TOTAL": "120"}, {"REGION": "APAC", "TOTAL": "80"}]
    sent = snowflake.requests_to("/api/v2/statements")[-1].json
    assert sent == {"statement": "SELECT region, total FROM totals", "timeout": 300, "database": "SALES",
                    "schema": "PUBLIC", "warehouse": "WH"}
    polls = _CALLS["poll"]
    assert tool.run(query="SELECT region, total FROM totals") == rows and _CALLS["poll"] == polls  # cached
    tool.run(query="SELECT region, total FROM totals", snowflake_schema="STAGING")
    assert snowflake.requests_to("/api/v2/statements")[-1].json["schema"] == "STAGING"


def test_failures_and_refusals(snowflake: FakeHTTPService, key_file: Path, tmp_path: Path) -> None:
    config = SnowflakeConfig(account="acme", user="analyst", private_key_path=str(key_file))
    tool = SnowflakeSearchTool(config=config, base_url=snowflake.url, enable_caching=False)
    failed = tool.run(query="SELECT * FROM nope")
    assert isinstance(failed, ToolFailure) and "does not exist" in failed.message
    other = SnowflakeConfig(account="acme", user="intruder", private_key_path=str(key_file))
    denied = SnowflakeSearchTool(config=other, base_url=snowflake.url, enable_caching=False).run(query="SELECT 1")
    assert isinstance(denied, ToolFailure) and "JWT token is invalid" in denied.message
    with pytest.raises(ValueError, match="key-pair authentication only"):
        SnowflakeConfig(account="acme", user="u", password="pw")
    with pytest.raises(ValueError, match="no connection pool"):
        SnowflakeSearchTool(config=config, pool_size=10)
    missing = SnowflakeSearchTool(config=SnowflakeConfig(account="acme", user="u", private_key_path=str(tmp_path / "x")))
    assert missing.config_problems() == [f"SnowflakeSearchTool: private_key_path {str(tmp_path / 'x')!r} is not a file"]
