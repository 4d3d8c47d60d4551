"""StagehandTool: natural-language browser automation with Browserbase's Stagehand SDK.

CrewAI's tool takes one instruction and a ``command_type``: ``act`` (click,
type... one atomic action; ``Step 1: ...; Step 2: ...`` or ``;`` run several
in order), ``navigate`` (go to ``url``), ``extract`` (what the instruction asks
for, as data) or ``observe`` (the elements that match, with the action that
fits each). The page persists between calls, so an agent can navigate, then
act, then extract.

The browser is a Browserbase session when there is a Browserbase key
(``api_key``, else ``BROWSERBASE_API_KEY``), as in CrewAI: Stagehand's SDK
uploads its extension, creates the session (``BROWSERBASE_BASE_URL`` or
``base_url`` overrides Browserbase's address; ``server_url`` is Stagehand's API)
and releases it on ``close()``. Without a key it is Stagehand's local mode: a
local Chromium (the system's ``chromium`` unless ``executable_path`` says
otherwise). Either way the Stagehand runtime's model requests are answered by a
crewgraph ``LLM`` (``llm=``, else ``model_name`` with ``model_api_key`` or the
provider's variable, as CrewAI picks it), so any OpenAI-compatible server
works, a local one included. Attaching to an existing session
(``session_id``) is not supported.
The ``stagehand`` extra installs the SDK.
"""

from __future__ import annotations

import json
import os
import re
import weakref
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr

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
_DEFAULT_BROWSERBASE = "https://api.browserbase.com"


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
        EnvVar(name="BROWSERBASE_API_KEY", description="Browserbase key: run on a Browserbase session", required=False),
        EnvVar(name="BROWSERBASE_PROJECT_ID", description="Browserbase project (sessions go to the key's)",
               required=False),
        EnvVar(name="BROWSERBASE_BASE_URL", description="Browserbase API address", required=False),
        *(EnvVar(name=name, description=f"Model key when model_name names a {family} model", required=False)
          for family, name in _MODEL_KEYS if family != "anthropic")])

    api_key: str | None = Field(default=None, repr=False, exclude=True,
                                description="Browserbase API key (else BROWSERBASE_API_KEY); none: a local Chromium")
    project_id: str | None = Field(default=None, description="Browserbase project (else BROWSERBASE_PROJECT_ID)")
    base_url: str | None = Field(default=None, description="Browserbase's API address (else BROWSERBASE_BASE_URL)")
    session_id: str | None = Field(default=None, description="An existing Browserbase session (not supported)")
    model_api_key: str | None = Field(default=None, repr=False, exclude=True,
                                      description="Key for model_name's provider (else its environment variable)")
    model_name: str | None = Field(default=_DEFAULT_MODEL, description="The model Stagehand's runtime asks")
    llm: Any = Field(default=None, description="A crewgraph LLM (or model name) that answers the runtime "
                     "instead of model_name: point one at any OpenAI-compatible server")
    server_url: str | None = Field(default=_DEFAULT_SERVER, description="Stagehand's API on Browserbase")
    headless: bool | None = Field(default=None, description="Run Chromium without a window (default: "
                                  "headless unless a display is available)")
    executable_path: str | None = Field(default=None, description="The Chromium to launch (else the system's)")
    dom_settle_timeout_ms: int = Field(default=3000, ge=0, description="Wait for the DOM to settle, in ms")
    self_heal: bool = Field(default=True, description="Let Stagehand re-find an element that moved")
    wait_for_captcha_solves: bool = Field(default=True, description="CrewAI's Stagehand 0.5 CAPTCHA wait "
                                          "(Browserbase solves CAPTCHAs on its sessions; not used)")
    verbose: int = Field(default=1, ge=0, description="Stagehand's log level: 0 off, 1 errors, 2 info, 3 debug")
    max_retries_on_token_limit: int = Field(default=3, ge=0, description="CrewAI's retry count (unused by "
                                            "CrewAI's tool too)")
    use_simplified_dom: bool = Field(default=True, description="CrewAI's flag (Stagehand always reads the "
                                     "accessibility tree)")
    timeout: float = Field(default=120.0, gt=0, description="Seconds one call may take in the browser")

    _session: Any = PrivateAttr(default=None)

    def model_post_init(self, __context: Any) -> None:
        super().model_post_init(__context)
        if self.session_id:
            raise ValueError("StagehandTool(session_id=...) is not supported: crewgraph creates a Browserbase "
                             "session per tool and does not attach to an existing one (see docs/porting.md)")
        self.api_key = self.api_key or os.environ.get("BROWSERBASE_API_KEY") or None
        self.project_id = self.project_id or os.environ.get("BROWSERBASE_PROJECT_ID") or None
        if self.api_key is None and self.server_url not in (None, _DEFAULT_SERVER):
            raise ValueError("StagehandTool(server_url=...) needs a Browserbase key (api_key or BROWSERBASE_API_KEY): "
                             "without one the tool drives a local Chromium and calls no Stagehand API")

    @classmethod
    def env_var_names(cls) -> tuple[str, ...]:
        """Browserbase's variables, then the model keys."""
        return ("BROWSERBASE_API_KEY", "BROWSERBASE_PROJECT_ID", "BROWSERBASE_BASE_URL",
                *dict.fromkeys(name for _, name in _MODEL_KEYS))

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
        hosted = None
        if self.api_key:
            base = self.base_url or os.environ.get("BROWSERBASE_BASE_URL") or _DEFAULT_BROWSERBASE
            stagehand_api = (self.server_url or _DEFAULT_SERVER).rstrip("/").removesuffix("/v1")
            hosted = (self.api_key, base.rstrip("/"), stagehand_api)
        session = StagehandSession(llm, headless=headless, executable_path=self.executable_path,
                                   dom_settle_timeout_ms=self.dom_settle_timeout_ms, self_heal=self.self_heal,
                                   verbose=self.verbose, browserbase=hosted)
        weakref.finalize(self, session.close)
        self._session = session
        return session

    def close(self) -> None:
        """Close the browser, releasing a Browserbase session (a later call starts a new one)."""
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
