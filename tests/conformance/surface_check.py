"""Walks CrewAI 1.15.30's public surface (``data/``) against crewgraph at CrewAI's paths.

The surface is data about CrewAI's API (names, kinds, signatures, pydantic fields with
defaults, public methods), copied from the project's reference. Each item it names is
checked here and is either passing or not:

- ``name``      ``crewai.X:Name`` imports as ``from crewgraph.X import Name``, with the same
                kind (a class is a class, an enum has CrewAI's member names, a function
                accepts CrewAI's parameters);
- ``field``     a pydantic field of a class is a field of ours with CrewAI's default, or it
                is refused by name (the model's table of unsupported CrewAI fields raises an
                error saying it is not supported, and docs/porting.md lists it);
- ``method``    a public method (async twins are methods of their own) exists and accepts
                CrewAI's parameter names in CrewAI's order; extra parameters must be optional;
- ``property``  a public property exists;
- ``import``    a ``from crewai... import X`` that CrewAI's docs use resolves the same way.

Validators, ``model_*`` internals and private helpers are exempt (see ``exempt_method``).
Names declared absent in crewgraph's path table (``crewgraph._internal.crewai_paths``) count
as not passing; the documented-imports test accepts them because importing them raises an
ImportError that gives the reason.

``python tests/conformance/surface_check.py`` prints the coverage;
``--update-baseline`` records every passing item in ``data/baseline.txt`` (the baseline may
only grow: the test fails when an item in it stops passing).
"""

from __future__ import annotations

import ast
import enum
import importlib
import inspect
import json
import re
import sys
import warnings
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
DATA = HERE / "data"
SURFACE = DATA / "crewai-1.15.30-surface.json"
DOCUMENTED = DATA / "documented-imports.json"
BASELINE = DATA / "baseline.txt"
PENDING = DATA / "pending_imports.txt"
PORTING = HERE.parents[1] / "docs" / "porting.md"

KINDS = ("name", "field", "method", "property", "import crewai", "import crewai_tools")


def target_module(module: str) -> str | None:
    """CrewAI's module path in crewgraph's spelling (``crewai.X`` -> ``crewgraph.X``)."""
    for src, dst in (("crewai_tools", "crewgraph.toolkit"), ("crewai", "crewgraph")):
        if module == src or module.startswith(src + "."):
            return dst + module[len(src):]
    return None


def resolve(module: str, name: str) -> Any:
    """``from <crewgraph module> import name``, the way Python resolves it (a submodule too)."""
    target = target_module(module)
    if target is None:
        raise ImportError(f"{module} is not a CrewAI module")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        mod = importlib.import_module(target)
        try:
            return getattr(mod, name)
        except AttributeError:
            return importlib.import_module(f"{target}.{name}")


# -- signatures ---------------------------------------------------------------------------

@dataclass(frozen=True)
class Param:
    name: str
    kind: str  # "pos" (positional-only), "any" (positional or keyword), "kw", "args", "kwargs"
    optional: bool


_KINDS = {
    inspect.Parameter.POSITIONAL_ONLY: "pos",
    inspect.Parameter.POSITIONAL_OR_KEYWORD: "any",
    inspect.Parameter.KEYWORD_ONLY: "kw",
    inspect.Parameter.VAR_POSITIONAL: "args",
    inspect.Parameter.VAR_KEYWORD: "kwargs",
}


def parse_signature(text: str) -> list[Param] | None:
    """CrewAI's signature text as parameters (annotations dropped); None when it does not parse."""
    body = text.split(" -> ")[0] if ") -> " in text else text
    # annotation reprs such as <class 'x'> or <function f at 0x..> are not Python: blank them
    body = re.sub(r"<[^<>]*>", "X", body)
    try:
        tree = ast.parse(f"def f{body}: pass")
    except SyntaxError:
        return None
    fn = tree.body[0]
    assert isinstance(fn, ast.FunctionDef)
    a = fn.args
    out: list[Param] = []
    positional = [*a.posonlyargs, *a.args]
    first_default = len(positional) - len(a.defaults)
    for i, arg in enumerate(positional):
        kind = "pos" if i < len(a.posonlyargs) else "any"
        out.append(Param(arg.arg, kind, i >= first_default))
    if a.vararg:
        out.append(Param(a.vararg.arg, "args", True))
    for arg, default in zip(a.kwonlyargs, a.kw_defaults, strict=True):
        out.append(Param(arg.arg, "kw", default is not None))
    if a.kwarg:
        out.append(Param(a.kwarg.arg, "kwargs", True))
    return out


