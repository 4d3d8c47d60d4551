"""What a JSON-first project's values name: tools, models and ``{"python": "module.attribute"}``.

As in CrewAI, a ``tools`` entry is the name of a ready-made tool
(``"SerperDevTool"``, ``"serper_dev"``; here from ``crewgraph.toolkit``),
``"custom:<name>"`` (the tool class defined in the project's
``tools/<name>.py``), ``"module:Class"``, or ``{"python": "module.attr"}``. A
``{"python": ...}`` reference elsewhere (callbacks, guardrails, output models,
knowledge sources...) is the module attribute itself. Python references must
point into the project folder, as CrewAI requires: a JSON project runs its own
code, not whatever module happens to be importable. Every failure names the
file and the line of the reference.
"""

from __future__ import annotations

import difflib
import importlib
import importlib.util
import re
import sys
from pathlib import Path
from typing import Any

from crewgraph.errors import ConfigurationError
from crewgraph.project._jsonc import JsoncDocument

__all__ = ["RefContext", "is_python_ref"]

PYTHON_KEY = "python"
_CUSTOM_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_MAX_DEPTH = 64


def is_python_ref(value: Any) -> bool:
    return isinstance(value, dict) and PYTHON_KEY in value


class RefContext:
    """Resolves references of one file (``doc``) of the project at ``root``."""

    def __init__(self, doc: JsoncDocument, root: Path, what: str) -> None:
        self.doc = doc
        self.root = root
        self.what = what  # "agent 'researcher'", "task 'research_task'", "crew"

    def fail(self, keys: tuple[Any, ...], field: str | None, message: str) -> ConfigurationError:
        about = self.what + (f", field {field!r}" if field else "")
        return ConfigurationError(f"{self.doc.where(*keys)}: {about}: {message}")

    # -- {"python": "module.attribute"} ------------------------------------------------
    def python(self, value: Any, keys: tuple[Any, ...], field: str) -> Any:
        if not isinstance(value, dict) or set(value) != {PYTHON_KEY}:
            raise self.fail(keys, field, 'a Python reference is an object with one key: {"python": "module.attribute"}')
        path = value[PYTHON_KEY]
        if not isinstance(path, str) or "." not in path.strip() or not all(
            p.isidentifier() for p in path.strip().split(".")
        ):
            raise self.fail(keys, field, f"Python reference {path!r} must be a dotted path like 'module.attribute'")
        module_name, _, attr = path.strip().rpartition(".")
        module = self._project_module(module_name, keys, field)
        if not hasattr(module, attr):
            names = [n for n in vars(module) if not n.startswith("_")]
            close = difflib.get_close_matches(attr, names, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise self.fail(keys, field, f"{module_name} has no attribute {attr!r}{hint}")
        return getattr(module, attr)

    def _project_module(self, name: str, keys: tuple[Any, ...], field: str) -> Any:
        rel = Path(*name.split("."))
        if not any((self.root / c).is_file() for c in (rel.with_suffix(".py"), rel / "__init__.py")):
            raise self.fail(
                keys, field,
                f"Python references must point to modules inside the project folder; no {rel}.py "
                f"or {rel}/__init__.py under {self.root}",
            )
        root = str(self.root)
        if root not in sys.path:
            sys.path.insert(0, root)
        try:
            module = importlib.import_module(name)
        except Exception as exc:  # the project's own code failed to import
            raise self.fail(keys, field, f"cannot import {name!r}: {type(exc).__name__}: {exc}") from None
        file = getattr(module, "__file__", None)
        if not file or not Path(file).resolve().is_relative_to(self.root.resolve()):
            raise self.fail(
                keys, field,
                f"{name!r} imports {file or 'a built-in module'}, not the module in the project folder "
                "(another installed module of that name comes first on sys.path)",
            )
        return module

    def callable_ref(self, value: Any, keys: tuple[Any, ...], field: str) -> Any:
        found = self.python(value, keys, field)
        if not callable(found):
            raise self.fail(keys, field, f"{value[PYTHON_KEY]!r} is not callable")
        return found

    def model_ref(self, value: Any, keys: tuple[Any, ...], field: str) -> Any:
        if not is_python_ref(value):
            if value is None:
                return None
            raise self.fail(keys, field, 'expected {"python": "module.Model"} naming a pydantic model')
        from pydantic import BaseModel

        found = self.python(value, keys, field)
        if not (isinstance(found, type) and issubclass(found, BaseModel)):
            raise self.fail(keys, field, f"{value[PYTHON_KEY]!r} is not a pydantic model class")
        return found

    def resolve_all(self, value: Any, keys: tuple[Any, ...], field: str, depth: int = 0) -> Any:
        """``value`` with every ``{"python": ...}`` inside it replaced by what it names."""
        if depth > _MAX_DEPTH:
            raise self.fail(keys, field, "nested too deeply")
        if is_python_ref(value):
            return self.python(value, keys, field)
        if isinstance(value, list):
            return [self.resolve_all(v, (*keys, i), field, depth + 1) for i, v in enumerate(value)]
        if isinstance(value, dict):
            return {k: self.resolve_all(v, (*keys, k), field, depth + 1) for k, v in value.items()}
        return value

    # -- llm ----------------------------------------------------------------------------
    def llm(self, value: Any, keys: tuple[Any, ...], field: str) -> Any:
        """A model name stays a name (as in CrewAI); the object form becomes an ``LLM``."""
        if value is None or isinstance(value, str):
            return value
        if is_python_ref(value):
            return self.python(value, keys, field)
        if not isinstance(value, dict):
            raise self.fail(keys, field, f"expected a model name like 'openai/gpt-4o' or an object, got {value!r}")
        spec = dict(value)
        if "deployment_name" in spec:
            raise self.fail(
                keys, field,
                "deployment_name (Azure deployments) is a CrewAI LLM field crewgraph does not support; "
                'use {"model": ..., "base_url": ..., "api_version": ...} (see docs/porting.md)',
            )
        model = spec.pop("model", None)
        if not isinstance(model, str) or not model:
            raise self.fail(keys, field, "an llm object needs \"model\": \"provider/model-id\"")
        provider = spec.pop("provider", None)
        if provider is not None:
            if not isinstance(provider, str):
                raise self.fail(keys, field, f"provider must be a string, got {provider!r}")
            if not model.startswith(provider + "/"):
                model = f"{provider}/{model}"
        from crewgraph import LLM

        try:
            return LLM(model=model, **spec)
        except (TypeError, ValueError) as exc:
            raise self.fail(keys, field, f"invalid llm: {exc}") from None

    # -- tools --------------------------------------------------------------------------
    def tools(self, value: Any, keys: tuple[Any, ...]) -> list[Any]:
        if not isinstance(value, list):
            raise self.fail(keys, "tools", "expected a list of tool names")
        return [self._tool(ref, (*keys, i)) for i, ref in enumerate(value)]

    def _tool(self, ref: Any, keys: tuple[Any, ...]) -> Any:
        from crewgraph.tools import coerce_tool

        if is_python_ref(ref):
            return self._as_tool(self.python(ref, keys, "tools"), str(ref[PYTHON_KEY]), keys)
        if isinstance(ref, dict):
            try:
                return coerce_tool(ref)
            except (TypeError, ValueError) as exc:
                raise self.fail(keys, "tools", f"invalid tool object: {exc}") from None
        if not isinstance(ref, str) or not ref.strip():
            raise self.fail(keys, "tools", f"expected a tool name, got {ref!r}")
        ref = ref.strip()
        if ref.startswith("custom:"):
            return self._custom_tool(ref[len("custom:"):], keys)
        if ":" in ref:
            module_name, _, attr = ref.partition(":")
            if module_name in ("crewai_tools", "crewgraph.toolkit"):
                return self._toolkit_tool(attr, keys)
            try:
                found = getattr(importlib.import_module(module_name), attr)
            except (ImportError, AttributeError) as exc:
                raise self.fail(keys, "tools", f"cannot load tool {ref!r}: {exc}") from None
            return self._as_tool(found, ref, keys)
        return self._toolkit_tool(ref, keys)

    def _as_tool(self, found: Any, label: str, keys: tuple[Any, ...]) -> Any:
        from crewgraph.tools import BaseTool, coerce_tool

        if isinstance(found, type) and issubclass(found, BaseTool):
            try:
                return found()  # type: ignore[call-arg]  # a concrete tool class defaults them
            except Exception as exc:
                raise self.fail(keys, "tools", f"cannot create {label} without arguments: {exc}") from None
        try:
            return coerce_tool(found)
        except TypeError as exc:
            raise self.fail(keys, "tools", f"{label}: {exc}") from None

    def _toolkit_tool(self, name: str, keys: tuple[Any, ...]) -> Any:
        import crewgraph.toolkit as toolkit

        known = [n for n in toolkit.__all__ if n.endswith("Tool")]
        pascal = "".join(w[:1].upper() + w[1:] for w in name.split("_") if w)
        for candidate in (name, name + "Tool", pascal + "Tool"):
            if candidate in known:
                return self._as_tool(getattr(toolkit, candidate), candidate, keys)
        close = difflib.get_close_matches(name, known, n=1, cutoff=0.5)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise self.fail(
            keys, "tools",
            f"unknown tool {name!r}{hint}: a tool name must be one of crewgraph.toolkit's tools "
            "(CrewAI's crewai_tools names), 'custom:<name>' for tools/<name>.py, or "
            '{"python": "module.attribute"}',
        )

    def _custom_tool(self, name: str, keys: tuple[Any, ...]) -> Any:
        from crewgraph.tools import BaseTool

        if not _CUSTOM_NAME.fullmatch(name):
            raise self.fail(keys, "tools", f"custom:{name}: the name must be a Python identifier (tools/<name>.py)")
        path = self.root / "tools" / f"{name}.py"
        if not path.is_file():
            there = sorted(p.stem for p in (self.root / "tools").glob("*.py") if p.stem != "__init__")
            close = difflib.get_close_matches(name, there, n=1)
            hint = f" (did you mean 'custom:{close[0]}'?)" if close else ""
            raise self.fail(keys, "tools", f"custom tool 'custom:{name}' not found: no tools/{name}.py{hint}")
        spec = importlib.util.spec_from_file_location(f"crewgraph_project_tools.{name}", path)
        if spec is None or spec.loader is None:
            raise self.fail(keys, "tools", f"cannot load tools/{name}.py")
        module = importlib.util.module_from_spec(spec)
        # Registered before it runs, as an import would: pydantic resolves the annotations of a
        # module with `from __future__ import annotations` through sys.modules[cls.__module__].
        sys.modules[spec.name] = module
        try:
            spec.loader.exec_module(module)
        except Exception as exc:
            sys.modules.pop(spec.name, None)
            raise self.fail(keys, "tools", f"tools/{name}.py failed to load: {type(exc).__name__}: {exc}") from None
        classes = [
            v for v in vars(module).values()
            if isinstance(v, type) and issubclass(v, BaseTool) and v.__module__ == module.__name__
        ]
        instances = [v for v in vars(module).values() if isinstance(v, BaseTool)]
        if len(classes) > 1:
            wanted = name.replace("_", "").lower()
            classes = [c for c in classes if c.__name__.lower().removesuffix("tool") == wanted.removesuffix("tool")] or classes
        if len(classes) == 1:
            return self._as_tool(classes[0], f"tools/{name}.py:{classes[0].__name__}", keys)
        if len(classes) > 1:
            names = ", ".join(c.__name__ for c in classes)
            raise self.fail(keys, "tools", f"tools/{name}.py defines several tools ({names}); keep one per file")
        if len(instances) == 1:
            return instances[0]
        raise self.fail(keys, "tools", f"tools/{name}.py defines no BaseTool subclass (or one @tool function)")
