"""GithubSearchTool: semantic search in a GitHub repository's code, README, issues and pull requests.

The repository's content is read once through GitHub's REST API (token from
``gh_token`` or ``GITHUB_TOKEN``; ``GITHUB_API_URL`` or ``base_url=`` for
GitHub Enterprise or a local fake) and indexed in the RAG index; searches are
local after that. ``content_types`` picks what is read, as in CrewAI:

- ``repo``: the description and the README (``GET /repos/{o}/{r}``, ``/readme``);
- ``code``: text files of the default branch (``/git/trees/{branch}?recursive=1``,
  then ``/contents/{path}``), at most ``max_files`` files of ``max_file_bytes``;
- ``issue`` / ``pr``: titles and bodies (``/issues?state=all``, ``/pulls?state=all``),
  at most ``max_items`` of each.
"""

from __future__ import annotations

import base64
import re
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, Field, PrivateAttr

from crewgraph.toolkit._hosted import HostedTool, first_env
from crewgraph.toolkit.rag_tools import _RagBase
from crewgraph.tools._schema import narrow_schema
from crewgraph.tools.tool_failure import ToolFailure

__all__ = ["GithubSearchTool", "GithubSearchToolSchema", "parse_repo"]

ContentType = Literal["code", "repo", "pr", "issue"]
_ALL_TYPES: tuple[ContentType, ...] = ("code", "repo", "pr", "issue")
_REPO = re.compile(r"^(?:https?://[^/]+/|git@[^:]+:)?(?P<owner>[\w.-]+)/(?P<name>[\w.-]+?)(?:\.git)?/?$")
_TEXT_SUFFIXES = frozenset(
    [".py", ".md", ".rst", ".txt", ".js", ".ts", ".tsx", ".jsx", ".go", ".rs", ".java", ".kt", ".c", ".h", ".cpp", ".hpp", ".cs", ".rb", ".php", ".swift", ".scala", ".sh", ".toml", ".yaml", ".yml", ".json", ".cfg", ".ini", ".sql", ".html", ".css", ".vue", ".lua", ".r", ".jl", ".ex", ".exs", ".hs", ".ml", ".mdx"]
)


def parse_repo(value: str) -> tuple[str, str] | None:
    """``(owner, name)`` from ``owner/name`` or a GitHub URL; None when it is neither."""
    match = _REPO.match(value.strip())
    return (match["owner"], match["name"]) if match else None


class GithubSearchToolSchema(BaseModel):
    """Input for GithubSearchTool (CrewAI's three arguments; only the query once the repo is fixed)."""

    search_query: str = Field(..., description="Mandatory search query you want to use to search the github repo's content")
    github_repo: str = Field(..., description="Mandatory github you want to search")
    content_types: list[str] = Field(
        ..., description="Mandatory content types you want to be included search, options: [code, repo, pr, issue]"
    )


def _decoded(payload: Any) -> str:
    if isinstance(payload, dict) and payload.get("encoding") == "base64":
        return base64.b64decode(payload.get("content") or "").decode("utf-8", errors="replace")
    return ""


