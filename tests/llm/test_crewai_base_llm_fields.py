"""CrewAI's ``BaseLLM`` fields and helpers on a custom client written the CrewAI way."""

from __future__ import annotations

from typing import Any

from crewgraph import LLM
from crewgraph.llms.base_llm import BaseLLM


class Echo(BaseLLM):
    def call(self, messages: Any, tools: Any = None, callbacks: Any = None,
             available_functions: Any = None, **kwargs: Any) -> str:
        return f"{self.model} top_p={self.top_p}"


def test_a_custom_client_keeps_crewai_fields_and_rebuilds_from_its_config() -> None:
    llm = Echo(model="my-model", temperature=0.1, stop="END", top_p=0.9, seed=7, base_url="http://x",
               endpoint="http://y")
    assert (llm.provider, llm.top_p, llm.seed, llm.stop, llm.stop_sequences) == ("openai", 0.9, 7, ["END"], ["END"])
    assert llm.additional_params == {"endpoint": "http://y"}
    assert llm.call("hi") == "my-model top_p=0.9"
    assert llm.to_config_dict() == {"model": "openai/my-model", "temperature": 0.1, "base_url": "http://x",
                                    "stop": ["END"]}
    assert llm.format_text_content("a") == {"type": "text", "text": "a"} and llm.get_file_uploader() is None
    llm.stop_sequences = "STOP"
    assert llm.stop == ["STOP"]
    real = LLM(**LLM(model="gpt-4o-mini", temperature=0.3).to_config_dict())
    assert (real.model, real.temperature) == ("gpt-4o-mini", 0.3)
