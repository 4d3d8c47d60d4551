"""One structured-output attempt of the stock ``LLM`` in one instructor mode (split from
:mod:`crewgraph.llm.openai_llm` to keep that module small)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pydantic import BaseModel

    from crewgraph.llm.openai_llm import LLM
    from crewgraph.llm.types import LLMResponse

__all__ = ["structured_in_mode"]


async def structured_in_mode(
    llm: LLM,
    mode: str,
    messages: list[dict[str, Any]],
    response_model: type[BaseModel],
    params: dict[str, Any],
    emit: Callable[[Any], None] | None,
    *,
    can_fall_back: bool,
) -> LLMResponse | None:
    """One mode's attempt; None when the server rejected the mode and a fallback exists."""
    import logging

    from crewgraph.errors import LLMError
    from crewgraph.llm._clients import preload
    from crewgraph.llm._retry import call_with_retries
    from crewgraph.llm.structured import (
        create_structured,
        is_response_format_rejection,
        is_tools_rejection,
    )
    from crewgraph.llm.types import LLMResponse

    client = await llm._client()
    await preload("instructor")
    rejected = is_tools_rejection if mode == "tools" else is_response_format_rejection
    refusals: list[str] = []

    async def _attempt() -> Any:
        await llm.rate_limiter.acquire()
        return await create_structured(
            client,
            mode=mode,
            model=llm.model,
            messages=messages,
            response_model=response_model,
            params=params,
            validation_retries=llm.validation_retries,
            can_fall_back=can_fall_back,
        )

    def _no_retry(status: int | None, message: str) -> bool:
        if can_fall_back and mode != "json" and rejected(status, message):
            refusals.append(message)
            return True
        return False

    try:
        parsed, usage, completion = await call_with_retries(
            _attempt,
            settings=llm.retry_settings,
            model=llm.model,
            endpoint=llm.endpoint,
            emit=emit,
            no_retry=_no_retry,
        )
    except LLMError:
        if refusals:
            logging.getLogger("crewgraph.llm").info("LLM %s: server rejected %s mode (%s); falling back",
                      llm.model, mode, refusals[-1])
            return None
        raise
    choice = (getattr(completion, "choices", None) or [None])[0]
    return LLMResponse(
        content=parsed.model_dump_json(),
        parsed=parsed,
        usage=usage,
        model=getattr(completion, "model", None) or llm.model,
        finish_reason=getattr(choice, "finish_reason", None),
    )

