"""Serper, Exa, Firecrawl, Apify and Browserbase tools against local fakes of their HTTP APIs.

Each fake answers with the shape the service documents (fields trimmed), so
these tests exercise the real request building, auth headers, error mapping
and result formatting of the clients; nothing leaves 127.0.0.1.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from crewgraph import Agent, CompileError, Crew, Task
from crewgraph.testing import FakeHTTPService, FakeLLM, FakeRequestRecord
from crewgraph.toolkit import (
    ApifyActorsTool,
    BrowserbaseLoadTool,
    EXASearchTool,
    ExaSearchTool,
    FirecrawlCrawlWebsiteTool,
    FirecrawlScrapeWebsiteTool,
    FirecrawlSearchTool,
    SerperDevTool,
)
from crewgraph.tools import ToolFailure

SERPER_REPLY = {
    "searchParameters": {"q": "crewgraph", "type": "search", "engine": "google"},
    "knowledgeGraph": {"title": "CrewGraph", "type": "Software"},
    "organic": [
        {"title": "CrewGraph docs", "link": "https://docs.example/crewgraph", "snippet": "Agents on a DAG.", "position": 1},
        {"title": "CrewGraph repo", "link": "https://code.example/crewgraph", "snippet": "Source code.", "position": 2},
        {"title": "Third", "link": "https://third.example", "snippet": "More.", "position": 3},
    ],
    "peopleAlsoAsk": [{"question": "What is CrewGraph?", "snippet": "A framework.", "link": "https://faq.example"}],
    "relatedSearches": [{"query": "crewgraph tutorial"}],
    "credits": 1,
}
SERPER_NEWS = {"searchParameters": {"q": "ai", "type": "news"}, "news": [
    {"title": "AI news", "link": "https://news.example/1", "snippet": "Today.", "date": "1 hour ago", "source": "Wire"}]}
EXA_REPLY = {
    "requestId": "b5947044c4b78efa9552a7c89b306d95",
    "resolvedSearchType": "neural",
    "results": [{
        "title": "A paper", "url": "https://arxiv.example/1", "id": "https://arxiv.example/1",
        "publishedDate": "2024-05-01T00:00:00.000Z", "author": "A. Author", "score": 0.41,
        "highlights": ["the key sentence"], "highlightScores": [0.5], "text": "Full text.",
    }],
    "costDollars": {"total": 0.005},
}


def _firecrawl_crawl_status(request: FakeRequestRecord) -> dict[str, Any]:
    polls = len([r for r in SERVICE_LOG if r.path == "/v2/crawl/crawl-1"])
    if polls < 2:
        return {"status": "scraping", "total": 2, "completed": 1, "creditsUsed": 1, "data": []}
    return {
        "status": "completed", "total": 2, "completed": 2, "creditsUsed": 2,
        "expiresAt": "2030-01-01T00:00:00.000Z",
        "data": [{"markdown": "# Home\nWelcome", "metadata": {"sourceURL": "https://site.example/", "statusCode": 200}}],
        "next": "http://" + request.headers["host"] + "/v2/crawl/crawl-1/page2",
    }


SERVICE_LOG: list[FakeRequestRecord] = []


def _routes() -> dict[str, Any]:
    def serper(request: FakeRequestRecord) -> Any:
        if request.headers.get("x-api-key") != "serper-key":
            return 403, {"message": "Unauthorized."}
        return SERPER_NEWS if request.path == "/news" else SERPER_REPLY

    def exa(request: FakeRequestRecord) -> Any:
        if request.headers.get("x-api-key") != "exa-key":
            return 401, {"error": "Invalid API key"}
        return EXA_REPLY

    def firecrawl_auth(handler: Any) -> Any:
        def wrapped(request: FakeRequestRecord) -> Any:
            SERVICE_LOG.append(request)
            if request.headers.get("authorization") != "Bearer fc-key":
                return 401, {"success": False, "error": "Unauthorized: Invalid token"}
            return handler(request) if callable(handler) else handler
        return wrapped

    def apify(request: FakeRequestRecord) -> Any:
        if request.headers.get("authorization") != "Bearer apify-token":
            return 401, {"error": {"type": "token-not-valid", "message": "Authentication token is not valid."}}
        query = request.json or {}
        return [{"url": "https://a.example", "markdown": f"result for {query.get('query')}"}]

    def browserbase(request: FakeRequestRecord) -> Any:
        if request.headers.get("x-bb-api-key") != "bb-key":
            return 401, {"statusCode": 401, "error": "Unauthorized", "message": "Invalid API key"}
        url = (request.json or {}).get("url", "")
        if url.endswith("/missing"):
            return {"id": "f-2", "statusCode": 404, "headers": {}, "content": "nope", "contentType": "text/html", "encoding": "utf-8"}
        return {"id": "f-1", "statusCode": 200, "headers": {"content-type": "text/html"},
                "content": "<html><body><h1>Title</h1><script>x=1</script><p>Body text</p></body></html>",
                "contentType": "text/html; charset=utf-8", "encoding": "utf-8"}

    return {
        "POST /search": serper,
        "POST /news": serper,
        "POST /exa/search": exa,
        "POST /v2/scrape": firecrawl_auth({"success": True, "data": {
            "markdown": "# Example\nMain content", "metadata": {"title": "Example", "sourceURL": "https://example.com"}}}),
        "POST /v2/search": firecrawl_auth({"success": True, "data": {"web": [
            {"url": "https://hit.example", "title": "Hit", "description": "A hit", "position": 1}]}, "creditsUsed": 1}),
        "POST /v2/crawl": firecrawl_auth({"success": True, "id": "crawl-1", "url": "https://api.firecrawl.dev/v2/crawl/crawl-1"}),
        "GET /v2/crawl/crawl-1": firecrawl_auth(_firecrawl_crawl_status),
        "GET /v2/crawl/crawl-1/page2": firecrawl_auth({"status": "completed", "data": [
            {"markdown": "# About\nUs", "metadata": {"sourceURL": "https://site.example/about"}}]}),
        "POST /v2/acts/{actor}/run-sync-get-dataset-items": apify,
        "POST /v1/fetch": browserbase,
        "POST /slow/search": lambda r: (__import__("time").sleep(1.5), SERPER_REPLY)[1],
        "POST /busy/search": (429, {"message": "Too many requests"}),
    }


@pytest.fixture(scope="module")
def api() -> Iterator[FakeHTTPService]:
    with FakeHTTPService(_routes()) as service:
        yield service


@pytest.fixture(autouse=True)
def _no_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in ("SERPER_API_KEY", "EXA_API_KEY", "FIRECRAWL_API_KEY", "APIFY_API_TOKEN", "BROWSERBASE_API_KEY",
                "SERPER_BASE_URL", "EXA_BASE_URL", "FIRECRAWL_API_URL", "APIFY_API_BASE_URL", "BROWSERBASE_BASE_URL"):
        monkeypatch.delenv(var, raising=False)


# -- Serper -------------------------------------------------------------------------------

def test_serper_sends_the_documented_request_and_trims_results(api: FakeHTTPService, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SERPER_API_KEY", "serper-key")
    tool = SerperDevTool(base_url=api.url, n_results=2, country="us", locale="en", location="Paris")
    result = tool.run(search_query="crewgraph")
    sent = api.requests_to("/search")[-1]
    assert sent.json == {"q": "crewgraph", "num": 2, "gl": "us", "location": "Paris", "hl": "en"}
    assert sent.headers["x-api-key"] == "serper-key"
    assert [r["title"] for r in result["organic"]] == ["CrewGraph docs", "CrewGraph repo"]
    assert result["knowledgeGraph"]["title"] == "CrewGraph"
    assert result["peopleAlsoAsk"][0]["question"] == "What is CrewGraph?"
    assert ast.literal_eval(tool.format_output_for_agent(result))["organic"][0]["link"] == "https://docs.example/crewgraph"


def test_serper_news_and_save_file(api: FakeHTTPService, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SERPER_BASE_URL", api.url)  # the environment moves the endpoint too
    tool = SerperDevTool(api_key="serper-key", search_type="news", save_file=True)
    result = tool.run(search_query="ai")
    assert result["news"][0]["source"] == "Wire"
    saved = list(tmp_path.glob("search_results_*.txt"))
    assert len(saved) == 1 and "AI news" in saved[0].read_text()


def test_serper_bad_key_and_rate_limit_are_failures(api: FakeHTTPService) -> None:
    denied = SerperDevTool(base_url=api.url, api_key="wrong").run(search_query="x")
    assert isinstance(denied, ToolFailure) and denied.code == "http_403" and not denied.retryable
    assert "SERPER_API_KEY" in denied.message and "Unauthorized" in denied.message
    busy = SerperDevTool(base_url=api.url + "/busy", api_key="serper-key").run(search_query="x")
    assert isinstance(busy, ToolFailure) and busy.retryable and busy.code == "http_429"


def test_timeouts_are_bounded_and_retryable(api: FakeHTTPService) -> None:
    slow = SerperDevTool(base_url=api.url + "/slow", api_key="serper-key", timeout=0.3).run(search_query="x")
    assert isinstance(slow, ToolFailure) and slow.code == "timeout" and slow.retryable


def test_a_missing_key_is_a_failure_at_call_time_naming_the_variable() -> None:
    result = SerperDevTool().run(search_query="x")
    assert isinstance(result, ToolFailure) and result.code == "missing_api_key"
    assert "SERPER_API_KEY" in result.message


# -- compile-time check ------------------------------------------------------------------

def _crew(*tools: Any) -> Crew:
    agent = Agent(role="Researcher", goal="g", backstory="b", tools=list(tools), llm=FakeLLM(["done"]))
    return Crew(agents=[agent], tasks=[Task(name="research", description="d", expected_output="e", agent=agent)])


def test_a_missing_key_fails_the_crew_at_compile_time() -> None:
    crew = _crew(SerperDevTool(), ExaSearchTool())
    with pytest.raises(CompileError) as info:
        crew.compile()
    text = str(info.value)
    assert "SerperDevTool needs a Serper API key: set SERPER_API_KEY" in text
    assert "ExaSearchTool needs a Exa API key: set EXA_API_KEY" in text or "EXA_API_KEY" in text
    assert "task 'research'" in text


def test_with_the_key_set_the_crew_compiles(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SERPER_API_KEY", "k")
    _crew(SerperDevTool()).compile()


# -- Exa ----------------------------------------------------------------------------------

def test_exa_request_and_results(api: FakeHTTPService) -> None:
    tool = EXASearchTool(base_url=api.url + "/exa", api_key="exa-key", content=True, summary=True)
    results = tool.run(search_query="agents", start_published_date="2024-01-01", include_domains=["arxiv.example"])
    body = api.requests_to("/exa/search")[-1].json
    assert body == {"query": "agents", "type": "auto", "contents": {"highlights": True, "text": True, "summary": True},
                    "startPublishedDate": "2024-01-01", "includeDomains": ["arxiv.example"]}
    assert results == [{"title": "A paper", "url": "https://arxiv.example/1", "publishedDate": "2024-05-01T00:00:00.000Z",
                        "author": "A. Author", "score": 0.41, "highlights": ["the key sentence"], "text": "Full text."}]
    assert ExaSearchTool().name == "ExaSearchTool"


def test_exa_rejects_unknown_options() -> None:
    with pytest.raises(ValueError, match="Extra inputs are not permitted"):
        EXASearchTool(no_such_option=True)  # type: ignore[call-arg]


# -- Firecrawl ----------------------------------------------------------------------------

def test_firecrawl_scrape_merges_config_in_api_case(api: FakeHTTPService, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FIRECRAWL_API_KEY", "fc-key")
    tool = FirecrawlScrapeWebsiteTool(base_url=api.url, config={"only_main_content": False, "waitFor": 100})
    assert tool.run(url="https://example.com") == "# Example\nMain content"
    assert api.requests_to("/v2/scrape")[-1].json == {
        "url": "https://example.com", "formats": ["markdown"], "onlyMainContent": False, "waitFor": 100}
    fixed = FirecrawlScrapeWebsiteTool(base_url=api.url, url="https://example.com")
    assert "url" not in fixed.to_spec().parameters.get("properties", {})


def test_firecrawl_search(api: FakeHTTPService) -> None:
    hits = FirecrawlSearchTool(base_url=api.url, api_key="fc-key", config={"limit": 3}).run(query="agents")
    assert hits == [{"url": "https://hit.example", "title": "Hit", "description": "A hit", "position": 1}]
    assert api.requests_to("/v2/search")[-1].json == {"query": "agents", "limit": 3}


def test_firecrawl_crawl_polls_until_completed_and_follows_next(api: FakeHTTPService) -> None:
    SERVICE_LOG.clear()
    tool = FirecrawlCrawlWebsiteTool(base_url=api.url, api_key="fc-key", poll_interval=0.01, config={"limit": 2})
    text = tool.run(url="https://site.example")
    assert "[https://site.example/]\n# Home\nWelcome" in text and "[https://site.example/about]\n# About\nUs" in text
    assert api.requests_to("/v2/crawl")[-1].json["limit"] == 2
    assert len([r for r in SERVICE_LOG if r.path == "/v2/crawl/crawl-1"]) == 2


def test_firecrawl_failures(api: FakeHTTPService) -> None:
    denied = FirecrawlSearchTool(base_url=api.url, api_key="bad").run(query="x")
    assert isinstance(denied, ToolFailure) and "Invalid token" in denied.message
    with pytest.raises(ValueError, match=r"page_options=\.\.\.\) is not supported"):
        FirecrawlCrawlWebsiteTool(page_options={"onlyMainContent": True})


# -- Apify ----------------------------------------------------------------------------------

def test_apify_runs_the_actor_synchronously(api: FakeHTTPService, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("APIFY_API_TOKEN", "apify-token")
    monkeypatch.setenv("APIFY_API_BASE_URL", api.url)
    tool = ApifyActorsTool(actor_name="apify/rag-web-browser")
    items = tool.run(run_input={"query": "crewgraph", "maxResults": 1})
    assert items == [{"url": "https://a.example", "markdown": "result for crewgraph"}]
    sent = api.requests_to("/v2/acts/apify~rag-web-browser/run-sync-get-dataset-items")[-1]
    assert sent.json == {"query": "crewgraph", "maxResults": 1} and sent.query["timeout"] == ["300"]
    assert "apify/rag-web-browser" in tool.name


def test_apify_bad_token(api: FakeHTTPService) -> None:
    result = ApifyActorsTool(actor_name="a/b", base_url=api.url, api_key="nope").run(run_input={})
    assert isinstance(result, ToolFailure) and "Authentication token is not valid" in result.message


# -- Browserbase ----------------------------------------------------------------------------

def test_browserbase_fetch(api: FakeHTTPService) -> None:
    tool = BrowserbaseLoadTool(base_url=api.url, api_key="bb-key", text_content=True, proxy=True)
    assert tool.run(url="https://example.com") == "Title\nBody text"
    assert api.requests_to("/v1/fetch")[-1].json == {"url": "https://example.com", "allowRedirects": True, "proxies": True}
    raw = BrowserbaseLoadTool(base_url=api.url, api_key="bb-key").run(url="https://example.com")
    assert raw.startswith("<html>")
    missing = BrowserbaseLoadTool(base_url=api.url, api_key="bb-key").run(url="https://example.com/missing")
    assert isinstance(missing, ToolFailure) and missing.code == "http_404"


def test_browserbase_rejects_sessions() -> None:
    with pytest.raises(ValueError, match="session_id"):
        BrowserbaseLoadTool(session_id="abc")


def test_a_crew_calls_serper_as_a_tool_node(api: FakeHTTPService, monkeypatch: pytest.MonkeyPatch) -> None:
    from crewgraph.testing import FakeToolCall
    from crewgraph.tools._names import sanitize_tool_name

    monkeypatch.setenv("SERPER_API_KEY", "serper-key")
    tool = SerperDevTool(base_url=api.url, n_results=1)
    llm = FakeLLM([FakeToolCall(sanitize_tool_name(tool.name), {"search_query": "crewgraph"}), "CrewGraph runs agents on a DAG."])
    agent = Agent(role="Researcher", goal="g", backstory="b", tools=[tool], llm=llm)
    crew = Crew(agents=[agent], tasks=[Task(name="research", description="d", expected_output="e", agent=agent)])
    assert crew.kickoff().raw == "CrewGraph runs agents on a DAG."
    tool_turn = [m for m in llm.calls[-1].messages if m.get("role") == "tool"]
    assert tool_turn and "https://docs.example/crewgraph" in tool_turn[0]["content"]
