"""Default-context prompts share the text of earlier outputs (issue 28 item 4).

What the model is sent must not change: each request body holds the task's whole prompt
(every earlier output under its task's name). What is kept after the call --
``TaskOutput.messages``, the run graph's call records, a FakeLLM's request log -- holds a
ref to the run's shared context text and reads as the same message dicts.
"""

from __future__ import annotations

import copy
import json
import pickle
from typing import Any

from crewgraph import LLM, Agent, Crew, Task
from crewgraph._internal.shared_prompt import CompactMessage, ContextRef, PromptMessage
from crewgraph.hooks import before_llm_call, clear_all_global_hooks
from crewgraph.outputs import TaskOutput
from crewgraph.testing import FakeLLM, OpenAICompatServer

_SEP = "\n\n----------\n\n"


def _expected_prompt(i: int, answers: list[str]) -> str:
    """Task ``i``'s prompt, written out independently of the code that builds it."""
    text = f"Current Task: task {i}\n\nThis is the expected criteria for your final answer: e {i}\n" \
           "You MUST return the actual complete content as the final answer, not a summary."
    if i == 1:
        text += f"\n\nThis is the context you're working with:\n{answers[0]}"
    elif i > 1:
        context = _SEP.join(f"[task {j}]\n{answers[j]}" for j in range(i))
        text += f"\n\nThis is the context you're working with:\n{context}"
    return text + "\n\nBegin! This is VERY important to you, do your best work."


def _crew(llm: Any, n: int) -> Crew:
    agent = Agent(role="R", goal="g", backstory="b", llm=llm, respect_context_window=False)
    return Crew(agents=[agent], tasks=[Task(description=f"task {i}", expected_output=f"e {i}", agent=agent)
                                       for i in range(n)])


def test_request_bodies_carry_every_earlier_output_and_outputs_read_the_same() -> None:
    answers = [f"answer {i} " + "x" * i for i in range(4)]
    with OpenAICompatServer(answers) as server:
        out = _crew(LLM(model="m", base_url=server.base_url, api_key="k"), 4).kickoff()
        bodies = server.chat_requests
    assert len(bodies) == 4
    for i, (body, task) in enumerate(zip(bodies, out.tasks_output, strict=True)):
        sent = body["messages"]
        assert sent[1] == {"role": "user", "content": _expected_prompt(i, answers)}
        # what the output keeps reads as exactly what was sent (and as CrewAI's dicts)
        kept = task.messages
        assert json.loads(json.dumps(kept[:2])) == sent
        assert kept[1]["content"] == sent[1]["content"] and kept[1].get("content") == sent[1]["content"]
        assert task.model_dump()["messages"][:2] == sent
        assert json.loads(task.model_dump_json())["messages"][:2] == sent
        if i >= 2:
            assert type(kept[1]) is CompactMessage


def test_kept_prompts_share_one_entry_list_across_outputs_records_and_the_fake() -> None:
    llm = FakeLLM(default="done")
    out = _crew(llm, 6).kickoff()
    refs = [t.messages[1]._source.context for t in out.tasks_output[2:]]  # type: ignore[attr-defined]
    assert all(isinstance(r, ContextRef) for r in refs)
    assert len({id(r.parts) for r in refs}) == 1  # one list, each ref a prefix of it
    assert [r.count for r in refs] == [2, 3, 4, 5]
    assert all(type(c.messages[1]) is CompactMessage for c in llm.calls[2:])
    assert [c.messages[1]["content"] for c in llm.calls] == [t.messages[1]["content"] for t in out.tasks_output]
    assert out.graph is not None
    kept = [r.detail["messages"][1] for r in out.graph.records() if r.kind == "llm" and r.detail]
    assert len(kept) == 6 and all(type(m) is CompactMessage for m in kept[2:])


def test_a_compact_message_behaves_as_the_plain_dict() -> None:
    ref = ContextRef(["[a]\nx", "[b]\ny", "[c]\nz"], 2, _SEP)
    sent = PromptMessage("H:", ref, ":T")
    plain = {"role": "user", "content": "H:[a]\nx" + _SEP + "[b]\ny:T"}
    assert dict(sent) == plain and type(sent.copy()) is PromptMessage
    kept = sent.retained()
    assert type(kept) is CompactMessage and dict.get(kept, "content") is None  # only the ref is stored
    assert kept == plain and plain == kept and kept != {"role": "user", "content": ""}
    assert dict(kept) == {**kept} == kept.copy() == copy.copy(kept) == copy.deepcopy(kept) == plain
    assert list(kept) == list(kept.keys()) == ["role", "content"] and len(kept) == 2 and "content" in kept
    assert list(kept.items()) == list(plain.items()) and list(kept.values()) == list(plain.values())
    assert json.dumps(kept) == json.dumps(plain) and repr(kept) == repr(plain)
    assert kept | {"x": 1} == {**plain, "x": 1}
    restored = pickle.loads(pickle.dumps(kept))
    assert type(restored) is dict and restored == plain
    assert pickle.loads(pickle.dumps(sent)) == plain
    kept["content"] += "!"  # changing it fills the text in: from then on it is a plain dict
    assert kept == {"role": "user", "content": plain["content"] + "!"}
    sent["content"] = "edited"  # a hook edited what is sent: kept as edited, whole
    assert type(sent.retained()) is dict and sent.retained()["content"] == "edited"


def test_task_output_keeps_compact_messages_and_validates_plain_ones() -> None:
    kept = PromptMessage("H:", ContextRef(["a", "b"], 2, "|"), "").retained()
    out = TaskOutput(description="d", messages=[{"role": "system", "content": "s"}, kept])
    assert out.messages[1] is kept
    assert TaskOutput.model_validate_json(out.model_dump_json()).messages[1] == {"role": "user", "content": "H:a|b"}


def test_a_before_llm_call_hook_edit_is_what_the_output_keeps() -> None:
    @before_llm_call
    def shout(context: Any) -> None:
        context.messages[1]["content"] = context.messages[1]["content"].upper()

    try:
        llm = FakeLLM(default="done")
        out = _crew(llm, 4).kickoff()
    finally:
        clear_all_global_hooks()
    last = out.tasks_output[-1].messages[1]
    assert last["content"] == llm.calls[-1].messages[1]["content"]
    assert last["content"].startswith("CURRENT TASK: TASK 3") and "[TASK 2]\nDONE" in last["content"]
