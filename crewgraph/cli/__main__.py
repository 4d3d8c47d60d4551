"""``python -m crewgraph.cli``: the same as the ``crewgraph`` console script."""

from crewgraph.cli import main

if __name__ == "__main__":
    main()
