"""Field validators shared by Agent and Task (tools, LLM references, guardrails)."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any, get_args, get_origin

__all__ = [
    "check_guardrail",
    "check_input_files",
    "check_knowledge_config",
    "check_knowledge_sources",
    "check_llm",
    "check_mcps",
    "check_output_file",
    "check_policy",
    "check_tools",
    "merge_config",
]

_SHELL_CHARS = frozenset("|&;<>`$\n\r\x00")
"""Characters with a meaning to a shell: an output_file holding one is a mistake or an attack."""


def check_tools(value: Any) -> list[Any]:
    """Tools must be BaseTool instances (or LangChain-like tools we can adapt)."""
    if value is None:
        return []
    if not isinstance(value, list | tuple):
        raise ValueError("tools must be a list of tools")
    from crewgraph.tools import BaseTool

    out: list[Any] = []
    for i, tool in enumerate(value):
        if isinstance(tool, BaseTool):
            out.append(tool)
            continue
        adapted = _adapt(tool)
        if adapted is None:
            raise ValueError(
                f"tools[{i}] is {type(tool).__name__}, not a tool: use a BaseTool subclass, "
                "the @tool decorator, or a LangChain-style tool"
            )
        out.append(adapted)
    return _unique_names(out)


def _unique_names(tools: list[Any]) -> list[Any]:
    """The tools, each instance once. Two different tools the model would see under one
    function name cannot be told apart (and some servers reject the request), so a list
    offering that is a definition error."""
    out: list[Any] = []
    seen: dict[str, Any] = {}
    for i, tool in enumerate(tools):
        name = tool.to_spec().name
        other = seen.setdefault(name.lower(), tool)
        if other is tool and any(t is tool for t in out):
            continue  # the same tool listed twice
        if other is not tool:
            raise ValueError(
                f"tools[{i}] ({tool.name!r}) and tools[{_position(tools, other)}] ({other.name!r}) reach "
                f"the model under the same name {name!r}: give one of them another name"
            )
        out.append(tool)
    return out


def _position(items: list[Any], item: Any) -> int:
    return next(k for k, x in enumerate(items) if x is item)


def _adapt(tool: Any) -> Any:
    from crewgraph.tools.structured_tool import CrewStructuredTool

    if isinstance(tool, CrewStructuredTool):  # CrewAI's structured form: run as a crewgraph tool
        return tool.to_base_tool()
    try:
        from crewgraph.tools.adapters import from_langchain
    except ImportError:  # pragma: no cover - adapters always ship
        return None
    if hasattr(tool, "name") and hasattr(tool, "description") and (
        hasattr(tool, "invoke") or hasattr(tool, "run") or hasattr(tool, "_run")
    ):
        return from_langchain(tool)
    return None


def check_llm(value: Any) -> Any:
    """An LLM reference: None, a model name string, or a BaseLLM instance."""
    if value is None or isinstance(value, str):
        if isinstance(value, str) and not value.strip():
            raise ValueError("llm must be a non-empty model name")
        if isinstance(value, str):
            from crewgraph.llm.providers import check_model_name

            check_model_name(value)  # an unknown provider prefix fails here, at definition time
        return value
    from crewgraph.llm.base import BaseLLM

    if isinstance(value, BaseLLM):
        return value
    if isinstance(value, dict) and "model" in value:
        from crewgraph.llm import LLM

        return LLM(**value)
    raise ValueError(f"llm must be a model name or a BaseLLM instance, got {type(value).__name__}")


def check_guardrail(value: Any) -> Any:
    """A guardrail is ``(TaskOutput) -> tuple[bool, Any]`` or a text an LLM judges against.

    Checked when the Task is built, as the seed does: exactly one required
    parameter, and a return annotation, if present, must be tuple[bool, Any].
    """
    if value is None or isinstance(value, str):
        if isinstance(value, str) and not value.strip():
            raise ValueError("a guardrail text must not be empty")
        return value
    if not callable(value):
        raise ValueError(f"guardrail must be a function or a text, got {type(value).__name__}")
    _check_signature(value)
    return value


def _check_signature(fn: Callable[..., Any]) -> None:
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return
    required = [
        p
        for p in sig.parameters.values()
        if p.default is inspect.Parameter.empty
        and p.kind not in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)
    ]
    name = getattr(fn, "__name__", repr(fn))
    if len(required) != 1:
        raise ValueError(
            f"Guardrail function {name!r} must accept exactly one parameter (the TaskOutput), "
            f"it requires {len(required)}"
        )
    ret = sig.return_annotation
    if ret is inspect.Signature.empty or isinstance(ret, str):
        if isinstance(ret, str) and not ret.replace(" ", "").lower().startswith(("tuple[bool", "typing.tuple[bool")):
            raise ValueError(
                f"Guardrail function {name!r}: if the return type is annotated, it must be tuple[bool, Any]"
            )
        return
    args = get_args(ret)
    if not (get_origin(ret) is tuple and len(args) == 2 and args[0] is bool):
        raise ValueError(
            f"Guardrail function {name!r}: if the return type is annotated, it must be tuple[bool, Any]"
        )


def check_policy(value: Any) -> Any:
    """A tool failure policy: None (inherit from the next level) or ignore / warn / raise."""
    if value is None:
        return None
    from crewgraph.tools.tool_failure import ToolFailurePolicy

    return ToolFailurePolicy(value)


def check_knowledge_sources(value: Any) -> list[Any]:
    """Knowledge sources: BaseKnowledgeSource instances (StringKnowledgeSource, ...)."""
    if not value:
        return []
    from crewgraph.knowledge.knowledge import check_sources

    return check_sources(value)


def check_knowledge_config(value: Any) -> Any:
    """A KnowledgeConfig, or a dict of its fields (results_limit, score_threshold)."""
    if value is None:
        return None
    from crewgraph.knowledge.knowledge_config import KnowledgeConfig

    if isinstance(value, KnowledgeConfig):
        return value
    if isinstance(value, dict):
        return KnowledgeConfig(**value)
    raise ValueError(f"knowledge_config must be a KnowledgeConfig, got {type(value).__name__}")


def check_mcps(value: Any) -> list[Any]:
    """MCP servers: URL strings, dicts, StdioServerParameters or MCPServerStdio/HTTP/SSE configs,
    normalised to configs (no connection is made here: tools are listed at compile time)."""
    from crewgraph.tools.mcp.config import to_server_configs

    return list(to_server_configs(value))


def merge_config(data: Any, what: str) -> Any:
    """``Agent(config={...})`` / ``Task(config={...})`` (a YAML entry, as in CrewAI): the dict
    supplies fields; keyword arguments given explicitly (not None) win over it."""
    if not isinstance(data, dict) or data.get("config") is None:
        return data
    data = dict(data)
    config = data.pop("config")
    if not isinstance(config, dict):
        raise ValueError(f"config must be a dict of {what} fields, got {type(config).__name__}")
    return {**config, **{k: v for k, v in data.items() if v is not None or k not in config}}


def check_output_file(value: str | None) -> str | None:
    """An output file path: a file (not a folder), no ``..`` component (it must not climb out of
    where the crew writes), no shell metacharacters and no ``~`` expansion. ``{placeholders}``
    are allowed; the path they produce is checked again when the inputs fill them."""
    if value is None:
        return None
    if not value.strip() or value.endswith(("/", "\\")):
        raise ValueError("output_file must name a file, not a folder")
    if ".." in value.replace("\\", "/").split("/"):
        raise ValueError(f"output_file {value!r} climbs out of its folder with '..' (path traversal is refused)")
    bad = sorted({c for c in value if c in _SHELL_CHARS})
    if bad or value.startswith("~"):
        shown = ", ".join(repr(c) for c in bad) or "'~'"
        raise ValueError(f"output_file {value!r} contains shell metacharacters ({shown}); use a plain file path")
    return value


def check_input_files(value: Any) -> dict[str, Any]:
    """``input_files``: names (identifiers, as ``{name}`` in the description) to a path or URL."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ValueError(f"input_files must be a dict of name -> file path, got {type(value).__name__}")
    from crewgraph._internal.input_files import source_of

    out: dict[str, Any] = {}
    for name, item in value.items():
        if not isinstance(name, str) or not name.isidentifier():
            raise ValueError(f"input_files: {name!r} is not a valid file name (use letters, digits and _)")
        try:
            out[name] = source_of(item)
        except ValueError as exc:
            raise ValueError(f"input_files[{name!r}]: {exc}") from exc
    return out


