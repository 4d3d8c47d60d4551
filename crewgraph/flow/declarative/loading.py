"""Reading ``crewai.flow/v1`` documents: YAML or JSON text, a file, or data, into a FlowDefinition.

Every mistake is one :class:`~crewgraph.errors.ConfigurationError` naming the
file, the line and the key (``flow.yaml:31: methods.route_followup.do.call:
unknown call 'agnt' ...``): the YAML node tree gives each key's line, and a
pydantic error's location is walked through the document (union tags it
carries are dropped). A document whose ``schema`` is not ``crewai.flow/v1``
is refused as an unknown format, naming that key.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import ValidationError

from crewgraph.errors import ConfigurationError
from crewgraph.flow.expressions import ExpressionError
from crewgraph.flow.flow_definition import SCHEMA, FlowDefinition, check_expressions

__all__ = ["Where", "looks_like_crewai", "parse_definition", "read_definition", "read_document"]


class Where:
    """``file:line`` of keys in a document (lines known only for text read here)."""

    def __init__(self, path: str, lines: Any = None) -> None:
        self.path = path
        self.lines = lines

    def at(self, keys: tuple[Any, ...]) -> str:
        return self.lines.where(*keys) if self.lines is not None else self.path

    def fail(self, keys: tuple[Any, ...], message: str) -> ConfigurationError:
        shown = _dotted(keys)
        return ConfigurationError(f"{self.at(keys)}: {shown + ': ' if shown else ''}{message}")


def _dotted(keys: tuple[Any, ...]) -> str:
    out = ""
    for key in keys:
        out += f"[{key}]" if isinstance(key, int) else (f".{key}" if out else str(key))
    return out


def read_document(text: str, path: str) -> tuple[Any, Where]:
    """Parse YAML (JSON is YAML) with each key's line; invalid text names its line."""
    from crewgraph.flow.definition import _read

    data, lines = _read(text, path)
    return data, Where(path, lines)


def looks_like_crewai(data: Any) -> bool:
    """Whether a mapping is a ``crewai.flow/v1`` document (or meant to be one): it names a
    ``schema``, or a method has a ``do`` action (crewgraph's older shorthand never does)."""
    if not isinstance(data, dict):
        return False
    if "schema" in data:
        return True
    methods = data.get("methods")
    return isinstance(methods, dict) and any(isinstance(m, dict) and "do" in m for m in methods.values())


def read_definition(
    *, contents: FlowDefinition | str | dict[str, Any] | None = None, path: Path | str | None = None
) -> FlowDefinition:
    """The definition in ``path`` or ``contents`` (exactly one of them)."""
    if (contents is None) == (path is None):
        raise ValueError("give exactly one of contents=... or path=...")
    if isinstance(contents, FlowDefinition):
        return contents
    if isinstance(contents, dict):
        return parse_definition(contents, Where("<flow definition>"))
    if contents is not None:
        if not isinstance(contents, str):
            raise TypeError(f"contents must be YAML/JSON text, a dict or a FlowDefinition, got {type(contents).__name__}")
        data, where = read_document(contents, "<flow definition>")
        return parse_definition(data, where)
    from crewgraph._internal.yaml_limits import read_bounded

    file = Path(str(path)).expanduser()
    if not file.is_file():
        raise ConfigurationError(f"no such flow definition: {file}")
    data, where = read_document(read_bounded(file, str(file), "the flow definition"), str(file))
    definition = parse_definition(data, where)
    definition.__dict__["_source_path"] = str(file.resolve())
    definition.__dict__["_lines"] = where.lines  # a persisted run records the file to load again
    return definition


def parse_definition(data: Any, where: Where | str) -> FlowDefinition:
    """Validate parsed data as a ``crewai.flow/v1`` definition."""
    if isinstance(where, str):
        where = Where(where)
    if not isinstance(data, dict):
        raise ConfigurationError(f"{where.path}: a flow definition is a mapping with schema, name and methods")
    schema = data.get("schema", SCHEMA)
    if schema != SCHEMA:
        raise where.fail(("schema",), f"unknown flow definition format {schema!r}: crewgraph reads {SCHEMA!r} "
                                       "(CrewAI's declarative flows); fix or remove the schema key")
    try:
        definition = FlowDefinition.model_validate(data)
    except ValidationError as exc:
        raise _explain(exc, data, where) from None
    try:
        check_expressions(definition)
    except ExpressionError as exc:
        keys = tuple(getattr(exc, "keys", ()))
        raise ConfigurationError(f"{where.at(keys)}: {exc}") from None
    definition.__dict__["_where"] = where
    return definition


def _explain(exc: ValidationError, data: Any, where: Where) -> ConfigurationError:
    err = exc.errors()[0]
    keys: list[Any] = []
    node = data
    loc = list(err["loc"])
    for i, part in enumerate(loc):
        if isinstance(node, dict) and part in node:
            node = node[part]
            keys.append(part)
        elif isinstance(node, dict) and part == "with_" and "with" in node:
            node = node["with"]
            keys.append("with")
        elif isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node):
            node = node[part]
            keys.append(part)
        elif i == len(loc) - 1 and err["type"] == "missing":
            keys.append(part)
    message = str(err["msg"])
    kind = err["type"]
    if kind == "union_tag_invalid":
        tags = (err.get("ctx") or {}).get("expected_tags", "")
        found = node.get("call") if isinstance(node, dict) else node
        keys.append("call")
        message = f"unknown call {found!r} (one of: {tags})"
    elif kind == "extra_forbidden":
        message = "unknown key (not part of the crewai.flow/v1 format)"
    elif kind == "missing":
        message = "required key is missing"
    elif message.startswith("Value error, "):
        message = message[len("Value error, "):]
    return ConfigurationError(f"{where.at(tuple(keys))}: {_dotted(tuple(keys)) or 'definition'}: {message}")
