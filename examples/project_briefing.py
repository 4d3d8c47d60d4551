"""Main job: a crew that writes a briefing of a code folder (crewgraph's own source by default).

Two analysts work in parallel (crewgraph's ``Process.parallel``): one lists
and outlines the Python modules (its outline calls run as parallel tool
nodes), one gathers size and docstring statistics; a writer turns both into
``briefing.md``, checked by a guardrail. Alongside it writes the plan and the
executed run as Graphviz pictures and the run as JSON.

With no API key it runs on a small offline stand-in model (examples/_offline_model.py).
Point it at a real model with the variables crewgraph reads everywhere (README, "Real models"):
    export OPENAI_API_KEY=sk-...                      # OpenAI (CREWGRAPH_MODEL=gpt-4o-mini by default)
    export CREWGRAPH_MODEL=ollama/qwen2.5-coder:1.5b  # or a provider prefix: groq/..., anthropic/...
    export OPENAI_BASE_URL=http://localhost:8080/v1   # or any OpenAI-compatible server (llama.cpp, vLLM...)

Usage: python examples/project_briefing.py [FOLDER] [--out DIR] [--verbose]
"""

from __future__ import annotations

import argparse
import ast
import fnmatch
import os
import sys
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from crewgraph import LLM, Agent, BaseLLM, Crew, CrewOutput, Process, Task, TaskOutput
from crewgraph.llm.settings import MODEL_ENVS, default_llm, load_dotenv_file
from crewgraph.tools import BaseTool, tool

_AST_LOCK = threading.Lock()
"""The tools run in parallel worker threads, and CPython 3.11's ast.parse is not safe to call
from two threads at once ("SystemError: AST constructor recursion depth mismatch")."""


def parse(source: str) -> ast.Module:
    with _AST_LOCK:
        return ast.parse(source)


REPO = Path(__file__).resolve().parent.parent


SKIPPED_DIRS = {"__pycache__", ".git", ".venv", "venv", "node_modules", ".mypy_cache", ".ruff_cache",
                ".pytest_cache", "build", "dist"}
SKIPPED_SUFFIXES = (".pyc", ".pyo", ".so", ".egg-info")


def _ignore_patterns(folder: Path) -> list[str]:
    """The plain patterns of the .gitignore files in ``folder`` and above it (negations, which
    re-include files, are left out: they only ever make the listing longer)."""
    patterns: list[str] = []
    for place in (folder, *folder.parents):
        ignore = place / ".gitignore"
        if ignore.is_file():
            for line in ignore.read_text(encoding="utf-8", errors="replace").splitlines():
                line = line.strip()
                if line and not line.startswith(("#", "!")):
                    patterns.append(line.rstrip("/").lstrip("/"))
    return patterns


def source_files(folder: Path) -> list[Path]:
    """The files worth a model's attention: no bytecode, caches, virtualenvs or ignored files
    (a compiled checkout has one .pyc per module, doubling the listing for nothing)."""
    patterns = _ignore_patterns(folder)
    found: list[Path] = []
    for path in sorted(folder.rglob("*")):
        parts = path.relative_to(folder).parts
        if any(p in SKIPPED_DIRS or p.startswith(".") for p in parts) or not path.is_file():
            continue
        if path.name.endswith(SKIPPED_SUFFIXES):
            continue
        relative = "/".join(parts)
        if any(fnmatch.fnmatch(path.name, pat) or fnmatch.fnmatch(relative, pat) or
               any(fnmatch.fnmatch(part, pat) for part in parts[:-1]) for pat in patterns):
            continue
        found.append(path)
    return found


def list_tool(folder: Path) -> BaseTool:
    @tool("list_files")
    def list_files() -> str:
        """List the source files of the folder (bytecode, caches and ignored files left out)."""
        files = source_files(folder)
        lines = [f"{len(files)} files under {folder.name}:"]
        lines += [f"- {folder.name}/{p.relative_to(folder).as_posix()}" for p in files[:400]]
        if len(files) > 400:
            lines.append(f"... and {len(files) - 400} more")
        return "\n".join(lines)

    return list_files


