#!/usr/bin/env bash
# Set up (if needed) and run the whole test suite, plus ruff and mypy.
# Tests are offline: fake LLMs and a local OpenAI-compatible server on 127.0.0.1.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
echo "==> ruff"
.venv/bin/ruff check crewgraph tests scripts examples
echo "==> mypy"
.venv/bin/mypy
echo "==> pytest"
# One worker per core plus one (CREWGRAPH_TEST_WORKERS overrides; 0 runs in this process): many
# tests wait on subprocesses and local servers (three workers still keep two cores only ~83 % busy);
# a third worker fills gaps the two leave (docs/benchmarks.md, "Test suite": 382 -> 346 s on 2 cores).
workers="${CREWGRAPH_TEST_WORKERS:-$(.venv/bin/python -c 'import os; print((os.cpu_count() or 1) + 1)')}"
.venv/bin/python -m pytest -n "$workers" "$@"
