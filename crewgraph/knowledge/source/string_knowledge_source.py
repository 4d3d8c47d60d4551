"""``StringKnowledgeSource``: knowledge given as a string."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from crewgraph.knowledge.source.base_knowledge_source import BaseKnowledgeSource

__all__ = ["StringKnowledgeSource"]


class StringKnowledgeSource(BaseKnowledgeSource):
    """``StringKnowledgeSource(content="...")``."""

    source_type: Literal["string"] = "string"

    content: str = Field(min_length=1, description="The knowledge text")

    def load_content(self) -> dict[Any, str]:
        return {self.describe(): self.content}

    def describe(self) -> str:
        head = " ".join(self.content.split())[:40]
        return f"StringKnowledgeSource({head!r})"
