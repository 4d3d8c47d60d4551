"""StagehandTool: natural-language browser automation with Browserbase's Stagehand SDK.

CrewAI's tool takes one instruction and a ``command_type``: ``act`` (click,
type... one atomic action; ``Step 1: ...; Step 2: ...`` or ``;`` run several
in order), ``navigate`` (go to ``url``), ``extract`` (what the instruction asks
for, as data) or ``observe`` (the elements that match, with the action that
fits each). The page persists between calls, so an agent can navigate, then
act, then extract.

crewgraph runs Stagehand's local mode: a local headless Chromium
(``local_browser.launch``; the system's ``chromium`` unless ``executable_path``
says otherwise) with the Stagehand runtime attached, and the runtime's model
requests answered by a crewgraph ``LLM`` (``llm=``, else ``model_name`` with
``model_api_key`` or the provider's variable, as CrewAI picks it), so any
OpenAI-compatible server works, a local one included. CrewAI's tool only
runs on a Browserbase session through Stagehand's hosted API; crewgraph does
not wrap Browserbase sessions, so ``api_key``/``project_id``/``session_id``
(and a non-default ``server_url``) are rejected by name (docs/porting.md).
The ``stagehand`` extra installs the SDK.
"""

from __future__ import annotations

import json
import os
import re
import weakref
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, model_validator

from crewgraph._internal.extras import import_extra
from crewgraph.toolkit._web import check_url
from crewgraph.tools.base_tool import BaseTool
from crewgraph.tools.env_vars import EnvVar
from crewgraph.tools.tool_failure import ToolFailure

__all__ = ["StagehandResult", "StagehandTool", "StagehandToolSchema"]

_DEFAULT_MODEL = "anthropic.claude-3-7-sonnet-20240607"
_DEFAULT_SERVER = "https://api.stagehand.browserbase.com/v1"
_MODEL_KEYS = (("gpt", "OPENAI_API_KEY"), ("claude", "ANTHROPIC_API_KEY"), ("anthropic", "ANTHROPIC_API_KEY"),
               ("gemini", "GOOGLE_API_KEY"))
_BROWSERBASE_ONLY = "crewgraph's StagehandTool drives a local Chromium (Stagehand's local mode) and has no " \
    "client of Browserbase sessions; leave it unset (see docs/porting.md)"


class StagehandResult(BaseModel):
    """One operation's outcome (CrewAI's shape): whether it worked, its data, the error."""

    success: bool = Field(..., description="Whether the operation completed successfully")
    data: str | dict[str, Any] | list[Any] = Field(..., description="The result data from the operation")
    error: str | None = Field(None, description="Optional error message if the operation failed")


class StagehandToolSchema(BaseModel):
    """Input for StagehandTool."""

    instruction: str | None = Field(
        None, description="One atomic action with where it is, e.g. 'Click the search box in the header'. "
        "May be left out for 'navigate' when a url is given.")
    url: str | None = Field(None, description="The URL to go to: required for 'navigate'; with 'act' the page is "
                            "loaded before the action.")
    command_type: str | None = Field(
        "act", description="'act' (default): one action such as clicking or typing; 'navigate': go to url; "
        "'extract': data from the page; 'observe': find elements on the page.")


