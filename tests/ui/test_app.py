"""The UI's REST API through the ASGI test client: every endpoint, its errors and the token rules."""

from __future__ import annotations

import json
from typing import Any

import pytest
from starlette.testclient import TestClient

from crewgraph.ui import create_app


def _kickoff(client: Any, wait_job: Any, **inputs: Any) -> dict[str, Any]:
    started = client.post("/kickoff", json={"target": "democrew", "inputs": {"topic": "cats", **inputs}})
    assert started.status_code == 202, started.text
    return dict(wait_job(client, started.json()))


def test_targets_list_the_registered_crew_and_flow(client: Any) -> None:
    targets = {t["name"]: t for t in client.get("/targets").json()["targets"]}
    assert targets["democrew"]["kind"] == "crew" and targets["democrew"]["inputs"] == ["topic"]
    assert targets["AskFlow"]["kind"] == "flow"


def test_kickoff_then_list_and_show_the_run(client: Any, wait_job: Any) -> None:
    job = _kickoff(client, wait_job)
    assert job["status"] == "completed", job
    assert job["result"] == "cats are great"
    runs = client.get("/runs").json()["runs"]
    run = next(r for r in runs if r["run_id"] == job["run_id"])
    assert run["status"] == "completed" and run["name"] == "democrew"
    assert run["tokens"] > 0 and run["duration_s"] >= 0
    assert run["cost_usd"] is None and run["cost"].startswith("unknown")
    detail = client.get(f"/runs/{job['run_id'][:10]}").json()  # a unique prefix is enough
    assert detail["run_id"] == job["run_id"]
    statuses = {n["id"]: n["status"] for n in detail["nodes"]}
    assert statuses["t1_research_topic.agent"] == "completed"
    assert any(n["kind"] == "tool" and n["status"] == "completed" for n in detail["nodes"])
    assert detail["actions"] == {"resume": False, "answer": False, "fork": True}


def test_graph_svg_and_node_details(client: Any, wait_job: Any) -> None:
    run_id = _kickoff(client, wait_job)["run_id"]
    svg = client.get(f"/runs/{run_id}/graph.svg")
    assert svg.status_code == 200 and svg.headers["content-type"].startswith("image/svg+xml")
    assert "<svg" in svg.text and "t1_research_topic.agent" in svg.text
    step = client.get(f"/runs/{run_id}/nodes/t1_research_topic.agent").json()
    assert step["status"] == "completed" and step["kind"] == "agent_step"
    assert "research cats" in json.dumps(step["prompt"])
    assert step["output"] == "cats purr"
    assert step["recorded_by_this_server"] is True
    detail = client.get(f"/runs/{run_id}").json()
    tool_id = next(n["id"] for n in detail["nodes"] if n["kind"] == "tool" and n["status"] == "completed")
    tool = client.get(f"/runs/{run_id}/nodes/{tool_id}").json()
    assert tool["tool"] == "lookup" and tool["tool_args"] == {"query": "cats"}
    assert tool["output"] == "found cats"
    llm_id = next(n["id"] for n in detail["nodes"] if n["kind"] == "llm")
    call = client.get(f"/runs/{run_id}/nodes/{llm_id}").json()
    assert call["llm_calls"] and call["llm_calls"][0]["model"] == "fake"
    missing = client.get(f"/runs/{run_id}/nodes/no.such.node")
    assert missing.status_code == 404 and missing.json()["error"]["field"] == "node_id"


