#!/usr/bin/env bash
# Set up from a fresh clone: the system packages the project uses (Graphviz's `dot`; for the
# test suite also PostgreSQL's server binaries) and a virtualenv in .venv with crewgraph.
#   bash scripts/setup.sh         the test suite's set-up: crewgraph with every extra + dev tools
#   bash scripts/setup.sh core    the main job's: crewgraph's core only
# Idempotent and incremental: pip runs only when pyproject.toml (or the profile) changed since
# the last successful set-up. One line per step; a failing step prints its full log.
set -euo pipefail
cd "$(dirname "$0")/.."

profile="${1:-dev}"
case "$profile" in
  dev) spec='.[dev]' ;;
  core) spec='.' ;;
  *) echo "!! unknown set-up profile '$profile' (use: dev, core)" >&2; exit 2 ;;
esac
PYTHON="${PYTHON:-python3.11}"
command -v "$PYTHON" >/dev/null 2>&1 || PYTHON=python3
log="$(mktemp)"
trap 'rm -f "$log"' EXIT

step() {  # step "what" command...: one line, the command's output only if it fails
  local what="$1"; shift
  local t0=$SECONDS
  printf '==> %s ... ' "$what"
  if "$@" >"$log" 2>&1; then
    echo "ok ($((SECONDS - t0)) s)"
  else
    echo "FAILED"
    cat "$log" >&2
    echo "!! set-up step failed: $what" >&2
    exit 1
  fi
}

apt_install() {
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@"
}

can_apt() { [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; }

if ! command -v dot >/dev/null 2>&1; then
  if can_apt; then
    step "installing Graphviz (dot) with apt-get" apt_install graphviz
  else
    echo "!! Graphviz's 'dot' is missing: install it (apt-get install graphviz / brew install graphviz)" >&2
    echo "   crewgraph works without it, but plots and the plot tests need it." >&2
  fi
fi

# PostgreSQL's server binaries: the PGSearchTool tests start a throwaway server (skipped without them).
if [ "$profile" = dev ] && ! command -v initdb >/dev/null 2>&1 && ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then
  if can_apt; then
    step "installing PostgreSQL with apt-get" apt_install postgresql
  else
    echo "!! PostgreSQL is missing: install it (apt-get install postgresql) to run the PGSearchTool tests and the PostgreSQL store tests" >&2
  fi
fi

# MariaDB: the MySQLSearchTool, NL2SQLTool and SingleStoreSearchTool tests start a throwaway
# server (skipped without it); the package's own service is not used.
if [ "$profile" = dev ] && ! command -v mariadbd >/dev/null 2>&1 && [ ! -x /usr/sbin/mariadbd ]; then
  if can_apt; then
    step "installing MariaDB with apt-get" apt_install mariadb-server
  else
    echo "!! MariaDB is missing: install it (apt-get install mariadb-server) to run the MySQL/NL2SQL/SingleStore tool tests" >&2
  fi
fi

# Chromium and its WebDriver: the web UI's browser test drives a real headless Chromium
# (skipped without them). Debian's packages, so nothing is downloaded at test time.
if [ "$profile" = dev ] && ! { command -v chromium >/dev/null 2>&1 && command -v chromedriver >/dev/null 2>&1; }; then
  if can_apt; then
    step "installing chromium and chromium-driver with apt-get" apt_install chromium chromium-driver
  else
    echo "!! chromium/chromedriver are missing: install them (apt-get install chromium chromium-driver) to run the UI browser test" >&2
  fi
fi

if [ ! -x .venv/bin/python ]; then
  step "creating .venv with $PYTHON" "$PYTHON" -m venv .venv
fi
stamp=.venv/.crewgraph-setup
want="$profile $(sha256sum pyproject.toml | cut -d' ' -f1)"
have="$(cat "$stamp" 2>/dev/null || true)"
# A dev set-up also serves the core profile (it installs a superset).
if [ "$have" = "$want" ] || { [ "$profile" = core ] && [ "$have" = "dev ${want#core }" ]; }; then
  echo "==> .venv is up to date with pyproject.toml ($profile)"
else
  step "upgrading pip" .venv/bin/python -m pip install -q --upgrade pip
  step "installing crewgraph ($spec) into .venv" .venv/bin/python -m pip install -q -e "$spec" --config-settings editable_mode=compat
  echo "$want" >"$stamp"
fi
# An editable install leaves crewgraph's bytecode to the first import, and where
# PYTHONDONTWRITEBYTECODE is set (as on some CI and dev machines) it is never written: every
# `import crewgraph` would compile its modules from source (~2x the import time). Compile once,
# as pip does for a wheel; up-to-date files are skipped.
PYTHONDONTWRITEBYTECODE= .venv/bin/python -m compileall -q -j 0 crewgraph >/dev/null
echo "==> ready: .venv/bin/python, .venv/bin/crewgraph"
