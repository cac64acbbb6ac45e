"""CORS for the sandbox: which web origins may read its answers (xlwings Lite's by default),
and the preflights a browser sends before a call that carries the key header.

A preflight (OPTIONS) is answered here, before any routing: it never reaches the backend, so
it is never counted nor charged. An answer to a call from an allowed origin says so
(Access-Control-Allow-Origin); one from another origin says nothing, and the browser keeps it
from the page.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Iterable, MutableMapping
from typing import Any, Final

from profnet_sheets.spec.profile import LITE_ORIGIN

Message = MutableMapping[str, Any]
Send = Callable[[Message], Awaitable[None]]

ANY_ORIGIN: Final = "*"
_ORIGIN = re.compile(r"https?://[A-Za-z0-9.-]+(?::\d{1,5})?")
METHODS: Final = "GET, POST, PUT, OPTIONS"
MAX_AGE_SECONDS: Final = 600
EXPOSED: Final = "Retry-After"  # what the client reads from an answer besides its body


def allowed_origins(value: object) -> tuple[str, ...]:
    """Origins as a start option gives them: `scheme://host[:port]` each, or `*` for any; a
    ValueError that says why a value is not one."""
    given = [value] if isinstance(value, str) else value
    if not isinstance(given, Iterable):
        raise ValueError(f"{value!r} is not a list of origins")
    origins = []
    for origin in given:
        text = origin.strip().rstrip("/") if isinstance(origin, str) else origin
        if text != ANY_ORIGIN and not (isinstance(text, str) and _ORIGIN.fullmatch(text)):
            raise ValueError(
                f"{origin!r} is not an origin: give scheme://host[:port] with no path, "
                f"such as {LITE_ORIGIN}, or * for any"
            )
        origins.append(text)
    return tuple(origins)


class Cors:
    """The sandbox's CORS rules: `origins` may read its answers and send the `headers`."""

    def __init__(self, origins: Iterable[str], headers: Iterable[str]) -> None:
        self.origins = frozenset(allowed_origins(tuple(origins)))
        self.headers = ", ".join(sorted({"Content-Type", *headers}))

    def allows(self, origin: str | None) -> bool:
        return origin is not None and (ANY_ORIGIN in self.origins or origin in self.origins)

    def preflight_headers(self, origin: str | None) -> dict[str, str]:
        """The answer to a preflight from `origin`: what it may send, or nothing at all."""
        if not self.allows(origin):
            return {"Vary": "Origin"}
        return {
            **self.answer_headers(origin),
            "Access-Control-Allow-Methods": METHODS,
            "Access-Control-Allow-Headers": self.headers,
            "Access-Control-Max-Age": str(MAX_AGE_SECONDS),
        }

    def answer_headers(self, origin: str | None) -> dict[str, str]:
        """The headers an answer to `origin` carries (none for an origin not allowed)."""
        if not self.allows(origin):
            return {}
        assert origin is not None
        return {
            "Access-Control-Allow-Origin": origin,
            "Access-Control-Expose-Headers": EXPOSED,
            "Vary": "Origin",
        }

    def sending_to(self, origin: str | None, send: Send) -> Send:
        """`send` with this origin's headers added to the answer's start."""
        extra = [(k.lower().encode(), v.encode()) for k, v in self.answer_headers(origin).items()]
        if not extra:
            return send

        async def with_cors(message: Message) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", ()), *extra]}
            await send(message)

        return with_cors
