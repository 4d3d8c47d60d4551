"""WebsiteSearchTool, CodeDocsSearchTool and GithubSearchTool: fetched once from a local server, searched locally."""

from __future__ import annotations

import base64
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from crewgraph.testing import FakeHTTPService, FakeRequestRecord
from crewgraph.toolkit import CodeDocsSearchTool, GithubSearchTool, WebsiteSearchTool
from crewgraph.toolkit.github_search_tool import parse_repo
from crewgraph.tools import ToolFailure

PAGES = {
    "/site": "<html><body><h1>Pricing</h1><p>The team plan costs forty dollars per seat each month.</p>"
             "<p>Our office dog is called Biscuit.</p></body></html>",
    "/docs/index.html": '<html><body><h1>Guide</h1><p>Start here.</p><a href="install.html">Install</a>'
                        '<a href="api/tasks.html#top">Tasks API</a><a href="/elsewhere">Blog</a>'
                        '<a href="https://other.example/x">Other</a></body></html>',
    "/docs/install.html": "<html><body><p>Install the package with pip install crewgraph and Python 3.11.</p></body></html>",
    "/docs/api/tasks.html": "<html><body><p>Task.expected_output describes the answer the agent must produce.</p></body></html>",
    "/elsewhere": "<html><body><p>A blog post about cooking pasta.</p></body></html>",
}


def _b64(text: str) -> dict[str, str]:
    return {"encoding": "base64", "content": base64.b64encode(text.encode()).decode()}


def _github_routes() -> dict[str, Any]:
    def auth(payload: Any) -> Any:
        def handler(request: FakeRequestRecord) -> Any:
            if request.headers.get("authorization") != "Bearer gh-token":
                return 401, {"message": "Bad credentials", "documentation_url": "https://docs.github.com/rest"}
            return payload(request) if callable(payload) else payload
        return handler

    files = {
        "src/retry.py": "def charge():\n    # retries a failed payment three times with exponential backoff\n    ...\n",
        "docs/notes.md": "The cafeteria serves lasagna on Wednesdays.",
    }
    return {
        "GET /repos/acme/payments": auth({"full_name": "acme/payments", "description": "Payment service",
                                          "default_branch": "trunk", "topics": ["billing"]}),
        "GET /repos/acme/payments/readme": auth({"path": "README.md", **_b64("Payments: charges cards for the shop.")}),
        "GET /repos/acme/payments/git/trees/trunk": auth({"sha": "abc", "truncated": False, "tree": [
            {"path": "src", "type": "tree"},
            {"path": "src/retry.py", "type": "blob", "size": 90},
            {"path": "docs/notes.md", "type": "blob", "size": 44},
            {"path": "logo.png", "type": "blob", "size": 10},
        ]}),
        "GET /repos/acme/payments/contents/*": auth(
            lambda r: {"path": r.path.split("/contents/", 1)[1], **_b64(files[r.path.split("/contents/", 1)[1]])}),
        "GET /repos/acme/payments/issues": auth([
            {"number": 7, "state": "open", "title": "Refunds are slow", "body": "Refunds take two weeks to arrive."},
            {"number": 8, "state": "open", "title": "A PR", "body": "listed among issues", "pull_request": {"url": "x"}},
        ]),
        "GET /repos/acme/payments/pulls": auth([
            {"number": 8, "state": "closed", "title": "Add Apple Pay", "body": "Adds Apple Pay checkout."}]),
    }


@pytest.fixture(scope="module")
def server() -> Iterator[FakeHTTPService]:
    routes: dict[str, Any] = {f"GET {path}": html for path, html in PAGES.items()}
    routes["GET /broken"] = (500, "oops")
    routes.update(_github_routes())
    with FakeHTTPService(routes) as service:
        yield service


@pytest.fixture(autouse=True)
def _isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CREWGRAPH_STORAGE_DIR", str(tmp_path / "store"))
    monkeypatch.delenv("GITHUB_TOKEN", raising=False)
    monkeypatch.delenv("GH_TOKEN", raising=False)


def test_website_search_fetches_once_then_searches_locally(server: FakeHTTPService) -> None:
    tool = WebsiteSearchTool(website=server.url + "/site")
    assert "website" not in tool.to_spec().parameters.get("properties", {})
    answer = tool.run(search_query="How much is the team plan?")
    assert answer.startswith("Relevant Content:\n[" + server.url + "/site]") and "forty dollars" in answer
    tool.run(search_query="What is the dog called?")
    assert len(server.requests_to("/site")) == 1


