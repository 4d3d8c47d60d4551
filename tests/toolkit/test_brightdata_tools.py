"""The Bright Data tools against a local stand-in speaking its /request and datasets v3 APIs."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from crewgraph.testing import FakeHTTPService, FakeRequestRecord
from crewgraph.toolkit import BrightDataDatasetTool, BrightDataSearchTool, BrightDataWebUnlockerTool
from crewgraph.tools import ToolFailure

POLLS: list[str] = []


def _auth(reply: Any) -> Any:
    def handler(request: FakeRequestRecord) -> Any:
        if request.headers.get("authorization") != "Bearer bd-key":
            return 401, {"error": "Unauthorized"}
        return reply(request) if callable(reply) else reply
    return handler


def _progress(request: FakeRequestRecord) -> Any:
    POLLS.append(request.path)
    return {"status": "running" if len(POLLS) < 2 else "ready", "snapshot_id": "s_1"}


@pytest.fixture(scope="module")
def api() -> Iterator[FakeHTTPService]:
    with FakeHTTPService({
        "POST /request": _auth(lambda r: (200, '{"organic": [{"title": "Hit"}]}' if "brd_json=1" in r.json["url"]
                                          else "# Unlocked page", {"Content-Type": "text/plain"})),
        "POST /datasets/v3/trigger": _auth({"snapshot_id": "s_1"}),
        "GET /datasets/v3/progress/s_1": _auth(_progress),
        "GET /datasets/v3/snapshot/s_1": _auth(lambda r: (200, '[{"title": "Kettle", "price": 20}]',
                                                          {"Content-Type": "application/json"})),
    }) as service:
        yield service


@pytest.fixture(autouse=True)
def _env(monkeypatch: pytest.MonkeyPatch, api: FakeHTTPService) -> None:
    monkeypatch.setenv("BRIGHT_DATA_API_KEY", "bd-key")
    monkeypatch.setenv("BRIGHT_DATA_ZONE", "serp_zone")
    monkeypatch.setenv("BRIGHTDATA_API_URL", api.url)


def test_serp_search_builds_the_engine_url(api: FakeHTTPService) -> None:
    assert BrightDataSearchTool().run(query="crew graph", search_type="nws", device_type="ios") == \
        '{"organic": [{"title": "Hit"}]}'
    assert api.requests_to("/request")[-1].json == {
        "zone": "serp_zone", "format": "raw",
        "url": "https://www.google.com/search?q=crew%20graph&gl=us&hl=en&num=10&brd_json=1&tbm=nws&brd_mobile=ios"}
    BrightDataSearchTool(search_engine="bing", country="de", parse_results=False).run(query="x")
    assert api.requests_to("/request")[-1].json["url"] == "https://www.bing.com/search?q=x&gl=de&hl=en&num=10"


def test_web_unlocker(api: FakeHTTPService) -> None:
    assert BrightDataWebUnlockerTool(zone="unlocker").run(url="https://example.com") == "# Unlocked page"
    assert api.requests_to("/request")[-1].json == {"zone": "unlocker", "url": "https://example.com", "format": "raw",
                                                    "data_format": "markdown"}
    assert BrightDataWebUnlockerTool().run(url="https://example.com", data_format="pdf").code == "invalid_format"


def test_dataset_triggers_polls_and_downloads(api: FakeHTTPService) -> None:
    POLLS.clear()
    tool = BrightDataDatasetTool(polling_interval=0.01)
    result = tool.run(dataset_type="amazon_product", url="https://amazon.example/dp/1", zipcode="10001")
    assert result == '[{"title": "Kettle", "price": 20}]' and len(POLLS) == 2
    sent = api.requests_to("/datasets/v3/trigger")[-1]
    assert sent.query == {"dataset_id": ["gd_l7q7dkf244hwjntr0"], "include_errors": ["true"]}
    assert sent.json == [{"url": "https://amazon.example/dp/1", "zipcode": "10001"}]
    assert api.requests_to("/datasets/v3/snapshot/s_1")[-1].query == {"format": ["json"]}
    assert tool.run(dataset_type="nope", url="https://x.example").code == "unknown_dataset"


def test_keys_and_zone_are_checked(monkeypatch: pytest.MonkeyPatch) -> None:
    denied = BrightDataSearchTool(api_key="bad").run(query="x")
    assert isinstance(denied, ToolFailure) and denied.code == "http_401"
    monkeypatch.delenv("BRIGHT_DATA_ZONE")
    assert "BRIGHT_DATA_ZONE" in BrightDataWebUnlockerTool().config_problems()[0]
    assert BrightDataDatasetTool().config_problems() == []  # datasets need no zone
