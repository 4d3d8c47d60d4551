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
echo "largest distributions (file sizes from their RECORD; bytecode compiled at install not included):"
"$venv/bin/python" - "$site" <<'PY'
import importlib.metadata as md
import os
import sys

site = sys.argv[1]
rows = []
for dist in md.distributions(path=[site]):
    size = sum(os.path.getsize(os.path.join(site, str(f))) for f in dist.files or []
               if os.path.isfile(os.path.join(site, str(f))))
    if dist.metadata["Name"] not in ("pip", "setuptools"):
        rows.append((size, dist.metadata["Name"]))
for size, name in sorted(rows, reverse=True)[:20]:
    print(f"{size / 1e6:7.1f} MB  {name}")
print(f"{sum(s for s, _ in rows) / 1e6:7.1f} MB in {len(rows)} distributions")
PY
rm -rf "$(dirname "$venv")"
