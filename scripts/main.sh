#!/usr/bin/env bash
# Set up (if needed) and run the main job: the example crew that writes a
# briefing of a code folder (this repository by default).
# With no API key it runs on a small offline model; set OPENAI_API_KEY (or
# OPENAI_BASE_URL for a local OpenAI-compatible server) to use a real one.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
if ! setup_log="$(bash "$repo/scripts/setup.sh" 2>&1)"; then
  printf '%s\n' "$setup_log" >&2
  echo "!! set-up failed (see above)" >&2
  exit 1
fi
# Run from the caller's folder, so a FOLDER argument and --out mean what they say there.
exec "$repo/.venv/bin/python" "$repo/examples/project_briefing.py" "$@"
