"""YouTube tools: the real youtube-transcript-api and Data API calls, answered by a local fake of youtube.com."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from crewgraph.testing import FakeHTTPService, FakeRequestRecord
from crewgraph.toolkit import YoutubeChannelSearchTool, YoutubeVideoSearchTool
from crewgraph.toolkit.youtube_tools import video_id
from crewgraph.tools import ToolFailure

pytest.importorskip("youtube_transcript_api", reason="youtube-transcript-api is not installed (pip install 'crewgraph[tools]')")

TRANSCRIPTS = {
    "aaaaaaaaaaa": ["Welcome to the kitchen.", "Today we bake sourdough bread with a long cold proof."],
    "bbbbbbbbbbb": ["In this episode we repair a bicycle.", "First, true the rear wheel and replace the chain."],
}


def _routes(base: list[str]) -> dict[str, Any]:
    def watch(r: FakeRequestRecord) -> Any:
        return '<html><script>ytcfg.set({"INNERTUBE_API_KEY": "fakeInnertubeKey1"});</script></html>'

    def player(r: FakeRequestRecord) -> Any:
        vid = r.json["videoId"]
        if r.query.get("key") != ["fakeInnertubeKey1"]:
            return 403, {"error": "bad key"}
        if vid not in TRANSCRIPTS:
            return {"playabilityStatus": {"status": "OK"}}  # no captions block: transcripts disabled
        track = {"baseUrl": f"{base[0]}/api/timedtext?v={vid}&lang=en", "name": {"runs": [{"text": "English (auto-generated)"}]},
                 "languageCode": "en", "kind": "asr", "isTranslatable": False}
        return {"playabilityStatus": {"status": "OK"},
                "captions": {"playerCaptionsTracklistRenderer": {"captionTracks": [track], "translationLanguages": []}}}

    def timedtext(r: FakeRequestRecord) -> Any:
        lines = TRANSCRIPTS[r.query["v"][0]]
        body = "".join(f'<text start="{i * 2}.0" dur="2.0">{line}</text>' for i, line in enumerate(lines))
        return 200, f'<?xml version="1.0" encoding="utf-8" ?><transcript>{body}</transcript>', {"Content-Type": "text/xml"}

    def channels(r: FakeRequestRecord) -> Any:
        if r.query.get("key") != ["yt-key"]:
            return 400, {"error": {"code": 400, "message": "API key not valid. Please pass a valid API key."}}
        if r.query.get("forHandle") != ["@makers"]:
            return {"kind": "youtube#channelListResponse", "pageInfo": {"totalResults": 0}}
        return {"kind": "youtube#channelListResponse", "items": [
            {"kind": "youtube#channel", "id": "UC123", "contentDetails": {"relatedPlaylists": {"likes": "", "uploads": "UU123"}}}]}

    def playlist(r: FakeRequestRecord) -> Any:
        if r.query.get("pageToken") == ["p2"]:
            return {"items": [{"contentDetails": {"videoId": "bbbbbbbbbbb"}}]}
        return {"items": [{"contentDetails": {"videoId": "aaaaaaaaaaa", "videoPublishedAt": "2024-01-01T00:00:00Z"}}],
                "nextPageToken": "p2"}

    return {"GET /watch": watch, "POST /youtubei/v1/player": player, "GET /api/timedtext": timedtext,
            "GET /youtube/v3/channels": channels, "GET /youtube/v3/playlistItems": playlist}


@pytest.fixture(scope="module")
def youtube() -> Iterator[FakeHTTPService]:
    base: list[str] = []
    with FakeHTTPService(_routes(base)) as service:
        base.append(service.url)
        yield service


@pytest.fixture(autouse=True)
def _isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, youtube: FakeHTTPService) -> None:
    monkeypatch.setenv("CREWGRAPH_STORAGE_DIR", str(tmp_path / "store"))
    monkeypatch.setenv("YOUTUBE_BASE_URL", youtube.url)
    monkeypatch.delenv("YOUTUBE_API_KEY", raising=False)


def test_video_ids_from_every_url_form() -> None:
    for url in ("https://www.youtube.com/watch?v=aaaaaaaaaaa&t=3", "youtu.be/aaaaaaaaaaa", "aaaaaaaaaaa",
                "https://m.youtube.com/shorts/aaaaaaaaaaa", "https://www.youtube.com/embed/aaaaaaaaaaa"):
        assert video_id(url) == "aaaaaaaaaaa", url
    assert video_id("https://example.com/watch?v=aaaaaaaaaaa") is None


def test_video_transcript_is_fetched_once_and_searched(youtube: FakeHTTPService) -> None:
    tool = YoutubeVideoSearchTool(youtube_video_url="https://www.youtube.com/watch?v=aaaaaaaaaaa")
    answer = tool.run(search_query="how is the bread proofed?")
    assert answer.startswith("Relevant Content:\n[https://www.youtube.com/watch?v=aaaaaaaaaaa]") and "cold proof" in answer
    tool.run(search_query="anything else?")
    assert len([r for r in youtube.requests_to("/api/timedtext") if r.query["v"] == ["aaaaaaaaaaa"]]) == 1
    assert youtube.requests_to("/youtubei/v1/player")[-1].json["videoId"] == "aaaaaaaaaaa"


def test_a_video_without_captions_is_a_failure() -> None:
    result = YoutubeVideoSearchTool().run(search_query="x", youtube_video_url="https://youtu.be/ccccccccccc")
    assert isinstance(result, ToolFailure) and result.code == "no_transcript" and "ccccccccccc" in result.message
    bad = YoutubeVideoSearchTool().run(search_query="x", youtube_video_url="https://example.com/v")
    assert isinstance(bad, ToolFailure) and bad.code == "invalid_url"


def test_channel_search_lists_uploads_with_the_data_api(youtube: FakeHTTPService, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("YOUTUBE_API_KEY", "yt-key")
    tool = YoutubeChannelSearchTool(youtube_channel_handle="makers", base_url=youtube.url)
    answer = tool.run(search_query="how do I fix the chain of a bike?")
    assert "[https://www.youtube.com/watch?v=bbbbbbbbbbb]" in answer.split("\n\n")[0]
    assert youtube.requests_to("/youtube/v3/channels")[-1].query["forHandle"] == ["@makers"]
    unknown = YoutubeChannelSearchTool(base_url=youtube.url).run(search_query="x", youtube_channel_handle="@nobody")
    assert isinstance(unknown, ToolFailure) and unknown.code == "unknown_channel"


def test_channel_search_needs_a_data_api_key() -> None:
    assert YoutubeChannelSearchTool().config_problems() == [
        "YoutubeChannelSearchTool needs a YouTube Data API API key: set YOUTUBE_API_KEY or pass api_key=..."]
    assert YoutubeVideoSearchTool().config_problems() == []
