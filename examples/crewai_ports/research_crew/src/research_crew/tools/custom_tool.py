from typing import Type

from pydantic import BaseModel, Field

from crewgraph.tools import BaseTool


class KeywordInput(BaseModel):
    """Input schema for KeywordTool."""

    text: str = Field(..., description="Text to pull keywords from.")


class KeywordTool(BaseTool):
    name: str = "Keyword extractor"
    description: str = "Lists the longest words of a text, a crude stand-in for its keywords."
    args_schema: Type[BaseModel] = KeywordInput

    def _run(self, text: str) -> str:
        words = sorted({w.strip(".,;:").lower() for w in text.split()}, key=len, reverse=True)
        return ", ".join(words[:5])