class StagehandTool(BaseTool):
    """Drive a browser with natural language: act, navigate, extract, observe (one page across calls)."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    name: str = "Web Automation Tool"
    description: str = (
        "Use this tool to control a web browser and interact with websites using natural language: navigate "
        "to pages, click buttons and links, fill in forms, extract information and find elements on a page. "
        "Give one specific, atomic instruction with a location hint ('Click the search box in the header', "
        "not 'Search for Italy and click the first result') and a command_type: 'act' (default), "
        "'navigate' (with url), 'extract' or 'observe'."
    )
    args_schema: type[BaseModel] = StagehandToolSchema
    package_dependencies: list[str] = Field(default_factory=lambda: ["stagehand>=4.3,<5"])
    env_vars: list[EnvVar] = Field(default_factory=lambda: [
        EnvVar(name=name, description=f"Model key when model_name names a {family} model", required=False)
        for family, name in _MODEL_KEYS if family != "anthropic"])

    api_key: str | None = Field(default=None, repr=False, exclude=True,
                                description="Browserbase API key (not supported: local Chromium only)")
    project_id: str | None = Field(default=None, description="Browserbase project (not supported)")
    session_id: str | None = Field(default=None, description="An existing Browserbase session (not supported)")
    model_api_key: str | None = Field(default=None, repr=False, exclude=True,
                                      description="Key for model_name's provider (else its environment variable)")
    model_name: str | None = Field(default=_DEFAULT_MODEL, description="The model Stagehand's runtime asks")
    llm: Any = Field(default=None, description="A crewgraph LLM (or model name) that answers the runtime "
                     "instead of model_name: point one at any OpenAI-compatible server")
    server_url: str | None = Field(default=_DEFAULT_SERVER, description="Stagehand's hosted API (not used)")
    headless: bool | None = Field(default=None, description="Run Chromium without a window (default: "
                                  "headless unless a display is available)")
    executable_path: str | None = Field(default=None, description="The Chromium to launch (else the system's)")
    dom_settle_timeout_ms: int = Field(default=3000, ge=0, description="Wait for the DOM to settle, in ms")
    self_heal: bool = Field(default=True, description="Let Stagehand re-find an element that moved")
    wait_for_captcha_solves: bool = Field(default=True, description="Browserbase's CAPTCHA wait (no local effect)")
    verbose: int = Field(default=1, ge=0, description="Stagehand's log level: 0 off, 1 errors, 2 info, 3 debug")
    max_retries_on_token_limit: int = Field(default=3, ge=0, description="CrewAI's retry count (unused by "
                                            "CrewAI's tool too)")
    use_simplified_dom: bool = Field(default=True, description="CrewAI's flag (Stagehand always reads the "
                                     "accessibility tree)")
    timeout: float = Field(default=120.0, gt=0, description="Seconds one call may take in the browser")

    _session: Any = PrivateAttr(default=None)

    _UNSUPPORTED: ClassVar[tuple[str, ...]] = ("api_key", "project_id", "session_id")

    @model_validator(mode="before")
    @classmethod
    def _reject_browserbase(cls, data: Any) -> Any:
        if isinstance(data, dict):
            for name in cls._UNSUPPORTED:
                if data.get(name):
                    raise ValueError(f"StagehandTool({name}=...) is not supported: {_BROWSERBASE_ONLY}")
            if data.get("server_url") not in (None, _DEFAULT_SERVER):
                raise ValueError(f"StagehandTool(server_url=...) is not supported: {_BROWSERBASE_ONLY}")
        return data

    @classmethod
    def env_var_names(cls) -> tuple[str, ...]:
        """The model keys read (CrewAI's Browserbase variables are not: no Browserbase sessions here)."""
        return tuple(dict.fromkeys(name for _, name in _MODEL_KEYS))

    requires_extras: ClassVar[tuple[tuple[str, str], ...]] = (("stagehand", "stagehand"),)

    # -- the model ---------------------------------------------------------------------------
    def _model_key(self) -> str | None:
        name = str(self.model_name or "").lower()
        for family, var in _MODEL_KEYS:
            if family in name:
                return self.model_api_key or os.environ.get(var)
        return self.model_api_key or os.environ.get("OPENAI_API_KEY") or os.environ.get("ANTHROPIC_API_KEY")

    def config_problems(self) -> list[str]:
        problems = super().config_problems()
        if self.llm is None and not self._model_key():
            problems.append(f"StagehandTool needs a key for {self.model_name}: pass model_api_key=..., set "
                            "OPENAI_API_KEY, ANTHROPIC_API_KEY or GOOGLE_API_KEY, or pass llm=...")
        return problems

    def _resolve_llm(self) -> Any | ToolFailure:
        from crewgraph.llm import as_llm

        if self.llm is not None:
            return as_llm(self.llm)
        key = self._model_key()
        if not key:
            return ToolFailure(message=f"StagehandTool has no API key for {self.model_name}: pass model_api_key=..., "
                               "set OPENAI_API_KEY, ANTHROPIC_API_KEY or GOOGLE_API_KEY, or pass llm=...",
                               code="missing_api_key")
        from crewgraph.llm import LLM

        model = str(self.model_name)
        if "/" not in model and model.startswith("anthropic."):  # Stagehand's spelling of the provider prefix
            model = "anthropic/" + model.removeprefix("anthropic.")
        return LLM(model=model, api_key=key)

    def _open(self) -> Any | ToolFailure:
        if self._session is not None:
            return self._session
        import_extra("stagehand", "stagehand", "StagehandTool")
        llm = self._resolve_llm()
        if isinstance(llm, ToolFailure):
            return llm
        from crewgraph.toolkit._stagehand_session import StagehandSession

        headless = self.headless if self.headless is not None else not (
            os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))
        session = StagehandSession(llm, headless=headless, executable_path=self.executable_path,
                                   dom_settle_timeout_ms=self.dom_settle_timeout_ms, self_heal=self.self_heal,
                                   verbose=self.verbose)
        weakref.finalize(self, session.close)
        self._session = session
        return session

    def close(self) -> None:
        """Close the browser (a later call starts a new one on a blank page)."""
        session, self._session = self._session, None
        if session is not None:
            session.close()

    def __enter__(self) -> StagehandTool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- calls ------------------------------------------------------------------------------
    def _run(self, instruction: str | None = None, url: str | None = None,
             command_type: str | None = "act") -> str | ToolFailure:
        command = (command_type or "act").strip().lower()
        if command not in ("act", "navigate", "extract", "observe"):
            return ToolFailure(message=f"Unknown command type: {command_type!r} (use act, navigate, extract or "
                               "observe)", code="bad_command")
        if url is not None:
            bad = check_url(url)
            if bad is not None:
                return bad
        elif command == "navigate":
            return ToolFailure(message="No URL provided for navigation. Please provide a URL.", code="missing_url")
        text = instruction or {"navigate": f"Navigate to {url}", "observe": "Observe elements on the page",
                               "extract": "Extract information from the page"}.get(command,
                                                                                    "Perform the requested action")
        session = self._open()
        if isinstance(session, ToolFailure):
            return session
        try:
            result = session.run(self._operate(session, command, text, url), timeout=self.timeout)
        except Exception as exc:  # the browser, the runtime or the model failed: say which and how
            return ToolFailure(message=f"Error using Stagehand: {type(exc).__name__}: {exc}", code="stagehand_failed",
                               retryable=True)
        if not result.success:
            return ToolFailure(message=f"Error: {result.error}", code="stagehand_failed", retryable=True)
        return _render(command, result.data)

    async def _operate(self, session: Any, command: str, instruction: str, url: str | None) -> StagehandResult:
        page = await session.page()
        stagehand = session.stagehand
        if url is not None and command in ("act", "navigate"):
            await page.goto(url, wait_until="load")
            if command == "navigate":
                return StagehandResult(success=True, data={"url": url, "message": f"Successfully navigated to {url}"})
        if command == "extract":
            found = await stagehand.extract(instruction, page=page)
            return StagehandResult(success=True, data=found.data.model_dump(mode="json"))
        if command == "observe":
            seen = await stagehand.observe(instruction, page=page)
            return StagehandResult(success=True, data=[
                {"index": i, "description": element.description, "method": element.method}
                for i, element in enumerate(seen.data, 1)])
        results: list[dict[str, Any]] = []
        for step in _steps(instruction):
            try:
                done = await stagehand.act(step, page=page)
            except Exception as exc:  # one failed step is reported; later steps still run, as in CrewAI
                results.append({"error": f"Step failed: {exc}", "step": step})
                continue
            data = done.data.model_dump(mode="json")
            results.append(data if data.get("success", True) else {"error": data.get("message"), "step": step})
        if len(results) == 1:
            only = results[0]
            return StagehandResult(success="error" not in only, data=only, error=only.get("error"))
        return StagehandResult(success=True, data={"steps": results})


