"""A fetch function over asyncio streams (HTTP/1.1, one connection per attempt, no thread):
what the browser's fetch is to AsyncClient under Pyodide, for tests on CPython."""

from __future__ import annotations

import asyncio
import contextlib
import zlib
from urllib.parse import urlsplit

from requests.structures import CaseInsensitiveDict

from profnet_sheets.client.async_client import Fetch, Fetched, Unanswered


async def loopback_fetch(request: Fetch) -> Fetched:
    """One attempt: `Connection: close`, the answer read to its end; a connection refused,
    or closed before a whole answer (or a gzip body that is not gzip), said as `Unanswered`."""
    parts = urlsplit(request.url)
    try:
        reader, writer = await asyncio.open_connection(parts.hostname, parts.port)
    except ConnectionRefusedError:
        raise Unanswered("refused") from None
    except OSError:
        raise Unanswered("connect") from None
    try:
        target = parts.path + (f"?{parts.query}" if parts.query else "")
        lines = [f"{request.method} {target} HTTP/1.1", f"Host: {parts.netloc}"]
        lines += [f"{name}: {value}" for name, value in request.headers.items()]
        lines += ["Connection: close", f"Content-Length: {len(request.body or b'')}"]
        writer.write(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + (request.body or b""))
        await writer.drain()
        status_line = await reader.readline()
        if not status_line:
            raise Unanswered("read")
        status = int(status_line.split()[1])
        headers: CaseInsensitiveDict[str] = CaseInsensitiveDict()
        while (line := await reader.readline()) not in (b"\r\n", b""):
            name, _, value = line.decode("latin-1").partition(":")
            headers[name.strip()] = value.strip()
        content = await reader.read()
        if len(content) < int(headers.get("Content-Length") or len(content)):
            raise Unanswered("read")  # closed before the whole body, as a browser's fetch says
        if headers.get("Content-Encoding") == "gzip":
            try:
                content = zlib.decompress(content, 31)
            except zlib.error:
                raise Unanswered("read") from None
        return Fetched(status, headers, content)
    except (ConnectionError, ValueError, IndexError):
        raise Unanswered("read") from None
    finally:
        writer.close()
        with contextlib.suppress(ConnectionError):
            await writer.wait_closed()
