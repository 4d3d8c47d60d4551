"""Bounds on YAML a user points crewgraph at (agents/tasks configs, flow definitions).

YAML aliases let a few hundred bytes stand for billions of values (a nine-level
"alias bomb" in agents.yaml exhausted memory, then died with a traceback). A
config is refused, with one line, when the file is larger than
:data:`MAX_CONFIG_BYTES` or its node tree, aliases expanded, holds more than
:data:`MAX_CONFIG_NODES` values. Both checks run before anything is constructed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from crewgraph.errors import ConfigurationError

__all__ = ["MAX_CONFIG_BYTES", "MAX_CONFIG_NODES", "check_expansion", "read_bounded"]

MAX_CONFIG_BYTES = 5 * 1024 * 1024
"""Largest config file read (real ones are a few kilobytes)."""

MAX_CONFIG_NODES = 100_000
"""Most YAML values (mappings, sequences, scalars) a config may expand to, aliases expanded."""


def read_bounded(path: Path, shown: str, what: str, limit: int | None = None) -> str:
    """The UTF-8 text of ``path``, read no further than ``limit`` (default MAX_CONFIG_BYTES) bytes."""
    limit = MAX_CONFIG_BYTES if limit is None else limit
    try:
        with path.open("rb") as fh:
            raw = fh.read(limit + 1)
        if len(raw) > limit:
            raise ConfigurationError(
                f"{shown}: {what} is larger than {limit} bytes; a config holds definitions, not "
                "data (load large text from files or knowledge)"
            )
        return raw.decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigurationError(f"{shown}: cannot read {what}: {exc}") from exc


def check_expansion(root: Any, shown: str, what: str, limit: int | None = None) -> None:
    """Refuse a composed YAML node tree that expands (through aliases, which share nodes)
    past ``limit`` values. Sizes are memoised per node: one pass over the composed tree,
    however large its expansion would be."""
    import yaml

    limit = MAX_CONFIG_NODES if limit is None else limit
    sizes: dict[int, int] = {}
    stack: list[tuple[Any, bool]] = [(root, False)]
    while stack:
        node, children_done = stack.pop()
        if id(node) in sizes:
            continue
        if isinstance(node, yaml.ScalarNode):
            sizes[id(node)] = 1
            continue
        children: list[Any] = (
            [n for pair in node.value for n in pair] if isinstance(node, yaml.MappingNode) else list(node.value)
        )
        if not children_done:
            stack.append((node, True))
            stack.extend((c, False) for c in children if id(c) not in sizes)
            continue
        total = 1 + sum(sizes.get(id(c), 1) for c in children)
        if total > limit:
            raise ConfigurationError(
                f"{shown}:{node.start_mark.line + 1}: {what} expands to more than {limit} values "
                "through YAML aliases (an alias bomb?); write the values out instead of nesting aliases"
            )
        sizes[id(node)] = total
