#!/usr/bin/env bash
# Set up a development environment from a fresh clone: the system `dot` binary
# (Graphviz) and a virtualenv in .venv with crewgraph and its dev tools.
# Idempotent: safe to run again.
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON="${PYTHON:-python3.11}"
command -v "$PYTHON" >/dev/null 2>&1 || PYTHON=python3

if ! command -v dot >/dev/null 2>&1; then
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    echo "==> installing Graphviz (dot) with apt-get"
    apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq graphviz >/dev/null
  else
    echo "!! Graphviz's 'dot' is missing: install it (apt-get install graphviz / brew install graphviz)" >&2
    echo "   crewgraph works without it, but plots and the plot tests need it." >&2
  fi
fi

# PostgreSQL's server binaries: the PGSearchTool tests start a throwaway server (skipped without them).
if ! command -v initdb >/dev/null 2>&1 && ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    echo "==> installing PostgreSQL with apt-get"
    apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
  else
    echo "!! PostgreSQL is missing: install it (apt-get install postgresql) to run the PGSearchTool tests" >&2
  fi
fi

if [ ! -x .venv/bin/python ]; then
  echo "==> creating .venv with $PYTHON"
  "$PYTHON" -m venv .venv
fi
echo "==> installing crewgraph and its dependencies into .venv"
.venv/bin/python -m pip install -q --upgrade pip >/dev/null
.venv/bin/python -m pip install -q -e '.[dev]'
echo "==> ready: .venv/bin/python, .venv/bin/crewgraph"