def test_website_search_failures(server: FakeHTTPService) -> None:
    tool = WebsiteSearchTool()
    failed = tool.run(search_query="x", website=server.url + "/broken")
    assert isinstance(failed, ToolFailure) and failed.code == "http_500" and failed.retryable
    with pytest.raises(ValueError, match="website: Field required"):  # run() checks its args_schema
        tool.run(search_query="x")


def test_code_docs_search_reads_the_pages_under_the_docs_url(server: FakeHTTPService) -> None:
    tool = CodeDocsSearchTool(docs_url=server.url + "/docs/index.html")
    answer = tool.run(search_query="Which Python version do I need to install it?")
    assert "Python 3.11" in answer.split("\n\n")[0]
    answer = tool.run(search_query="What does expected_output describe?")
    assert "expected_output describes" in answer
    assert server.requests_to("/elsewhere") == []  # outside the docs: not followed
    assert len(server.requests_to("/docs/api/tasks.html")) == 1


def test_code_docs_max_pages(server: FakeHTTPService) -> None:
    before = len(server.requests_to("/docs/install.html")) + len(server.requests_to("/docs/api/tasks.html"))
    CodeDocsSearchTool(max_pages=1).run(search_query="x", docs_url=server.url + "/docs/index.html")
    after = len(server.requests_to("/docs/install.html")) + len(server.requests_to("/docs/api/tasks.html"))
    assert after == before


def test_parse_repo() -> None:
    assert parse_repo("https://github.com/acme/payments") == ("acme", "payments")
    assert parse_repo("acme/payments.git") == ("acme", "payments")
    assert parse_repo("git@github.com:acme/payments.git") == ("acme", "payments")
    assert parse_repo("not a repo") is None


def test_github_search_indexes_code_readme_issues_and_prs(server: FakeHTTPService) -> None:
    tool = GithubSearchTool(github_repo="https://github.com/acme/payments", gh_token="gh-token", base_url=server.url)
    answer = tool.run(search_query="how many times is a failed payment retried?")
    assert answer.split("\n\n")[0].startswith("Relevant Content:\n[acme/payments/src/retry.py]")
    assert "Refunds take two weeks" in tool.run(search_query="how long do refunds take?")
    assert "Apple Pay" in tool.run(search_query="which new checkout method was added?")
    assert server.requests_to("/repos/acme/payments/contents/logo.png") == []
    assert len(server.requests_to("/repos/acme/payments/git/trees/trunk")) == 1  # read once
    assert server.requests_to("/repos/acme/payments/issues")[-1].query == {"state": ["all"], "per_page": ["100"]}


def test_github_content_types_and_auth(server: FakeHTTPService, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GITHUB_TOKEN", "gh-token")
    monkeypatch.setenv("GITHUB_API_URL", server.url)
    before = len(server.requests_to("/repos/acme/payments/git/trees/trunk"))
    tool = GithubSearchTool(github_repo="acme/payments", content_types=["issue"])  # fixed: only issues are read
    assert "Refunds" in tool.run(search_query="refunds")
    assert len(server.requests_to("/repos/acme/payments/git/trees/trunk")) == before
    monkeypatch.delenv("GITHUB_TOKEN")
    assert GithubSearchTool().config_problems() == [
        "GithubSearchTool needs a GitHub API key: set GITHUB_TOKEN or pass gh_token=..."]
    denied = GithubSearchTool(gh_token="bad").run(search_query="x", github_repo="acme/payments", content_types=["repo"])
    assert isinstance(denied, ToolFailure) and "Bad credentials" in denied.message and "GITHUB_TOKEN" in denied.message
    with pytest.raises(ValueError):
        GithubSearchTool(content_types=["wiki"])  # type: ignore[list-item]


def test_github_schema_is_crewais_and_content_types_per_call(server: FakeHTTPService, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GITHUB_TOKEN", "gh-token")
    monkeypatch.setenv("GITHUB_API_URL", server.url)
    tool = GithubSearchTool()
    spec = tool.to_spec().parameters
    assert set(spec["properties"]) == {"search_query", "github_repo", "content_types"}
    assert set(spec["required"]) == {"search_query", "github_repo", "content_types"}
    assert set(GithubSearchTool(github_repo="acme/payments").to_spec().parameters["properties"]) == {"search_query"}
    pulls = len(server.requests_to("/repos/acme/payments/pulls"))
    out = tool.run(search_query="checkout", github_repo="acme/payments", content_types=["pr"])
    assert "Apple Pay" in out and "Refunds" not in out
    assert len(server.requests_to("/repos/acme/payments/pulls")) == pulls + 1
    bad = tool.run(search_query="x", github_repo="acme/payments", content_types=["wiki"])
    assert isinstance(bad, ToolFailure) and bad.code == "invalid_content_types" and "wiki" in bad.message
