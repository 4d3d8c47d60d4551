"""Task clusters and collapsed calls on a real crew run (FakeLLM scripts, real tools)."""

from __future__ import annotations

import json
import re

import pytest
from _big_crew import big_run
from _dot_read import edge_attrs, label_text, node_attrs, node_ids

from crewgraph.graph import RunGraph


@pytest.fixture(scope="module")
def parallel_run() -> RunGraph:
    """10 tasks; each agent asks for 3 searches in one turn, then read_file, then calculator."""
    return big_run(10, parallel=True)


@pytest.fixture(scope="module")
def looped_run() -> RunGraph:
    """3 tasks; each agent makes one call per turn (search, search, search, read, calc)."""
    return big_run(3, parallel=False)


def test_one_cluster_per_task_labelled_with_task_and_agent(parallel_run: RunGraph) -> None:
    dot = parallel_run.to_dot()
    assert len(re.findall(r"^\tsubgraph cluster_t\d+ \{$", dot, re.MULTILINE)) == 10
    assert "<B>Task: research step 4</B>" in dot and "Agent: Analyst 4" in dot
    clusters = parallel_run.to_json()["clusters"]
    assert [c["task"] for c in clusters] == [f"research step {i}" for i in range(10)]
    first = clusters[0]
    assert first["id"] == "cluster:t1_research_step_0" and first["agent"] == "Analyst 0"
    # the step, its LLM turns and every call it made (templates too) are in its box
    assert all(n.startswith("t1_research_step_0.") for n in first["nodes"])
    assert len([n for n in first["nodes"] if ".it" in n]) == 5
    assert len([n for n in first["nodes"] if ".llm" in n]) == 4


def test_parallel_repeats_collapse_with_count(parallel_run: RunGraph) -> None:
    data = parallel_run.to_json()
    searches = [g for g in data["groups"] if g["tool"] == "search_web"]
    assert len(searches) == 10 and all(g["count"] == 3 for g in searches)
    group = searches[0]
    assert group["members"] == [f"t1_research_step_0.agent.it1.{k}.search_web" for k in range(3)]
    assert group["key_args"] == [f'"topic 0 angle {k}"' for k in range(3)]
    nodes = {n["id"]: n for n in data["nodes"]}
    assert all(nodes[m]["drawn_as"] == group["id"] for m in group["members"])
    assert nodes[group["members"][0]]["info"]["args"] == {"query": "topic 0 angle 0", "max_results": 3}
    dot = parallel_run.to_dot()
    drawn = node_attrs(dot, group["id"])
    assert label_text(drawn).splitlines()[:2] == ["search_web ×3", '"topic 0 angle 0" +2 more']
    assert drawn["peripheries"] == "2"
    for k in range(3):  # every call is listed in the tooltip
        assert f'"topic 0 angle {k}"' in drawn["tooltip"].replace('\\"', '"')
    assert "t1_research_step_0.agent.it1.1.search_web" not in node_ids(dot)
    assert len(node_ids(dot)) == len(node_ids(parallel_run.to_dot(collapse=False))) - 20


def test_agent_loop_calling_one_tool_folds_into_two_nodes(looped_run: RunGraph) -> None:
    """LLM, search, LLM, search, LLM, search... is drawn as "LLM ×3" then "search_web ×3"."""
    dot = looped_run.to_dot()
    step = "t1_research_step_0.agent"
    llm, search = f"{step}.llm1", f"{step}.it1.0.search_web"
    assert label_text(node_attrs(dot, llm)).startswith("LLM ×3")
    assert label_text(node_attrs(dot, search)).startswith("search_web ×3")
    assert edge_attrs(dot, step, llm) is not None and edge_attrs(dot, llm, search) is not None
    assert edge_attrs(dot, search, f"{step}.llm4") is not None  # then the next turn
    groups = {g["id"]: g for g in looped_run.to_json()["groups"]}
    assert groups[llm]["members"] == [f"{step}.llm{i}" for i in (1, 2, 3)]
    assert groups[search]["members"] == [f"{step}.it{i}.0.search_web" for i in (1, 2, 3)]
    assert label_text(node_attrs(dot, f"{step}.it4.0.read_file")).startswith("read_file\nnotes/task_0.md")


def test_a_failed_call_never_hides_in_a_group(parallel_run: RunGraph) -> None:
    """Task 3 reads a missing file: a handled failure, drawn alone with a red dashed outline."""
    dot = parallel_run.to_dot()
    failed = node_attrs(dot, "t4_research_step_3.agent.it2.0.read_file")
    assert failed["style"] == "filled,dashed" and failed["color"] == "#b02a37"
    assert "tool failure" in label_text(failed)
    assert parallel_run.to_json()["totals"]["tool_failures"] == 1


def test_steps_in_rows_and_boxes_stacked(parallel_run: RunGraph) -> None:
    dot = parallel_run.to_dot()
    rows = re.findall(r"\{rank=same; ([^}]*)\}", dot)
    assert rows and all(len(r.split('" "')) <= 5 for r in rows)  # rows wrap at five calls
    # the next task is ranked below the whole previous box, and drawn from its border
    context = edge_attrs(dot, "t1_research_step_0.agent", "t2_research_step_1.agent")
    assert context is not None and context["ltail"] == "cluster_t0" and context["weight"] == "0"
    json.dumps(parallel_run.to_json())