def agent_from_dump(value: Any) -> Any:
    """A dumped agent (``agent.model_dump()``) back as an ``Agent``: ``BaseAgent`` fields alone
    would refuse an ``Agent``'s, so ``Task.model_validate(task.model_dump())`` round-trips."""
    if isinstance(value, dict):
        from crewgraph.spec.agent import Agent

        return Agent.model_validate(value)
    return value


def check_knowledge(value: Any) -> Any:
    """``knowledge=``: a built ``Knowledge`` object (CrewAI's), or None."""
    if value is None:
        return None
    from crewgraph.knowledge.knowledge import Knowledge

    if isinstance(value, Knowledge):
        return value
    if isinstance(value, dict):
        return Knowledge.model_validate(value)
    raise ValueError(f"knowledge must be a Knowledge object (or use knowledge_sources=[...]), "
                     f"got {type(value).__name__}")


def one_knowledge(owner: Any, what: str) -> None:
    """``knowledge`` and ``knowledge_sources`` are two ways to say one thing: refuse both at once."""
    if getattr(owner, "knowledge", None) is not None and getattr(owner, "knowledge_sources", None):
        raise ValueError(f"{what}: give knowledge=Knowledge(...) or knowledge_sources=[...], not both "
                         "(put the sources into the Knowledge object)")
