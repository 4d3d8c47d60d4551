"""Resource requests as data (``Task(resources=...)``, a tool's ``resources``): checked once.

A request is a mapping of resource name to amount, as Ray schedules them:
``{"GPU": 1}``, ``{"CPU": 2}``, ``{"memory": 2e9}`` (bytes) or a custom resource a
node was started with (``ray start --resources='{"vision": 1}'``). Local runs do not
use them; a Ray run places the step on a node that has them.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

__all__ = ["check_resources"]


def check_resources(what: str, resources: Any) -> dict[str, float]:
    """``resources`` as ``{name: amount}``, or a ValueError naming ``what`` and the bad entry."""
    if resources is None:
        return {}
    if not isinstance(resources, Mapping):
        raise ValueError(f"{what}: resources must be a mapping of name to amount, got {resources!r}")
    out: dict[str, float] = {}
    for name, amount in resources.items():
        if not isinstance(name, str) or not name.strip():
            raise ValueError(f"{what}: resource names must be non-empty strings, got {name!r}")
        if isinstance(amount, bool) or not isinstance(amount, int | float) or not math.isfinite(amount) or amount < 0:
            raise ValueError(f"{what}: resource {name!r} must be a non-negative number, got {amount!r}")
        out[name] = float(amount)
    return out
