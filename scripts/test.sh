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
.venv/bin/python -m pytest "$@"
