"""What a message may show of a value: credentials masked, at most ~200 characters."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

LIMIT = 200  # characters of a value a message shows at most (an input may be 100,000 long)
MASK = "***"

# A URL anywhere in a text: its scheme, then everything up to the next blank.
_URL = re.compile(r"(?P<scheme>[A-Za-z][A-Za-z0-9+.-]*://)(?P<rest>\S*)")
# A query (or fragment, or matrix) parameter whose name says it holds a credential.
_SECRET_PARAMETER = re.compile(
    r"(?P<lead>[?&;#])(?P<name>[^=&;#\s]*(?:key(?!word)|token|secret|pass|pwd|auth(?!or)|sig|"
    r"credential|session)[^=&;#\s]*)=(?P<value>[^&;#\s]*)",
    re.IGNORECASE,
)


def masked(text: str, secrets: Iterable[str] = ()) -> str:
    """`text` with every one of `secrets` (an API key a server quoted back) masked whole,
    and the credentials of every URL in it masked: user info (`redis://:pw@host`
    -> `redis://:***@host`, `https://user:pw@host` -> `https://user:***@host`, a lone user
    name being a token: `https://tok@host` -> `https://***@host`) and query parameters named
    like a credential (`?key=`, `api_key=`, `token=`, `password=`, ...).

    Up to the last `@` of a URL counts as its user info, so that a password holding an
    unescaped `/`, `?`, `#` or `@` is masked whole: a path with an `@` is masked too.
    """
    for secret in secrets:
        if secret:
            text = text.replace(secret, MASK)
    return _URL.sub(_masked_match, text) if "://" in text else text


def _masked_match(found: re.Match[str]) -> str:
    # Parameters first: a token with an `@` in it is masked whole, not taken for user info.
    rest = _SECRET_PARAMETER.sub(rf"\g<lead>\g<name>={MASK}", found["rest"])
    if "@" in rest:
        user_info, host = rest.rsplit("@", 1)
        user, colon, _ = user_info.partition(":")
        kept = f"{user}:" if colon and "/" not in user else ""
        rest = f"{kept}{MASK}@{host}"
    return found["scheme"] + rest


def masked_url(value: Any) -> Any:
    """`value` with its credentials masked when it is text (see `masked`); anything else as
    it is (a Path, a number, None), so that a repr of settings can pass every field through."""
    return masked(value) if isinstance(value, str) else value


def clipped(text: str, limit: int = LIMIT, secrets: Iterable[str] = ()) -> str:
    """`text` for a message: credentials (and `secrets`) masked, then cut to `limit`
    characters (`...`)."""
    return _cut(masked(text, secrets), limit)


def shown(value: object, limit: int = LIMIT) -> str:
    """`value` as a message quotes what a user gave: its repr, credentials masked, cut to
    `limit` characters. The one way a message shows a value."""
    try:
        text = repr(masked(value)) if isinstance(value, str) else masked(repr(value))
    except ValueError:  # an int with more digits than Python prints
        text = f"a {type(value).__name__} too long to show"
    return _cut(text, limit)


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def listed(values: Iterable[object], limit: int = LIMIT) -> str:
    """Values as a message lists them (each `shown`): as many whole ones as fit in `limit`
    characters, then how many there are in all."""
    items = [shown(value, limit) for value in values]
    text = ""
    for item in items:
        longer = f"{text}, {item}" if text else item
        if len(longer) > limit and text:
            return f"{text}, ... ({len(items):,} in all)"
        text = longer
    return text
