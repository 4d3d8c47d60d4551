"""Find what a command should run: ``MODULE:ATTR``, a file, or the project in the working directory.

``flow.yaml`` (or ``.yml``/``.json``) is a declarative flow definition.
``MODULE:ATTR`` may name a Crew instance, a ``@CrewBase`` class, a function
returning a Crew (or any of these), or a Flow class or instance. ``MODULE``
alone (or ``path/to/file.py``) picks the one crew or flow defined there.
With nothing given, the project in the working directory is used:
``[tool.crewgraph] crew = "pkg.crew:MyCrew"`` (or ``flow = ...``) in
``pyproject.toml``, else ``src/<pkg>/crew.py`` (or ``src/<pkg>/main.py`` for
a flow). ``.`` and ``./src`` are put on ``sys.path`` first, so a scaffolded
project runs without being installed.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from crewgraph.cli._errors import UserError

__all__ = ["Target", "flow_class", "load_target", "names_target", "prepare_project", "project_settings"]

_NO_TARGET = (
    "no crew found: pass MODULE:ATTR (e.g. my_project.crew:MyCrew), or run from a project folder "
    'with pyproject.toml [tool.crewgraph] crew = "..." or src/<package>/crew.py '
    "(create one with `crewgraph create crew NAME`)"
)


@dataclass
class Target:
    """A crew or flow ready to kick off, and where it came from."""

    obj: Any
    kind: str  # "crew" or "flow"
    label: str
    default_inputs: dict[str, Any] = field(default_factory=dict)
    batch_inputs: list[dict[str, Any]] | None = None
    """``[[tool.crewgraph.inputs]]``: a list of inputs dicts, run as a batch (cli/_batch_run.py)."""

    @property
    def name(self) -> str:
        obj = self.obj
        return str(getattr(obj, "flow_name", None) or getattr(obj, "name", None) or type(obj).__name__)


def flow_class() -> type | None:
    """``crewgraph.flow.Flow`` if the flow package is available (imported only when needed)."""
    try:
        from crewgraph.flow import Flow
    except ImportError:
        return None
    return Flow if isinstance(Flow, type) else None


def project_settings(cwd: Path) -> dict[str, Any]:
    """``[tool.crewgraph]`` of ``cwd/pyproject.toml`` ({} when there is none)."""
    path = cwd / "pyproject.toml"
    if not path.is_file():
        return {}
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, OSError, UnicodeDecodeError) as exc:
        raise UserError(f"{path.name}: invalid TOML: {exc}") from None
    settings = data.get("tool", {}).get("crewgraph", {})
    if not isinstance(settings, dict):
        raise UserError(f"{path.name}: [tool.crewgraph] must be a table")
    return settings


def prepare_project(cwd: Path) -> dict[str, Any]:
    """Load ``cwd/.env``, put ``cwd`` and ``cwd/src`` on the path; ``[tool.crewgraph]``."""
    from crewgraph.llm.settings import load_dotenv_file

    load_dotenv_file(cwd)  # the project's .env (MODEL, keys...), as `crewai run` loads it; set variables win
    _extend_sys_path(cwd)
    _crewai_alias()
    return project_settings(cwd)


def _crewai_alias() -> None:
    """``import crewai``/``crewai_tools`` in the project resolve to crewgraph (crewgraph.compat),
    unless the real packages are installed: those are left alone (said after the import)."""
    from crewgraph.compat import install

    install(warn=False)


def _say_if_real_crewai() -> None:
    """A project that imported the real crewai runs on CrewAI, not crewgraph: say so, once."""
    from crewgraph.compat import is_alias

    global _told_real
    module = sys.modules.get("crewai")
    if module is None or is_alias(module) or _told_real:
        return
    _told_real = True
    where = getattr(module, "__file__", None) or "site-packages"
    sys.stderr.write(
        f"note: this project imports the real crewai ({where}), which is installed: its crews are "
        "CrewAI's, not crewgraph's; uninstall crewai (pip uninstall crewai) to run them on crewgraph\n"
    )


_told_real = False


def names_target(settings: dict[str, Any]) -> bool:
    """Whether ``[tool.crewgraph]`` names the object to run (``crew``/``flow``/``entry``)."""
    return any(settings.get(key) is not None for key in _SPEC_KEYS)


def load_target(spec: str | None, cwd: Path | None = None) -> Target:
    """Resolve ``spec`` (or the project in ``cwd``) to a crew or flow object."""
    cwd = (cwd or Path.cwd()).resolve()
    settings = prepare_project(cwd)
    defaults = settings.get("inputs", {})
    batch = None
    if isinstance(defaults, list) and all(isinstance(item, dict) for item in defaults) and defaults:
        batch, defaults = defaults, {}  # [[tool.crewgraph.inputs]] tables: one kickoff per table
    if not isinstance(defaults, dict):
        raise UserError("pyproject.toml: [tool.crewgraph] inputs must be a table of key = value "
                        "(or [[tool.crewgraph.inputs]] tables, one per run of a batch)")
    definition = _json_crew_definition(cwd, spec, settings)
    if definition is not None:
        json_target = _json_crew(definition, defaults)
        json_target.batch_inputs = batch
        return json_target
    if spec is None:
        spec = _default_spec(cwd, settings)
    if spec.endswith((".yaml", ".yml", ".json")):
        return _flow_definition(cwd / spec, spec, defaults)
    module_part, _, attr = spec.partition(":")
    module = _import(module_part, cwd)
    if attr:
        obj = _get_attr(module, attr)
        label = f"{module.__name__}:{attr}"
    else:
        attr = _find_in_module(module)
        obj, label = getattr(module, attr), f"{module.__name__}:{attr}"
    instance, kind = _materialize(obj, label)
    if kind == "crew" and getattr(instance, "_factory_ref", None) is None:
        # Checkpointed runs record how to rebuild the crew (Crew.from_checkpoint needs it).
        instance._factory_ref = label
    return Target(obj=instance, kind=kind, label=label, default_inputs=dict(defaults), batch_inputs=batch)


def _flow_definition(path: Path, spec: str, defaults: dict[str, Any]) -> Target:
    """A declarative flow (``crewgraph run flow.yaml``)."""
    if not path.is_file():
        raise UserError(f"no such file: {spec}")
    from crewgraph.errors import ConfigurationError
    from crewgraph.flow.definition import load_flow

    try:
        cls = load_flow(path)
    except ConfigurationError as exc:
        raise UserError(str(exc)) from None
    return Target(obj=cls(), kind="flow", label=spec, default_inputs=dict(defaults))


def _json_crew_definition(cwd: Path, spec: str | None, settings: dict[str, Any]) -> Path | None:
    """The JSON-first crew (CrewAI's ``crew.jsonc`` + ``agents/``) to run, if that is what is asked:
    ``crewgraph run crew.jsonc`` (any ``.jsonc``, or a file named ``crew.json``), or no target in
    a folder whose pyproject names no crew and that has ``definition = "crew.jsonc"`` in
    ``[tool.crewgraph]`` (or CrewAI's ``[tool.crewai]``), or a ``crew.jsonc``/``crew.json``."""
    if spec is not None:
        path = cwd / spec
        return path if spec.endswith(".jsonc") or path.name == "crew.json" else None
    if any(settings.get(key) is not None for key in ("crew", "flow", "entry")):
        return None
    named = settings.get("definition")
    if named is not None and not isinstance(named, str):
        raise UserError(f'pyproject.toml: [tool.crewgraph] definition must be a file name like "crew.jsonc", got {named!r}')
    named = named or _crewai_definition(cwd)
    if named is not None:
        return cwd / named
    from crewgraph.project.json_project import find_crew_definition

    return find_crew_definition(cwd)


def _crewai_definition(cwd: Path) -> str | None:
    """``[tool.crewai] definition = "crew.jsonc"`` of CrewAI's JSON-first pyproject.toml."""
    try:
        data = tomllib.loads((cwd / "pyproject.toml").read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return None  # project_settings() already reported a bad file
    value = data.get("tool", {}).get("crewai", {}).get("definition")
    if value is not None and not isinstance(value, str):
        raise UserError(f'pyproject.toml: [tool.crewai] definition must be a file name like "crew.jsonc", got {value!r}')
    return value


def _json_crew(path: Path, defaults: dict[str, Any]) -> Target:
    """A JSON-first crew, with its ``inputs`` as defaults (``[tool.crewgraph.inputs]`` win)."""
    from crewgraph.errors import ConfigurationError
    from crewgraph.project.json_project import load_json_crew

    if not path.is_file():
        raise UserError(f"no such file: {path.name}")
    try:
        project = load_json_crew(path, ask_missing_inputs=True)
    except ConfigurationError as exc:
        raise UserError(str(exc)) from None
    label = path.name
    if path.parent == Path.cwd().resolve():  # checkpointed runs rebuild it from the working directory
        project.crew._factory_ref = "crewgraph.project.json_project:crew_in_working_directory"
    return Target(obj=project.crew, kind="crew", label=label, default_inputs={**project.inputs, **defaults})


def _extend_sys_path(cwd: Path) -> None:
    for folder in (cwd, cwd / "src"):
        if folder.is_dir() and str(folder) not in sys.path:
            sys.path.insert(0, str(folder))


_SPEC_KEYS = ("crew", "flow", "entry")


def _default_spec(cwd: Path, settings: dict[str, Any]) -> str:
    for key in _SPEC_KEYS:
        value = settings.get(key)
        if value is not None:
            if not isinstance(value, str) or not value.strip():
                raise UserError(f'pyproject.toml: [tool.crewgraph] {key} must be "module:attr", got {value!r}')
            return value.strip()
    src = cwd / "src"
    for filename in ("crew.py", "main.py"):
        found = sorted(src.glob(f"*/{filename}")) if src.is_dir() else []
        if len(found) > 1:
            names = ", ".join(p.parent.name for p in found)
            raise UserError(f"several packages in src/ have a {filename} ({names}); pass MODULE:ATTR")
        if found:
            return f"{found[0].parent.name}.{filename[:-3]}"
    if (cwd / "crew.py").is_file():
        return "crew"
    raise UserError(_NO_TARGET)


def _module_name_for_file(path: Path) -> tuple[str, Path]:
    """Dotted name of a .py file and the folder to import it from (packages walked up)."""
    parts = [path.stem]
    folder = path.parent
    while (folder / "__init__.py").is_file():
        parts.insert(0, folder.name)
        folder = folder.parent
    return ".".join(parts), folder


def _import(name: str, cwd: Path) -> Any:
    if not name:
        raise UserError("empty module name: use MODULE:ATTR, e.g. my_project.crew:MyCrew")
    if name.endswith(".py") or "/" in name or "\\" in name:
        path = (cwd / name).resolve()
        if not path.is_file():
            raise UserError(f"no such file: {name}")
        name, root = _module_name_for_file(path)
        if str(root) not in sys.path:
            sys.path.insert(0, str(root))
    try:
        module = importlib.import_module(name)
        _say_if_real_crewai()
        return module
    except ModuleNotFoundError as exc:
        if exc.name and (name == exc.name or name.startswith(exc.name + ".")):
            raise UserError(f"cannot import {name!r}: no such module (searched {cwd} and sys.path)") from None
        raise UserError(f"cannot import {name!r}: {exc}") from None
    except SyntaxError as exc:
        where = f"{exc.filename}:{exc.lineno}" if exc.filename else name
        raise UserError(f"cannot import {name!r}: {where}: {exc.msg}") from None
    except UserError:
        raise
    except Exception as exc:
        from crewgraph.cli._errors import describe

        raise UserError(f"cannot import {name!r}: {describe(exc)}") from exc


def _get_attr(module: Any, attr: str) -> Any:
    obj = module
    for part in attr.split("."):
        if not hasattr(obj, part):
            found = _candidates(module)
            hint = f" (found: {', '.join(found)})" if found else ""
            raise UserError(f"{module.__name__} has no attribute {attr!r}{hint}")
        obj = getattr(obj, part)
    return obj


def _candidates(module: Any) -> list[str]:
    """Names in ``module`` that are crews or flows (classes defined there, or instances)."""
    from crewgraph.crew import Crew
    from crewgraph.project import is_crew_class

    flow = flow_class()
    out: list[str] = []
    for name, value in vars(module).items():
        if name.startswith("_"):
            continue
        if isinstance(value, type):
            if getattr(value, "__module__", None) != module.__name__:
                continue
            if is_crew_class(value) or (flow is not None and issubclass(value, flow) and value is not flow):
                out.append(name)
        elif isinstance(value, Crew) or (flow is not None and isinstance(value, flow)):
            out.append(name)
    return out


def _find_in_module(module: Any) -> str:
    found = _candidates(module)
    if len(found) == 1:
        return found[0]
    if not found:
        raise UserError(
            f"no crew found in {module.__name__}: it defines no @CrewBase class, Crew or Flow; "
            f"pass {module.__name__}:ATTR naming one (or a function returning a Crew)"
        )
    raise UserError(f"several crews in {module.__name__} ({', '.join(found)}); pick one with {module.__name__}:NAME")


def _required_params(func: Any) -> list[str]:
    import inspect

    try:
        params = inspect.signature(func).parameters.values()
    except (TypeError, ValueError):
        return []
    return [
        p.name
        for p in params
        if p.default is p.empty and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)
    ]


def _no_arguments_needed(obj: Any, label: str, what: str) -> None:
    """The CLI can only call what takes no arguments; say so instead of a TypeError."""
    required = _required_params(obj)
    if required:
        raise UserError(f"{label} needs arguments ({', '.join(required)}); point at {what} takes none")


def _materialize(obj: Any, label: str, depth: int = 0) -> tuple[Any, str]:
    """Turn what ``label`` names into a Crew or Flow instance."""
    from crewgraph.crew import Crew
    from crewgraph.project import find_crew_method, is_crew_class

    flow = flow_class()
    if isinstance(obj, Crew):
        return obj, "crew"
    if flow is not None and isinstance(obj, flow):
        return obj, "flow"
    if is_crew_class(obj):
        _no_arguments_needed(obj, label, "a @CrewBase class whose __init__")
        return _materialize(obj(), label, depth + 1)
    if is_crew_class(type(obj)):
        return _materialize(getattr(obj, find_crew_method(type(obj)))(), label, depth + 1)
    if flow is not None and isinstance(obj, type) and issubclass(obj, flow):
        _no_arguments_needed(obj, label, "a Flow class whose __init__")
        return obj(), "flow"
    if callable(obj) and not isinstance(obj, type) and depth < 3:
        _no_arguments_needed(obj, label, "a function that")
        return _materialize(obj(), label, depth + 1)
    what = "None" if obj is None else f"a {type(obj).__name__}"
    raise UserError(
        f"{label} is {what}, not a Crew, a @CrewBase class, a function returning a Crew, or a Flow"
    )
