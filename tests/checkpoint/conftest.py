"""The store conformance fixture: a test taking ``store_location`` runs on SQLite and on PostgreSQL.

``sqlite`` is a fresh file under the test's tmp dir; ``postgres`` a fresh schema on the
session's real PostgreSQL server (tests/conftest.py), so the same assertions hold for both
stores (skipped, saying why, where PostgreSQL is not installed).
"""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(params=["sqlite", "postgres"])
def store_location(request: pytest.FixtureRequest, tmp_path: Path) -> Path | str:
    if request.param == "sqlite":
        return tmp_path / "cp" / "checkpoints.db"
    url: str = request.getfixturevalue("postgres_store_url")
    return url
