"""``crewgraph memory`` (browse: tree, recall, records) and ``crewgraph reset-memories``.

Both work on a memory store directly (``--storage-path``, else the default
``$CREWGRAPH_STORAGE_DIR/memory`` or ``./.crewgraph/memory``), so browsing
never imports or runs project code. Recall is shallow (vector search, no LLM
call) unless ``--deep`` is given.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Annotated, Any

import typer

from crewgraph.cli._errors import UserError, guarded
from crewgraph.cli._options import JsonOpt, QuietOpt, TargetArg

__all__ = ["memory", "reset_memories"]

StorageOpt = Annotated[
    str | None,
    typer.Option(
        "--storage-path",
        "-s",
        help="Memory folder (or Qdrant URL); default $CREWGRAPH_STORAGE_DIR/memory or ./.crewgraph/memory.",
        show_default=False,
    ),
]
ScopeOpt = Annotated[str, typer.Option("--scope", help="Only this scope and below.")]


def _location(storage: str | None) -> str:
    """Where the memory lives: ``--storage-path``, else what ``Memory()`` would use
    (``$CREWGRAPH_QDRANT_URL``, else the default local folder)."""
    if storage is not None:
        return storage
    url = os.environ.get("CREWGRAPH_QDRANT_URL", "").strip()
    if url:
        return url
    from crewgraph.memory.storage.factory import default_storage_path

    return str(default_storage_path())


def _is_url(value: str) -> bool:
    return value.startswith(("http://", "https://"))


def _exists(location: str) -> bool:
    return _is_url(location) or Path(location).expanduser().exists()


def _open_memory(location: str) -> Any:
    """A Memory on ``location``; a missing local folder is an error, not a new empty store."""
    if not _exists(location):
        raise UserError(f"no memory store at {location} (pass --storage-path, or set CREWGRAPH_STORAGE_DIR)")
    from crewgraph.memory import Memory

    return Memory(storage=location)


def _record_json(record: Any) -> dict[str, Any]:
    if hasattr(record, "model_dump"):
        data: dict[str, Any] = record.model_dump(mode="json", exclude={"embedding"})
        return data
    return {"content": str(getattr(record, "content", record))}


def _record_line(record: Any) -> str:
    from rich.markup import escape

    scope = getattr(record, "scope", "") or ""
    categories = ", ".join(getattr(record, "categories", None) or [])
    importance = getattr(record, "importance", None)
    meta = " · ".join(
        p for p in (scope, categories, f"importance {importance:.2f}" if isinstance(importance, float) else "") if p
    )
    return f"{escape(str(getattr(record, 'content', record)))} [dim]{escape(meta)}[/]"


@guarded
def memory(
    storage_path: StorageOpt = None,
    scope: ScopeOpt = "/",
    query: Annotated[
        str | None, typer.Option("--query", help="Recall the memories that best match this text.")
    ] = None,
    records: Annotated[bool, typer.Option("--list", "-l", help="List records (newest first).")] = False,
    limit: Annotated[int, typer.Option("--limit", "-n", min=1, help="At most this many results.")] = 10,
    max_depth: Annotated[int | None, typer.Option("--max-depth", min=1, help="Depth of the scope tree.")] = None,
    deep: Annotated[bool, typer.Option("--deep", help="Deep recall (may call the memory's LLM).")] = False,
    include_private: Annotated[bool, typer.Option("--include-private", help="Recall (or list) private memories too.")] = False,
    as_json: JsonOpt = False,
    quiet: QuietOpt = False,
) -> None:
    """Browse a memory store: its scope tree (default), --query to recall, --list for records."""
    if query is not None and records:
        raise UserError("use either --query or --list, not both")
    mem = _open_memory(_location(storage_path))
    from rich.console import Console

    console = Console(highlight=False)
    if query is not None:
        matches = mem.recall(
            query, scope=scope, limit=limit, depth="deep" if deep else "shallow", include_private=include_private
        )
        if as_json:
            rows = [{"score": m.score, "record": _record_json(m.record)} for m in matches]
            typer.echo(json.dumps(rows, indent=2, default=str))
        elif not matches and not quiet:
            typer.echo(f"No memories match {query!r}.")
        for m in [] if as_json else matches:
            console.print(f"[bold]{m.score:.2f}[/] {_record_line(m.record)}", soft_wrap=True)
        return
    if records:
        found = mem.list_records(scope=scope, limit=limit, include_private=include_private)
        if as_json:
            typer.echo(json.dumps([_record_json(r) for r in found], indent=2, default=str))
        elif not found and not quiet:
            typer.echo(f"No records under {scope}.")
        for r in [] if as_json else found:
            console.print(f"- {_record_line(r)}", soft_wrap=True)
        return
    if as_json:
        typer.echo(json.dumps(_tree_json(mem, scope, max_depth), indent=2))
        return
    tree = mem.tree(scope, max_depth=max_depth) if max_depth is not None else mem.tree(scope)
    typer.echo(str(tree))


def _tree_json(mem: Any, scope: str, max_depth: int | None) -> dict[str, Any]:
    """``--json`` for the tree: ``{"scope": root, "records": n, "scopes": {path: n}}``, the same
    counts as the text tree (each includes its subscopes), so scripts need not parse indentation."""
    from crewgraph.memory.scopes import normalize_scope, scope_depth

    mem.drain_writes()
    root = normalize_scope(scope)  # the CLI's Memory has no root_scope: store paths are scopes
    counts: dict[str, int] = mem.storage_backend.scope_counts(root)
    depth = max_depth if max_depth is not None else 3
    base = scope_depth(root)
    scopes = {s: n for s, n in sorted(counts.items()) if s != root and scope_depth(s) - base <= depth}
    return {"scope": root, "records": counts.get(root, 0), "scopes": scopes}


@guarded
def reset_memories(
    target: TargetArg = None,
    memory_: Annotated[bool, typer.Option("--memory", "-m", help="Reset the unified memory.")] = False,
    knowledge: Annotated[bool, typer.Option("--knowledge", "-kn", help="Reset the crew's knowledge index.")] = False,
    agent_knowledge: Annotated[
        bool, typer.Option("--agent-knowledge", "-akn", help="Reset the agents' knowledge indexes.")
    ] = False,
    all_: Annotated[bool, typer.Option("--all", "-a", help="Reset memory and knowledge.")] = False,
    storage_path: StorageOpt = None,
    scope: Annotated[str | None, typer.Option("--scope", help="Only forget this scope and below.")] = None,
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Do not ask before resetting everything (--all).")] = False,
    quiet: QuietOpt = False,
) -> None:
    """Reset memory: a crew's (MODULE:ATTR given) or the store at --storage-path / the default.

    With MODULE:ATTR the crew's own memory is reset (crew.reset_memories), wherever it lives.
    --all asks first (as `checkpoints delete --all` does) unless --yes is given.
    """
    if not (memory_ or all_ or knowledge or agent_knowledge):
        raise UserError("nothing to reset: pass -m/--memory, -kn/--knowledge, -akn/--agent-knowledge or -a/--all")
    if all_ and not yes:
        where = target or storage_path or "the default store"
        typer.confirm(f"Reset all memory and knowledge of {where}?", abort=True)
    if knowledge or agent_knowledge or (all_ and scope is None):
        _reset_knowledge(target, memory_, knowledge, agent_knowledge, all_, storage_path, scope, _say(quiet))
        return
    say = _say(quiet)
    if target is not None:
        if storage_path is not None or scope is not None:
            raise UserError("--storage-path/--scope apply to a memory store, not to MODULE:ATTR")
        from crewgraph.cli._target import load_target

        found = load_target(target)
        if found.kind != "crew":
            raise UserError(f"{found.label} is a {found.kind}; reset-memories takes a crew")
        if found.obj.get_memory() is None:  # a user mistake, not a crash (reset_memories raises)
            raise UserError(f"crew {found.name!r} ({found.label}) has no memory to reset (it sets no memory=...)")
        found.obj.reset_memories(command_type="all" if all_ else "memory")
        say(f"Reset the memory of crew {found.name!r}.")
        return
    location = _location(storage_path)
    if not _exists(location):
        say(f"Nothing to reset: no memory store at {location}.")
        return
    mem = _open_memory(location)
    if scope is not None:
        mem.reset(scope=scope)
    else:
        mem.reset()
    say(f"Reset memory at {location}" + (f" (scope {scope})." if scope else "."))


def _say(quiet: bool) -> Any:
    """``typer.echo`` for messages, or nothing with ``--quiet``."""
    return (lambda text: None) if quiet else typer.echo


def _reset_knowledge(
    target: str | None, memory_: bool, knowledge: bool, agent_knowledge: bool, all_: bool,
    storage_path: str | None, scope: str | None, say: Any = typer.echo,
) -> None:
    """``-kn``/``-akn``: a crew's knowledge (MODULE:ATTR), else the knowledge stores on disk."""
    if scope is not None:
        raise UserError("--scope applies to memory, not to knowledge")
    kinds = ["all"] if all_ else [k for k, on in (("memory", memory_), ("knowledge", knowledge),
                                                  ("agent_knowledge", agent_knowledge)) if on]
    if target is not None:
        if storage_path is not None:
            raise UserError("--storage-path applies to a store on disk, not to MODULE:ATTR")
        from crewgraph.cli._target import load_target

        found = load_target(target)
        if found.kind != "crew":
            raise UserError(f"{found.label} is a {found.kind}; reset-memories takes a crew")
        for kind in kinds:
            try:
                found.obj.reset_memories(command_type=kind)
            except ValueError as exc:
                raise UserError(f"crew {found.name!r} ({found.label}): {exc}") from None
        what = "memory and knowledge" if all_ else ", ".join(k.replace("_", " ") for k in kinds)
        say(f"Reset the {what} of crew {found.name!r}.")
        return
    import os
    from pathlib import Path

    from crewgraph.knowledge.reset import default_knowledge_root, reset_store_directory

    on_server = bool(os.environ.get("CREWGRAPH_QDRANT_URL")) and storage_path is None
    if on_server and (knowledge or agent_knowledge):
        raise UserError("knowledge lives on the Qdrant server of CREWGRAPH_QDRANT_URL: pass MODULE:ATTR to reset a crew's")
    if "memory" in kinds or "all" in kinds:
        location = _location(storage_path)
        if _exists(location):
            _open_memory(location).reset()
            say(f"Reset memory at {location}.")
    if on_server:
        say("Knowledge on the Qdrant server is reset per crew: pass MODULE:ATTR.")
        return
    # --storage-path names the memory folder; knowledge sits beside it, as by default
    root = Path(storage_path).expanduser().parent / "knowledge" if storage_path else default_knowledge_root()
    removed = reset_store_directory(
        crew=bool({"knowledge", "all"} & set(kinds)), agents=bool({"agent_knowledge", "all"} & set(kinds)), root=root
    )
    if removed:
        say(f"Reset knowledge at {root}: {', '.join(removed)}.")
    else:
        say(f"Nothing to reset: no knowledge store at {root}.")