def test_a_failed_run_resumes_from_its_checkpoint(client: Any, wait_job: Any, project: Any) -> None:
    project.flag.touch()
    failed = _kickoff(client, wait_job)
    assert failed["status"] == "failed" and "model down" in failed["error"]
    run = client.get(f"/runs/{failed['run_id']}").json()
    assert run["status"] == "failed" and run["actions"]["resume"] is True
    failed_node = client.get(f"/runs/{failed['run_id']}/nodes/t2_summarise.agent").json()
    assert failed_node["status"] == "failed" and "model down" in failed_node["error"]
    project.flag.unlink()
    resumed = client.post(f"/runs/{failed['run_id']}/resume", json={})
    assert resumed.status_code == 202 and resumed.json()["run_id"] == failed["run_id"]
    done = wait_job(client, resumed.json())
    assert done["status"] == "completed", done
    nodes = {n["id"]: n["status"] for n in client.get(f"/runs/{failed['run_id']}").json()["nodes"]}
    assert nodes["t1_research_topic.agent"] == "restored"  # not run again
    again = client.post(f"/runs/{failed['run_id']}/resume", json={})
    assert again.status_code == 409 and again.json()["error"]["field"] == "run_id"


def test_fork_from_a_node_reruns_it_and_what_follows(client: Any, wait_job: Any) -> None:
    source = _kickoff(client, wait_job)["run_id"]
    forked = client.post(f"/runs/{source}/fork", json={"node_id": "t2_summarise.agent", "branch": "retry"})
    assert forked.status_code == 202, forked.text
    new_id = forked.json()["run_id"]
    assert new_id != source and forked.json()["parent_run_id"] == source
    assert wait_job(client, forked.json())["status"] == "completed"
    run = client.get(f"/runs/{new_id}").json()
    assert run["parent_run_id"] == source and run["branch"] == "retry"
    nodes = {n["id"]: n["status"] for n in run["nodes"]}
    assert nodes["t1_research_topic.agent"] == "restored" and nodes["t2_summarise.agent"] == "completed"
    bad = client.post(f"/runs/{source}/fork", json={"node_id": "t9.agent"})
    assert bad.status_code == 422 and bad.json()["error"]["field"] == "node_id"


def test_a_paused_flow_is_answered(client: Any, wait_job: Any) -> None:
    started = client.post("/kickoff", json={"target": "AskFlow"})
    job = wait_job(client, started.json())
    assert job["status"] == "paused", job
    run = client.get(f"/runs/{job['run_id']}").json()
    assert run["kind"] == "flow" and run["status"] == "paused"
    assert run["pending"][0]["question"] == "What is your name?"
    assert run["actions"]["answer"] is True
    statuses = {n["id"]: n["status"] for n in run["nodes"]}
    assert statuses["begin"] == "completed" and statuses["question"] == "paused"
    assert "<svg" in client.get(f"/runs/{job['run_id']}/graph.svg").text
    assert client.post(f"/runs/{job['run_id']}/resume", json={}).status_code == 409
    empty = client.post(f"/runs/{job['run_id']}/answer", json={})
    assert empty.status_code == 422 and empty.json()["error"]["field"] == "answer"
    answered = client.post(f"/runs/{job['run_id']}/answer", json={"answer": "Ada"})
    assert answered.status_code == 202
    done = wait_job(client, answered.json())
    assert done["status"] == "completed" and done["result"] == "hi Ada"
    assert client.get(f"/runs/{job['run_id']}").json()["status"] == "completed"
    late = client.post(f"/runs/{job['run_id']}/answer", json={"answer": "again"})
    assert late.status_code == 409


def test_a_crew_paused_for_a_review_is_answered_until_accepted(client: Any, wait_job: Any) -> None:
    job = wait_job(client, client.post("/kickoff", json={"target": "reviewcrew"}).json())
    assert job["status"] == "paused", job  # the server's crews never wait on its stdin
    run_id = job["run_id"]
    run = client.get(f"/runs/{run_id}").json()
    assert run["status"] == "paused" and run["actions"] == {"resume": False, "answer": True, "fork": True}
    assert run["pending"][0]["task"] == "draft" and run["pending"][0]["draft"] == "A long draft about owls."
    statuses = {n["id"]: n["status"] for n in run["nodes"]}
    assert statuses["t1_draft.agent"] == "paused"
    assert client.post(f"/runs/{run_id}/resume", json={}).json()["error"]["field"] == "answer"
    wrong = client.post(f"/runs/{run_id}/answer", json={"answer": {"intro": "no"}})
    assert wrong.status_code == 422 and wrong.json()["error"]["field"] == "answer.intro"
    again = wait_job(client, client.post(f"/runs/{run_id}/answer", json={"answer": "make it shorter"}).json())
    assert again["status"] == "paused"
    assert client.get(f"/runs/{run_id}").json()["pending"][0]["draft"] == "Owls hunt at night."
    done = wait_job(client, client.post(f"/runs/{run_id}/answer", json={"answer": ""}).json())
    assert done["status"] == "completed" and done["result"] == "Night Owls"
    assert client.get(f"/runs/{run_id}").json()["status"] == "completed"


