"""YoutubeVideoSearchTool and YoutubeChannelSearchTool: semantic search in video transcripts.

Transcripts come from the maintained ``youtube-transcript-api`` library
(``pip install 'crewgraph[tools]'``), which reads a video's caption tracks
the way YouTube's own player does; no key is needed for a video. A channel's
videos are listed with the YouTube Data API v3 (``channels?forHandle=`` then
the uploads playlist), which needs ``YOUTUBE_API_KEY``. Each transcript is
fetched once and indexed in the RAG index; searches are local after that.

``YOUTUBE_BASE_URL`` / ``youtube_base_url=`` sends the transcript library's
requests to another host (a proxy, or a local fake in tests), and
``YOUTUBE_DATA_API_URL`` / ``base_url=`` does the same for the Data API.
"""

from __future__ import annotations

import importlib.util
import re
from typing import Any, ClassVar
from urllib.parse import parse_qs, urlsplit

from pydantic import BaseModel, Field, PrivateAttr

from crewgraph.toolkit._hosted import HostedTool, first_env, missing_library
from crewgraph.toolkit.rag_tools import _RagBase, _schema
from crewgraph.tools.tool_failure import ToolFailure

__all__ = ["YoutubeChannelSearchTool", "YoutubeVideoSearchTool", "video_id"]

_YOUTUBE = "https://www.youtube.com"
_ID = re.compile(r"^[A-Za-z0-9_-]{11}$")


def video_id(value: str) -> str | None:
    """The 11-character id of a video from its id or any of its URL forms (watch, youtu.be, shorts, embed)."""
    value = value.strip()
    if _ID.match(value):
        return value
    parts = urlsplit(value if "://" in value else "https://" + value)
    host = parts.netloc.lower().removeprefix("www.").removeprefix("m.")
    candidate = None
    if host == "youtu.be":
        candidate = parts.path.strip("/").split("/")[0]
    elif host.endswith("youtube.com"):
        if parts.path == "/watch":
            candidate = (parse_qs(parts.query).get("v") or [""])[0]
        else:
            pieces = parts.path.strip("/").split("/")
            if len(pieces) >= 2 and pieces[0] in ("shorts", "embed", "live", "v"):
                candidate = pieces[1]
    return candidate if candidate and _ID.match(candidate) else None


def _session(base: str | None) -> Any:
    """A requests session; with ``base``, requests for youtube.com go to ``base`` instead."""
    import requests
    from requests.adapters import HTTPAdapter

    session = requests.Session()
    if base:
        target = base.rstrip("/")

        class _Redirect(HTTPAdapter):
            def send(self, request: Any, *args: Any, **kwargs: Any) -> Any:
                request.url = target + request.url[len(_YOUTUBE):]
                return super().send(request, *args, **kwargs)

        session.mount(_YOUTUBE, _Redirect())
    return session


class _YoutubeBase(_RagBase):
    languages: list[str] = Field(default_factory=lambda: ["en"], description="Transcript languages, in order of preference")
    youtube_base_url: str | None = Field(default=None, description="Send transcript requests here instead of youtube.com")
    _transcripts: dict[str, str] = PrivateAttr(default_factory=dict)
    """Document id per video id already indexed."""

    def config_problems(self) -> list[str]:
        if importlib.util.find_spec("youtube_transcript_api") is None:
            return [missing_library(type(self).__name__, "youtube-transcript-api", "'crewgraph[tools]'")]
        return []

    def _index_video(self, vid: str) -> str | ToolFailure:
        known = self._transcripts.get(vid)
        if known is not None:
            return known
        try:
            from youtube_transcript_api import YouTubeTranscriptApi
            from youtube_transcript_api._errors import CouldNotRetrieveTranscript
        except ImportError:
            return ToolFailure(message=missing_library(type(self).__name__, "youtube-transcript-api", "'crewgraph[tools]'"),
                               code="missing_library")
        api = YouTubeTranscriptApi(http_client=_session(self.youtube_base_url or first_env("YOUTUBE_BASE_URL")))
        try:
            fetched = api.fetch(vid, languages=list(self.languages))
        except CouldNotRetrieveTranscript as exc:
            reason = str(exc).strip().splitlines()
            return ToolFailure(message=f"No transcript for video {vid}: {reason[-1] if reason else type(exc).__name__}",
                               code="no_transcript")
        except Exception as exc:  # network errors from requests
            return ToolFailure(message=f"Could not fetch the transcript of {vid}: {type(exc).__name__}: {exc}",
                               code="network_error", retryable=True)
        text = " ".join(snippet.text.replace("\n", " ") for snippet in fetched.snippets)
        if not text.strip():
            return ToolFailure(message=f"The transcript of video {vid} is empty.", code="no_transcript")
        doc = self._get_index().add_text(text, f"https://www.youtube.com/watch?v={vid}", self.chunk_size, self.chunk_overlap)
        self._transcripts[vid] = doc
        return doc

    def _search(self, query: str, doc_ids: list[str]) -> str:
        hits = self._hits(query, doc_ids)
        if not hits:
            return "No relevant content found."
        return "Relevant Content:\n" + "\n\n".join(f"[{h.source}]\n{h.content}" for h in hits)