def _steps(instruction: str) -> list[str]:
    """``Step 1: a Step 2: b`` or ``a; b`` as separate actions (one action otherwise)."""
    if re.search(r"step\s*\d+\s*:", instruction, re.IGNORECASE):
        parts = re.split(r"step\s*\d+\s*:", instruction, flags=re.IGNORECASE)
        steps = [part.strip().rstrip(";").strip() for part in parts]
    else:
        steps = [part.strip() for part in instruction.split(";")]
    return [step for step in steps if step] or [instruction]


def _render(command: str, data: Any) -> str:
    """The text CrewAI's tool hands the agent for each command."""
    if command == "act":
        if isinstance(data, dict) and "steps" in data:
            return "\n".join(
                f"Step {i}: Failed - {step['error']}" if "error" in step else f"Step {i}: {step.get('message', 'Completed')}"
                for i, step in enumerate(data["steps"], 1))
        return f"Action result: {data.get('message', 'Completed')}"
    if command == "extract":
        return f"Extracted data: {json.dumps(data, indent=2)}"
    if command == "observe":
        lines: list[str] = []
        for element in data:
            lines.append(f"Element {element['index']}: {element['description']}")
            if element.get("method"):
                lines.append(f"Suggested action: {element['method']}")
        return "\n".join(lines) or "No matching elements found."
    return json.dumps(data, indent=2)