def our_params(obj: Any) -> list[Param] | None:
    try:
        sig = inspect.signature(obj)
    except (TypeError, ValueError):
        return None
    return [Param(p.name, _KINDS[p.kind], p.default is not inspect.Parameter.empty or p.kind in (
        inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)) for p in sig.parameters.values()]


def compare_params(theirs: list[Param], ours: list[Param]) -> str:
    """'' when a call written against CrewAI's parameters works with ours, else why not."""
    their_pos = [p for p in theirs if p.kind in ("pos", "any")]
    our_pos = [p for p in ours if p.kind in ("pos", "any")]
    our_by_name = {p.name: p for p in ours}
    has_args = any(p.kind == "args" for p in ours)
    has_kwargs = any(p.kind == "kwargs" for p in ours)
    for i, p in enumerate(their_pos):
        if i >= len(our_pos):
            if has_args and p.kind == "pos":
                continue
            if p.name not in our_by_name and not has_kwargs:
                return f"parameter {p.name!r} missing"
            return f"parameter {p.name!r} is not positional at {i}"
        mine = our_pos[i]
        if p.kind == "any" and mine.name != p.name:
            return f"parameter {i} is {mine.name!r}, CrewAI's is {p.name!r}"
        if p.optional and not mine.optional:
            return f"parameter {mine.name!r} is required, CrewAI's {p.name!r} is optional"
    for p in theirs:
        if p.kind == "kw":
            mine = our_by_name.get(p.name)
            if mine is None:
                if not has_kwargs:
                    return f"keyword parameter {p.name!r} missing"
            elif mine.kind not in ("kw", "any"):
                return f"parameter {p.name!r} is not accepted by keyword"
            elif p.optional and not mine.optional:
                return f"parameter {p.name!r} is required, CrewAI's is optional"
        elif p.kind == "args" and not has_args:
            return f"*{p.name} missing"
        elif p.kind == "kwargs" and not has_kwargs:
            return f"**{p.name} missing"
    extra = [p for p in our_pos[len(their_pos):] if not p.optional]
    extra += [p for p in ours if p.kind == "kw" and not p.optional and p.name not in {t.name for t in theirs}]
    if extra:
        return f"extra required parameter {extra[0].name!r}"
    return ""


def _drop_first(params: list[Param]) -> list[Param]:
    return params[1:] if params and params[0].kind in ("pos", "any") else params


# -- exemptions ---------------------------------------------------------------------------

# pydantic validators CrewAI declares as named methods (field_validator / model_validator), and
# hooks pydantic calls itself: not API a user calls.
VALIDATORS = frozenset({
    "post_init_setup", "process_model_config", "set_attributes_based_on_config", "set_private_attrs",
    "output_file_validation", "handle_max_retries_deprecation", "create_crew_memory",
    "create_crew_knowledge", "parse_allowed_tools", "set_fingerprint_data", "resolve_memory",
    "parse_tools", "setup_llm", "setup_a2a_support",
})


def exempt_method(name: str, spec: dict[str, Any]) -> bool:
    """Validators, ``model_*`` internals and private helpers are not compared."""
    if name.startswith("_") or name.startswith("model_") or name in VALIDATORS:
        return True
    return name.startswith(("validate_", "check_", "ensure_"))


# -- the walk -----------------------------------------------------------------------------

