"""One model for the whole process: ``--llm`` / ``CREWGRAPH_LLM`` replace every model.

``crewgraph run main.py --llm fake`` must not spend a token, whatever the script
does: its crews' agents, a manager, a planner, memory analysis, and the script's
own ``LLM(...)`` or model strings. So the replacement is applied where models are
*called*, not where they are configured: every model turn a node makes
(``nodes/_llm_call``) and every call of an ``LLM`` client (a script's own
``llm.call(...)``) go to the override while one is active.

The override is ``$CREWGRAPH_LLM`` ("fake" for the demo model of
:mod:`crewgraph.testing.demo_model`, else a model name), or what
:func:`overriding` sets for a block (the command line sets ``--llm`` so).
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Iterator
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from crewgraph.llm.base import BaseLLM

__all__ = ["LLM_ENV", "build_override", "model_override", "overriding"]

LLM_ENV = "CREWGRAPH_LLM"

_lock = threading.Lock()
_active: list[BaseLLM] = []  # set by overriding(); innermost last
_from_env: dict[str, BaseLLM] = {}  # one model per value of $CREWGRAPH_LLM seen


def build_override(spec: str) -> BaseLLM:
    """The model ``spec`` names: "fake" is the demo model, anything else ``LLM(model=spec)``."""
    spec = spec.strip()
    if not spec:
        raise ValueError(f"{LLM_ENV}/--llm: a model name or 'fake' is needed, got an empty value")
    if spec.lower() == "fake":
        from crewgraph.testing.demo_model import demo_model

        return demo_model()
    from crewgraph.llm.openai_llm import LLM

    return LLM(model=spec)


def model_override() -> BaseLLM | None:
    """The model every call goes to instead of its own, if one is set (else None)."""
    if _active:
        return _active[-1]
    spec = os.environ.get(LLM_ENV, "").strip()
    if not spec:
        return None
    with _lock:
        model = _from_env.get(spec)
        if model is None:
            model = _from_env[spec] = build_override(spec)
        return model


@contextlib.contextmanager
def overriding(spec: str | BaseLLM | None) -> Iterator[BaseLLM | None]:
    """Within the block every model call goes to ``spec`` (None: only ``$CREWGRAPH_LLM``'s)."""
    if spec is None or (isinstance(spec, str) and not spec.strip()):
        yield model_override()
        return
    model = build_override(spec) if isinstance(spec, str) else spec
    with _lock:
        _active.append(model)
    try:
        yield model
    finally:
        with _lock:
            _active.remove(model)
