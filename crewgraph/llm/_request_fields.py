"""CrewAI's ``LLM`` request fields, and how they go on the wire.

``LLM(top_p=..., seed=..., response_format=..., additional_params=...)`` are
attributes with CrewAI's names and defaults (``None``: not sent). They are
sent the way CrewAI's OpenAI client sends them: each set field as a top-level
request parameter; ``max_completion_tokens`` instead of ``max_tokens`` when
both are set; a pydantic ``response_format`` as a ``json_schema`` response
format named after the class (a dict is sent as given); ``additional_params``
(and any unknown keyword given to ``LLM(...)``) merged into the request —
top-level when the OpenAI SDK knows the parameter, in ``extra_body``
otherwise, so vendor options still reach the server.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

__all__ = ["REASONING_EFFORTS", "REQUEST_FIELDS", "check_fields", "field_params", "response_format_param"]

REQUEST_FIELDS = (
    "top_p", "n", "stop", "max_completion_tokens", "presence_penalty", "frequency_penalty",
    "logit_bias", "response_format", "seed", "logprobs", "top_logprobs", "reasoning_effort",
)
"""CrewAI's ``LLM`` fields that are request parameters (besides temperature and max_tokens)."""

REASONING_EFFORTS = ("none", "minimal", "low", "medium", "high", "xhigh")


def check_fields(values: dict[str, Any]) -> None:
    """A clear error for a request field of the wrong type (the server would refuse it later)."""
    effort = values.get("reasoning_effort")
    if effort is not None and effort not in REASONING_EFFORTS:
        raise ValueError(f"LLM: reasoning_effort must be one of {', '.join(REASONING_EFFORTS)}, got {effort!r}")
    stop = values.get("stop")
    if stop is not None and not (isinstance(stop, str) or (
            isinstance(stop, list | tuple) and all(isinstance(s, str) for s in stop))):
        raise TypeError(f"LLM: stop must be a list of strings, got {stop!r}")
    fmt = values.get("response_format")
    if fmt is not None and not isinstance(fmt, dict) and not (
            isinstance(fmt, type) and issubclass(fmt, BaseModel)):
        raise TypeError(
            f"LLM: response_format must be a pydantic model class or an OpenAI response_format dict, got {fmt!r}")
    bias = values.get("logit_bias")
    if bias is not None and not isinstance(bias, dict):
        raise TypeError(f"LLM: logit_bias must be a dict of token id -> bias, got {bias!r}")


def response_format_param(fmt: Any) -> dict[str, Any]:
    """``response_format`` as the request carries it: a model class becomes its JSON schema."""
    if isinstance(fmt, type) and issubclass(fmt, BaseModel):
        return {"type": "json_schema", "json_schema": {"name": fmt.__name__, "schema": fmt.model_json_schema()}}
    return dict(fmt)


def field_params(llm: Any) -> dict[str, Any]:
    """The set request fields of ``llm`` as request parameters (unset ones are not sent)."""
    params: dict[str, Any] = {}
    if llm.temperature is not None:
        params["temperature"] = llm.temperature
    for name in REQUEST_FIELDS:
        value = getattr(llm, name, None)
        if value is None or (name == "stop" and not value):
            continue
        if name == "response_format":
            value = response_format_param(value)
        elif name == "stop":
            value = [value] if isinstance(value, str) else list(value)
        elif name == "logit_bias":
            value = {str(k): v for k, v in value.items()}
        params[name] = value
    if llm.max_tokens is not None and "max_completion_tokens" not in params:
        params["max_tokens"] = llm.max_tokens
    return params
