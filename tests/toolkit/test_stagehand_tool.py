"""StagehandTool end to end: Stagehand's real runtime in Debian's headless Chromium on a local page,
its model requests answered by crewgraph's LLM from a local OpenAI-compatible server.

The fake model reads what a model reads: the accessibility tree Stagehand took from the live
page (so the element ids it answers with are the browser's own), and answers in the JSON
schema the request names (``Act``, ``Observation``, ``Extraction``, ``Metadata``).
"""

from __future__ import annotations

import copy
import json
import re
import shutil
from collections.abc import Iterator
from typing import Any

import pytest
from _fake_browserbase import API_KEY, FakeBrowserbase

from crewgraph.llm import LLM
from crewgraph.testing import FakeHTTPService
from crewgraph.testing.openai_server import OpenAICompatServer
from crewgraph.toolkit import StagehandTool
from crewgraph.tools.tool_failure import ToolFailure


@pytest.fixture(autouse=True)
def _stagehand_installed() -> None:
    """Skips at setup rather than at import (function scope, so the module is not made one xdist group), so collecting the suite does not import stagehand."""
    pytest.importorskip("stagehand", reason="stagehand (the stagehand extra) is not installed")


CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
browser = pytest.mark.skipif(CHROMIUM is None, reason="no chromium on this machine")

PAGE = """<!doctype html><html><head><title>Greeter</title></head><body>
<h1>Greeter</h1>
<label for="name">Name</label> <input id="name" type="text">
<button id="greet" onclick="document.getElementById('out').textContent =
  'Hello, ' + document.getElementById('name').value">Greet</button>
<p id="out">Nobody greeted yet</p>
</body></html>"""


def _tree(body: dict[str, Any]) -> str:
    return "\n".join(str(m.get("content")) for m in body["messages"] if m["role"] == "user")


def _element(tree: str, role: str) -> str:
    found = re.search(rf"\[(\d+-\d+)\] {role}\b", tree)
    assert found, f"no {role} in the tree Stagehand sent:\n{tree}"
    return found.group(1)


def _model(body: dict[str, Any]) -> str:
    """A model that answers each of Stagehand's structured requests from the page it was shown."""
    name = body["response_format"]["json_schema"]["name"]
    tree = _tree(body)
    asked = re.search(r"the following action: (.*?)\.\s", tree)
    wants = asked.group(1).lower() if asked else ""
    if name == "Observation":
        return json.dumps({"elements": [{"elementId": _element(tree, "button"), "description": "the Greet button",
                                         "method": "click", "arguments": []}]})
    if name == "Act" and "mumble" in wants:
        return "I would click the button"
    if name == "Act":
        if "type" in wants:
            action = {"elementId": _element(tree, "textbox"), "description": "the name field", "method": "fill",
                      "arguments": ["Ada"]}
        else:
            action = {"elementId": _element(tree, "button"), "description": "the Greet button", "method": "click",
                      "arguments": []}
        return json.dumps({"action": action, "twoStep": False})
    if name == "Extraction":
        greeting = re.search(r"StaticText: (Hello,[ \w]*|Nobody greeted yet)", tree)
        assert greeting, tree
        return json.dumps({"extraction": greeting.group(1).strip()})
    if name == "Metadata":
        return json.dumps({"progress": "read the greeting", "completed": True})
    raise AssertionError(f"unexpected request {name}")


@pytest.fixture(scope="module")
def site() -> Iterator[FakeHTTPService]:
    with FakeHTTPService({"GET /": PAGE}) as service:
        yield service


@pytest.fixture(scope="module")
def model() -> Iterator[OpenAICompatServer]:
    with OpenAICompatServer(default=_model) as server:
        yield server