class GithubSearchTool(_RagBase, HostedTool):
    """Searches one repository (``github_repo`` fixed at construction, or named per call)."""

    _field: ClassVar[str] = "github_repo"
    name: str = "Search a github repo's content"
    description: str = "A tool that can be used to semantic search a query from a github repo's content."
    args_schema: type[BaseModel] = GithubSearchToolSchema
    github_repo: str | None = Field(default=None, description="Repository URL or owner/name (set at construction)")
    gh_token: str | None = Field(default=None, repr=False, exclude=True, description="GitHub token (else GITHUB_TOKEN)")
    content_types: list[ContentType] = Field(default_factory=lambda: list(_ALL_TYPES))
    max_files: int = Field(default=200, ge=1)
    max_file_bytes: int = Field(default=200_000, ge=1)
    max_items: int = Field(default=100, ge=1, le=1000)

    _service: ClassVar[str] = "GitHub"
    _key_envs: ClassVar[tuple[str, ...]] = ("GITHUB_TOKEN", "GH_TOKEN")
    _base_env: ClassVar[str | None] = "GITHUB_API_URL"
    _default_base: ClassVar[str] = "https://api.github.com"
    _read: dict[tuple[str, ...], list[str]] = PrivateAttr(default_factory=dict)

    def model_post_init(self, __context: Any) -> None:
        super().model_post_init(__context)
        if self.github_repo is not None:  # as in CrewAI: the repo and its content types are then fixed
            self.args_schema = narrow_schema(GithubSearchToolSchema, {"github_repo", "content_types"}, self.name)

    def _fixed_description(self, fixed: str) -> str:
        return f"A tool that can be used to semantic search a query the {fixed} github repo's content."

    def resolved_key(self) -> str | None:
        return self.gh_token or self.api_key or first_env(*self._key_envs)

    def _key_hint(self) -> str:
        return "set GITHUB_TOKEN or pass gh_token=..."

    def _get(self, path: str, params: dict[str, Any] | None = None) -> Any | ToolFailure:
        key = self._key_or_failure()
        if isinstance(key, ToolFailure):
            return key
        headers = {"Authorization": f"Bearer {key}", "Accept": "application/vnd.github+json",
                   "X-GitHub-Api-Version": "2022-11-28"}
        return self._call("GET", path, headers=headers, params=params)

    def _run(
        self, search_query: str, github_repo: str | None = None, content_types: list[str] | None = None
    ) -> str | ToolFailure:
        raw = github_repo or self.github_repo
        if not raw:
            return ToolFailure(message="No github_repo given: say which repository to search.", code="missing_repo")
        repo = parse_repo(raw)
        if repo is None:
            return ToolFailure(message=f"{raw!r} is not a GitHub repository (owner/name or its URL).", code="invalid_repo")
        kinds = tuple(content_types or self.content_types)
        unknown = sorted(set(kinds) - set(_ALL_TYPES))
        if unknown:
            return ToolFailure(message=f"Unknown content_types {unknown}: the options are {list(_ALL_TYPES)}.",
                               code="invalid_content_types")
        key = (repo[0], repo[1], *sorted(set(kinds)))
        docs = self._read.get(key)
        if docs is None:
            texts = self._collect(*repo, kinds=kinds)
            if isinstance(texts, ToolFailure):
                return texts
            index = self._get_index()
            docs = [index.add_text(text, source, self.chunk_size, self.chunk_overlap) for source, text in texts if text.strip()]
            if not docs:
                return ToolFailure(message=f"Nothing to search in {repo[0]}/{repo[1]} for {list(kinds)}.", code="empty_repo")
            self._read[key] = docs
        return self._search(search_query, docs)

    def _search(self, query: str, doc_ids: list[str]) -> str:
        hits = self._hits(query, doc_ids)
        if not hits:
            return "No relevant content found."
        return "Relevant Content:\n" + "\n\n".join(f"[{h.source}]\n{h.content}" for h in hits)

    def _collect(self, owner: str, name: str, kinds: tuple[str, ...]) -> list[tuple[str, str]] | ToolFailure:
        base = f"/repos/{owner}/{name}"
        meta = self._get(base)
        if isinstance(meta, ToolFailure):
            return meta
        slug = f"{owner}/{name}"
        out: list[tuple[str, str]] = []
        if "repo" in kinds:
            about = f"{meta.get('full_name', slug)}: {meta.get('description') or ''}\nTopics: {', '.join(meta.get('topics') or [])}"
            out.append((f"{slug} (repository)", about))
            readme = self._get(f"{base}/readme")
            if not isinstance(readme, ToolFailure):
                out.append((f"{slug}/{readme.get('path', 'README')}", _decoded(readme)))
        if "code" in kinds:
            files = self._code(base, str(meta.get("default_branch") or "main"), slug)
            if isinstance(files, ToolFailure):
                return files
            out.extend(files)
        for kind, path in (("issue", "issues"), ("pr", "pulls")):
            if kind in kinds:
                items = self._get(f"{base}/{path}", {"state": "all", "per_page": min(100, self.max_items)})
                if isinstance(items, ToolFailure):
                    return items
                for item in list(items)[: self.max_items]:
                    if kind == "issue" and "pull_request" in item:
                        continue  # GitHub lists pull requests among issues
                    label = "Pull request" if kind == "pr" else "Issue"
                    text = f"{label} #{item.get('number')} ({item.get('state')}): {item.get('title')}\n{item.get('body') or ''}"
                    out.append((f"{slug}#{item.get('number')}", text))
        return out

    def _code(self, base: str, branch: str, slug: str) -> list[tuple[str, str]] | ToolFailure:
        tree = self._get(f"{base}/git/trees/{branch}", {"recursive": "1"})
        if isinstance(tree, ToolFailure):
            return tree
        blobs = [
            entry for entry in tree.get("tree", [])
            if entry.get("type") == "blob"
            and ("." + entry.get("path", "").rsplit(".", 1)[-1].lower()) in _TEXT_SUFFIXES
            and int(entry.get("size") or 0) <= self.max_file_bytes
        ][: self.max_files]
        files = []
        for entry in blobs:
            content = self._get(f"{base}/contents/{entry['path']}", {"ref": branch})
            if isinstance(content, ToolFailure):
                return content
            files.append((f"{slug}/{entry['path']}", f"File {entry['path']}:\n{_decoded(content)}"))
        return files
