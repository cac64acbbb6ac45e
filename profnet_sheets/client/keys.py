"""The one key of a call: made once per call, used by the memo, the claims and the store."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from profnet_sheets.spec import Endpoint

KEY_VERSION = "k2"  # change it when the key changes: old entries then simply miss


def canonical_json(params: Mapping[str, Any]) -> str:
    """One text per set of parameters, whatever the order they were given in."""
    return json.dumps(params, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


@dataclass(frozen=True, slots=True)
class CallKey:
    """A call as the caches know it: the service, the account (search jobs only: they are one
    account's own), the endpoint and its canonical parameters as sent.

    It names the service, not the host and port (the embedded sandbox moves port every run).
    `digest` is the key in the store and in the claims across processes.
    """

    service: str
    account: str
    endpoint: str
    params: str
    digest: str = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        text = "|".join((KEY_VERSION, self.service, self.account, self.endpoint, self.params))
        object.__setattr__(self, "digest", hashlib.sha256(text.encode()).hexdigest()[:40])


def call_key(service: str, account: str, endpoint: Endpoint, payload: Mapping[str, Any]) -> CallKey:
    """The key of a call with its prepared `payload`; `account` (the key's fingerprint) counts
    for search endpoints only. A GET's parameters count as the text they travel as."""
    sent = {k: str(v) for k, v in payload.items()} if endpoint.method == "GET" else payload
    owner = account if endpoint.search else ""
    return CallKey(service, owner, endpoint.name, canonical_json(sent))
