"""``crewgraph create crew|flow NAME``: scaffold a runnable, tested project (CrewAI's layouts).

Templates live in ``crewgraph/cli/templates/<kind>/`` as ``*.tmpl`` files
filled with :class:`string.Template` (``$$package``...), so the ``{topic}``
placeholders of the YAML and the braces of Python pass through untouched.
"""

from __future__ import annotations

import keyword
import re
import string
from importlib import resources
from pathlib import Path
from typing import Annotated

import typer

from crewgraph.cli._errors import UserError, guarded
from crewgraph.cli._options import QuietOpt

__all__ = ["app", "project_names", "scaffold", "scaffold_crew", "scaffold_flow"]

app = typer.Typer(name="create", help="Scaffold a new project.", no_args_is_help=True, add_completion=False)

# template file -> destination (formatted with the project's names), per kind of project
_CREW_FILES = {
    "pyproject.toml.tmpl": "pyproject.toml",
    "README.md.tmpl": "README.md",
    "gitignore.tmpl": ".gitignore",
    "env.tmpl": ".env.example",
    "package_init.py.tmpl": "src/{package}/__init__.py",
    "crew.py.tmpl": "src/{package}/crew.py",
    "main.py.tmpl": "src/{package}/main.py",
    "agents.yaml.tmpl": "src/{package}/config/agents.yaml",
    "tasks.yaml.tmpl": "src/{package}/config/tasks.yaml",
    "empty_init.py.tmpl": "src/{package}/tools/__init__.py",
    "custom_tool.py.tmpl": "src/{package}/tools/custom_tool.py",
    "test_crew.py.tmpl": "tests/test_crew.py",
}
_FLOW_FILES = {
    "pyproject.toml.tmpl": "pyproject.toml",
    "README.md.tmpl": "README.md",
    "gitignore.tmpl": ".gitignore",
    "env.tmpl": ".env.example",
    "package_init.py.tmpl": "src/{package}/__init__.py",
    "main.py.tmpl": "src/{package}/main.py",
    "empty_init.py.tmpl": "src/{package}/crews/__init__.py",
    "poem_crew.py.tmpl": "src/{package}/crews/poem_crew/poem_crew.py",
    "agents.yaml.tmpl": "src/{package}/crews/poem_crew/config/agents.yaml",
    "tasks.yaml.tmpl": "src/{package}/crews/poem_crew/config/tasks.yaml",
    "custom_tool.py.tmpl": "src/{package}/tools/custom_tool.py",
    "test_flow.py.tmpl": "tests/test_flow.py",
}
# CrewAI's default crew layout since 1.15: JSON definitions, no Python (crewgraph/project/json_project.py)
_JSON_CREW_FILES = {
    "pyproject.toml.tmpl": "pyproject.toml",
    "README.md.tmpl": "README.md",
    "gitignore.tmpl": ".gitignore",
    "env.tmpl": ".env",
    "crew.jsonc.tmpl": "crew.jsonc",
    "researcher.jsonc.tmpl": "agents/researcher.jsonc",
    "reporting_analyst.jsonc.tmpl": "agents/reporting_analyst.jsonc",
    "custom_tool.py.tmpl": "tools/custom_tool.py",
    "knowledge_readme.md.tmpl": "knowledge/README.md",
    "test_crew.py.tmpl": "tests/test_crew.py",
}
# the flow's poem_crew and tools packages get an empty __init__.py too
_FLOW_EXTRA_INITS = ("src/{package}/crews/poem_crew/__init__.py", "src/{package}/tools/__init__.py")
_KINDS = {"crew": (_CREW_FILES, ()), "flow": (_FLOW_FILES, _FLOW_EXTRA_INITS), "json_crew": (_JSON_CREW_FILES, ())}


def project_names(name: str) -> dict[str, str]:
    """The folder/package, distribution, class and title names for ``name``, as CrewAI derives them."""
    cleaned = name.strip()
    package = re.sub(r"[\s\-]+", "_", cleaned).lower()
    if not package.isascii() or not package.isidentifier() or keyword.iskeyword(package):
        raise UserError(
            f"cannot make a Python package name from {name!r}: use ASCII letters, digits, spaces, "
            "'-' or '_', not starting with a digit (and not a Python keyword)"
        )
    taken = _shadowed_module(package)
    if taken is not None:
        raise UserError(
            f"a project package named {package!r} would hide {taken} (the project's src/ comes first "
            f"on sys.path); pick another name, e.g. '{package}_crew'"
        )
    words = [w for w in re.split(r"[\s\-_]+", cleaned) if w]
    class_name = "".join(w[:1].upper() + w[1:] for w in words)
    from crewgraph import __version__

    return {
        "name": package.replace("_", "-"),
        "package": package,
        "class_name": class_name if class_name.isidentifier() else f"Crew{class_name}",
        "title": " ".join(w[:1].upper() + w[1:] for w in words),
        "crewgraph_version": __version__,
    }


