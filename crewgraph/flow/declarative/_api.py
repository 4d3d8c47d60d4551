"""``Flow.flow_definition()`` and ``Flow.from_declaration(...)`` (mixed into Flow; imports lazily)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from crewgraph.flow.flow_definition import FlowDefinition

__all__ = ["DeclarativeMixin"]


class DeclarativeMixin:
    """The two ends of CrewAI's declarative format on every Flow class."""

    @classmethod
    def flow_definition(cls) -> FlowDefinition:
        """This flow as a ``crewai.flow/v1`` definition (a declared flow: the one it was built
        from; a Python flow: its methods as ``code`` actions referring to them)."""
        from crewgraph.flow.declarative.build import definition_of_class

        return definition_of_class(cls)

    @classmethod
    def from_declaration(
        cls,
        *,
        contents: FlowDefinition | str | dict[str, Any] | None = None,
        path: Path | str | None = None,
        **kwargs: Any,
    ) -> Any:
        """A flow built from a ``crewai.flow/v1`` document -- ``path`` (YAML or JSON file) or
        ``contents`` (text, a dict or a FlowDefinition) -- compiled like a Python flow;
        ``kwargs`` go to the flow's constructor (``persistence=``, initial state values...)."""
        from crewgraph.flow.declarative.build import flow_class_from_definition
        from crewgraph.flow.declarative.loading import read_definition

        definition = read_definition(contents=contents, path=path)
        return flow_class_from_definition(definition, base=cls)(**kwargs)