@dataclass
class Result:
    passed: set[str] = field(default_factory=set)
    failed: dict[str, str] = field(default_factory=dict)

    def add(self, item: str, why: str) -> None:
        if why:
            self.failed[item] = why
        else:
            self.passed.add(item)

    def count(self, kind: str) -> tuple[int, int]:
        prefix = kind + ("." if kind.startswith("import ") else " ")
        ok = sum(1 for i in self.passed if i.startswith(prefix) or i.startswith(kind + ":"))
        bad = sum(1 for i in self.failed if i.startswith(prefix) or i.startswith(kind + ":"))
        return ok, ok + bad


def _same_default(theirs: dict[str, Any], ours: Any) -> str:
    """'' when our pydantic FieldInfo gives CrewAI's default, else how it differs."""
    from pydantic_core import PydanticUndefined

    if "required" in theirs:
        return ""
    required = ours.default is PydanticUndefined and ours.default_factory is None
    if required:
        return "required here, optional in CrewAI"
    if "default_factory" in theirs:
        factory = theirs["default_factory"]
        empties = {"list": [], "dict": {}, "set": set(), "tuple": ()}
        if factory in empties:
            value = ours.default if ours.default_factory is None else _call(ours.default_factory)
            return "" if value == empties[factory] else f"default {value!r}, CrewAI's {factory}()"
        if factory == "<lambda>" or ours.default_factory is not None:
            return ""  # a computed default: present and optional is what can be compared
        return f"default {ours.default!r}, CrewAI's is computed by {factory}()"
    want: str = theirs["default"]
    if want.startswith(("<function", "<class", "<bound")) or want == "NOT_SPECIFIED":
        return ""
    value = ours.default if ours.default_factory is None else _call(ours.default_factory)
    candidates = {repr(value)}
    if isinstance(value, enum.Enum):
        candidates.add(repr(value.value))
    m = re.fullmatch(r"<[\w.]+: (.*)>", want)
    if m:
        want = m.group(1)
    return "" if want in candidates else f"default {value!r}, CrewAI's {theirs['default']}"


def _call(factory: Any) -> Any:
    try:
        return factory()
    except TypeError:
        return factory({})


def _init_params(cls: type) -> dict[str, inspect.Parameter]:
    """A plain class's constructor keywords (a CrewAI pydantic field may be one of ours)."""
    try:
        return {p.name: p for p in inspect.signature(cls.__init__).parameters.values()
                if p.kind in (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)}
    except (TypeError, ValueError):
        return {}


def _same_init_default(theirs: dict[str, Any], param: inspect.Parameter) -> str:
    """'' when a constructor keyword gives CrewAI's field default (None standing for "unset")."""
    if "required" in theirs:
        return ""
    if param.default is inspect.Parameter.empty:
        return "required here, optional in CrewAI"
    if "default_factory" in theirs:
        factory = theirs["default_factory"]
        empties = {"list": [], "dict": {}, "set": set(), "tuple": ()}
        if factory in empties and param.default not in (None, empties[factory]):
            return f"default {param.default!r}, CrewAI's {factory}()"
        return ""
    want: str = theirs["default"]
    if want.startswith(("<function", "<class", "<bound")) or want == "NOT_SPECIFIED":
        return ""
    if repr(param.default) == want:
        return ""
    return f"default {param.default!r}, CrewAI's {want}"


def _refusal(cls: type, name: str, porting: str) -> str:
    """'' when our model refuses CrewAI field ``name`` by name, saying it is not supported."""
    from crewgraph.spec._unsupported import UNSUPPORTED, reject_unsupported

    what = next((c.__name__ for c in cls.__mro__ if c.__name__ in UNSUPPORTED
                 and c.__module__.startswith("crewgraph.")), None)
    if what is None or name not in UNSUPPORTED[what]:
        return "not a field"
    try:
        reject_unsupported({name: object()}, what, {})
    except ValueError as err:
        text = str(err)
        if name not in text or "not support" not in text:
            return f"refused without saying it is not supported: {text}"
    else:
        return "listed as unsupported but accepted"
    if f"`{name}`" not in porting:
        return "refused, but docs/porting.md does not list it"
    return ""


