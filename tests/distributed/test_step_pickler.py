"""The step pickler's swaps, without a cluster: each object goes the way its type says.

``StepPickler.swap`` runs for every object a payload holds, so it classifies each type once
(per pickler) instead of testing every object against each special class; these tests pin
that the classification gives each kind its swap, subclasses included, on every occurrence.
"""

from __future__ import annotations

import pickle
import threading
from typing import Any

import pytest

from crewgraph import LLM
from crewgraph.distributed._pickling import StepPickler, worker_llm
from crewgraph.llm.rate_limit import RPMLimiter
from crewgraph.testing import FakeLLM
from crewgraph.tools import BaseTool


@pytest.fixture(autouse=True)
def _ray_installed() -> None:
    pytest.importorskip("ray")


class _Echo(BaseTool):
    name: str = "echo"
    description: str = "says it back"

    def _run(self, text: str) -> str:
        return text


class _MyFake(FakeLLM):
    """A user's own model subclass: hosted like any model that is not a configured client."""


class _Limiter(RPMLimiter):
    pass


def _pickler(seen: list[tuple[str, Any]]) -> StepPickler:
    def host(obj: Any) -> Any:
        seen.append(("hosted", obj))
        return (str, ("hosted",))

    def limit(obj: Any) -> Any:
        seen.append(("limiter", obj))
        return (str, ("limiter",))

    return StepPickler(host, limit, None)


def test_each_kind_takes_its_swap_on_every_occurrence_subclasses_included() -> None:
    seen: list[tuple[str, Any]] = []
    fake, mine, other = FakeLLM(default="x"), _MyFake(default="y"), FakeLLM(default="z")
    limiter, sub_limiter = RPMLimiter(10), _Limiter(5)
    # `fake` twice: the pickler's memo sends it once (one swap), `other` is its own
    payload = {"models": [fake, mine, other, fake], "limits": [limiter, sub_limiter],
               "lock": threading.Lock(), "rlock": threading.RLock(), "plain": [1, "a", (2.0,)]}
    got = pickle.loads(_pickler(seen).dumps(payload))
    assert [kind for kind, _ in seen] == ["hosted", "hosted", "hosted", "limiter", "limiter"]
    assert [obj for _, obj in seen] == [fake, mine, other, limiter, sub_limiter]
    assert got["models"] == ["hosted"] * 4 and got["limits"] == ["limiter"] * 2
    assert type(got["lock"]) is type(threading.Lock()) and got["lock"] is not payload["lock"]
    assert type(got["rlock"]) is type(threading.RLock())
    assert got["plain"] == [1, "a", (2.0,)]


def test_a_model_client_goes_as_its_configuration_and_a_tool_as_a_copy() -> None:
    seen: list[tuple[str, Any]] = []
    llm = LLM(model="openai/gpt-4o-mini", api_key="sk-test", base_url="http://127.0.0.1:9/v1")
    pickler = _pickler(seen)
    reduced = pickler.swap(llm)
    assert reduced[0] is worker_llm  # rebuilt on the worker, not hosted
    assert pickler.swap(llm) == reduced  # configured once, the same key after
    echo = _Echo()
    copy = pickle.loads(pickler.dumps(echo))
    assert isinstance(copy, _Echo) and copy is not echo and copy.run(text="hi") == "hi"
    assert seen == []
