"""AIMindTool: questions in plain language about your databases, answered by a MindsDB AI-Mind (``MINDS_API_KEY``).

On the first call (not at construction, so building the tool costs nothing)
each datasource is registered with ``POST {base}/api/datasources`` (``name``,
``engine``, ``description``, ``connection_data``, ``tables``) and a Mind over
them with ``POST {base}/api/projects/mindsdb/minds``; ``mind_name=`` uses an
existing Mind instead. A question is an OpenAI-compatible ``POST
{base}/chat/completions`` with the Mind as the model, as the Minds API
documents (its ``minds-sdk`` sends the same; it is not needed). The answer
is the reply message. ``base_url=`` or ``MINDS_BASE_URL`` moves the API
(default ``https://mdb.ai``).
"""

from __future__ import annotations

import secrets
from typing import Any, ClassVar

from pydantic import BaseModel, Field, PrivateAttr

from crewgraph.toolkit._hosted import HostedTool
from crewgraph.tools.tool_failure import ToolFailure

__all__ = ["AIMindTool", "AIMindToolInputSchema"]


class AIMindToolInputSchema(BaseModel):
    """Input for AIMindTool."""

    query: str = Field(description="Question in natural language to ask the AI-Mind")


class AIMindTool(HostedTool):
    """Answers questions from data in PostgreSQL, MySQL, MariaDB, ClickHouse, Snowflake, BigQuery..."""

    name: str = "AIMind Tool"
    description: str = (
        "A wrapper around AI-Minds (https://mindsdb.com/minds). Useful for when you need answers to questions "
        "from your data, stored in data sources including PostgreSQL, MySQL, MariaDB, ClickHouse, Snowflake and "
        "Google BigQuery. Input should be a question in natural language."
    )
    args_schema: type[BaseModel] = AIMindToolInputSchema
    datasources: list[dict[str, Any]] = Field(
        default_factory=list, description="Each {engine, description, connection_data, tables}"
    )
    mind_name: str | None = Field(default=None, description="An existing Mind to ask (else one is created)")
    timeout: float = Field(default=120.0, gt=0, description="Seconds allowed for each request")
    _created: bool = PrivateAttr(default=False)

    _service: ClassVar[str] = "Minds"
    _key_envs: ClassVar[tuple[str, ...]] = ("MINDS_API_KEY",)
    _base_env: ClassVar[str | None] = "MINDS_BASE_URL"
    _default_base: ClassVar[str] = "https://mdb.ai"

    def model_post_init(self, __context: Any) -> None:
        super().model_post_init(__context)
        for index, source in enumerate(self.datasources):
            missing = {"engine", "description", "connection_data", "tables"} - set(source)
            if missing:
                raise ValueError(f"AIMindTool datasources[{index}] lacks {', '.join(sorted(missing))}")

    def _mind(self, headers: dict[str, str]) -> str | ToolFailure:
        if self.mind_name and (self._created or not self.datasources):
            return self.mind_name
        names = []
        for source in self.datasources:
            name = f"crwai_ds_{secrets.token_hex(5)}"
            made = self._call("POST", "/api/datasources", headers=headers, json_body={
                "name": name, "engine": source["engine"], "description": source["description"],
                "connection_data": source["connection_data"], "tables": source["tables"]})
            if isinstance(made, ToolFailure):
                return made
            names.append(name)
        mind = self.mind_name or f"crwai_mind_{secrets.token_hex(5)}"
        made = self._call("POST", "/api/projects/mindsdb/minds", headers=headers,
                          json_body={"name": mind, "datasources": names})
        if isinstance(made, ToolFailure):
            return made
        self.mind_name, self._created = mind, True
        return mind

    def _run(self, query: str) -> str | ToolFailure:
        key = self._key_or_failure()
        if isinstance(key, ToolFailure):
            return key
        headers = {"Authorization": f"Bearer {key}"}
        mind = self._mind(headers)
        if isinstance(mind, ToolFailure):
            return mind
        reply = self._call("POST", "/chat/completions", headers=headers, json_body={
            "model": mind, "messages": [{"role": "user", "content": query}], "stream": False})
        if isinstance(reply, ToolFailure):
            return reply
        try:
            return str(reply["choices"][0]["message"]["content"])
        except (KeyError, IndexError, TypeError):
            return ToolFailure(message="Invalid response from AI-Mind (no choices[0].message)", code="invalid_response")