def _check_class(key: str, spec: dict[str, Any], obj: Any, res: Result, porting: str) -> None:
    fields = spec.get("fields", {})
    ours_fields = getattr(obj, "model_fields", None) if isinstance(obj, type) else None
    for fname, fspec in fields.items():
        item = f"field {key}.{fname}"
        if obj is None:
            res.add(item, "class missing")
        elif isinstance(ours_fields, dict) and fname in ours_fields:
            res.add(item, _same_default(fspec, ours_fields[fname]))
        elif isinstance(ours_fields, dict) and any(
                f.alias == fname for f in ours_fields.values()):
            res.add(item, "")
        elif isinstance(obj, type) and ours_fields is None and fname in _init_params(obj):
            res.add(item, _same_init_default(fspec, _init_params(obj)[fname]))
        elif isinstance(obj, type):
            res.add(item, _refusal(obj, fname, porting))
        else:
            res.add(item, "not a class")
    for mname, mspec in spec.get("methods", {}).items():
        if exempt_method(mname, mspec):
            continue
        item = f"method {key}.{mname}"
        member = inspect.getattr_static(obj, mname, None) if obj is not None else None
        if obj is None:
            res.add(item, "class missing")
            continue
        if member is None:
            res.add(item, "missing")
            continue
        res.add(item, _check_method(obj, mname, mspec, member))
    for pname in spec.get("properties", []):
        if pname.startswith("_"):
            continue
        item = f"property {key}.{pname}"
        res.add(item, "" if obj is not None and hasattr(obj, pname) else "missing")


def _check_method(obj: type, mname: str, mspec: dict[str, Any], member: Any) -> str:
    theirs = parse_signature(mspec["signature"])
    bound = getattr(obj, mname)
    if mspec.get("async") and not (inspect.iscoroutinefunction(bound)
                                   or inspect.isasyncgenfunction(bound)):
        return "not async"
    if theirs is None:
        return ""
    ours = our_params(bound)
    if ours is None:
        return ""
    # CrewAI's text has self/cls first for instance and class methods; ours, read from the
    # class, has self for instance methods and nothing for class and static methods.
    if not mspec.get("staticmethod"):
        theirs = _drop_first(theirs)
    if not isinstance(member, staticmethod | classmethod):
        ours = _drop_first(ours)
    return compare_params(theirs, ours)


def _check_name(key: str, spec: dict[str, Any], res: Result) -> Any:
    """Checks the name itself; returns our object (None when it does not import)."""
    module, name = key.split(":")
    try:
        obj = resolve(module, name)
    except Exception as err:  # any failure to import is the finding
        res.add(f"name {key}", f"{type(err).__name__}: {err}"[:200])
        return None
    kind = spec["kind"]
    why = ""
    if kind == "class" and not isinstance(obj, type):
        why = f"not a class ({type(obj).__name__})"
    elif kind == "enum":
        members = set(spec.get("members", {}))
        if not (isinstance(obj, type) and issubclass(obj, enum.Enum)):
            why = "not an enum"
        elif missing := sorted(members - set(obj.__members__)):
            why = f"members missing: {missing}"
    elif kind == "function":
        theirs = parse_signature(spec.get("signature", "(*args, **kwargs)"))
        ours = our_params(obj) if callable(obj) else None
        if not callable(obj):
            why = "not callable"
        elif theirs is not None and ours is not None:
            why = compare_params(theirs, ours)
    res.add(f"name {key}", why)
    return obj


def _classes(surface: dict[str, dict[str, Any]]) -> dict[str, list[str]]:
    """One CrewAI class re-exported at several paths is one class: canonical key -> its paths.

    The canonical key is the deepest path (usually where CrewAI defines it)."""
    groups: dict[str, list[str]] = {}
    for key, spec in surface.items():
        if spec.get("fields") or spec.get("methods") or spec.get("properties"):
            ident = key.split(":")[1] + json.dumps(spec, sort_keys=True)
            groups.setdefault(ident, []).append(key)
    return {max(keys, key=lambda k: (k.count("."), k)): sorted(keys) for keys in groups.values()}


def documented_imports() -> list[dict[str, Any]]:
    data: list[dict[str, Any]] = json.loads(DOCUMENTED.read_text(encoding="utf-8"))["imports"]
    return data


