"""``ApiError``: a request the server refuses, answered as ``{"error": {"message", "field"}}``."""

from __future__ import annotations

__all__ = ["ApiError"]


class ApiError(Exception):
    """``status`` is the HTTP status; ``field`` names the part of the request that is wrong."""

    def __init__(self, status: int, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.field = field

    def to_json(self) -> dict[str, object]:
        return {"error": {"message": self.message, "field": self.field}}
