"""CrewAI's Flow fields as constructor keywords: honoured per instance, or refused by name."""

from __future__ import annotations

import abc

import pytest
from pydantic import BaseModel

from crewgraph.flow import Flow, listen, start
from crewgraph.flow.flow import FlowMeta
from crewgraph.flow.human_feedback import HumanFeedbackResult


class Counter(BaseModel):
    count: int = 0


class Loop(Flow):
    @start()
    def begin(self) -> int:
        return 1

    @listen(begin)
    def again(self, value: int) -> str:
        return f"{self.flow_name}:{value}:{self.state.get('count', 0) if isinstance(self.state, dict) else self.state.count}"


def test_name_initial_state_and_limit_are_per_instance() -> None:
    flow = Loop(name="renamed", initial_state=Counter, max_method_calls=7)
    assert flow.max_method_calls == 7 and Loop.max_method_calls == 100
    assert flow.kickoff() == "renamed:1:0"
    assert isinstance(flow.state, Counter)
    assert Loop().kickoff() == "Loop:1:0"  # the class is untouched


def test_checkpoint_state_seeds_the_state() -> None:
    flow = Loop(initial_state=Counter, checkpoint_state={"count": 5})
    assert flow.kickoff() == "Loop:1:5"


def test_feedback_history_is_seeded() -> None:
    earlier = HumanFeedbackResult(output="draft", feedback="fine", method_name="review")
    flow = Loop(human_feedback_history=[earlier])
    assert flow.last_human_feedback is earlier
    later = HumanFeedbackResult(output="v2", feedback="ok")
    assert Loop(last_human_feedback=later).human_feedback_history == [later]


@pytest.mark.parametrize(("field", "value", "words"), [
    ("stream", True, "stream_events"),
    ("suppress_flow_events", True, "not supported"),
    ("checkpoint_completed_methods", {"begin"}, "from_checkpoint"),
    ("entity_type", "crew", "entity_type is 'flow'"),
])
def test_unsupported_fields_are_refused_by_name(field: str, value: object, words: str) -> None:
    with pytest.raises(ValueError, match=field) as err:
        Loop(**{field: value})
    assert words in str(err.value)


def test_flow_meta_allows_abstract_flows() -> None:
    assert isinstance(Flow, FlowMeta)

    class Base(Flow, abc.ABC):
        @abc.abstractmethod
        def topic(self) -> str: ...

        @start()
        def begin(self) -> str:
            return self.topic()

    with pytest.raises(TypeError, match="abstract"):
        Base()

    class Concrete(Base):
        def topic(self) -> str:
            return "flows"

    assert Concrete().kickoff() == "flows"
