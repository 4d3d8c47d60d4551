"""One StagehandTool's browser session: Stagehand's SDK on a Chromium, on a loop of its own.

The Chromium is local (``local_browser.launch``) or a Browserbase session
(``browserbase.launch``: Stagehand's extension uploaded, a session created, its
``connectUrl`` driven over CDP, the session released on close).

Why a thread: Stagehand's objects (the CDP connection to Chromium, the RPC
client to the Stagehand runtime that runs inside Chromium as an extension) are
bound to the asyncio loop that created them, while a tool's ``_run`` is called
from whatever thread and loop the crew is on. The session keeps one daemon
thread running one loop; every call is submitted to it, so the page an agent
navigated to in one call is still there for its next ``act``/``extract``.

Why a model callback: Stagehand's runtime asks for model completions
(``llm.generate`` requests with a JSON schema: the ``Act``, ``Observation``,
``Extraction`` and ``Metadata`` answers). With ``model=<callback>`` those
requests come back to Python, where :func:`generate` answers them with a
crewgraph ``LLM`` (any OpenAI-compatible server, a local one included) instead
of the runtime calling a vendor's API from inside the browser.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

__all__ = ["StagehandSession", "generate"]

T = TypeVar("T")


def _message_content(content: Any) -> str | list[dict[str, Any]]:
    """Stagehand's content block(s) as OpenAI chat content (text, or parts with images)."""
    blocks = content if isinstance(content, list) else [content]
    parts: list[dict[str, Any]] = []
    for block in blocks:
        item: Any = getattr(block, "root", block)
        kind = getattr(item, "type", None)
        if kind == "text":
            parts.append({"type": "text", "text": item.text})
        elif kind == "image":
            parts.append({"type": "image_url", "image_url": {"url": f"data:{item.mime_type};base64,{item.data}"}})
        else:
            raise ValueError(f"StagehandTool cannot pass a {kind!r} content block to the model "
                             "(only text and images; Stagehand's agent tools are not wrapped)")
    if all(part["type"] == "text" for part in parts):
        return "\n".join(part["text"] for part in parts)
    return parts


async def generate(llm: Any, params: Any) -> Any:
    """Answer one of the Stagehand runtime's ``llm.generate`` requests with ``llm``.

    A structured request (``response_format`` of type ``json_schema``) is sent as an OpenAI
    ``json_schema`` response format and the reply must be a JSON object; a text request gets
    the reply text. Tool use (Stagehand's agent mode) is refused by name.
    """
    import stagehand

    if getattr(params, "tools", None):
        raise ValueError("StagehandTool does not pass Stagehand's agent tools to the model")
    messages: list[dict[str, Any]] = []
    if params.system_prompt:
        messages.append({"role": "system", "content": params.system_prompt})
    messages += [{"role": m.role.value, "content": _message_content(m.content)} for m in params.messages]
    fmt = params.response_format
    structured = getattr(fmt, "type", None) == "json_schema"
    kwargs: dict[str, Any] = {}
    if params.temperature is not None:
        kwargs["temperature"] = params.temperature
    if params.stop_sequences:
        kwargs["stop"] = list(params.stop_sequences)
    if structured:
        schema = fmt.model_dump(mode="json", by_alias=True, exclude_none=True).get("schema") or {}
        kwargs["response_format"] = {"type": "json_schema", "json_schema": {"name": fmt.name, "schema": schema}}
    reply = await llm.acall(messages, **kwargs)
    text = str(getattr(reply, "content", reply) or "")
    usage = _usage(getattr(reply, "usage", None))
    common: dict[str, Any] = {"role": "assistant", "content": [{"type": "text", "text": text}]}
    if usage is not None:
        common["usage"] = usage
    if not structured:
        return stagehand.LLMMessageGenerateResult.model_validate({**common, "output_format": "text"})
    try:
        data = json.loads(_strip_fence(text))
    except ValueError:
        raise ValueError(f"the model's answer to Stagehand's {fmt.name} request is not JSON: {text[:200]!r}") from None
    if not isinstance(data, dict):
        raise ValueError(f"the model's answer to Stagehand's {fmt.name} request is not a JSON object: {text[:200]!r}")
    return stagehand.LLMStructuredGenerateResult.model_validate(
        {**common, "output_format": "json_schema", "structured_content": data})


def _strip_fence(text: str) -> str:
    """A JSON answer wrapped in a Markdown code fence, as models often write it, unwrapped."""
    body = text.strip()
    if body.startswith("```"):
        body = body.split("\n", 1)[1] if "\n" in body else ""
        body = body.rsplit("```", 1)[0]
    return body.strip()


