"""The sandbox's HTTP layer: a plain ASGI app that routes, refuses calls over the plan's rate
limits at once, injects latency and drops, replies."""

from __future__ import annotations

import asyncio
import json
import logging
import random
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any
from urllib.parse import parse_qsl

from profnet_sheets.sandbox.backend import Backend, Reply
from profnet_sheets.sandbox.controls import SettingError, check_all
from profnet_sheets.sandbox.cors import Cors
from profnet_sheets.sandbox.params import Unreadable, read_json
from profnet_sheets.spec import errors
from profnet_sheets.spec.endpoints import BY_PATH, Endpoint
from profnet_sheets.spec.openapi import openapi_document
from profnet_sheets.spec.profile import LITE_ORIGIN

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]

CONTROL_PREFIX = "/_sandbox/"
INTERNAL_ERROR = "Internal error of the sandbox (a bug; its log has the traceback)."
_log = logging.getLogger(__name__)


class DroppedConnectionError(Exception):
    """Raised mid-response to cut the connection (fault injection); the server logs nothing."""


class _WatchedSend:
    """An ASGI `send` that knows whether the response has started (then no other can)."""

    def __init__(self, send: Send) -> None:
        self._send = send
        self.started = False

    async def __call__(self, message: Message) -> None:
        self.started = self.started or message["type"] == "http.response.start"
        await self._send(message)


class SandboxApp:
    """ASGI application serving the 20 endpoints, /openapi.json and the /_sandbox/ controls."""

    def __init__(self, backend: Backend, cors: Cors | None = None) -> None:
        self.backend = backend
        self._random = random.Random(backend.world.seed + 1)
        self._openapi = json.dumps(openapi_document(profile=backend.profile)).encode()
        # ASGI gives header names in lower case: the key's, and those the profile requires.
        self._key_header = backend.profile.key_header.lower().encode()
        self._required = {name: name.lower().encode() for name, _ in backend.profile.headers}
        self.cors = cors or Cors((LITE_ORIGIN,), (backend.profile.key_header, *self._required))
        # Calls to the endpoints arrived and not yet answered, now and at the most (tests
        # read how many a client had in flight at once).
        self.under_way = 0
        self.most_under_way = 0

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await _lifespan(receive, send)
            return
        if scope["type"] != "http":
            return
        origin = _header(scope, b"origin")
        if scope["method"] == "OPTIONS":  # a preflight: answered before anything is counted
            await _send(send, 204, b"", self.cors.preflight_headers(origin))
            return
        answer = self.cors.sending_to(origin, send)
        watched = _WatchedSend(answer)
        counted = not scope["path"].startswith(CONTROL_PREFIX)
        if counted:
            self.under_way += 1
            self.most_under_way = max(self.most_under_way, self.under_way)
        try:
            await self._serve(scope, receive, watched)
        except DroppedConnectionError:
            raise
        except Exception:
            # A bug of the sandbox: logged, and still answered in JSON as all answers are.
            _log.exception("the sandbox failed on %s %s", scope["method"], scope["path"])
            if watched.started:
                raise
            await _send(answer, 500, json.dumps(errors.server_error(INTERNAL_ERROR)).encode())
        finally:
            if counted:
                self.under_way -= 1

    async def _serve(self, scope: Scope, receive: Receive, send: Send) -> None:
        path: str = scope["path"]
        method: str = scope["method"]
        body = await _read_body(receive) if method in ("POST", "PUT") else b""
        if path.startswith(CONTROL_PREFIX):
            reply = self._control(path[len(CONTROL_PREFIX) :], method, scope, body)
        elif path == "/openapi.json" and method == "GET":
            await _send(send, 200, self._openapi)
            return
        else:
            endpoint = BY_PATH.get(path)
            if endpoint is None:
                reply = Reply(404, errors.not_found(f"No endpoint at {path}."))
            elif method != endpoint.method:
                reply = Reply(
                    405,
                    {
                        "message": "method_not_allowed",
                        "details": f"{path} takes {endpoint.method}.",
                    },
                    {"Allow": endpoint.method},
                )
            else:
                await self._answer(scope, send, endpoint, body)
                return
        await _send(send, reply.status, _encoded(reply.body), reply.headers)

    async def _answer(self, scope: Scope, send: Send, endpoint: Endpoint, body: bytes) -> None:
        """A call of `endpoint`: the rate limit's 429 at once, or the answer after the latency;
        its injected faults behind the limit (the call took a token) or, `faults_counted`
        false, in front of it (a load balancer's, the network's: no token taken)."""
        key, faults, loop = self._api_key(scope), self.backend.faults, asyncio.get_running_loop()
        reply: Reply | None = None
        if not faults.faults_counted:
            answer_at = loop.time() + self._delay()
            if self._random.random() < faults.drop_rate:
                await asyncio.sleep(answer_at - loop.time())
                await _drop(send)  # raises: the connection is cut
            reply = self.backend.front_fault(endpoint.name, key)
        if reply is None:
            limited = self.backend.limited(endpoint.name, key)
            if limited is not None:  # over the plan's rate limit: refused at once, no work
                await _send(send, limited.status, _encoded(limited.body), limited.headers)
                return
        if faults.faults_counted:
            # The latency is the service's response time: the answer leaves `delay` after the
            # request arrived, however long the work took (when it took less).
            answer_at = loop.time() + self._delay()
            if self._random.random() < faults.drop_rate:
                await asyncio.sleep(answer_at - loop.time())
                await _drop(send)  # before the work: a dropped call is never charged
        if reply is None:
            get = scope["method"] == "GET"
            raw = _query(scope) if get else read_json(body, _content_type(scope))
            reply = self.backend.handle(
                endpoint.name,
                key,
                raw,
                from_query=get,
                headers={name: _header(scope, lower) for name, lower in self._required.items()},
                inject=faults.faults_counted,
            )
        encoded = _encoded(reply.body)
        if answer_at > loop.time():
            await asyncio.sleep(answer_at - loop.time())
        await _send(send, reply.status, encoded, reply.headers)

    def _delay(self) -> float:
        """Seconds from a request's arrival to its answer: latency, jitter and spikes."""
        faults = self.backend.faults
        delay = faults.latency_ms + self._random.random() * faults.latency_jitter_ms
        if faults.spike_rate and self._random.random() < faults.spike_rate:
            delay += faults.spike_ms
        return delay / 1000

    def _control(self, action: str, method: str, scope: Scope, body: bytes) -> Reply:
        payload = read_json(body, _content_type(scope)) if body else {}
        if isinstance(payload, Unreadable):
            return Reply(400, errors.invalid_parameter("payload", payload.details))
        try:
            return self._control_reply(action, method, scope, payload)
        except SettingError as error:
            return Reply(400, errors.invalid_parameter(error.name, str(error)))

    def _control_reply(
        self, action: str, method: str, scope: Scope, payload: dict[str, Any]
    ) -> Reply:
        """The answer of one control endpoint; SettingError for a field it refuses."""
        backend = self.backend
        if (action, method) == ("health", "GET"):
            return Reply(200, {"status": "ok"})
        if (action, method) == ("usage", "GET"):
            key = self._api_key(scope)
            usage = backend.usage(key) if key else None
            if usage is None:
                return Reply(401, errors.unauthorized(backend.profile.key_header, sent=bool(key)))
            return Reply(200, usage)
        if (action, method) == ("reset", "POST"):
            backend.reset()
            return Reply(200, {"reset": True})
        if (action, method) == ("keys", "PUT"):
            check_all(payload, ("key", "credits"))
            balance = backend.set_key(payload.get("key"), payload.get("credits", backend.credits))
            return Reply(200, {"balance": balance})
        if action == "faults" and method in ("GET", "PUT"):
            backend.faults.update(payload)
            return Reply(200, backend.faults.as_dict())
        if action == "hostile" and method in ("GET", "PUT"):
            check_all(payload, ("rate",))
            if "rate" in payload:
                backend.set_hostile(payload["rate"])
            return Reply(200, {"rate": backend.hostile_rate})
        if (action, method) == ("clock", "POST"):
            check_all(payload, ("advance",))
            return Reply(200, {"now": backend.advance_clock(payload.get("advance", 0))})
        return Reply(404, errors.not_found(f"No control {method} /_sandbox/{action}."))

    def _api_key(self, scope: Scope) -> str | None:
        """The key a call carries in the profile's key header (blank: none)."""
        return (_header(scope, self._key_header) or "").strip() or None


