"""Whether a host ends in a top-level domain the internet knows (the Public Suffix List)."""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from publicsuffixlist import PublicSuffixList


@functools.cache
def _suffixes() -> PublicSuffixList:
    """The list's ICANN part, read once (about ten milliseconds), when a host is first asked
    of. Its IDN rules are kept in Unicode only (their punycode twins would triple the read):
    `known_suffix` decodes a punycode label before asking."""
    from publicsuffixlist import PublicSuffixList

    return PublicSuffixList(only_icann=True, accept_encoded_idn=False)


def known_suffix(host: str) -> str | None:
    """The public suffix `host` (lower case, ASCII or not) ends in (`com`, `co.uk`), or None
    when its last label is no top-level domain (`report.pdf`, `john.smith`, `acme.local`)."""
    host = host.rstrip(".")
    if "xn--" not in host:
        found: str | None = _suffixes().publicsuffix(host, accept_unknown=False)
        return found
    labels = host.split(".")
    readable = [unicode_label(label) or label for label in labels]
    suffix = _suffixes().publicsuffix(".".join(readable), accept_unknown=False)
    return None if suffix is None else ".".join(labels[-(suffix.count(".") + 1) :])


def unicode_label(label: str) -> str | None:
    """`label` in Unicode (`xn--mnchen-3ya` -> `münchen`, `xn--n3h` -> `☃`; an ASCII one as
    it is), or None when it is punycode that neither IDNA 2008 nor IDNA 2003 decodes
    (`xn--zz`)."""
    if not label.startswith("xn--"):
        return label
    import idna  # requests' own dependency: imported only for the rare punycode label

    try:
        decoded: str = idna.decode(label)
        return decoded
    except (idna.IDNAError, UnicodeError):
        pass
    try:
        return label.encode("ascii").decode("idna")
    except UnicodeError:
        return None


def top_label(host: str) -> str:
    """The last label of `host`: `pdf` of `report.pdf`."""
    return host.rstrip(".").rpartition(".")[2]