def _usage(usage: Any) -> dict[str, int] | None:
    prompt = getattr(usage, "prompt_tokens", None)
    completion = getattr(usage, "completion_tokens", None)
    if not isinstance(prompt, int) or not isinstance(completion, int):
        return None
    return {"input_tokens": prompt, "output_tokens": completion, "total_tokens": prompt + completion}


class StagehandSession:
    """A local headless Chromium with Stagehand attached, driven from a loop thread of its own."""

    def __init__(self, llm: Any, *, headless: bool, executable_path: str | None, dom_settle_timeout_ms: int,
                 self_heal: bool, verbose: int, browserbase: tuple[str, str, str] | None = None) -> None:
        self._llm = llm
        self._browserbase = browserbase  # (API key, Browserbase API URL, Stagehand API URL), or local
        self._headless, self._executable_path = headless, executable_path
        self._settle_ms, self._self_heal = dom_settle_timeout_ms, self_heal
        self._log_level: Any = {0: "off", 1: "error", 2: "info"}.get(verbose, "debug")
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="crewgraph-stagehand", daemon=True)
        self._thread.start()
        self._browser: Any = None
        self.stagehand: Any = None
        self._lock = threading.Lock()

    def __deepcopy__(self, memo: dict[int, Any]) -> StagehandSession:
        return self  # a copied tool drives the same browser (a loop thread and a CDP socket do not copy)

    def run(self, coro: Coroutine[Any, Any, T], timeout: float) -> T:
        """Run ``coro`` on the session's loop and wait for it (at most ``timeout`` seconds)."""
        future = asyncio.run_coroutine_threadsafe(coro, self._loop)
        try:
            return future.result(timeout)
        except TimeoutError:
            future.cancel()
            raise TimeoutError(f"the browser did not finish within {timeout:g} s") from None

    async def page(self) -> Any:
        """The active page, starting Chromium and Stagehand on first use."""
        if self.stagehand is None:
            await self._start()
        page = await self._browser.context.active_page()
        if page is None:
            page = await self._browser.context.new_page()
        return page

    async def _start(self) -> None:
        from stagehand import Stagehand, browserbase, local_browser

        llm = self._llm

        async def model(params: Any) -> Any:
            return await generate(llm, params)

        from crewgraph.llm import LLM
        from crewgraph.llm._clients import preload

        # the openai SDK's first import takes seconds: do it while Chromium starts
        warm = asyncio.ensure_future(preload("openai")) if isinstance(llm, LLM) else None
        try:
            if self._browserbase is None:
                self._browser = await local_browser.launch(headless=self._headless,
                                                          executable_path=self._executable_path)
            else:
                self._browser = await browserbase.launch(api_key=self._browserbase[0],
                                                         base_url=self._browserbase[1])
        finally:
            if warm is not None:
                await warm
        try:
            if self._browserbase is None:
                self.stagehand = await Stagehand.create(
                    browser=self._browser, model=model, dom_settle_timeout_ms=self._settle_ms,
                    self_heal=self._self_heal, logging={"level": self._log_level})
            else:  # Stagehand's hosted action cache is off: CrewAI's tool never used it
                self.stagehand = await Stagehand.create(
                    browser=self._browser, model=model, dom_settle_timeout_ms=self._settle_ms,
                    self_heal=self._self_heal, logging={"level": self._log_level},
                    api_url=self._browserbase[2], cache=False)
        except BaseException:
            browser, self._browser = self._browser, None
            await browser.close()
            raise

    async def _aclose(self) -> None:
        stagehand, browser = self.stagehand, self._browser
        self.stagehand = self._browser = None
        try:
            if stagehand is not None:
                await stagehand.close()
        finally:
            try:
                if browser is not None:
                    await browser.close()
            finally:  # the per-loop HTTP clients (crewgraph.llm._clients) close with the loop's generators
                await asyncio.get_running_loop().shutdown_asyncgens()

    def close(self) -> None:
        """Close Stagehand and Chromium, then stop the loop thread (safe to call twice)."""
        with self._lock:
            if self._loop.is_closed():
                return
            try:
                if self._loop.is_running():
                    self.run(self._aclose(), timeout=30)
            finally:
                self._loop.call_soon_threadsafe(self._loop.stop)
                self._thread.join(timeout=5)
                if not self._thread.is_alive():
                    self._loop.close()