@browser
@pytest.mark.timeout(120)
def test_navigate_observe_act_and_extract_on_a_live_page(site: FakeHTTPService, model: OpenAICompatServer) -> None:
    llm = LLM(model="local-model", base_url=model.base_url, api_key="unused")
    with StagehandTool(llm=llm, headless=True, verbose=0, dom_settle_timeout_ms=500) as tool:
        went = json.loads(tool.run(command_type="navigate", url=site.url + "/"))
        assert went == {"url": site.url + "/", "message": f"Successfully navigated to {site.url}/"}

        seen = tool.run(instruction="find the greet button", command_type="observe")
        assert seen == "Element 1: the Greet button\nSuggested action: click"

        before = tool.run(instruction="the greeting", command_type="extract")
        assert json.loads(before.removeprefix("Extracted data: ")) == {"extraction": "Nobody greeted yet"}

        acted = tool.run(instruction="Step 1: type Ada in the name field; Step 2: click the Greet button")
        assert acted.splitlines() == [
            "Step 1: Action [fill] performed successfully on selector: xpath=/html[1]/body[1]/input[1]",
            "Step 2: Action [click] performed successfully on selector: xpath=/html[1]/body[1]/button[1]"], acted

        after = tool.run(instruction="the greeting", command_type="extract")  # the click ran in the page
        assert json.loads(after.removeprefix("Extracted data: ")) == {"extraction": "Hello, Ada"}

        garbled = tool.run(instruction="mumble at the page", url=site.url + "/")  # the model answers in prose
        assert isinstance(garbled, ToolFailure) and garbled.code == "stagehand_failed"
        assert "not JSON" in garbled.message, garbled.message

        bad = tool.run(command_type="navigate", url="file:///etc/passwd")
        assert isinstance(bad, ToolFailure) and bad.code == "invalid_url"
    names = [r["response_format"]["json_schema"]["name"] for r in model.chat_requests]
    assert {"Observation", "Act", "Extraction", "Metadata"} <= set(names)
    assert all(r["model"] == "local-model" for r in model.chat_requests)


@browser
@pytest.mark.timeout(120)
def test_with_a_browserbase_key_it_runs_on_a_browserbase_session(site: FakeHTTPService, model: OpenAICompatServer,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    with FakeBrowserbase() as bb:
        monkeypatch.setenv("BROWSERBASE_API_KEY", API_KEY)
        monkeypatch.setenv("BROWSERBASE_BASE_URL", bb.url)
        llm = LLM(model="local-model", base_url=model.base_url, api_key="unused")
        with StagehandTool(llm=llm, project_id="proj", dom_settle_timeout_ms=500, verbose=0) as tool:
            assert tool.api_key == API_KEY
            acted = tool.run(instruction="click the Greet button", url=site.url + "/")
            assert acted == "Action result: Action [click] performed successfully on selector: " \
                "xpath=/html[1]/body[1]/button[1]", acted
            seen = tool.run(instruction="the greeting", command_type="extract")
            assert json.loads(seen.removeprefix("Extracted data: ")) == {"extraction": "Hello,"}  # nobody typed a name
            (session,) = bb.sessions.values()
            assert session.poll() is None
        calls = [(r.method, r.path) for r in bb.service.requests]
        assert calls == [("POST", "/v1/extensions"), ("POST", "/v1/sessions"), ("POST", "/v1/sessions/sess1"),
                         ("DELETE", "/v1/extensions/ext1")], calls
        assert bb.service.requests[2].json == {"status": "REQUEST_RELEASE"}
        assert session.wait(timeout=10) is not None  # the released session's browser is gone


def test_attaching_to_a_session_and_a_stagehand_url_without_a_key_are_refused(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("BROWSERBASE_API_KEY", raising=False)
    with pytest.raises(ValueError, match=r"StagehandTool\(session_id=\.\.\.\) is not supported"):
        StagehandTool(session_id="sess1", api_key="k")
    with pytest.raises(ValueError, match=r"server_url.*needs a Browserbase key"):
        StagehandTool(server_url="http://127.0.0.1:1/v1")
    assert StagehandTool(api_key="k", server_url="http://127.0.0.1:1/v1").api_key == "k"


def test_a_copied_tool_shares_its_browser_session_and_close_ends_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("BROWSERBASE_API_KEY", raising=False)
    tool = StagehandTool(llm=LLM(model="local-model", base_url="http://127.0.0.1:9/v1", api_key="unused"))
    session = tool._open()  # the loop thread only: Chromium starts on the first call
    twin = copy.deepcopy(tool)
    assert twin._session is session
    tool.close()
    assert not session._thread.is_alive() and tool._session is None


def test_without_a_model_key_the_call_says_which_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("BROWSERBASE_API_KEY", raising=False)
    for var in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GOOGLE_API_KEY"):
        monkeypatch.delenv(var, raising=False)
    tool = StagehandTool(model_name="gpt-4o")
    assert any("OPENAI_API_KEY" in p for p in tool.config_problems())
    failed = tool.run(instruction="click", command_type="act")
    assert isinstance(failed, ToolFailure) and failed.code == "missing_api_key"
    assert tool.run(command_type="navigate").code == "missing_url"
    assert tool.run(instruction="x", command_type="scroll").code == "bad_command"
