"""Execution hooks (CrewAI's ``crewai.hooks``): intercept every LLM and tool call, and the
edges of a kickoff (``@on(InterceptionPoint.X)``, see :mod:`crewgraph.hooks.points`).

Hooks run inside the node making the call, so retries run them again, the
executed graph and checkpoints hold what they produced, and events show the
messages and results as the hooks left them.
"""

from crewgraph.hooks.decorators import (
    after_llm_call,
    after_tool_call,
    before_llm_call,
    before_tool_call,
)
from crewgraph.hooks.llm_hooks import (
    clear_after_llm_call_hooks,
    clear_all_llm_call_hooks,
    clear_before_llm_call_hooks,
    get_after_llm_call_hooks,
    get_before_llm_call_hooks,
    register_after_llm_call_hook,
    register_before_llm_call_hook,
    unregister_after_llm_call_hook,
    unregister_before_llm_call_hook,
)
from crewgraph.hooks.points import (
    EXECUTION_BOUNDARY_POINTS,
    ExecutionEndContext,
    ExecutionStartContext,
    InputContext,
    InterceptionContext,
    InterceptionPoint,
    OutputContext,
    StepContext,
    clear_all_hooks,
    clear_hooks,
    dispatch,
    get_hooks,
    on,
    register_hook,
    unregister_hook,
)
from crewgraph.hooks.tool_hooks import (
    clear_after_tool_call_hooks,
    clear_all_tool_call_hooks,
    clear_before_tool_call_hooks,
    get_after_tool_call_hooks,
    get_before_tool_call_hooks,
    register_after_tool_call_hook,
    register_before_tool_call_hook,
    unregister_after_tool_call_hook,
    unregister_before_tool_call_hook,
)
from crewgraph.hooks.types import (
    HookAborted,
    HookAgent,
    HookTask,
    LLMCallBlockedError,
    LLMCallHookContext,
    ToolCallHookContext,
)


def clear_all_global_hooks() -> dict[str, tuple[int, int]]:
    """Remove every globally registered hook (tests call this between runs)."""
    return {"llm_hooks": clear_all_llm_call_hooks(), "tool_hooks": clear_all_tool_call_hooks()}


__all__ = [
    "EXECUTION_BOUNDARY_POINTS",
    "ExecutionEndContext",
    "ExecutionStartContext",
    "HookAborted",
    "HookAgent",
    "HookTask",
    "InputContext",
    "InterceptionContext",
    "InterceptionPoint",
    "LLMCallBlockedError",
    "LLMCallHookContext",
    "OutputContext",
    "StepContext",
    "ToolCallHookContext",
    "after_llm_call",
    "after_tool_call",
    "before_llm_call",
    "before_tool_call",
    "clear_after_llm_call_hooks",
    "clear_after_tool_call_hooks",
    "clear_all_global_hooks",
    "clear_all_hooks",
    "clear_all_llm_call_hooks",
    "clear_all_tool_call_hooks",
    "clear_before_llm_call_hooks",
    "clear_before_tool_call_hooks",
    "clear_hooks",
    "dispatch",
    "get_after_llm_call_hooks",
    "get_after_tool_call_hooks",
    "get_before_llm_call_hooks",
    "get_before_tool_call_hooks",
    "get_hooks",
    "on",
    "register_after_llm_call_hook",
    "register_after_tool_call_hook",
    "register_before_llm_call_hook",
    "register_before_tool_call_hook",
    "register_hook",
    "unregister_after_llm_call_hook",
    "unregister_after_tool_call_hook",
    "unregister_before_llm_call_hook",
    "unregister_before_tool_call_hook",
    "unregister_hook",
]