class YoutubeVideoSearchTool(_YoutubeBase):
    """Searches one video's transcript (``youtube_video_url`` fixed at construction, or given per call)."""

    _field: ClassVar[str] = "youtube_video_url"
    name: str = "Search a Youtube Video content"
    description: str = "A tool that can be used to semantic search a query from a Youtube Video content."
    args_schema: type[BaseModel] = _schema("YoutubeVideoSearchToolSchema", "youtube_video_url",
                                           "Mandatory youtube_video_url path you want to search")
    youtube_video_url: str | None = Field(default=None, description="Fixed video (set at construction)")

    def _fixed_description(self, fixed: str) -> str:
        return f"A tool that can be used to semantic search a query the {fixed} Youtube Video content."

    def _run(self, search_query: str, youtube_video_url: str | None = None) -> str | ToolFailure:
        raw = youtube_video_url or self.youtube_video_url
        if not raw:
            return ToolFailure(message="No youtube_video_url given: say which video to search.", code="missing_url")
        vid = video_id(raw)
        if vid is None:
            return ToolFailure(message=f"{raw!r} is not a YouTube video URL or id.", code="invalid_url")
        doc = self._index_video(vid)
        return doc if isinstance(doc, ToolFailure) else self._search(search_query, [doc])


class YoutubeChannelSearchTool(_YoutubeBase, HostedTool):
    """Searches the transcripts of a channel's latest ``max_videos`` uploads."""

    _field: ClassVar[str] = "youtube_channel_handle"
    name: str = "Search a Youtube Channels content"
    description: str = "A tool that can be used to semantic search a query from a Youtube Channels content."
    args_schema: type[BaseModel] = _schema("YoutubeChannelSearchToolSchema", "youtube_channel_handle",
                                           "Mandatory youtube_channel_handle path you want to search")
    youtube_channel_handle: str | None = Field(default=None, description="Fixed channel handle, e.g. '@crewai'")
    max_videos: int = Field(default=10, ge=1, le=200)

    _service: ClassVar[str] = "YouTube Data API"
    _key_envs: ClassVar[tuple[str, ...]] = ("YOUTUBE_API_KEY",)
    _base_env: ClassVar[str | None] = "YOUTUBE_DATA_API_URL"
    _default_base: ClassVar[str] = "https://www.googleapis.com"
    _channels: dict[str, list[str]] = PrivateAttr(default_factory=dict)

    def _fixed_description(self, fixed: str) -> str:
        return f"A tool that can be used to semantic search a query the {fixed} Youtube Channels content."

    def config_problems(self) -> list[str]:
        return _YoutubeBase.config_problems(self) + HostedTool.config_problems(self)

    def _videos(self, handle: str, key: str) -> list[str] | ToolFailure:
        channel = self._call("GET", "/youtube/v3/channels", params={"part": "contentDetails", "forHandle": handle, "key": key})
        if isinstance(channel, ToolFailure):
            return channel
        items = channel.get("items") or []
        if not items:
            return ToolFailure(message=f"No YouTube channel has the handle {handle!r}.", code="unknown_channel")
        uploads = items[0]["contentDetails"]["relatedPlaylists"]["uploads"]
        ids: list[str] = []
        page: str | None = None
        while len(ids) < self.max_videos:
            params = {"part": "contentDetails", "playlistId": uploads, "maxResults": min(50, self.max_videos), "key": key}
            if page:
                params["pageToken"] = page
            listing = self._call("GET", "/youtube/v3/playlistItems", params=params)
            if isinstance(listing, ToolFailure):
                return listing
            ids.extend(i["contentDetails"]["videoId"] for i in listing.get("items") or [])
            page = listing.get("nextPageToken")
            if not page:
                break
        return ids[: self.max_videos]

    def _run(self, search_query: str, youtube_channel_handle: str | None = None) -> str | ToolFailure:
        raw = (youtube_channel_handle or self.youtube_channel_handle or "").strip()
        if not raw:
            return ToolFailure(message="No youtube_channel_handle given: say which channel to search.", code="missing_channel")
        handle = raw.rsplit("/", 1)[-1] if "youtube.com/" in raw else raw
        handle = handle if handle.startswith("@") else "@" + handle
        docs = self._channels.get(handle)
        if docs is None:
            key = self._key_or_failure()
            if isinstance(key, ToolFailure):
                return key
            videos = self._videos(handle, key)
            if isinstance(videos, ToolFailure):
                return videos
            docs = [d for d in (self._index_video(v) for v in videos) if isinstance(d, str)]
            if not docs:
                return ToolFailure(message=f"None of the latest videos of {handle} has a transcript.", code="no_transcript")
            self._channels[handle] = docs
        return self._search(search_query, docs)
