"""CrewAI's declarative flows (``crewai.flow/v1``): reading documents, building flows from them.

:mod:`~crewgraph.flow.declarative.loading` reads a document (errors name file,
line and key), :mod:`~crewgraph.flow.declarative.build` makes the Flow class
(and the definition of a Python class), :mod:`~crewgraph.flow.declarative.actions`
the ``do:`` actions. The models are in :mod:`crewgraph.flow.flow_definition`,
the expression language in :mod:`crewgraph.flow.expressions`. Nothing is
imported with this package, so ``import crewgraph`` stays fast.
"""
