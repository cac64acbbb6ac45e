"""Whether a host ends in a top-level domain the internet knows (the Public Suffix List)."""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from publicsuffixlist import PublicSuffixList


@functools.cache
def _suffixes() -> PublicSuffixList:
    """The list's ICANN part, read once (tens of milliseconds), when a host is first asked of."""
    from publicsuffixlist import PublicSuffixList

    return PublicSuffixList(only_icann=True)


def known_suffix(host: str) -> str | None:
    """The public suffix `host` (lower case, ASCII or not) ends in (`com`, `co.uk`), or None
    when its last label is no top-level domain (`report.pdf`, `john.smith`, `acme.local`)."""
    found: str | None = _suffixes().publicsuffix(host.rstrip("."), accept_unknown=False)
    return found


def top_label(host: str) -> str:
    """The last label of `host`: `pdf` of `report.pdf`."""
    return host.rstrip(".").rpartition(".")[2]
