"""SnowflakeSearchTool (+ SnowflakeConfig): SQL on Snowflake through its SQL API v2 (httpx, key-pair JWT).

``POST https://{account}.snowflakecomputing.com/api/v2/statements`` with the
statement, ``timeout``, database, schema, warehouse and role, authenticated
with a key-pair JWT signed by ``private_key_path`` (RS256, ``cryptography``);
a 202 answer is polled at ``/api/v2/statements/{handle}``. Rows come back as
CrewAI's list of dicts. Retryable failures are retried ``max_retries`` times
(``retry_delay`` doubling); results are cached per query when
``enable_caching``.

The SQL API does not take passwords, so ``SnowflakeConfig(password=...)`` is
refused with that reason (CrewAI's connector accepts one); ``base_url=``
points the tool at a local stand-in.
"""

from __future__ import annotations

import base64
import hashlib
import json
import threading
import time
from pathlib import Path
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field, SecretStr, model_validator

from crewgraph.toolkit._hosted import HostedTool, missing_library
from crewgraph.tools.tool_failure import ToolFailure

__all__ = ["SnowflakeConfig", "SnowflakeSearchTool", "SnowflakeSearchToolInput", "keypair_jwt"]

_IDENT = r"^[A-Za-z_][A-Za-z0-9_$]*$"
_cache: dict[str, list[dict[str, Any]]] = {}
_cache_lock = threading.Lock()


class SnowflakeConfig(BaseModel):
    """The connection (CrewAI's fields)."""

    model_config = ConfigDict(protected_namespaces=(), extra="forbid")

    account: str = Field(..., description="Snowflake account identifier", pattern=r"^[a-zA-Z0-9\-_]+$")
    user: str = Field(..., description="Snowflake username")
    password: SecretStr | None = Field(None, description="Not supported: the SQL API needs key-pair authentication")
    private_key_path: str | None = Field(None, description="Path to the PEM private key registered for the user")
    warehouse: str | None = None
    database: str | None = Field(None, pattern=_IDENT)
    snowflake_schema: str | None = Field(None, pattern=_IDENT)
    role: str | None = None
    session_parameters: dict[str, Any] | None = Field(default_factory=dict)

    @model_validator(mode="after")
    def _auth(self) -> SnowflakeConfig:
        if self.password is not None:
            raise ValueError("SnowflakeConfig(password=...) is not supported: crewgraph uses Snowflake's SQL API, "
                             "which takes key-pair authentication only; pass private_key_path=...")
        if not self.private_key_path:
            raise ValueError("Either password or private_key_path must be provided (crewgraph: private_key_path)")
        return self

    @property
    def has_auth(self) -> bool:
        return bool(self.private_key_path)


class SnowflakeSearchToolInput(BaseModel):
    """Input for SnowflakeSearchTool."""

    model_config = ConfigDict(protected_namespaces=())

    query: str = Field(..., description="SQL query or semantic search query to execute")
    database: str | None = Field(None, description="Override default database", pattern=_IDENT)
    snowflake_schema: str | None = Field(None, description="Override default schema", pattern=_IDENT)
    timeout: int | None = Field(300, description="Query timeout in seconds")


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def keypair_jwt(account: str, user: str, pem: bytes, now: float | None = None) -> str:
    """Snowflake's key-pair JWT: ``iss`` ``ACCOUNT.USER.SHA256:<public key fingerprint>``, one hour, RS256."""
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import padding, rsa

    key = serialization.load_pem_private_key(pem, password=None)
    if not isinstance(key, rsa.RSAPrivateKey):
        raise ValueError("the Snowflake private key must be an RSA key")
    public = key.public_key().public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)
    qualified = f"{account.split('.')[0].upper()}.{user.upper()}"
    issued = int(now if now is not None else time.time())
    claims = {"iss": f"{qualified}.SHA256:{base64.b64encode(hashlib.sha256(public).digest()).decode()}",
              "sub": qualified, "iat": issued, "exp": issued + 3540}
    signing = f"{_b64url(json.dumps({'alg': 'RS256', 'typ': 'JWT'}).encode())}.{_b64url(json.dumps(claims).encode())}"
    signature = key.sign(signing.encode(), padding.PKCS1v15(), hashes.SHA256())
    return f"{signing}.{_b64url(signature)}"