def _shadowed_module(package: str) -> str | None:
    """What importing ``package`` finds today, if anything: a project package of that name
    would take its place (``src/json`` breaks ``import json``, ``src/crewgraph`` breaks
    crewgraph itself), and the failure would show up far from its cause."""
    import importlib.util
    import sys

    if package == "crewgraph":
        return "crewgraph itself"
    if package in sys.stdlib_module_names or package in sys.builtin_module_names:
        return f"the standard-library module {package!r}"
    try:
        spec = importlib.util.find_spec(package)
    except (ImportError, ValueError):
        return None
    if spec is None or spec.origin in (None, "namespace"):  # a bare folder in the cwd is not a clash
        return None
    return f"the installed module {package!r}"


def _render(kind: str, template: str, names: dict[str, str]) -> str:
    text = (resources.files("crewgraph.cli") / "templates" / kind / template).read_text(encoding="utf-8")
    return string.Template(text).substitute(names)


def scaffold(kind: str, name: str, parent: Path) -> Path:
    """Write a ``kind`` ("crew" or "flow") project named ``name`` under ``parent``; returns its folder."""
    names = project_names(name)
    root = parent / names["package"]
    if root.exists() and (not root.is_dir() or any(root.iterdir())):
        raise UserError(f"{root} already exists and is not empty; pick another name or --path")
    templates, inits = _KINDS[kind]
    files = {dest.format(**names): _render(kind, template, names) for template, dest in templates.items()}
    files.update({dest.format(**names): "" for dest in inits})
    for relative, text in files.items():
        target = root / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    return root


def scaffold_crew(name: str, parent: Path) -> Path:
    """Write a crew project named ``name`` under ``parent``; returns its folder."""
    return scaffold("crew", name, parent)


def scaffold_flow(name: str, parent: Path) -> Path:
    """Write a flow project named ``name`` under ``parent``; returns its folder."""
    return scaffold("flow", name, parent)


NameArg = Annotated[str, typer.Argument(help="Project name, e.g. 'latest ai development' or my_crew.")]
PathOpt = Annotated[Path, typer.Option("--path", "-p", help="Folder to create the project in.", file_okay=False)]


def _created(kind: str, root: Path, quiet: bool, demo: str) -> None:
    if quiet:
        typer.echo(str(root))
        return
    typer.echo(f"Created {kind} project {root.name} in {root}")
    run, demo = f"  {demo}", f"  {demo} --llm fake"
    width = len(demo) + 2
    typer.echo(
        "\nNext (see its README.md; crewgraph must be installed, e.g. pip install /path/to/crewgraph):\n"
        f"  cd {root}\n"
        f"{demo.ljust(width)}# offline demo\n"
        f"{run.ljust(width)}# with OPENAI_API_KEY set (or in .env)\n"
        f"{'  pytest'.ljust(width)}# the FakeLLM test"
    )


@app.command("crew")
@guarded
def crew(
    name: NameArg, path: PathOpt = Path("."), quiet: QuietOpt = False,
    classic: Annotated[bool, typer.Option("--classic", help="The crew.py + config/*.yaml layout instead.")] = False,
) -> None:
    """Create a crew project: crew.jsonc, agents/*.jsonc, tools/, knowledge/ and a FakeLLM test, as
    CrewAI does (with --classic: pyproject, src layout, YAML agents/tasks, main.py, tools/)."""
    root = scaffold_crew(name, path) if classic else scaffold("json_crew", name, path)
    _created("crew", root, quiet, "crewgraph run")


@app.command("flow")
@guarded
def flow(name: NameArg, path: PathOpt = Path("."), quiet: QuietOpt = False) -> None:
    """Create a flow project: main.py with a Flow, crews/<crew>/config/*.yaml, tools/ and a FakeLLM test."""
    _created("flow", scaffold_flow(name, path), quiet, "crewgraph flow kickoff")
