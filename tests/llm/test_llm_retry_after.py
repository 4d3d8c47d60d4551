"""Retry-After parsing: seconds, milliseconds, HTTP dates, garbage."""

from __future__ import annotations

import email.utils

import pytest

from crewgraph.llm._retry import parse_retry_after


def test_seconds_and_millis() -> None:
    assert parse_retry_after({"retry-after": "7"}) == 7.0
    assert parse_retry_after({"retry-after": "1.5"}) == 1.5
    assert parse_retry_after({"retry-after-ms": "250", "retry-after": "9"}) == 0.25
    assert parse_retry_after({"retry-after": "-3"}) == 0.0


def test_http_date() -> None:
    now = 1_700_000_000.0
    date = email.utils.formatdate(now + 12, usegmt=True)
    assert parse_retry_after({"retry-after": date}, now=now) == pytest.approx(12.0)
    past = email.utils.formatdate(now - 60, usegmt=True)
    assert parse_retry_after({"retry-after": past}, now=now) == 0.0


def test_missing_or_garbage() -> None:
    assert parse_retry_after(None) is None
    assert parse_retry_after({}) is None
    assert parse_retry_after({"retry-after": "soon"}) is None