def _encoded(body: dict[str, Any]) -> bytes:
    """JSON text of an answer; a NaN or an infinity is a bug (ValueError), never sent."""
    return json.dumps(body, allow_nan=False).encode()


def _header(scope: Scope, wanted: bytes) -> str | None:
    """A request header's value (`wanted` in lower case, as ASGI gives names), or None."""
    for name, value in scope["headers"]:
        if name == wanted:
            text: str = value.decode("latin-1")
            return text
    return None


def _content_type(scope: Scope) -> str | None:
    return _header(scope, b"content-type")


def _query(scope: Scope) -> dict[str, str]:
    pairs = parse_qsl(scope["query_string"].decode("utf-8", "replace"), keep_blank_values=True)
    return dict(pairs)


async def _read_body(receive: Receive) -> bytes:
    chunks = []
    while True:
        message = await receive()
        chunks.append(message.get("body", b""))
        if not message.get("more_body"):
            return b"".join(chunks)


async def _send(send: Send, status: int, body: bytes, headers: Any = ()) -> None:
    raw_headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
        *((name.lower().encode(), str(value).encode()) for name, value in dict(headers).items()),
    ]
    await send({"type": "http.response.start", "status": status, "headers": raw_headers})
    await send({"type": "http.response.body", "body": body})


async def _drop(send: Send) -> None:
    await send(
        {
            "type": "http.response.start",
            "status": 200,
            "headers": [(b"content-type", b"application/json"), (b"content-length", b"1024")],
        }
    )
    await send({"type": "http.response.body", "body": b'{"data": {', "more_body": True})
    raise DroppedConnectionError


async def _lifespan(receive: Receive, send: Send) -> None:
    while True:
        message = await receive()
        if message["type"] == "lifespan.startup":
            await send({"type": "lifespan.startup.complete"})
        elif message["type"] == "lifespan.shutdown":
            await send({"type": "lifespan.shutdown.complete"})
            return
