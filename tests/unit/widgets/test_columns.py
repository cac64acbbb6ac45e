"""EnrichForm's first guess of the key column: the one whose values are keys of the kind."""

from __future__ import annotations

import polars as pl

from profnet_sheets.widgets.enrich import likely_column

ACCOUNTS = pl.DataFrame(
    {
        "account": ["Stripe Inc", "Acme GmbH", "Notion Labs"],
        "website": ["https://www.stripe.com/about", "acme.com", None],
        "owner": ["https://www.profnet.com/in/anna-schmidt/", None, "profnet.com/in/bo-li"],
    }
)


def test_the_column_holding_keys_of_the_kind_is_picked() -> None:
    assert likely_column(ACCOUNTS, "company") == "website"
    assert likely_column(ACCOUNTS, "profile") == "owner"


def test_otherwise_the_first_column() -> None:
    assert likely_column(ACCOUNTS.select("account"), "profile") == "account"
    assert likely_column(pl.DataFrame(), "company") is None