def outline_tool(root: Path) -> BaseTool:
    @tool("outline_python")
    def outline_python(path: str) -> str:
        """Outline one Python file: its docstring, classes and top-level functions, with line counts."""
        base = root.resolve()
        file = (base / path).resolve()
        if base not in file.parents:
            return f"refused: {path} is outside {root}"
        try:
            source = file.read_text(encoding="utf-8")
            tree = parse(source)
        except (OSError, SyntaxError) as exc:
            return f"### {path} (0 lines)\ncould not read: {exc}"
        doc = (ast.get_docstring(tree) or "").strip().splitlines()
        out = [f"### {path} ({len(source.splitlines())} lines)", doc[0] if doc else ""]
        for node in tree.body:
            if isinstance(node, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
                kind = "class" if isinstance(node, ast.ClassDef) else "def"
                first = (ast.get_docstring(node) or "").strip().splitlines()
                out.append(f"- {kind} {node.name}: {first[0] if first else '(undocumented)'}")
        return "\n".join(out)

    return outline_python


def stats_tool(root: Path) -> BaseTool:
    @tool("module_stats")
    def module_stats() -> str:
        """Size and documentation statistics for every Python module in the folder."""
        rows: list[tuple[str, int, bool]] = []
        for file in (f for f in source_files(root) if f.suffix == ".py"):
            text = file.read_text(encoding="utf-8", errors="replace")
            try:
                documented = ast.get_docstring(parse(text)) is not None
            except SyntaxError:
                documented = False
            rows.append((str(file.relative_to(root.parent)), len(text.splitlines()), documented))
        rows.sort(key=lambda r: -r[1])
        lines = [f"{len(rows)} modules, {sum(r[1] for r in rows)} lines in total.", "Largest modules:"]
        lines += [f"  - {p}: {n} lines" for p, n, _ in rows[:8]]
        missing = [p for p, n, d in rows if not d and n > 0]
        lines.append("Documentation:")
        lines += [f"  - {p} has no module docstring" for p in missing[:10]] or ["  - every module has a docstring"]
        return "\n".join(lines)

    return module_stats


def has_sections(output: TaskOutput) -> tuple[bool, Any]:
    """The briefing must be markdown with at least three '## ' sections, and complete: its last
    line a finished sentence, list item or table row, not words cut off mid-sentence."""
    if output.raw.count("\n## ") + output.raw.startswith("## ") < 3:
        return False, "Write the briefing in markdown with at least three '## ' section headings."
    last = next((line.strip() for line in reversed(output.raw.splitlines()) if line.strip()), "")
    if not last.endswith((".", "!", "?", ":", ")", "`", "*", "|", '"')):
        return False, ("The briefing stops mid-sentence. Write it again, complete, and shorter if needed: "
                       "every section must end with a finished sentence.")
    return True, output.raw


REAL_MODEL_ENVS = ("CREWGRAPH_LLM", *MODEL_ENVS, "OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_API_BASE",
                   "BASE_URL", "API_BASE")
"""Any of these set means "use a real model"; none set, the offline stand-in runs."""


def choose_model() -> tuple[BaseLLM, str]:
    """The model the library would use (same variables as `crewgraph run`), else the offline stand-in.

    ``CREWGRAPH_LLM`` wins (as ``--llm`` does for ``crewgraph run``; ``fake`` picks the stand-in),
    then the default model of ``crewgraph.llm.settings``: ``CREWGRAPH_MODEL``/``MODEL``/
    ``OPENAI_MODEL_NAME`` on ``BASE_URL``/``OPENAI_BASE_URL``. Timeouts, max_tokens and retries come
    from ``CREWGRAPH_LLM_TIMEOUT``, ``CREWGRAPH_LLM_IDLE_TIMEOUT``, ``CREWGRAPH_LLM_MAX_TOKENS``...
    """
    load_dotenv_file(Path.cwd())
    spec = os.environ.get("CREWGRAPH_LLM", "").strip()
    if spec.lower() != "fake" and any(os.environ.get(name, "").strip() for name in REAL_MODEL_ENVS):
        llm = LLM(model=spec) if spec else default_llm()
        llm.temperature = 0.2
        return llm, f"{llm.requested_model} at {llm.endpoint}"
    from _offline_model import OfflineModel

    return OfflineModel(), "the offline stand-in model (no model, key or server configured)"


def build_crew(folder: Path, out_dir: Path, llm: BaseLLM, verbose: bool = False) -> Crew:
    cartographer = Agent(
        role="Code Cartographer",
        goal="Map the modules of the code in {folder} and what each is for",
        backstory="You read unfamiliar codebases quickly and describe them precisely.",
        # Both tools see the folder by its own name, confined to its parent: paths read "pkg/mod.py".
        tools=[list_tool(folder), outline_tool(folder.parent)],
        llm=llm,
    )
    auditor = Agent(
        role="Code Auditor",
        goal="Find the hotspots of the code in {folder}: large modules, missing documentation",
        backstory="You spot where a codebase will hurt its maintainers.",
        tools=[stats_tool(folder)],
        llm=llm,
    )
    writer = Agent(
        role="Technical Writer",
        goal="Write a briefing a new engineer can read in five minutes",
        backstory="You turn raw notes into clear, structured markdown.",
        llm=llm,
    )
    survey = Task(name="survey", description="List the files of the code in {folder} and outline its Python modules.",
                  expected_output="An outline of every Python module: docstring, classes, functions.", agent=cartographer)
    hotspots = Task(name="hotspots", description="Gather size and documentation statistics for the code in {folder}.",
                    expected_output="The largest modules and the modules without docstrings.", agent=auditor)
    write = Task(
        name="briefing",
        description="Write a markdown briefing of the code in {folder} from the outline and the statistics.",
        expected_output="Markdown with an overview, a module map, hotspots and suggested next steps.",
        agent=writer, context=[survey, hotspots], guardrail=has_sections,
        output_file=str(out_dir / "briefing.md"),
    )
    return Crew(name="briefing", agents=[cartographer, auditor, writer], tasks=[survey, hotspots, write],
                process=Process.parallel, verbose=verbose)


def main(argv: list[str] | None = None) -> CrewOutput:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("folder", nargs="?", default=str(REPO / "crewgraph"), help="code folder to brief")
    parser.add_argument("--out", default="briefing-output", help="where to write the results")
    parser.add_argument("--verbose", action="store_true", help="print the live log of the run")
    args = parser.parse_args(argv)
    folder, out_dir = Path(args.folder).resolve(), Path(args.out).resolve()
    if not folder.is_dir():
        parser.exit(2, f"error: {args.folder} is not a folder\n")
    llm, described = choose_model()
    print(f"Model: {described}")
    crew = build_crew(folder, out_dir, llm, verbose=args.verbose)
    started = time.perf_counter()
    output = crew.kickoff(inputs={"folder": folder.name})
    elapsed = time.perf_counter() - started
    out_dir.mkdir(parents=True, exist_ok=True)
    written = [out_dir / "briefing.md"]
    try:
        written.append(crew.plot(out_dir / "plan.svg"))
        written.append(output.graph.render(out_dir / "run.svg"))
    except Exception as exc:  # no `dot` binary: the briefing is still useful
        print(f"(skipped the pictures: {exc})")
    import json

    (out_dir / "run.json").write_text(json.dumps(output.graph.to_json(), indent=2, default=str))
    written.append(out_dir / "run.json")
    print(f"\nDone in {elapsed:.2f}s, {output.token_usage.total_tokens} tokens "
          f"({output.token_usage.successful_requests} model calls).")
    for task in output.tasks_output:
        print(f"  - {task.name}: {len(task.raw)} characters by {task.agent}")
    for record in output.tool_failures:
        print(f"  ! tool failure: {record.summary()}")
    ungrounded = [t for t in output.tasks_output if t.grounded is False]
    if ungrounded:
        # The analysts' tools gave nothing, so the briefing can only be the model's invention: say so
        # where the reader will see it, not only here.
        why = "; ".join(f"{t.name}: {'; '.join(t.warnings)}" for t in ungrounded)
        print(f"  ! the briefing is NOT grounded in the code: {why}")
        briefing = out_dir / "briefing.md"
        if briefing.is_file():
            briefing.write_text(f"> **Not grounded in the code**: {why}\n\n" + briefing.read_text(encoding="utf-8"),
                                encoding="utf-8")
    print("Wrote:\n" + "\n".join(f"  {p}" for p in written))
    print("\n" + output.raw[:1200])
    if isinstance(llm, BaseLLM) and llm.model == "offline-extractive":
        print("To use a real model: export OPENAI_API_KEY=... (and CREWGRAPH_MODEL=gpt-4o-mini), or a local\n"
              "server: export OPENAI_BASE_URL=http://localhost:8080/v1 CREWGRAPH_MODEL=qwen2.5-coder-1.5b\n"
              "(or CREWGRAPH_MODEL=ollama/qwen2.5-coder:1.5b; see README, 'Real models')")
    return output


if __name__ == "__main__":
    main()
