"""Delegation tools: "Delegate work to coworker" and "Ask question to coworker" (CrewAI's names).

An agent that may delegate (``allow_delegation=True``, or a hierarchical
crew's manager) gets these two tools. Their argument schema checks the
``coworker`` against the crew (case and whitespace do not matter), so a
model that names someone else gets a message listing the valid coworkers
instead of a crash, and an agent can never delegate to itself (it is not in
its own list, and naming itself says so).

A delegation is real work by another agent, so it belongs in the run graph:
the delegating agent step does not *run* these tools like others but turns
each call into the coworker's own ``agent_step`` node, spawned as its child
(see :func:`crewgraph.nodes.manager_step.delegated_step`). This module only
holds the data that step needs (:class:`Coworker`, :meth:`DelegationTool.resolve`),
so the tools layer stays free of node imports. Calling the tool directly from
Python still works: :meth:`DelegationTool._run` runs the coworker on its own.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import AliasChoices, BaseModel, ConfigDict, Field, create_model, field_validator

from crewgraph.errors import ConfigurationError
from crewgraph.tools.base_tool import BaseTool

__all__ = [
    "ASK_TOOL_NAME",
    "DELEGATE_TOOL_NAME",
    "Coworker",
    "Delegation",
    "DelegationTool",
    "delegation_tools",
    "normalize_role",
]

DELEGATE_TOOL_NAME = "Delegate work to coworker"
ASK_TOOL_NAME = "Ask question to coworker"

_DELEGATE_DESCRIPTION = (
    "Delegate a specific task to one of the following coworkers: {coworkers}\n"
    "The input to this tool should be the coworker, the task you want them to do, and ALL "
    "necessary context to execute the task, they know nothing about the task, so share "
    "absolutely everything you know, don't reference things but instead explain them."
)
_ASK_DESCRIPTION = (
    "Ask a specific question to one of the following coworkers: {coworkers}\n"
    "The input to this tool should be the coworker, the question you have for them, and ALL "
    "necessary context to ask the question properly, they know nothing about the question, so "
    "share absolutely everything you know, don't reference things but instead explain them."
)
DELEGATED_EXPECTED_OUTPUT = (
    "Your best answer to your coworker asking you this, accounting for the context shared."
)


def normalize_role(text: str) -> str:
    """How coworker names are compared: quotes and surrounding/inner whitespace runs and case ignored."""
    return " ".join(str(text).strip().strip("\"'").split()).casefold()


def _mcp_tools(agent: Any) -> list[Any]:
    if not getattr(agent, "mcps", None):
        return []
    from crewgraph.tools.mcp.discovery import agent_mcp_tools

    return list(agent_mcp_tools(agent))


@dataclass(frozen=True)
class Coworker:
    """What a delegated step needs to know about the agent doing it (resolved configuration,
    no pointer to the Agent itself, like every node's configuration)."""

    role: str
    goal: str
    backstory: str = ""
    llm: Any = None
    tools: tuple[Any, ...] = ()
    max_iter: int = 25
    system_template: str | None = None
    cache: bool = True
    rpm_key: str | None = None
    tool_failure_policy: Any = None
    step_callback: Callable[..., Any] | None = None
    max_retry_limit: int = 2
    max_execution_time: float | None = None

    @classmethod
    def from_agent(cls, agent: Any) -> Coworker:
        """Read an Agent (duck-typed: this layer does not import the spec)."""
        return cls(
            role=agent.role,
            goal=agent.goal,
            backstory=getattr(agent, "backstory", "") or "",
            llm=getattr(agent, "llm", None),
            tools=(*(getattr(agent, "tools", None) or ()), *_mcp_tools(agent)),
            max_iter=getattr(agent, "max_iter", 25),
            system_template=getattr(agent, "system_template", None),
            cache=bool(getattr(agent, "cache", True)),
            rpm_key=f"agent:{agent.id}" if getattr(agent, "max_rpm", None) else None,
            tool_failure_policy=getattr(agent, "tool_failure_policy", None),
            step_callback=getattr(agent, "step_callback", None),
            max_retry_limit=getattr(agent, "max_retry_limit", 2),
            max_execution_time=getattr(agent, "max_execution_time", None),
        )


@dataclass(frozen=True)
class Delegation:
    """One validated delegation: who, what (task or question) and the context given."""

    coworker: Coworker
    request: str
    context: str
    mode: Literal["delegate", "ask"]

    def description(self) -> str:
        """The task text the coworker's step receives."""
        text = self.request.strip()
        if self.context.strip():
            text += f"\n\nContext shared by your coworker:\n{self.context.strip()}"
        return text


def _coworker_validator(roles: dict[str, str], delegator: str | None) -> Callable[[Any, str], str]:
    listing = ", ".join(roles.values())

    def check(cls: Any, value: str) -> str:
        key = normalize_role(value)
        if key in roles:
            return roles[key]
        if delegator is not None and key == normalize_role(delegator):
            raise ValueError(
                f"you cannot delegate to yourself ({delegator}); choose one of your coworkers: {listing}"
            )
        raise ValueError(f"{value!r} is not one of your coworkers; valid coworkers are: {listing}")

    return check


def _args_schema(mode: str, roles: dict[str, str], delegator: str | None) -> type[BaseModel]:
    """``(task | question, context, coworker)`` with the coworker checked against ``roles``."""
    request = "task" if mode == "delegate" else "question"
    what = "The task to delegate" if mode == "delegate" else "The question to ask"
    request_field: Any = Field(
        description=what,
        validation_alias=AliasChoices(request, "task", "question"),
    )
    model: type[BaseModel] = create_model(  # type: ignore[call-overload]
        "DelegateWorkToolSchema" if mode == "delegate" else "AskQuestionToolSchema",
        __config__=ConfigDict(populate_by_name=True),
        __validators__={
            "check_coworker": field_validator("coworker")(classmethod(_coworker_validator(roles, delegator)))
        },
        **{request: (str, request_field)},
        context=(str, Field(default="", description="Everything the coworker needs to know")),
        coworker=(str, Field(description=f"The role of the coworker: one of {', '.join(roles.values())}")),
    )
    return model


class DelegationTool(BaseTool):
    """One of the two delegation tools, bound to the coworkers an agent may use."""

    mode: Literal["delegate", "ask"] = "delegate"
    coworkers: tuple[Coworker, ...] = ()
    delegator: str | None = None

    def resolve(self, arguments: dict[str, Any]) -> Delegation:
        """Validate a model's arguments; ``pydantic.ValidationError`` names what is wrong."""
        kwargs = self.validate_arguments(arguments)
        request = str(kwargs.get("task") or kwargs.get("question") or "")
        role = normalize_role(kwargs["coworker"])
        coworker = next(c for c in self.coworkers if normalize_role(c.role) == role)
        return Delegation(coworker=coworker, request=request, context=str(kwargs.get("context") or ""), mode=self.mode)

    async def _run(self, **kwargs: Any) -> str:
        """Called directly (not from an agent step): run the coworker on its own and answer."""
        from crewgraph.nodes.manager_step import run_delegation

        return await run_delegation(self.resolve(kwargs))


def delegation_tools(
    agents: Sequence[Any], *, delegator: Any = None
) -> list[BaseTool]:
    """The delegate and ask tools for delegating to ``agents`` (never ``delegator`` itself).

    ``delegator`` (the agent that gets the tools) is left out of the coworkers
    even if listed, so delegating to oneself is impossible; two coworkers whose
    roles only differ by case or spacing are a :class:`ConfigurationError`,
    since the model could not tell them apart.
    """
    own_role = getattr(delegator, "role", None) if delegator is not None else None
    own_id = getattr(delegator, "id", None)
    coworkers: list[Coworker] = []
    roles: dict[str, str] = {}
    for agent in agents:
        if own_id is not None and getattr(agent, "id", None) == own_id:
            continue
        key = normalize_role(agent.role)
        if key in roles:
            raise ConfigurationError(
                f"two coworkers share the role {agent.role!r} (roles are compared ignoring case and "
                "spacing); give each agent a distinct role so delegation can name them"
            )
        roles[key] = agent.role
        coworkers.append(Coworker.from_agent(agent))
    if not coworkers:
        return []
    listing = ", ".join(roles.values())
    common = {"coworkers": tuple(coworkers), "delegator": own_role}
    return [
        DelegationTool(
            name=DELEGATE_TOOL_NAME,
            description=_DELEGATE_DESCRIPTION.format(coworkers=listing),
            args_schema=_args_schema("delegate", roles, own_role),
            mode="delegate",
            **common,
        ),
        DelegationTool(
            name=ASK_TOOL_NAME,
            description=_ASK_DESCRIPTION.format(coworkers=listing),
            args_schema=_args_schema("ask", roles, own_role),
            mode="ask",
            **common,
        ),
    ]
