"""``BaseInterceptor``: see and change every HTTP request to the model and every reply.

Subclass it with ``on_outbound(request) -> request`` and ``on_inbound(response) -> response``
(httpx objects) and pass an instance as ``LLM(..., interceptor=...)``: it becomes part of
the LLM's HTTP transport, so it sees what the ``openai`` SDK (and instructor, for structured
output) actually sends -- headers, URL, JSON body -- and the raw reply before the SDK parses
it. Typical uses: an extra header for a gateway, request logging, signing.

crewgraph's transport is async. ``aon_outbound``/``aon_inbound`` are used when a subclass
overrides them, else the sync ``on_outbound``/``on_inbound`` (CrewAI's async transport calls
only the ``aon_*`` pair, whose defaults raise ``NotImplementedError``). The interceptor sits
under crewgraph's deadlines and reply checks: a reply it rewrites is checked as rewritten,
and the time it takes counts toward the request's ``timeout``.
"""

from __future__ import annotations

import functools
from abc import ABC, abstractmethod
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from pydantic_core import core_schema

if TYPE_CHECKING:
    from pydantic import GetCoreSchemaHandler

__all__ = ["BaseInterceptor", "intercepting_transport"]

T = TypeVar("T")
U = TypeVar("U")


class BaseInterceptor(ABC, Generic[T, U]):
    """Intercepts the model's HTTP traffic: ``T`` is the request type, ``U`` the response's."""

    @abstractmethod
    def on_outbound(self, message: T) -> T:
        """The request about to be sent (change it, or return another one)."""

    @abstractmethod
    def on_inbound(self, message: U) -> U:
        """The response just received, before anything reads it."""

    async def aon_outbound(self, message: T) -> T:
        """Async form of :meth:`on_outbound`; override it for async work."""
        raise NotImplementedError

    async def aon_inbound(self, message: U) -> U:
        """Async form of :meth:`on_inbound`; override it for async work."""
        raise NotImplementedError

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: GetCoreSchemaHandler) -> core_schema.CoreSchema:
        """Usable as a pydantic field type: the value must be an interceptor instance."""
        return core_schema.no_info_plain_validator_function(check_interceptor)


def check_interceptor(value: Any) -> Any:
    """``value`` when it is a :class:`BaseInterceptor` (or None), else a ``ValueError`` saying so."""
    if value is not None and not isinstance(value, BaseInterceptor):
        raise ValueError(f"interceptor must be a BaseInterceptor instance, got {type(value).__name__}")
    return value


def _overrides(interceptor: BaseInterceptor[Any, Any], name: str) -> bool:
    return getattr(type(interceptor), name) is not getattr(BaseInterceptor, name)


async def outbound(interceptor: BaseInterceptor[Any, Any], request: Any) -> Any:
    if _overrides(interceptor, "aon_outbound"):
        return await interceptor.aon_outbound(request)
    return interceptor.on_outbound(request)


async def inbound(interceptor: BaseInterceptor[Any, Any], response: Any) -> Any:
    if _overrides(interceptor, "aon_inbound"):
        return await interceptor.aon_inbound(response)
    return interceptor.on_inbound(response)


def intercepting_transport(inner: Any, interceptor: BaseInterceptor[Any, Any], httpx: Any) -> Any:
    """``inner`` (an ``httpx.AsyncBaseTransport``) with ``interceptor`` around every request."""
    return _transport_class(httpx)(inner, interceptor)


@functools.cache
def _transport_class(httpx: Any) -> Any:
    class InterceptingTransport(httpx.AsyncBaseTransport):
        def __init__(self, inner: Any, interceptor: BaseInterceptor[Any, Any]) -> None:
            self.inner = inner
            self.interceptor = interceptor

        async def handle_async_request(self, request: Any) -> Any:
            request = await outbound(self.interceptor, request)
            response = await self.inner.handle_async_request(request)
            return await inbound(self.interceptor, response)

        async def aclose(self) -> None:
            await self.inner.aclose()

    return InterceptingTransport
