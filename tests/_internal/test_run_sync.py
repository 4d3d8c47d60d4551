"""run_sync: a coroutine's result comes back without asyncio formatting its repr."""

from __future__ import annotations

import asyncio

from crewgraph._internal.sync import run_sync


class LoudRepr:
    """A result whose repr is expensive, like a 5,000-task CrewOutput; here it counts."""

    reprs = 0

    def __repr__(self) -> str:
        LoudRepr.reprs += 1
        return "LoudRepr()"


async def _make() -> LoudRepr:
    await asyncio.sleep(0)
    return LoudRepr()


def test_result_returned_without_its_repr_being_built() -> None:
    LoudRepr.reprs = 0
    result = run_sync(_make())
    assert isinstance(result, LoudRepr)
    assert LoudRepr.reprs == 0


def test_inside_a_running_loop_it_runs_on_a_worker_thread() -> None:
    async def outer() -> LoudRepr:
        return run_sync(_make())  # a loop runs here: the inner coroutine goes to a thread

    LoudRepr.reprs = 0
    assert isinstance(run_sync(outer()), LoudRepr)
    assert LoudRepr.reprs == 0


def test_errors_propagate() -> None:
    async def boom() -> None:
        raise KeyError("x")

    try:
        run_sync(boom())
    except KeyError as exc:
        assert exc.args == ("x",)
    else:  # pragma: no cover
        raise AssertionError("no error")
