"""State: dict or pydantic model (kept as that model), ids, inputs, fresh per kickoff."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import pytest
from pydantic import BaseModel, ValidationError

from crewgraph.flow import Flow, FlowState, listen, start


class Counter(BaseModel):
    count: int = 0
    note: str = ""


def test_dict_state_has_an_id_and_takes_inputs() -> None:
    class F(Flow[dict]):
        @start()
        def begin(self) -> Any:
            self.state["seen"] = self.state.get("topic")
            return self.state["id"]

    flow = F()
    first_id = flow.state["id"]
    uuid.UUID(first_id)
    returned = flow.kickoff(inputs={"topic": "AI"})
    # The first kickoff runs on the state __init__ built (its id too, as in CrewAI) ...
    assert returned == flow.state["id"] == flow.flow_id == first_id
    assert flow.state["seen"] == "AI"
    # ... every later one on a fresh copy of it.
    assert flow.kickoff() != first_id
    assert "topic" not in flow.state and flow.state["seen"] is None


def test_state_set_in_init_after_super_survives_every_kickoff() -> None:
    class F(Flow[dict]):
        def __init__(self) -> None:
            super().__init__()
            self.state["budget"] = 5

        @start()
        def begin(self) -> Any:
            self.state["budget"] -= 1
            return self.state["budget"]

    class M(Flow[Counter]):
        def __init__(self) -> None:
            super().__init__()
            self.state.note = "set in __init__"

        @start()
        def begin(self) -> str:
            return self.state.note

    flow = F()
    assert flow.kickoff() == 4
    assert flow.kickoff() == 4  # each kickoff starts from what __init__ left
    assert M().kickoff() == "set in __init__"


def test_model_state_stays_that_model() -> None:
    class F(Flow[Counter]):
        @start()
        def begin(self) -> int:
            self.state.count += 1
            return self.state.count

        @listen(begin)
        def again(self, n: int) -> int:
            self.state.count += n
            return self.state.count

    flow = F()
    assert flow.kickoff(inputs={"count": 10}) == 22
    assert isinstance(flow.state, Counter) and not isinstance(flow.state, dict)
    assert flow.state.count == 22 and flow.state.id  # an id was added to a model without one
    assert flow.kickoff() == 2  # fresh state: defaults again
    with pytest.raises(ValidationError):
        flow.kickoff(inputs={"count": "many"})


def test_flow_state_base_and_initial_state_forms() -> None:
    class S(FlowState):
        name: str = "x"

    class ByGeneric(Flow[S]):
        @start()
        def a(self) -> str:
            return self.state.name

    class ByClass(Flow):
        initial_state = S

        @start()
        def a(self) -> str:
            return self.state.name

    class ByInstance(Flow):
        initial_state = S(name="from instance")

        @start()
        def a(self) -> str:
            return self.state.name

    class ByDict(Flow):
        initial_state = {"name": "from dict"}

        @start()
        def a(self) -> str:
            return str(self.state["name"])

    assert ByGeneric().kickoff() == "x"
    assert ByClass().kickoff(inputs={"name": "y"}) == "y"
    flow = ByInstance()
    assert flow.kickoff() == "from instance"
    assert flow.state.id != ByInstance.initial_state.id  # a fresh id, not the template's
    assert ByDict().kickoff() == "from dict"
    assert isinstance(ByClass().state, S)


def test_init_kwargs_are_initial_values_and_id_input_sets_the_id() -> None:
    class F(Flow[Counter]):
        @start()
        def a(self) -> int:
            return self.state.count

    flow = F(count=5)
    assert flow.kickoff() == 5
    assert flow.kickoff(inputs={"count": 6}) == 6
    assert flow.kickoff() == 5
    flow.kickoff(inputs={"id": "my-id"})
    assert flow.state.id == "my-id"


def test_kickoff_async_returns_the_last_output() -> None:
    class F(Flow):
        @start()
        async def a(self) -> str:
            return "first"

        @listen(a)
        def b(self, v: str) -> str:
            return v + " then second"

    assert asyncio.run(F().kickoff_async()) == "first then second"
    assert F().kickoff() == "first then second"
