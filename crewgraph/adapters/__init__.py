"""Agents of other frameworks as crew members (CrewAI's agent adapters). See docs/adapters.md.

``BaseAgentAdapter`` / ``BaseToolAdapter`` / ``BaseConverterAdapter`` are the contract;
``LangGraphAgentAdapter`` (extra ``langgraph``) and ``OpenAIAgentAdapter`` (extra
``openai-agents``) load their framework only when used.
"""

from __future__ import annotations

from typing import Any

from crewgraph.adapters.base import BaseAgentAdapter, BaseConverterAdapter, BaseToolAdapter

__all__ = ["BaseAgentAdapter", "BaseConverterAdapter", "BaseToolAdapter", "LangGraphAgentAdapter",
           "OpenAIAgentAdapter"]

_LAZY = {"LangGraphAgentAdapter": "crewgraph.adapters.langgraph_adapter",
         "OpenAIAgentAdapter": "crewgraph.adapters.openai_adapter"}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'crewgraph.adapters' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module), name)
