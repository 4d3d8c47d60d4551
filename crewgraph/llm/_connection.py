"""Build the ``openai`` client for one resolved target, over the guarded transport.

Called once per event loop by :class:`crewgraph.llm.LLM` (see ``_clients``).
Azure deployments get the SDK's ``AsyncAzureOpenAI`` (its URL layout and
``api-key`` header); every other provider the plain ``AsyncOpenAI`` pointed
at its OpenAI-compatible endpoint. Both sit on :class:`GuardedTransport`, so
deadlines, concurrency slots and reply checks apply to every request,
including instructor's.
"""

from __future__ import annotations

from typing import Any

from crewgraph.llm.providers import Resolved

__all__ = ["CONNECT_TIMEOUT", "build_client"]

CONNECT_TIMEOUT = 15.0
"""Seconds to open a connection (capped by the attempt's ``timeout``): a host that does not answer
a TCP handshake in that time is not going to."""


def build_client(
    target: Resolved, *, timeout: float, idle_timeout: float | None, max_concurrency: int | None,
    interceptor: Any = None,
) -> Any:
    """An ``AsyncOpenAI``/``AsyncAzureOpenAI`` for ``target`` with the SDK's retries off."""
    import openai

    from crewgraph.llm._slots import endpoint_slots
    from crewgraph.llm._transport import guarded_transport, sdk_httpx

    httpx = sdk_httpx()
    endpoint = target.endpoint
    transport = guarded_transport(
        endpoint=endpoint,
        slots=endpoint_slots(endpoint, max_concurrency),
        total=timeout,
        idle=idle_timeout,
        limits=httpx.Limits(max_connections=1000, max_keepalive_connections=100),
        interceptor=interceptor,
    )
    # Per-read timeout as a backstop: the transport's deadlines are the ones that count.
    http_timeout = httpx.Timeout(timeout, connect=min(CONNECT_TIMEOUT, timeout))
    # The plain client: the SDK's default wrapper schedules aclose() from
    # __del__ on whatever loop is running, which fails for a closed loop.
    http_client = openai.DefaultAsyncHttpxClient(timeout=http_timeout, transport=transport)
    if target.provider.azure:
        return openai.AsyncAzureOpenAI(
            api_key=target.api_key,
            azure_endpoint=endpoint,
            api_version=target.api_version,
            timeout=http_timeout,
            max_retries=0,
            http_client=http_client,
        )
    return openai.AsyncOpenAI(
        api_key=target.api_key,
        base_url=target.base_url,
        timeout=http_timeout,
        max_retries=0,
        http_client=http_client,
    )