def absent_reason(module: str, name: str) -> str | None:
    """The reason crewgraph declares ``module:name`` absent (importing it raises ImportError)."""
    from crewgraph._internal import crewai_paths

    target = target_module(module)
    if target is None:
        return None
    reason = crewai_paths.ABSENT.get(target, {}).get(name)
    if reason is None:
        reason = crewai_paths.ABSENT_MODULES.get(target)
    if reason is None:
        reason = next((why for prefix, why in crewai_paths.ABSENT_MODULES.items()
                       if target.startswith(prefix + ".")), None)
    return reason


def walk() -> Result:
    """Check every item of the surface and every documented import."""
    surface: dict[str, dict[str, Any]] = json.loads(SURFACE.read_text(encoding="utf-8"))["names"]
    porting = PORTING.read_text(encoding="utf-8")
    res = Result()
    objs = {key: _check_name(key, spec, res) for key, spec in sorted(surface.items())}
    for canonical, keys in sorted(_classes(surface).items()):
        found = [objs[k] for k in [canonical, *keys] if isinstance(objs[k], type)]
        _check_class(canonical, surface[canonical], found[0] if found else None, res, porting)
    for imp in documented_imports():
        item = f"import {imp['module']}:{imp['name']}"
        try:
            resolve(imp["module"], imp["name"])
        except Exception as err:
            res.add(item, f"{type(err).__name__}: {err}"[:200])
        else:
            res.add(item, "")
    return res


def read_baseline() -> set[str]:
    if not BASELINE.exists():
        return set()
    return {line for line in BASELINE.read_text(encoding="utf-8").splitlines() if line and not line.startswith("#")}


def write_baseline(res: Result) -> None:
    lines = sorted(read_baseline() | res.passed)
    header = ("# Items of CrewAI's surface crewgraph passes (tests/conformance/surface_check.py).\n"
              "# May only grow: rerun `python tests/conformance/surface_check.py --update-baseline`.\n")
    BASELINE.write_text(header + "\n".join(lines) + "\n", encoding="utf-8")


def read_pending() -> set[str]:
    """Documented imports known not to resolve yet (work in progress); may only shrink."""
    if not PENDING.exists():
        return set()
    return {line.split(" #")[0].strip() for line in PENDING.read_text(encoding="utf-8").splitlines()
            if line.strip() and not line.startswith("#")}


def write_pending(res: Result) -> None:
    """Keeps only the pending imports that still fail and are not declared absent."""
    keep = sorted(item for item in read_pending() if item in res.failed
                  and absent_reason(*item.removeprefix("import ").split(":")) is None)
    header = ("# Documented CrewAI imports that do not resolve yet and are not declared absent.\n"
              "# May only shrink; --update-baseline drops the ones that resolve now.\n")
    PENDING.write_text(header + "".join(f"{item}\n" for item in keep), encoding="utf-8")


def coverage_lines(res: Result) -> Iterator[str]:
    labels = {"name": "names", "field": "fields", "method": "methods", "property": "properties",
              "import crewai": "documented crewai imports",
              "import crewai_tools": "documented crewai_tools imports"}
    for kind in KINDS:
        ok, total = res.count(kind)
        pct = 100.0 * ok / total if total else 100.0
        yield f"{labels[kind]:>32}: {ok:5d} / {total:5d}  ({pct:5.1f}%)"


def main(argv: list[str]) -> int:
    res = walk()
    for line in coverage_lines(res):
        print(line)
    if "--missing" in argv:
        for item, why in sorted(res.failed.items()):
            print(f"  {item}: {why}")
    if "--update-baseline" in argv:
        write_baseline(res)
        write_pending(res)
        print(f"baseline: {len(read_baseline())} items; pending imports: {len(read_pending())}")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(HERE.parents[1]))
    sys.exit(main(sys.argv[1:]))


__all__ = ["Result", "absent_reason", "compare_params", "coverage_lines", "documented_imports",
           "main", "parse_signature", "read_baseline", "read_pending", "resolve", "target_module", "walk"]
