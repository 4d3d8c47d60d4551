"""``crewgraph create crew NAME``: scaffold a runnable, tested project.

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

__all__ = ["app", "project_names", "scaffold_crew"]

app = typer.Typer(name="create", help="Scaffold a new project.", no_args_is_help=True, add_completion=False)

# template file -> destination (formatted with the project's names)
_CREW_FILES = {
    "pyproject.toml.tmpl": "pyproject.toml",
    "README.md.tmpl": "README.md",
    "gitignore.tmpl": ".gitignore",
    "package_init.py.tmpl": "src/{package}/__init__.py",
    "crew.py.tmpl": "src/{package}/crew.py",
    "main.py.tmpl": "src/{package}/main.py",
    "agents.yaml.tmpl": "src/{package}/config/agents.yaml",
    "tasks.yaml.tmpl": "src/{package}/config/tasks.yaml",
    "test_crew.py.tmpl": "tests/test_crew.py",
}


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


def scaffold_crew(name: str, parent: Path) -> Path:
    """Write a crew project named ``name`` under ``parent``; returns its folder."""
    names = project_names(name)
    root = parent / names["package"]
    if root.exists() and (not root.is_dir() or any(root.iterdir())):
        raise UserError(f"{root} already exists and is not empty; pick another name or --path")
    files = {dest.format(**names): _render("crew", template, names) for template, dest in _CREW_FILES.items()}
    for relative, text in files.items():
        target = root / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    return root


@app.command("crew")
@guarded
def crew(
    name: Annotated[str, typer.Argument(help="Project name, e.g. 'latest ai development' or my_crew.")],
    path: Annotated[
        Path, typer.Option("--path", "-p", help="Folder to create the project in.", file_okay=False)
    ] = Path("."),
) -> None:
    """Create a crew project: pyproject, src layout, YAML agents/tasks, main.py and a FakeLLM test."""
    root = scaffold_crew(name, path)
    package = root.name
    typer.echo(f"Created crew project {package} in {root}")
    typer.echo(
        f"\nNext:\n  cd {root}\n  crewgraph run --llm fake     # offline demo\n"
        "  crewgraph run                # with OPENAI_API_KEY set\n  pytest                       # FakeLLM test"
    )