def test_a_run_no_store_keeps_is_shown_from_its_job(client: Any, wait_job: Any) -> None:
    job = wait_job(client, client.post("/kickoff", json={"target": "PlainFlow"}).json())
    assert job["status"] == "completed" and job["result"] == "plain result"
    run = client.get(f"/runs/{job['run_id']}").json()
    assert run["store"] == "memory" and run["status"] == "completed"
    assert run["actions"] == {"resume": False, "answer": False, "fork": False}
    assert [n["id"] for n in run["nodes"]] == ["only"]
    assert job["run_id"] in [r["run_id"] for r in client.get("/runs").json()["runs"]]
    assert "<svg" in client.get(f"/runs/{job['run_id']}/graph.svg").text
    assert client.get(f"/runs/{job['run_id']}/nodes/only").json()["status"] == "completed"
    refused = client.post(f"/runs/{job['run_id']}/resume", json={})
    assert refused.status_code == 409 and "no store" in refused.json()["error"]["message"]


def test_events_stream_of_a_finished_run_ends(client: Any, wait_job: Any) -> None:
    run_id = _kickoff(client, wait_job)["run_id"]
    with client.stream("GET", f"/runs/{run_id}/events") as stream:
        assert stream.headers["content-type"].startswith("text/event-stream")
        text = "".join(stream.iter_text())
    assert "event: hello" in text and '"source": "events"' in text and "event: end" in text


@pytest.mark.parametrize(
    ("body", "status", "field"),
    [
        ({"target": "nope"}, 404, "target"),
        ({"target": "democrew"}, 422, "inputs.topic"),
        ({"target": "democrew", "inputs": "topic=cats"}, 422, "inputs"),
        ({"target": "democrew", "inputs": {"topic": None}}, 422, "inputs.topic"),
        ({"target": 3}, 422, "target"),
        ({"target": "democrew", "colour": "red"}, 422, "colour"),
    ],
)
def test_bad_kickoff_requests_name_the_field(client: Any, body: dict[str, Any], status: int, field: str) -> None:
    reply = client.post("/kickoff", json=body)
    assert reply.status_code == status, reply.text
    assert reply.json()["error"]["field"] == field


def test_bodies_that_are_not_json_objects(client: Any) -> None:
    broken = client.post("/kickoff", content=b"{nope", headers={"content-type": "application/json"})
    assert broken.status_code == 400 and broken.json()["error"]["field"] == "body"
    listed = client.post("/kickoff", content=b"[1]", headers={"content-type": "application/json"})
    assert listed.status_code == 400 and listed.json()["error"]["field"] == "body"
    form = client.post("/kickoff", content=b"target=democrew", headers={"content-type": "application/x-www-form-urlencoded"})
    assert form.status_code == 415 and form.json()["error"]["field"] == "content-type"


