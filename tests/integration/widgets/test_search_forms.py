"""The search forms headless: values set, buttons clicked, the worker joined; what the form
shows, and what the server charged."""

from __future__ import annotations

import csv
from pathlib import Path

import openpyxl
import pytest
import requests

from profnet_sheets.sandbox import RunningSandbox
from profnet_sheets.widgets import CompanySearchForm, LeadSearchForm
from profnet_sheets.widgets.search import SearchForm
from tests.integration.client.conftest import set_faults
from tests.integration.widgets.conftest import MakeClient, eventually

pytestmark = pytest.mark.integration
TITLES = "Head of Data\n=2+3"  # a hostile title: the results carry it, exports must escape it


def pick_place(form: SearchForm, field: str, name: str) -> None:
    """Type a place name, Find, take the first match, Add: as a user does."""
    picker = form.pickers[field]
    picker.query.value = name
    picker.find.click()
    picker.runner.join()
    assert picker.matches.options, form.feedback.error_text
    picker.add.click()


def test_a_lead_search_from_filters_to_table_export_and_reuse(
    make_client: MakeClient, fresh: RunningSandbox, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    client = make_client(budget=5000)
    form = LeadSearchForm(client)
    assert form.cost.value.count("Not ready to search") == 1
    form.controls["title_keywords"].set(TITLES)
    pick_place(form, "geo_codes", "Berlin")
    form.controls["limit"].set(40)
    assert form.params() == {
        "title_keywords": TITLES,
        "geo_codes": [form.pickers["geo_codes"].matches.value],
        "limit": 40,
    }
    assert "At most 90 credits: 50 credits to start the search" in form.cost.value
    assert "Budget left: 4,999 credits" in form.cost.value  # the place lookup cost 1
    assert fresh.charged() == 1, "the cost line is computed without sending anything"
    assert fresh.calls() == 1, "not even a free call: only the place lookup went out"

    form.search_button.click()
    assert form.search_button.disabled, "the button is disabled while the search runs"
    form.join(30)

    assert form.feedback.error_text == ""
    rows = form.frame
    assert rows is not None
    assert form.feedback.status_text.startswith(f"{rows.height} leads from search ")
    assert form.feedback.status_text.endswith(f"Spent {50 + rows.height} credits.")
    assert 0 < rows.height <= 40
    assert (form.bar.n, form.bar.total, form.bar.style) == (rows.height, rows.height, "success")
    assert form.table.value.count("<tr>") == rows.height + 1
    assert "<td>=2+3</td>" in form.table.value
    assert not form.search_button.disabled
    assert not form.enrich_button.disabled
    assert form.job is not None
    assert form.request_id.value == form.job.request_id, "ready to re-attach"
    assert fresh.charged(endpoint="search-leads") == 50
    assert fresh.charged(endpoint="get-lead-results") == rows.height
    assert fresh.charged(endpoint="find-geocode-by-location") == 1

    exported = form.export.export(".csv")
    assert exported == tmp_path / "leads-results.csv"
    with exported.open(encoding="utf-8-sig", newline="") as handle:
        written = list(csv.DictReader(handle))
    assert len(written) == rows.height
    assert "'=2+3" in {row["title"] for row in written}
    assert "=2+3" not in {row["title"] for row in written}
    assert "download" in form.export.link.value
    form.export.buttons[".xlsx"].click()
    sheet = openpyxl.load_workbook(tmp_path / "leads-results.xlsx").active
    assert sheet is not None
    titles = {row[1].value: row[1].quotePrefix for row in sheet.iter_rows(min_row=2)}
    assert titles["=2+3"], "as it was, with Excel's invisible quote prefix: text, never run"

    assert form.cost.value.count("Free: the same search ran within the last 24 h") == 1
    before = fresh.charged()
    form.search(wait=True)
    assert fresh.charged() == before, "the same search again is reused, and its pages cached"


def test_enrich_adds_each_leads_profile_with_its_own_progress(
    make_client: MakeClient, fresh: RunningSandbox, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    form = LeadSearchForm(make_client())
    form.fill(title_keywords=["Engineer"], limit=12)
    form.search(wait=True)
    assert form.frame is not None
    assert form.frame.height == 12
    form.export.export(".csv")
    assert "download" in form.export.link.value
    form.enrich_button.click()
    form.join(30)
    assert form.export.link.value == "", "the link to the table before enriching is gone"
    assert form.feedback.error_text == ""
    assert form.enriched is not None
    assert form.enriched.height == 12
    assert "profile_full_name" in form.enriched.columns
    assert (form.enrich_bar.n, form.enrich_bar.style) == (12, "success")
    assert form.feedback.status_text.startswith(
        "Enriched 12 rows: 12 enriched, 0 with an error, 0 blank."
    )
    assert fresh.charged(endpoint="get-profile-details") == 12
    assert "profile_full_name" in form.table.value
    assert form.table_frame() is form.enriched, "Export writes the enriched table"


def test_a_company_search_with_every_kind_of_filter(
    make_client: MakeClient, fresh: RunningSandbox
) -> None:
    form = CompanySearchForm(make_client())
    headcounts = form.controls["company_headcounts"]
    headcounts.set(["C", "D", "E"])
    form.controls["company_headcount_growth"].set(("-50", "200"))
    form.controls["hiring_on_profnet"].set("true")
    pick_place(form, "headquarters_location", "United States")
    form.controls["keywords"].set("")
    form.controls["limit"].set(25)
    params = form.params()
    assert params["company_headcounts"] == ["C", "D", "E"]
    assert params["company_headcount_growth"] == ("-50", "200")
    assert params["hiring_on_profnet"] == "true"
    assert "At most 50 credits: 25 credits to start the search" in form.cost.value
    form.search(wait=True)
    assert form.feedback.error_text == ""
    assert form.frame is not None
    assert set(form.frame["company_size"].to_list()) <= {"51-200", "201-500", "501-1000"}
    assert fresh.charged(endpoint="search-companies") == 25
    assert fresh.charged(endpoint="get-company-results") == form.frame.height
    form.enrich(wait=True)
    assert form.enriched is not None
    assert fresh.charged(endpoint="get-company-details") == form.frame["profnet_url"].n_unique()


def test_a_sales_navigator_url_replaces_the_filters(
    make_client: MakeClient, fresh: RunningSandbox
) -> None:
    form = CompanySearchForm(make_client())
    form.fill(keywords="cloud", sales_nav_url="https://www.profnet.com/sales/search/company?x=1")
    assert form.mode.value == "url"
    assert form.filters_box.layout.display == "none"
    assert form.params() == {
        "sales_nav_url": "https://www.profnet.com/sales/search/company?x=1",
        "limit": 100,
    }
    form.controls["limit"].set(5)
    form.search(wait=True)
    assert form.frame is not None
    assert form.frame.height == 5
    assert fresh.charged(endpoint="search-companies") == 25


def test_mistakes_show_one_clear_message_and_cost_nothing(
    make_client: MakeClient, fresh: RunningSandbox
) -> None:
    form = CompanySearchForm(make_client())
    form.search(wait=True)
    assert form.feedback.error_text.startswith("search-companies needs at least one filter")
    form.controls["company_headcount_growth"].set(("10", ""))
    assert "give both bounds" in form.cost.value
    form.search(wait=True)
    assert form.feedback.error_text == (
        "Company headcount growth: give both bounds (min and max), or leave both empty."
    )
    form.controls["company_headcount_growth"].set(("", ""))
    form.pickers["headquarters_location"].find.click()
    form.pickers["headquarters_location"].runner.join()
    assert form.feedback.error_text == "Type a place name first, then press Find."
    assert fresh.charged() == 0
    assert not form.search_button.disabled


def test_a_failed_search_and_the_budget_are_told_in_the_form(
    make_client: MakeClient, fresh: RunningSandbox
) -> None:
    form = LeadSearchForm(make_client(budget=60))
    form.fill(keywords="sandbox-fail", limit=10)
    assert "Over the budget" not in form.cost.value
    form.search(wait=True)
    assert "failed at the service" in form.feedback.error_text
    assert form.feedback.status_text == "Spent 50 credits.", "what it spent, no progress line"
    assert form.bar.style == "danger"
    form.fill(keywords="something else", limit=100)
    assert "Over the budget: lower the limit or raise the budget." in form.cost.value
    form.search(wait=True)
    assert form.feedback.error_text.startswith(
        "this leads search (to start it, and 100 results at most) may cost up to 150 credits, "
        "and the budget (budget=..., PROFNET_BUDGET) leaves 10"
    )
    assert form.feedback.status_text == "", "not 'Starting the search…' beside the error"
    assert fresh.charged() == 50


def test_a_start_whose_answer_was_lost_is_said_in_the_cost_line_at_once(
    make_client: MakeClient, fresh: RunningSandbox
) -> None:
    """A review: after a start whose answer was cut, the cost line still priced a plain new
    search; pressing Search again started it anew, paid again, with nothing said."""
    form = LeadSearchForm(make_client())
    form.fill(title_keywords="Form Drop", limit=5)
    set_faults(fresh, drop_rate=1.0)
    form.search(wait=True)
    set_faults(fresh, drop_rate=0.0)
    assert form.feedback.error_text
    assert "may have started it and charged 50 credits (counted as possibly spent)" in (
        form.cost_text
    )


def test_out_of_credits_while_reading_says_what_was_spent_and_read(
    make_client: MakeClient, fresh: RunningSandbox
) -> None:
    """Before: the status line was cleared, the error said only `no credits left`, though
    100 credits were paid and 50 results read (decision 480)."""
    from tests.integration.client.conftest import KEY

    keys = f"{fresh.base_url}/_sandbox/keys"
    requests.put(keys, json={"key": KEY, "credits": 110}, timeout=5).raise_for_status()
    form = LeadSearchForm(make_client())
    form.fill(keywords="engineer", limit=100)
    form.search(wait=True)
    assert "no credits left" in form.feedback.error_text
    assert form.feedback.status_text == (
        "50 of 100 leads read and kept: press Attach once the error below is dealt with to "
        "read the rest (the pages read are not paid again). Spent 100 credits."
    )
    assert fresh.charged() == 100
    requests.put(keys, json={"key": KEY, "credits": 1000}, timeout=5).raise_for_status()
    form.attach(wait=True)
    assert form.feedback.error_text == ""
    assert form.frame is not None
    assert form.frame.height == 100
    assert fresh.charged() == 150, "the rest only"
    form.attach("0" * 32, wait=True)  # an id the service does not know: nothing spent
    assert "not found" in form.feedback.error_text
    assert form.feedback.status_text == "", "nothing spent, nothing read: the error says it"


def test_cancel_stops_waiting_and_attach_picks_the_search_up_again(
    make_client: MakeClient, fresh: RunningSandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(fresh.backend, "job_seconds", 600.0)
    form = LeadSearchForm(make_client())
    form.fill(title_keywords="Designer", limit=30)
    form.search()
    eventually(lambda: "processing" in form.feedback.status_text)
    assert not form.cancel_button.disabled
    assert form.attach("another-request-id") is False, "one task at a time"
    assert form.feedback.error_text.startswith("Already running: wait for it to end or press")
    form.cancel_button.click()
    form.join(5)
    assert not form.runner.running, "Cancel ends the wait at once"
    assert form.feedback.error_text == "", "the refusal is no longer news"
    request_id = form.request_id.value
    assert form.feedback.status_text.startswith(f"Cancelled. The search {request_id} goes on")
    assert form.feedback.status_text.endswith("Spent 50 credits.")
    assert form.bar.style == "danger"
    assert form.cancel_button.disabled
    assert fresh.charged() == 50

    requests.post(f"{fresh.base_url}/_sandbox/clock", json={"advance": 601}, timeout=5)
    other = LeadSearchForm(make_client())  # another session, knowing only the request id
    other.attach(request_id, wait=True)
    assert other.frame is not None
    assert other.frame.height == 30
    assert fresh.charged() == 50 + 30, "attaching pays for the results only"


def test_cancel_while_reading_says_the_search_is_complete_and_shows_the_true_count(
    make_client: MakeClient, fresh: RunningSandbox
) -> None:
    form = LeadSearchForm(make_client())
    form.fill(title_keywords="Engineer", limit=300)
    requests.put(f"{fresh.base_url}/_sandbox/faults", json={"latency_ms": 150}, timeout=5)
    form.search()
    eventually(lambda: form.bar.n >= 50 and "Reading results" in form.feedback.status_text, 30)
    form.cancel_button.click()
    form.join(10)
    read = fresh.charged(endpoint="get-lead-results")  # 1 credit per lead read
    assert 50 <= read < 300
    text = form.feedback.status_text
    assert text.startswith(f"Cancelled while reading the results ({read} of 300 leads read).")
    assert "is complete at the service" in text
    assert "goes on" not in text
    assert text.endswith(f"Spent {50 + read} credits.")
    assert (form.bar.n, form.bar.total, form.bar.style) == (read, 300, "danger")
    assert form.frame is None

    form.attach(wait=True)
    assert form.frame is not None
    assert form.frame.height == 300
    assert fresh.charged(endpoint="get-lead-results") == 300, "the pages read are not paid again"
    assert form.feedback.status_text.endswith(f"Spent {300 - read} credits.")


def test_two_forms_on_one_client_each_tell_their_own_spend(
    make_client: MakeClient, fresh: RunningSandbox
) -> None:
    requests.put(f"{fresh.base_url}/_sandbox/faults", json={"latency_ms": 40}, timeout=5)
    client = make_client()
    leads, companies = LeadSearchForm(client), CompanySearchForm(client)
    leads.fill(title_keywords="Engineer", limit=60)
    companies.fill(keywords="software", limit=40)
    assert leads.search()
    assert companies.search()  # at the same time: the ledger moves for both
    leads.join(30)
    companies.join(30)
    assert leads.frame is not None
    assert companies.frame is not None
    assert leads.feedback.status_text.endswith(f"Spent {50 + leads.frame.height} credits.")
    assert companies.feedback.status_text.endswith(f"Spent {25 + companies.frame.height} credits.")
    assert client.ledger.total() == fresh.charged(), "and the client's ledger has both"


def test_fill_takes_a_plain_value_as_one_value(
    make_client: MakeClient, fresh: RunningSandbox
) -> None:
    client = make_client()
    form = CompanySearchForm(client)
    form.fill(headquarters_location="Berlin")  # one place, not six one-letter ones
    assert fresh.calls() == 1, "one place name, one geocode call"
    assert fresh.charged(endpoint="find-geocode-by-location") == 1
    berlin = client.find_geocode_by_location(location="Berlin")[0]  # cached: free
    assert form.pickers["headquarters_location"].value() == [str(berlin["geo_id"])]
    form.fill(company_headcounts="B-D")
    assert form.params()["company_headcounts"] == ["B", "C", "D"], "C is not dropped"
    form.fill(hiring_on_profnet=True, recent_activities="senior hires", limit=5)
    assert form.params() == {
        "headquarters_location": [str(berlin["geo_id"])],
        "company_headcounts": ["B", "C", "D"],
        "hiring_on_profnet": "true",
        "recent_activities": "senior hires",
        "limit": 5,
    }
    for given, flag in (("no", "false"), (False, "false"), ("Yes", "true"), ("any", None)):
        form.fill(hiring_on_profnet=given)
        assert form.params().get("hiring_on_profnet") == flag, given
    form.fill(company_headcounts="C", headquarters_location=str(berlin["geo_id"]))
    assert form.params()["company_headcounts"] == ["C"]
    assert form.params()["headquarters_location"] == [str(berlin["geo_id"])]
    assert fresh.calls() == 1, "a geo id is no lookup"
    form.search(wait=True)
    assert form.feedback.error_text == ""
    assert form.frame is not None

    with pytest.raises(ValueError, match="not a headcount code"):
        form.fill(company_headcounts="Z")
    with pytest.raises(ValueError, match="Hiring on profnet: 'maybe' is not a true/false"):
        form.fill(hiring_on_profnet="maybe")
    leads = LeadSearchForm(client)
    leads.fill(geo_codes="Berlin")
    assert leads.params()["geo_codes"] == [str(berlin["geo_id"])]
    for limit in (99_999, 0, -1, 2.5, "abc", None, True):  # before: 2,500, 1, 1, 2, raw errors
        with pytest.raises(ValueError, match=r"^Limit: .* is not a whole number from 1 to 2,500"):
            leads.fill(limit=limit)
    leads.fill(limit="40")
    assert leads.params()["limit"] == 40
    leads.fill(limit=25.0)
    assert leads.params()["limit"] == 25
    assert fresh.charged(endpoint="find-geocode-by-location") == 1, "Berlin again: from the cache"


def test_an_error_about_the_filters_goes_once_they_are_usable(
    make_client: MakeClient, fresh: RunningSandbox
) -> None:
    form = LeadSearchForm(make_client())
    form.search(wait=True)
    assert "at least one" in form.feedback.error_text
    form.fill(title_keywords=["Engineer"], limit=5)
    assert form.feedback.error_text == "", "the red line about no filters is gone"
    assert fresh.charged() == 0
