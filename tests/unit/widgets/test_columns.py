"""EnrichForm's first guess of the key column: the one whose values are keys of the kind."""

from __future__ import annotations

import re

import polars as pl
import pytest

from profnet_sheets.batch import enrich, plan_enrichment
from profnet_sheets.widgets.enrich import key_candidates, likely_column

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


def test_otherwise_none_never_a_column_of_words() -> None:
    assert likely_column(ACCOUNTS.select("account"), "profile") is None
    assert likely_column(pl.DataFrame(), "company") is None


def test_list_and_record_columns_are_never_candidates() -> None:
    enriched = ACCOUNTS.with_columns(
        specialties=pl.Series([["payments"], [], None], dtype=pl.List(pl.String)),
        place=pl.Series([{"city": "Berlin"}, None, None]),
        revenue=pl.Series([1.5, None, 2.0]),
        id=pl.Series([1, 2, 3]),
    )
    assert key_candidates(enriched) == ["account", "website", "owner", "id"]
    # No TypeError (unhashable type: 'list') from the list column any more:
    assert likely_column(enriched.drop("id"), "company") == "website"
    # A column of company names is no key of the company kind (decision 227): none is guessed.
    assert likely_column(enriched.select("specialties", "account"), "company") is None
    assert likely_column(enriched.select("specialties", "place"), "company") is None


@pytest.mark.parametrize(
    ("column", "dtype"),
    [("specialties", "List(String)"), ("place", "Struct({'city': String})")],
)
def test_enrich_refuses_a_key_column_of_lists_or_records(column: str, dtype: str) -> None:
    frame = pl.DataFrame(
        {"specialties": [["payments"], ["search"]], "place": [{"city": "Berlin"}, None]}
    )
    message = f"column '{column}' holds {dtype} values, not keys: choose a column of text or"
    with pytest.raises(ValueError, match=re.escape(message)):
        plan_enrichment(frame, column, "company")  # before any client is made
    with pytest.raises(ValueError, match=re.escape(message)):
        enrich(frame.lazy(), {"company": column}, "company")