class SnowflakeSearchTool(HostedTool):
    """Runs the model's SQL on Snowflake; see the module doc."""

    name: str = "Snowflake Database Search"
    description: str = ("Execute SQL queries or semantic search on Snowflake data warehouse. "
                        "Supports both raw SQL and natural language queries.")
    args_schema: type[BaseModel] = SnowflakeSearchToolInput
    config: SnowflakeConfig
    max_retries: int = Field(default=3, ge=1)
    retry_delay: float = Field(default=1.0, ge=0)
    enable_caching: bool = True
    poll_interval: float = Field(default=1.0, gt=0)

    _service: ClassVar[str] = "Snowflake"
    _unsupported: ClassVar[dict[str, str]] = {
        "pool_size": "crewgraph sends each query as one HTTP request to the SQL API; there is no connection pool"}

    def config_problems(self) -> list[str]:
        try:
            import cryptography  # noqa: F401
        except ImportError:
            return [missing_library("SnowflakeSearchTool", "cryptography", "cryptography")]
        path = Path(self.config.private_key_path or "")
        return [] if path.is_file() else [f"SnowflakeSearchTool: private_key_path {str(path)!r} is not a file"]

    def _base(self) -> str:
        return (self.base_url or f"https://{self.config.account}.snowflakecomputing.com").rstrip("/")

    def _run_statement(self, statement: str, timeout: int, database: str | None, schema: str | None) -> list[dict[str, Any]] | ToolFailure:
        cfg = self.config
        try:
            token = keypair_jwt(cfg.account, cfg.user, Path(cfg.private_key_path or "").read_bytes())
        except (OSError, ValueError, ImportError) as exc:
            return ToolFailure(message=f"SnowflakeSearchTool cannot sign in with private_key_path: {exc}",
                               code="invalid_configuration")
        headers = {"Authorization": f"Bearer {token}", "X-Snowflake-Authorization-Token-Type": "KEYPAIR_JWT",
                   "Accept": "application/json"}
        body: dict[str, Any] = {"statement": statement, "timeout": timeout}
        for key, value in (("database", database or cfg.database), ("schema", schema or cfg.snowflake_schema),
                           ("warehouse", cfg.warehouse), ("role", cfg.role)):
            if value:
                body[key] = value
        if cfg.session_parameters:
            body["parameters"] = cfg.session_parameters
        answer = self._call("POST", "", headers=headers, json_body=body, url=f"{self._base()}/api/v2/statements")
        deadline = time.monotonic() + timeout
        while not isinstance(answer, ToolFailure) and "resultSetMetaData" not in answer and answer.get("statementHandle"):
            if time.monotonic() > deadline:
                return ToolFailure(message=f"Query timed out after {timeout} seconds", code="timeout", retryable=True)
            time.sleep(self.poll_interval)
            answer = self._call("GET", "", headers=headers,
                                url=f"{self._base()}/api/v2/statements/{answer['statementHandle']}")
        if isinstance(answer, ToolFailure):
            return answer
        columns = [c.get("name", "") for c in (answer.get("resultSetMetaData") or {}).get("rowType", [])]
        return [dict(zip(columns, row, strict=False)) for row in answer.get("data") or []]

    def _run(self, query: str, database: str | None = None, snowflake_schema: str | None = None,
             timeout: int | None = 300) -> list[dict[str, Any]] | ToolFailure:
        wait = int(timeout or 300)
        key = f"{self.config.account}:{database or self.config.database}:{snowflake_schema or self.config.snowflake_schema}:{query}:{wait}"
        if self.enable_caching:
            with _cache_lock:
                if key in _cache:
                    return _cache[key]
        result: list[dict[str, Any]] | ToolFailure = ToolFailure(message="not run", code="not_run")
        for attempt in range(self.max_retries):
            result = self._run_statement(query, wait, database, snowflake_schema)
            if not (isinstance(result, ToolFailure) and result.retryable):
                break
            if attempt < self.max_retries - 1:
                time.sleep(self.retry_delay * (2 ** attempt))
        if self.enable_caching and not isinstance(result, ToolFailure):
            with _cache_lock:
                _cache[key] = result
        return result
