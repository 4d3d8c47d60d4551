#!/usr/bin/env bash
# Set up (if needed) and run the main job: the example crew that writes a
# briefing of a code folder (this repository by default).
# With no API key it runs on a small offline model; set OPENAI_API_KEY (or
# OPENAI_BASE_URL for a local OpenAI-compatible server) to use a real one.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh >/dev/null
exec .venv/bin/python examples/project_briefing.py "$@"
