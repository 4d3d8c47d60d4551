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
# One worker per core (CREWGRAPH_TEST_WORKERS overrides; 0 runs in this process).
.venv/bin/python -m pytest -n "${CREWGRAPH_TEST_WORKERS:-auto}" "$@"
