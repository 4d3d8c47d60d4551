#!/usr/bin/env bash
# Set up (if needed) and run the main job: the example crew that writes a
# briefing of a code folder (this repository by default).
# With no API key it runs on a small offline model; set OPENAI_API_KEY (or
# OPENAI_BASE_URL for a local OpenAI-compatible server) to use a real one.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
# Set-up progress (one line per step; a failing step's full log) goes to stderr, so the job's
# output stays clean; pip runs only when pyproject.toml changed since the last set-up.
bash "$repo/scripts/setup.sh" core >&2
# Run from the caller's folder, so a FOLDER argument and --out mean what they say there.
exec "$repo/.venv/bin/python" "$repo/examples/project_briefing.py" "$@"
