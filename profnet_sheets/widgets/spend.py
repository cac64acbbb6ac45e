"""What one action of a form spent (a search, an enrichment, a lookup), and only that action.

The client's ledger and budget are shared by every form (and every cell) using the client, so
a difference of their totals counts what the others spent meanwhile too. Each action runs on
a view of the client with a budget of its own, without a limit, within the client's: the
client's limit holds for all, and the view counts what was charged through it.
"""

from __future__ import annotations

from profnet_sheets.client.client import Client
from profnet_sheets.client.spend import Budget


def for_one_action(client: Client) -> tuple[Client, Budget]:
    """A view of `client` for one action (same caches, ledger and limit) and its spend."""
    view = client.with_budget(None)
    return view, view.budget
