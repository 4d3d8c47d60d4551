"""Global hooks are process-wide: every test here starts and ends with none."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from crewgraph.hooks import clear_all_global_hooks


@pytest.fixture(autouse=True)
def _no_global_hooks() -> Iterator[None]:
    clear_all_global_hooks()
    yield
    clear_all_global_hooks()
