"""import_extra: an optional dependency is imported, or the error names the extra to install."""

from __future__ import annotations

import sys

import pytest

from crewgraph._internal.extras import import_extra
from crewgraph.errors import ConfigurationError, MissingExtraError


def test_an_installed_module_is_returned() -> None:
    assert import_extra("json", "tools", "Reading JSON") is sys.modules["json"]


def test_a_missing_module_names_the_extra() -> None:
    with pytest.raises(MissingExtraError) as info:
        import_extra("crewgraph_no_such_module", "tools", "Reading PDF files")
    err = info.value
    assert isinstance(err, ConfigurationError) and isinstance(err, ImportError)
    assert str(err) == (
        "Reading PDF files needs the optional package 'crewgraph_no_such_module': "
        "pip install 'crewgraph[tools]'"
    )
    assert (err.extra, err.module) == ("tools", "crewgraph_no_such_module")


def test_a_broken_installed_module_shows_its_own_error(tmp_path: object, monkeypatch: pytest.MonkeyPatch) -> None:
    from pathlib import Path

    root = Path(str(tmp_path))
    (root / "cg_broken_pkg.py").write_text("import cg_missing_dependency_of_it\n")
    monkeypatch.syspath_prepend(str(root))
    with pytest.raises(ModuleNotFoundError, match="cg_missing_dependency_of_it"):
        import_extra("cg_broken_pkg", "tools", "Something")
