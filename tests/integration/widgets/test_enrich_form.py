"""EnrichForm headless: a file by path or upload, or a DataFrame; cost preview; run; Cancel."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pandas as pd
import polars as pl
import pytest
import requests

from profnet_sheets.batch.marks import INTERRUPTED
from profnet_sheets.sandbox import RunningSandbox
from profnet_sheets.widgets import CompanySearchForm, EnrichForm
from tests.integration.client.conftest import set_faults
from tests.integration.widgets.conftest import MakeClient, eventually

pytestmark = pytest.mark.integration
SITES = ["stripe.com", "https://www.stripe.com/about", None, "acme.io", "not a domain", "=cmd"]


def test_a_csv_by_path_previewed_enriched_and_exported(
    make_client: MakeClient, fresh: RunningSandbox, tmp_path: Path
) -> None:
    source = tmp_path / "accounts.csv"
    pl.DataFrame({"account": list("abcdef"), "website": SITES}).write_csv(source)
    form = EnrichForm(client=make_client())
    form.path.value = str(source)
    form.load_button.click()
    assert form.loaded.value.count("accounts.csv: 6 rows, 2 columns") == 1
    assert form.column.value == "website", "the column of domains is guessed"
    form.preview_button.click()
    assert (
        "6 rows: 3 to fetch, 0 already cached (free), 2 that cannot be looked up, 1 blank; "
        "at most 2 credits (rows with the same key are fetched once); answers lost on the way "
        "and asked again may cost more (a budget bounds it)." in form.cost.value
    )
    assert fresh.charged() == 0, "the preview sends nothing"
    form.run_button.click()
    form.join(30)
    assert form.feedback.error_text == ""
    assert form.result is not None
    assert form.result["company_name"].to_list()[:2] == ["Stripe", "Stripe"]
    assert (form.bar.n, form.bar.total, form.bar.style) == (2, 2, "success")
    assert fresh.charged(endpoint="get-company-details") == 2
    # the cost line says what is true after the run, not what it said before it
    assert "6 rows: 0 to fetch, 3 already cached (free)" in form.cost.value
    form.export.name.value = str(tmp_path / "accounts-enriched")
    path = form.export.export(".csv")
    written = pl.read_csv(path, infer_schema=False)
    assert written["website"].to_list() == SITES, "the user's cells as they were: no `'` added"
    form.preview_button.click()
    assert "6 rows: 0 to fetch, 3 already cached (free)" in form.cost.value
    # the file loaded is never written over (an XLSX's other sheets would be lost; decision 477)
    before = source.read_bytes()
    form.export.name.value = str(tmp_path / "accounts")
    form.export.buttons[".csv"].click()
    assert "accounts.csv is the file the table was loaded from" in form.feedback.error_text
    assert "such as accounts-enriched" in form.feedback.error_text
    assert source.read_bytes() == before


def test_an_upload_and_the_options_of_the_kind(
    make_client: MakeClient, fresh: RunningSandbox, tmp_path: Path
) -> None:
    profiles = ["https://www.profnet.com/in/anna-schmidt/", "profnet.com/in/bo-li"]
    path = tmp_path / "people.xlsx"
    pl.DataFrame({"url": profiles}).write_excel(path)
    form = EnrichForm(client=make_client())
    form.upload.value = (
        {
            "name": "people.xlsx",
            "type": "",
            "size": path.stat().st_size,
            "content": memoryview(path.read_bytes()),
            "last_modified": dt.datetime.now(dt.UTC),
        },
    )
    assert form.feedback.error_text == ""
    assert form.column.value == "url"
    form.kind.value = "profile"
    assert set(form.options) == {"include_skills", "include_certifications"}
    form.options["include_skills"].set("true")
    form.run(wait=True)
    assert form.result is not None
    assert all(form.result["profile_skills"].to_list())
    assert fresh.charged(endpoint="get-profile-details") == 2


def test_a_pandas_frame_and_cancel_keeps_what_is_done(
    make_client: MakeClient, fresh: RunningSandbox
) -> None:
    domains = [f"company-{number}.com" for number in range(60)]
    requests.put(f"{fresh.base_url}/_sandbox/faults", json={"latency_ms": 150}, timeout=5)
    # At most 8 in flight (the user's cap), so that Cancel comes while lookups remain: the
    # pace would send all 60 within the first answers' round trip.
    form = EnrichForm(pd.DataFrame({"domain": domains}), client=make_client(concurrency=8))
    assert form.column.value == "domain"
    form.run()
    eventually(lambda: form.bar.n >= 8)
    form.cancel_button.click()
    form.join(30)
    assert form.feedback.status_text.startswith("Cancelled: the lookups done are kept")
    assert form.bar.style == "danger"
    assert form.enriched is not None
    errors = form.enriched["company_error"].to_list()
    done = sum(error is None for error in errors)
    assert 8 <= done < 60
    assert errors.count(INTERRUPTED) == 60 - done
    assert (form.bar.n, form.bar.total) == (done, 60), "the bar shows every lookup done"
    assert form.feedback.status_text.endswith(
        f"Spent {fresh.charged(endpoint='get-company-details')} credits."
    )
    # Lookups in flight when Cancel was pressed were paid and cached, though not shown yet.
    assert done <= fresh.charged(endpoint="get-company-details") <= done + 8
    form.run(wait=True)
    assert isinstance(form.result, pd.DataFrame), "a pandas table in, a pandas table out"
    assert form.result["company_error"].isna().all()
    assert list(form.result.columns[:2]) == ["domain", "company_name"]
    assert isinstance(form.enriched, pl.DataFrame), "what the form shows and exports"
    assert fresh.charged(endpoint="get-company-details") == 60, "running again pays only the rest"


def test_nothing_loaded_is_one_clear_message(make_client: MakeClient) -> None:
    form = EnrichForm(client=make_client())
    form.run(wait=True)
    assert form.feedback.error_text.startswith("Load a table first")
    form.path.value = "/no/such/file.csv"
    form.load_button.click()
    assert form.feedback.error_text == "/no/such/file.csv: no such file"


def test_the_enriched_results_of_a_search_with_list_columns(
    make_client: MakeClient, fresh: RunningSandbox
) -> None:
    client = make_client()
    search = CompanySearchForm(client)
    search.fill(keywords="software", limit=5)
    search.search(wait=True)
    search.enrich(wait=True)
    assert search.enriched is not None
    lists = [name for name, dtype in search.enriched.schema.items() if dtype.is_nested()]
    assert lists, "the natural next table has list columns"
    form = EnrichForm(search.enriched, client=client)  # no crash on the list columns
    assert form.feedback.error_text == ""
    assert form.column.value == "profnet_url", "a column of keys, never a list column"
    before = fresh.charged()
    form.column.value = lists[0]
    form.preview_button.click()
    dtype = search.enriched.schema[lists[0]]
    assert form.feedback.error_text == (
        f"column {lists[0]!r} holds {dtype} values, not keys: choose a column of text or "
        "numbers (domains, URLs, ids...)"
    )
    form.run(wait=True)
    assert form.feedback.error_text.startswith(f"column {lists[0]!r} holds")
    assert fresh.charged() == before


def test_the_form_picks_the_website_never_a_number_column(make_client: MakeClient) -> None:
    """Issue 15: Account, Website (with junk), Employees, ARR -> Website."""
    frame = pl.DataFrame(
        {
            "Account": ["Stripe", "Acme", "Beta", "Delta"],
            "Website": ["stripe.com", "N/A", "acme.com", "call Bob"],
            "Employees": [120, 45, 9, 3],
            "ARR": [1.5, 0.2, None, 3.0],
        }
    )
    assert EnrichForm(frame, client=make_client()).column.value == "Website"
    pandas_frame = pd.DataFrame({name: frame[name].to_list() for name in frame.columns})
    assert EnrichForm(pandas_frame, client=make_client()).column.value == "Website"


def test_the_form_shows_its_choice_and_its_price_before_any_enrich(
    make_client: MakeClient, fresh: RunningSandbox
) -> None:
    frame = pl.DataFrame(
        {
            "Account": ["Stripe", "Acme", "Initech"],
            "Website": ["stripe.com", "N/A", "https://www.initech.io/about"],
            "Employees": [120, 45, 9],
            "ARR": [1000, 2000, 3000],
        }
    )
    form = EnrichForm(frame, client=make_client())
    assert form.column.value == "Website"
    assert "company keys from &#x27;Website&#x27;" in form.cost.value
    assert "at most 2 credits" in form.cost.value
    assert fresh.charged() == 0, "the preview asks the cache only"


def test_the_spend_line_shows_what_may_have_been_charged_apart(
    make_client: MakeClient, fresh: RunningSandbox, tmp_path: Path
) -> None:
    """Connections cut mid-response: those calls may have been charged, the service says
    they were not. The status line tells the sure credits (the service's) and the maybe apart."""
    source = tmp_path / "accounts.csv"
    pl.DataFrame({"website": [f"maybe{n}.io" for n in range(30)]}).write_csv(source)
    set_faults(fresh, drop_rate=0.3)
    form = EnrichForm(client=make_client())
    form.path.value = str(source)
    form.load_button.click()
    form.run_button.click()
    form.join(60)
    assert form.result is not None
    said = form.feedback.status_text + form.feedback.error_text
    sure = fresh.charged()
    assert sure == form.result.filter(pl.col("company_name").is_not_null()).height
    assert f"Spent {sure} credits (+" in said, said
    maybe = int(said.split(f"Spent {sure} credits (+")[1].split(" possibly).")[0])
    assert maybe > 0, "cut connections are counted apart, as maybe charged"
