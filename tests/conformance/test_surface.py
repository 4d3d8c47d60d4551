"""CrewAI's public surface at CrewAI's paths: coverage, no regressions, documented imports.

The walk itself is ``surface_check.py`` beside this file (run it directly for the coverage
and ``--missing`` for what is left). The baseline in ``data/baseline.txt`` lists every item
that passed when it was last recorded; an item in it that stops passing fails here. Record
new passing items with ``python tests/conformance/surface_check.py --update-baseline``.
"""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest
import surface_check as sc

from crewgraph._internal import crewai_paths


@pytest.fixture(scope="module")
def result() -> sc.Result:
    return sc.walk()


def test_coverage_is_printed(result: sc.Result, capsys: pytest.CaptureFixture[str]) -> None:
    with capsys.disabled():
        print("\nCrewAI 1.15.30 surface at crewgraph's paths:")
        for line in sc.coverage_lines(result):
            print(line)
    names_ok, names_total = result.count("name")
    assert names_total == 465 and names_ok > 0


def test_nothing_that_passed_stops_passing(result: sc.Result) -> None:
    baseline = sc.read_baseline()
    assert baseline, "data/baseline.txt is missing or empty"
    regressed = {item: result.failed.get(item, "no longer in the surface walk")
                 for item in sorted(baseline - result.passed)}
    assert not regressed, "items of CrewAI's surface that passed before fail now:\n" + "\n".join(
        f"  {item}: {why}" for item, why in regressed.items())


def test_every_documented_crewai_import_resolves_or_is_declared_absent(result: sc.Result) -> None:
    pending = sc.read_pending()
    unexplained = []
    for imp in sc.documented_imports():
        item = f"import {imp['module']}:{imp['name']}"
        if item in result.passed or item in pending:
            continue
        if sc.absent_reason(imp["module"], imp["name"]) is None:
            unexplained.append(f"  {item}: {result.failed.get(item)}")
    assert not unexplained, ("documented CrewAI imports that neither resolve nor are declared absent "
                             "(crewgraph/_internal/crewai_paths.py ABSENT):\n" + "\n".join(unexplained))


def _absent_items() -> list[tuple[str, str | None, str]]:
    items: list[tuple[str, str | None, str]] = [
        (module, name, why) for module, names in crewai_paths.ABSENT.items() for name, why in names.items()]
    items += [(module, None, why) for module, why in crewai_paths.ABSENT_MODULES.items()]
    return items


@pytest.mark.parametrize(("module", "name", "why"), _absent_items())
def test_an_absent_name_raises_import_error_saying_why(module: str, name: str | None, why: str) -> None:
    code = (f"from {module} import {name}" if name else f"import {module}")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode != 0, f"{code!r} succeeded, but the table declares it absent"
    last = proc.stderr.strip().splitlines()[-1]
    assert last.startswith(("ImportError", "ModuleNotFoundError")) and why in last, last
    porting = sc.PORTING.read_text(encoding="utf-8")
    theirs, ours = max(((c, g) for c, g in crewai_paths.PACKAGES.items() if module == g or module.startswith(g + ".")),
                       key=lambda pair: len(pair[1]))  # crewgraph.toolkit is crewai_tools, the rest crewai
    crewai_name = theirs + module[len(ours):] + (f".{name}" if name else "")
    assert f"`{crewai_name}`" in porting, f"docs/porting.md does not list {crewai_name} as absent"


def test_every_table_entry_resolves() -> None:
    """Each name the path table serves imports at its path and is the object it points at."""
    from crewgraph._internal.facade import resolve_target, table_names

    broken = []
    for module in crewai_paths.PATHS:
        mod = importlib.import_module(module)
        for name, where in table_names(module).items():
            try:
                if getattr(mod, name) is not resolve_target(where, name):
                    broken.append(f"{module}.{name}: not {where}")
            except Exception as err:  # any failure is the finding
                broken.append(f"{module}.{name} -> {where}: {type(err).__name__}: {err}")
    assert not broken, "\n".join(broken)


# -- the checker's own rules, on small examples ------------------------------------------------

def _sig(text: str) -> list[sc.Param]:
    parsed = sc.parse_signature(text)
    assert parsed is not None
    return parsed


@pytest.mark.parametrize(("theirs", "ours", "ok"), [
    ("(task, context=None, tools=None)", "(task, context=None, tools=None, extra=1)", True),
    ("(task, context=None, tools=None)", "(task, tools=None, context=None)", False),
    ("(task, context=None)", "(task)", False),
    ("(task, context=None)", "(task, context)", False),
    ("(task)", "(task, must)", False),
    ("(*, agents=None)", "(agents=None)", True),
    ("(*, agents=None)", "(**kwargs)", True),
    ("(*triggers)", "(a)", False),
    ("(content, **kwargs)", "(content, **kw)", True),
    ("(x: <class 'int'> = 3) -> 'int'", "(x=3)", True),
])
def test_signature_rule(theirs: str, ours: str, ok: bool) -> None:
    assert (sc.compare_params(_sig(theirs), _sig(ours)) == "") is ok
