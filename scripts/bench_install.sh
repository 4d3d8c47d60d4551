#!/usr/bin/env bash
# Install footprint of crewgraph's core (no extras) in a fresh virtualenv: size of the runtime
# packages (pip and setuptools, which every venv has, left out) and the install's wall time.
# Run: bash scripts/bench_install.sh [EXTRAS]     e.g. bash scripts/bench_install.sh all
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-python3.11}"
command -v "$PYTHON" >/dev/null 2>&1 || PYTHON=python3
target="."
[ -n "${1:-}" ] && target=".[$1]"
venv="$(mktemp -d)/venv"
"$PYTHON" -m venv "$venv"
site="$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
base=$(du -sm "$site" | cut -f1)
start=$(date +%s.%N)
"$venv/bin/pip" install -q "$target"
end=$(date +%s.%N)
total=$(du -sm "$site" | cut -f1)
echo "install of '$target': $(echo "$end - $start" | bc) s, $((total - base)) MB of packages (venv baseline ${base} MB left out)"
echo "largest:"
du -sm "$site"/* | sort -n | tail -8 | sed "s|$site/||"
rm -rf "$(dirname "$venv")"
