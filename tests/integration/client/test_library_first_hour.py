"""The library's first hour in a notebook, as a new user's review met it: wrong arguments get
a message naming the value and what to give, never a traceback from deep inside; pandas frames
are written as they are."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import polars as pl
import pytest

from profnet_sheets import Client, InvalidParameter
from profnet_sheets.batch import enrich
from profnet_sheets.batch.io import write_table

pytestmark = pytest.mark.integration


@pytest.fixture
def client(tmp_path: Path) -> Iterator[Client]:
    with Client(cache="memory", cache_dir=tmp_path / "cache", budget=100) as made:
        yield made


@pytest.mark.parametrize("limit", ["100", -5, 2.5, True])
def test_a_budget_view_refuses_a_limit_that_is_no_budget(client: Client, limit: object) -> None:
    """Before: accepted, then `TypeError: '>' not supported` at the first call, or `only 0 of
    the budget of -5 are left`."""
    with pytest.raises(ValueError, match=r"give a whole number of credits, 0 or more") as refused:
        client.with_budget(limit)  # type: ignore[arg-type]
    assert str(refused.value).startswith(f"budget={limit!r}:")
    with pytest.raises(ValueError, match="give a whole number of credits"):
        client.quote("5")  # type: ignore[arg-type]
    assert "budget=10 (10 left)" in repr(client.with_budget(10)), "the view's, not the client's"


def test_every_wrong_argument_is_a_profnet_error(client: Client) -> None:
    """A new user's review: `except ProfnetError` missed a budget of -1, a quote of -1 and a
    search kind `lead` (plain ValueErrors); they stay ValueErrors too."""
    from profnet_sheets import ProfnetError

    for wrong in (
        lambda: client.with_budget(-1),
        lambda: client.quote(-1),
        lambda: client.search("lead", title_keywords=["CTO"]),  # type: ignore[arg-type]
        lambda: client.attach_search("lead", "r-1"),  # type: ignore[arg-type]
    ):
        with pytest.raises(ProfnetError) as caught:
            wrong()
        assert isinstance(caught.value, ValueError)


def test_a_search_refused_by_the_budget_names_its_endpoint(client: Client) -> None:
    from profnet_sheets import BudgetExceeded

    with pytest.raises(BudgetExceeded) as refused:
        client.with_budget(1).search_leads(title_keywords="CEO", limit=5)
    assert refused.value.endpoint == "search-leads"


def test_numpy_integers_are_whole_numbers_of_credits(client: Client) -> None:
    """A figure summed in pandas is a numpy integer. Before: refused by `with_budget`,
    `quote`, `enrich(budget=, concurrency=)` (`give a whole number`), accepted by `Client`."""
    import numpy as np

    left = np.int64(2)
    assert "budget=2 (2 left)" in repr(client.with_budget(left))
    assert client.quote(left).within
    frame = pl.DataFrame({"site": ["np-a.io", "np-b.io", "np-c.io"]})
    out = enrich(frame, "site", "company", client=client, budget=left, concurrency=np.int32(2))
    assert out["company_error"].null_count() == 2, "two within the budget of 2, one not"


def test_a_misspelt_setting_or_field_is_suggested(client: Client) -> None:
    with pytest.raises(
        TypeError, match=r"unknown settings: spendingcap \(did you mean spending_cap\?\)"
    ):
        Client(cache="memory", spendingcap="5/day")
    frame = pl.DataFrame({"Website": ["stripe.com"]})
    with pytest.raises(
        ValueError, match=r"\(company_industry is the column of the field industry\)"
    ):
        enrich(frame, "Website", "company", ["company_industry"], client=client)
    with pytest.raises(ValueError, match=r"\(did you mean industry\?\)"):
        enrich(frame, "Website", "company", ["industri"], client=client)


@pytest.mark.parametrize("name", ["get_company_details", "Get Company Details"])
def test_an_endpoint_spelt_otherwise_is_suggested(client: Client, name: str) -> None:
    with pytest.raises(InvalidParameter) as refused:
        client.call(name, {"domain": "stripe.com"})
    assert f"no endpoint named {name!r}: did you mean get-company-details?" in str(refused.value)
    with pytest.raises(InvalidParameter, match="did you mean get-company-details"):
        client.estimate([(name, {"domain": "stripe.com"})])


def test_wrong_arguments_say_what_is_wanted(client: Client) -> None:
    with pytest.raises(TypeError, match=r"estimate takes planned calls, \(endpoint, param"):
        client.estimate(["stripe.com"])  # type: ignore[list-item]
    series = pd.Series(["stripe.com"], name="Website")
    with pytest.raises(TypeError, match=r"not Series: a Series becomes one with .to_frame\(\)"):
        enrich(series, "Website", "company", client=client)
    with pytest.raises(TypeError, match="column=0: give the key column's name"):
        enrich(pl.DataFrame({"Website": ["stripe.com"]}), 0, "company", client=client)  # type: ignore[arg-type]
    job = client.search_leads(title_keywords="CTO", limit=5)
    with pytest.raises(InvalidParameter, match="timeout: '10' is not a number of seconds"):
        job.wait(timeout="10")  # type: ignore[arg-type]
    assert client.budget.spent == 50


def test_what_enrich_gives_back_for_pandas_is_written_as_it_is(
    client: Client, tmp_path: Path
) -> None:
    """Before: `AttributeError: 'DataFrame' object has no attribute 'collect_schema'`."""
    frame = pd.DataFrame({"Website": ["stripe.com", None], "Account": ["Stripe", None]})
    out = enrich(frame, "Website", "company", ["company_name"], client=client, progress=False)
    written = write_table(out, tmp_path / "out.csv")
    lines = written.read_text(encoding="utf-8-sig").splitlines()
    assert lines == [
        "Website,Account,company_name,company_error",
        "stripe.com,Stripe,Stripe,",
        ",,,",
    ]
