"""A team's Redis cache, opened and checked with a PING before any paid call is made."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from profnet_sheets.config import Settings
from profnet_sheets.errors import ConfigurationError, TeamCacheUnreachable
from profnet_sheets.redact import MASK, clipped, masked_url

REDIS_CONNECTIONS = 64  # connections a process opens to its Redis at most (then threads wait)


def open_redis(url: str, settings: Settings) -> Any:
    """A connection to the Redis of `url` that has answered a PING.

    An unreachable server, a refused or missing password, or a URL redis-py cannot read raises
    TeamCacheUnreachable naming the URL with its password masked, so that a client is never made
    (and nothing paid for) with a cache that does not work.
    """
    try:
        import redis
    except ImportError:  # pragma: no cover - depends on the extra being installed
        raise ConfigurationError(
            "PROFNET_CACHE names Redis but the redis package is missing: "
            'install "profnet-sheets[redis]".'
        ) from None
    connection = None
    try:
        # Threads at work wait their turn for a connection (redis-py's default pool refuses the
        # 101st at once: a run of 128 in flight stopped buying on "Too many connections").
        pool = redis.BlockingConnectionPool.from_url(
            url,
            max_connections=REDIS_CONNECTIONS,
            timeout=settings.timeout,
            socket_connect_timeout=settings.connect_timeout,
            socket_timeout=settings.timeout,
        )
        connection = redis.Redis(connection_pool=pool)
        connection.ping()
        return connection
    except (redis.RedisError, ValueError) as error:
        problem = _reason(error, url)
    if connection is not None:
        connection.close()
    # Raised here, not in the except: redis-py's error must not ride along as a __context__.
    raise TeamCacheUnreachable(
        f"Cannot use the Redis cache {clipped(masked_url(url))}: {problem}. Check that the "
        "server runs and the host, port and password in PROFNET_CACHE (or the config file), "
        "or set PROFNET_CACHE to a folder to keep the cache on this computer (a spending cap "
        "then counts this computer's spend only, not the team's)."
    )


def _reason(error: Exception, url: str) -> str:
    """What went wrong, in words, the password never among them."""
    import redis

    said = str(error).strip().rstrip(".") or type(error).__name__
    try:
        password = urlsplit(url).password
    except ValueError:
        password = None
    if password:
        said = said.replace(password, MASK)
    if "authenticated" in said or "Authentication required" in said:
        said = f"the server asks for a password and the URL gives none ({said})"
    elif isinstance(error, redis.AuthenticationError):
        said = f"the server refused the password or user name ({said})"
    elif isinstance(error, redis.TimeoutError):
        said = f"the server did not answer in time ({said})"
    return clipped(said)