def test_unknown_runs_and_bad_queries(client: Any) -> None:
    for path in ("/runs/nope", "/runs/nope/graph.svg", "/runs/nope/nodes/x", "/runs/nope/events"):
        reply = client.get(path)
        assert reply.status_code == 404 and reply.json()["error"]["field"] == "run_id", path
    assert client.post("/runs/nope/resume", json={}).status_code == 404
    assert client.post("/runs/nope/answer", json={"answer": "x"}).status_code == 404
    assert client.get("/runs?limit=zero").json()["error"]["field"] == "limit"
    assert client.get("/runs?kind=robot").json()["error"]["field"] == "kind"
    assert client.get("/jobs/job999").status_code == 404
    assert client.get("/no/such/page").status_code == 404


def test_pages_and_static_files_come_from_the_package(client: Any) -> None:
    index = client.get("/")
    assert index.status_code == 200 and "/static/runs.js" in index.text
    assert "http" not in index.text.replace("http-equiv", "")  # no CDN
    assert "/static/run.js" in client.get("/view/anything").text
    assert client.get("/static/run.js").status_code == 200
    assert client.get("/static/style.css").headers["content-type"].startswith("text/css")


def test_loopback_without_token_refuses_other_host_names(project: Any, settings_for: Any) -> None:
    with TestClient(create_app(settings_for(project)), base_url="http://evil.example") as c:
        reply = c.get("/runs")
    assert reply.status_code == 403 and reply.json()["error"]["field"] == "host"


def test_a_public_host_gets_a_generated_token(project: Any, settings_for: Any) -> None:
    settings = settings_for(project, host="0.0.0.0")
    app = create_app(settings)
    token = settings.token
    assert token and len(token) >= 24
    with TestClient(app, base_url="http://example.org") as c:
        denied = c.get("/runs")
        assert denied.status_code == 401 and denied.json()["error"]["field"] == "token"
        assert c.get("/runs", headers={"Authorization": "Bearer wrong"}).status_code == 401
        assert c.get("/runs", headers={"Authorization": f"Bearer {token}"}).status_code == 200
        assert c.get("/runs", headers={"X-CrewGraph-Token": token}).status_code == 200
        assert c.get("/static/style.css").status_code == 200  # no data in static files
        page = c.get(f"/?token={token}", follow_redirects=False)
        assert page.status_code == 303 and page.headers["location"] == "/"
        assert "HttpOnly" in page.headers["set-cookie"] and "SameSite=Strict" in page.headers["set-cookie"]
        assert c.get("/runs").status_code == 200  # the cookie now carries it


def test_a_given_token_is_required_on_loopback_too(project: Any, settings_for: Any) -> None:
    with TestClient(create_app(settings_for(project, token="s3cret")), base_url="http://127.0.0.1") as c:
        assert c.get("/runs").status_code == 401
        assert c.get("/runs?token=s3cret").status_code == 200


def test_nothing_registered_is_a_clear_kickoff_error(project: Any, settings_for: Any) -> None:
    with TestClient(create_app(settings_for(project, targets=[None])), base_url="http://127.0.0.1") as c:
        assert c.get("/targets").json() == {"targets": []}
        reply = c.post("/kickoff", json={})
    assert reply.status_code == 400 and "no crew or flow is registered" in reply.json()["error"]["message"]


def test_the_run_list_is_built_as_the_server_starts_and_every_limit_is_cut_from_it(
        client: Any, wait_job: Any, project: Any, settings_for: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    job = _kickoff(client, wait_job)
    import crewgraph.ui.app as ui_app

    reads: list[int] = []
    real = ui_app.crew_runs
    monkeypatch.setattr(ui_app, "crew_runs", lambda db, limit: reads.append(limit) or real(db, limit))
    with TestClient(create_app(settings_for(project)), base_url="http://127.0.0.1") as fresh:
        app = fresh.app
        warming = getattr(app, "app", app).state.ui.warming  # inside the token gate
        assert warming is not None
        warming.join(20)
        assert reads == [1000]  # read once, at start, for the largest limit
        for limit in (1000, 200, 3):
            runs = fresh.get(f"/runs?limit={limit}").json()["runs"]
            assert job["run_id"] in {r["run_id"] for r in runs}
        assert reads == [1000]  # every first request was served from what the start prepared
