"""A service on loopback that answers as a test scripts it: by path, in turn (the last answer
repeats), with an answer that is no answer (`CUT`: the request read, the connection closed).
What the spec leaves "not shown" and what a failing gateway does are played with it."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from profnet_sheets.spec.profile import API_KEY_HEADER

# An answer: (status, body) or (status, body, headers); a body that is a str is sent as it is.
Answer = tuple[int, Any] | tuple[int, Any, Mapping[str, str]] | None
CUT: Answer = None  # the connection closed once the request is read: no answer at all
HOLD: Answer = (0, "hold")  # no answer until the test lets go (`let_go`), then closed


class Scripted:
    """The service's answers by path, in turn; what it was asked."""

    def __init__(self) -> None:
        self.script: dict[str, list[Answer]] = {}
        self.asked: list[str] = []
        self.heard: list[tuple[str, dict[str, str]]] = []  # (method, headers) of each request
        self.base_url = ""
        self.arrived = threading.Event()  # set at each request
        self.let_go = threading.Event()  # ends every HOLD

    def answer(self, path: str, *answers: Answer) -> None:
        self.script[path] = list(answers)

    def times(self, path: str) -> int:
        return sum(asked.split("?", 1)[0] == path for asked in self.asked)

    def next_for(self, path: str) -> Answer:
        answers = self.script.get(path) or [(404, {"message": "not_found", "details": path})]
        return answers.pop(0) if len(answers) > 1 else answers[0]


@contextmanager
def serving(scripted: Scripted) -> Iterator[Scripted]:
    """`scripted` served on a loopback port (its `base_url` set) until the block ends."""

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def _answer(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            self.rfile.read(length)
            scripted.asked.append(self.path)
            scripted.heard.append((self.command, dict(self.headers)))
            scripted.arrived.set()
            path = self.path.split("?", 1)[0]
            keyless = API_KEY_HEADER.lower() not in {name.lower() for name in self.headers}
            if keyless and path not in scripted.script:  # the service asks for its key first
                answer: Answer = (401, {"message": "unauthorized", "details": "missing key"})
            else:
                answer = scripted.next_for(path)
            if answer == HOLD:
                scripted.let_go.wait()
                answer = CUT
            if answer is None:
                self.close_connection = True
                self.connection.close()
                return
            status, body, *more = answer
            headers = dict(more[0]) if more else {}
            data = (body if isinstance(body, str) else json.dumps(body)).encode()
            self.send_response(status)
            length = headers.pop("Content-Length", str(len(data)))  # more: cut short
            for name, value in {"Content-Type": "application/json", **headers}.items():
                self.send_header(name, value)
            self.send_header("Content-Length", length)
            self.end_headers()
            self.wfile.write(data)
            self.close_connection = self.close_connection or length != str(len(data))

        def do_GET(self) -> None:
            self._answer()

        def do_POST(self) -> None:
            self._answer()

        def do_OPTIONS(self) -> None:
            self._answer()

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    scripted.base_url = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        yield scripted
    finally:
        scripted.let_go.set()
        server.shutdown()
        server.server_close()
