"""Load ``agents.yaml``/``tasks.yaml`` keeping where every key is, for errors with file:line.

PyYAML's ``safe_load`` throws the positions away; we compose the node tree
(which carries marks) and construct the data from that same tree, so a bad
reference three screens down a tasks file is reported as
``config/tasks.yaml:41: task 'write_task', key 'agent': ...``.

Limits: a config file is at most :data:`MAX_CONFIG_BYTES` and its node tree,
with every alias expanded, at most :data:`MAX_CONFIG_NODES` values. YAML
aliases let a few hundred bytes stand for billions of values (a nine-level
"alias bomb" exhausted memory); such a file is refused with one line.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from crewgraph._internal.yaml_limits import (
    MAX_CONFIG_BYTES,
    MAX_CONFIG_NODES,
    check_expansion,
    read_bounded,
)
from crewgraph.errors import ConfigurationError

__all__ = ["MAX_CONFIG_BYTES", "MAX_CONFIG_NODES", "ConfigFile", "display_path", "load_config_file"]

KeyPath = tuple[Any, ...]


def display_path(path: Path) -> str:
    """``path`` relative to the working directory when it is below it (shorter errors)."""
    try:
        return os.path.relpath(path) if path.resolve().is_relative_to(Path.cwd().resolve()) else str(path)
    except (OSError, ValueError):
        return str(path)


@dataclass
class ConfigFile:
    """One YAML config: ``{entry_name: {key: value}}`` plus each key's line.

    ``kind`` is ``"agent"`` or ``"task"`` (for messages); ``path`` is None for
    a config given as a dict in code (then no lines are known).
    """

    kind: str
    path: Path | None
    data: dict[str, dict[str, Any]] = field(default_factory=dict)
    lines: dict[KeyPath, int] = field(default_factory=dict)
    exists: bool = True

    def where(self, *keys: Any) -> str:
        """``file:line`` of the deepest known key of ``keys`` (``file`` alone if none)."""
        if self.path is None:
            return f"{self.kind}s config"
        name = display_path(self.path)
        for end in range(len(keys), 0, -1):
            line = self.lines.get(tuple(keys[:end]))
            if line is not None:
                return f"{name}:{line}"
        return name

    def error(self, entry: str, key: str | None, message: str, index: int | None = None) -> ConfigurationError:
        """A ConfigurationError naming the file, the line, the entry and the key."""
        keys: tuple[Any, ...] = (entry,) if key is None else (entry, key)
        if key is not None and index is not None:
            keys = (*keys, index)
        what = f"{self.kind} {entry!r}" + (f", key {key!r}" if key is not None else "")
        return ConfigurationError(f"{self.where(*keys)}: {what}: {message}")


def load_config_file(path: Path, kind: str) -> ConfigFile:
    """Parse ``path``; a missing file gives an empty config with ``exists=False``."""
    if not path.is_file():
        return ConfigFile(kind=kind, path=path, exists=False)
    text = read_bounded(path, display_path(path), f"{kind}s config", MAX_CONFIG_BYTES)
    loader = yaml.SafeLoader(text)
    try:
        node = loader.get_single_node()
        if node is not None:
            check_expansion(node, display_path(path), f"{kind}s config", MAX_CONFIG_NODES)
        data = loader.construct_document(node) if node is not None else None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = f"{display_path(path)}:{mark.line + 1}" if mark is not None else display_path(path)
        problem = " ".join(str(exc.problem or exc.context or "invalid YAML").split())
        raise ConfigurationError(f"{where}: invalid YAML: {problem}") from None
    except yaml.YAMLError as exc:
        raise ConfigurationError(f"{display_path(path)}: invalid YAML: {exc}") from None
    finally:
        loader.dispose()
    config = ConfigFile(kind=kind, path=path)
    if node is not None:
        _record_lines(node, (), config.lines, config)
    config.data = _check_shape(data, config)
    return config


def config_from_dict(data: Any, kind: str) -> ConfigFile:
    """A config given in code (``agents_config = {...}``) instead of a file."""
    config = ConfigFile(kind=kind, path=None)
    config.data = _check_shape(data, config)
    return config


def _record_lines(node: yaml.Node, path: KeyPath, lines: dict[KeyPath, int], config: ConfigFile) -> None:
    if isinstance(node, yaml.MappingNode):
        seen: set[Any] = set()
        for key_node, value_node in node.value:
            key = key_node.value if isinstance(key_node, yaml.ScalarNode) else str(key_node.value)
            line = key_node.start_mark.line + 1
            if key in seen:
                where = f"{display_path(config.path)}:{line}" if config.path else "config"
                raise ConfigurationError(f"{where}: duplicate key {key!r}" + (f" in {path[0]!r}" if path else ""))
            seen.add(key)
            lines[(*path, key)] = line
            _record_lines(value_node, (*path, key), lines, config)
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            lines[(*path, i)] = item.start_mark.line + 1
            _record_lines(item, (*path, i), lines, config)


def _check_shape(data: Any, config: ConfigFile) -> dict[str, dict[str, Any]]:
    """The file must map entry names to mappings of fields."""
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ConfigurationError(
            f"{config.where()}: a {config.kind}s config must map {config.kind} names to their "
            f"fields, got a {type(data).__name__}"
        )
    out: dict[str, dict[str, Any]] = {}
    for name, entry in data.items():
        if not isinstance(name, str):
            raise ConfigurationError(f"{config.where(name)}: {config.kind} names must be strings, got {name!r}")
        if not isinstance(entry, dict):
            got = "nothing" if entry is None else f"a {type(entry).__name__}"
            fields = "role, goal, backstory" if config.kind == "agent" else "description, expected_output"
            raise config.error(name, None, f"expected a mapping of fields ({fields}, ...), got {got}")
        for key in entry:
            if not isinstance(key, str):
                raise config.error(name, None, f"field names must be strings, got {key!r}")
        out[name] = dict(entry)
    return out
