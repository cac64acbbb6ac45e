"""The one place that decides what the caches keep, for how long, and when they may answer.

Like requests-cache's `CacheActions`, it decides and does nothing: the client asks it before
reading (may the caches answer this call?) and after an answer (keep it, and for how long?);
the store and the memo only act.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from profnet_sheets.client.answers import understood, unfinished
from profnet_sheets.config import NOT_FOUND_EXPIRY, Settings
from profnet_sheets.spec import Endpoint
from profnet_sheets.spec.errors import is_foreign

KEPT_STATUSES = (200, 404)


@dataclass(frozen=True)
class CachePolicy:
    """Decisions over one client's settings (expiry table, reuse window, modes)."""

    settings: Settings

    def fresh_for(self, endpoint: Endpoint) -> float:
        """Seconds an answer of `endpoint` stays fresh (0: never kept, never read): the expiry
        table; a search creation for the reuse window; a status never."""
        if endpoint.search_role == "status":
            return 0.0  # whatever the table says: a search's status changes
        if endpoint.search_role == "create":
            return self.settings.search_reuse_hours * 3600
        return float(self.settings.expiry.get(endpoint.name, 86400.0))

    def may_read(self, endpoint: Endpoint) -> bool:
        """Whether the caches may answer this call: not when refreshing, nor for an endpoint
        never kept (an entry an older setting left there must not answer)."""
        return not self.settings.refresh and self.fresh_for(endpoint) > 0

    @property
    def stale_ok(self) -> bool:
        """Whether an answer past its freshness still answers (Excel sessions, offline)."""
        return self.settings.serves_stale

    def keep_for(self, endpoint: Endpoint, status: int, body: Any) -> float:
        """Seconds to keep this answer (0: not at all).

        Kept: an understood 200 (for a results page, only a final page that holds results: an
        empty one costs nothing to ask again, and one answered before completion must not stand
        for the finished search's); the service's own 404 of a lookup (its JSON body, not a
        web server's page: `is_foreign`), for at most NOT_FOUND_EXPIRY. Never: any other
        status, any 4xx of a results or status endpoint (some services answer 404 while a
        search runs), an answer not understood, anything with the cache off.
        """
        seconds = self.fresh_for(endpoint)
        if self.settings.cache == "off" or seconds <= 0:
            return 0.0
        if status == 404:
            searching = endpoint.search_role in ("results", "status")
            if searching or is_foreign(status, body):
                return 0.0
            return min(seconds, NOT_FOUND_EXPIRY)
        if status != 200 or not understood(endpoint, body):
            return 0.0
        if endpoint.search_role == "results":
            if unfinished(endpoint, body) or not body.get("results"):
                return 0.0
        elif _empty_data(endpoint, body):
            return 0.0
        return seconds


def _empty_data(endpoint: Endpoint, body: Any) -> bool:
    """An envelope whose answer is null: nothing worth keeping (asking again may find it)."""
    return bool(endpoint.payload_at) and body.get(endpoint.payload_at[0]) is None
