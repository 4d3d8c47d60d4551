"""``python -m crewgraph.compat script.py [args]`` (or ``-m module [args]``): run CrewAI code unmodified.

The alias is on before the script's first line runs (importing this package turns it on),
and the script runs as ``__main__`` with its own ``sys.argv``, as ``python script.py`` would.
"""

from __future__ import annotations

import os
import runpy
import sys

_USAGE = (
    "usage: python -m crewgraph.compat SCRIPT.py [ARGS...]\n"
    "       python -m crewgraph.compat -m MODULE [ARGS...]\n"
    "runs CrewAI code on crewgraph: `import crewai` and `import crewai_tools` resolve to crewgraph"
)


def main(argv: list[str]) -> int:
    """Run the script or module ``argv`` names; the exit status for a usage error (else its own)."""
    if not argv or argv[0] in ("-h", "--help"):
        print(_USAGE, file=sys.stderr if not argv else sys.stdout)
        return 2 if not argv else 0
    if argv[0] == "-m":
        if len(argv) < 2:
            print(_USAGE, file=sys.stderr)
            return 2
        sys.argv = argv[1:]
        sys.path.insert(0, os.getcwd())
        runpy.run_module(argv[1], run_name="__main__", alter_sys=True)
        return 0
    script = argv[0]
    if not os.path.isfile(script):
        print(f"python -m crewgraph.compat: no such file: {script}", file=sys.stderr)
        return 2
    sys.argv = list(argv)
    sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
    runpy.run_path(script, run_name="__main__")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
