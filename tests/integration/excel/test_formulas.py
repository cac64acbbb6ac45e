"""Every PROFNET_* formula with Excel-like values, against the sandbox over HTTP."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from profnet_sheets.batch import engine
from profnet_sheets.excel import cells, formulas, messages, udfs
from profnet_sheets.spec import resources as r
from tests.integration.excel.conftest import Excel

pytestmark = pytest.mark.integration

COMPANY_FIELDS = list(r.COMPANY.field_names)
NOT_FOUND = cells.error_text(messages.NOT_FOUND)
SERVICE = "the service at 127.0.0.1"  # where the data comes from: the test's sandbox


def is_error(value: object) -> bool:
    return cells.is_error_text(value)


def rows_of(result: object) -> list[list[Any]]:
    assert isinstance(result, list), result
    assert all(isinstance(row, list) for row in result), result
    assert len({len(row) for row in result}) == 1, "rows of one width: a rectangle spills"
    return result


def company_url(excel: Excel) -> str:
    url = formulas.company("stripe.com", "profnet_url")
    assert isinstance(url, str)
    assert url.startswith("https://www.profnet.com/company/")
    return url


def profile_url() -> str:
    url = formulas.find_profiles("Anna Schmidt", None, None, None, None, None, "profnet_url")
    assert isinstance(url, str), url
    assert "/in/" in url, url
    return url


# -- one key ----------------------------------------------------------------------------------


def test_one_key_gives_a_value_or_a_row_whatever_form_excel_hands_it_in(excel: Excel) -> None:
    row = rows_of(formulas.company("stripe.com"))
    assert len(row) == 1
    assert len(row[0]) == len(COMPANY_FIELDS)
    name = row[0][0]
    for form in (
        "  https://www.Stripe.com/about ",
        "STRIPE.COM",
        [["stripe.com"]],  # a one-cell range, as xlwings hands it with ndim=2
        ["stripe.com"],
    ):
        assert formulas.company(form, "company_name") == name, form
    assert formulas.company("stripe.com", "Company Name") == name, "names as a user types them"
    by_id = formulas.company(1035.0, "profnet_url")  # an id typed as a number: 1035, not 1035.0
    assert by_id == "https://www.profnet.com/company/1035/"
    assert formulas.company("stripe.com", "specialties").count("; ") >= 1
    assert formulas.company("stripe.com", "company_name", True) == [["company_name"], [name]]
    two = rows_of(formulas.company("stripe.com", [["company_name", "founded"]], True))
    assert two[0] == ["company_name", "founded"]
    assert two[1][0] == name
    assert isinstance(two[1][1], int | str)
    assert excel.charged() == 2, "stripe.com once, company 1035 once"


@pytest.mark.parametrize(
    ("value", "says"),
    [
        ("#VALUE!", "Excel error"),
        (-2146826246, "Excel error"),  # #N/A as COM hands it over: an error of a formula
        (True, "true/false"),
        ("not a domain", "is not a company id"),
    ],
)
def test_a_key_that_cannot_work_is_one_readable_error(
    excel: Excel, value: object, says: str
) -> None:
    out = formulas.company(value)
    assert isinstance(out, str)
    assert out.startswith("#PROFNET! "), out
    assert says in out, out
    assert "Traceback" not in out
    assert excel.calls() == 0, "nothing sent"


def test_blank_and_bad_arguments(excel: Excel) -> None:
    assert formulas.company(None) == ""
    assert formulas.company("   ") == ""
    bogus = formulas.company("stripe.com", "revenue, industry")
    assert isinstance(bogus, str)
    assert bogus.startswith("#PROFNET! PROFNET_COMPANY has no field 'revenue'")
    assert "company_name" in bogus, "the valid names are listed"
    assert formulas.company("stripe.com", None, "#N/A").startswith("#PROFNET!")
    assert excel.calls() == 0


# -- ranges -----------------------------------------------------------------------------------


def test_a_range_is_one_batch_each_distinct_key_once(
    excel: Excel, monkeypatch: pytest.MonkeyPatch
) -> None:
    batches: list[int] = []
    real = engine.enrich

    def counted(frame: Any, *args: Any, **kwargs: Any) -> Any:
        batches.append(len(frame))
        return real(frame, *args, **kwargs)

    monkeypatch.setattr(engine, "enrich", counted)
    domains = [f"d{i}.io" for i in range(20)]
    column = [[f"  https://www.{d}/about"] if i % 2 else [d] for i, d in enumerate(domains * 3)]
    column += [[None], [""], ["#VALUE!"], [12.5], ["N/A"], ["#N/A"], ["TBD"]]
    out = rows_of(formulas.company(column, "company_name"))
    assert batches == [len(column)], "one enrich() call for the whole range"
    assert excel.calls("get-company-details") == 20, "each distinct company fetched once"
    assert excel.charged() == 20
    assert len(out) == len(column), "the keys' shape"
    assert all(len(row) == 1 for row in out), "the keys' shape"
    assert out[0] == out[20] == out[40] != out[1]
    assert out[60:62] == [[""], [""]], "blank cells stay blank"
    assert is_error(out[62][0])
    assert "#VALUE!" in out[62][0]
    assert is_error(out[63][0])
    assert out[64:] == [[""], [""], [""]], "placeholders typed or pasted are blanks, as in a batch"
    table = rows_of(formulas.company(column[:3], "company_name, industry", True))
    assert table[0] == ["company_name", "industry"]
    assert len(table) == 4
    assert excel.calls("get-company-details") == 20, "warm: nothing sent"


def test_two_dimensional_ranges_keep_their_shape(excel: Excel) -> None:
    block = [["stripe.com", "acme.io"], [None, "stripe.com"]]
    out = rows_of(formulas.company(block, "company_name"))
    assert out[0][0] == out[1][1]
    assert out[0][1] != out[0][0]
    assert out[1][0] == ""
    one_row = rows_of(formulas.company([["stripe.com", "acme.io"]], "company_name", True))
    assert one_row[0] == ["company_name", ""]
    assert len(one_row) == 2
    wide = rows_of(formulas.company(block, "company_name, founded"))
    assert len(wide) == 4, "several fields: one row per cell, in reading order"
    assert len(wide[0]) == 2
    assert wide[2] == ["", ""]
    assert excel.charged() == 2


def test_recalculation_costs_nothing_on_the_server(excel: Excel) -> None:
    url = company_url(excel)
    sheet = [
        lambda: formulas.company([["stripe.com"], ["acme.io"], [1035.0]]),
        lambda: formulas.company("stripe.com", "industry"),
        lambda: formulas.headcount(url, "103644278"),
        lambda: formulas.geocode([["Berlin"], ["Paris"]]),
        lambda: formulas.company_posts(url),
        lambda: formulas.search_posts("python"),
        lambda: formulas.find_profiles([["Anna Schmidt"], ["Bob Smith"]], "Acme"),
    ]
    first = [cell() for cell in sheet]
    assert not any(is_error(value) for value in first), first
    spent, sent = excel.charged(), excel.calls()
    assert [cell() for cell in sheet] == first
    excel.start()  # Excel closed and opened again: a new session on the same cache
    assert [cell() for cell in sheet] == first
    assert (excel.charged(), excel.calls()) == (spent, sent), "recalculation sent nothing"


# -- money ------------------------------------------------------------------------------------


def test_the_session_budget_stops_a_runaway_workbook(excel: Excel) -> None:
    excel.start(budget=5)
    out = rows_of(formulas.company([[f"runaway{i}.io"] for i in range(12)], "company_name"))
    filled = [row[0] for row in out if not is_error(row[0])]
    stopped = [row[0] for row in out if is_error(row[0])]
    assert len(filled) == 5
    assert len(stopped) == 7
    assert all("budget of this Excel session is spent" in text for text in stopped)
    assert all("PROFNET_EXCEL_BUDGET" in text for text in stopped), "says what to change"
    assert excel.charged() == 5
    single = formulas.company("one-more.io")
    assert isinstance(single, str)
    assert "PROFNET_EXCEL_BUDGET" in single
    assert formulas.credits() == [[5, 0, SERVICE]]
    assert formulas.credits(True) == [["credits spent", "budget left", "data"], [5, 0, SERVICE]]
    first = next(i for i, row in enumerate(out) if not is_error(row[0]))  # workers race: any 5
    again = formulas.company(f"runaway{first}.io", "company_name")
    assert again == out[first][0], "fetched stays free"
    assert excel.charged() == 5


def test_a_call_dearer_than_the_budget_left_says_so_not_that_it_is_spent(excel: Excel) -> None:
    """A new session with 7 credits and a 10-credit job search: it said `the budget of this
    Excel session is spent` while nothing was."""
    excel.start(budget=7)
    refused = formulas.search_jobs("rust")
    assert isinstance(refused, str)
    assert refused.startswith(
        "#PROFNET! this needs 10 credits and the budget of this Excel session leaves 7: "
        "nothing was sent. Raise PROFNET_EXCEL_BUDGET"
    ), refused
    assert "is spent" not in refused
    assert excel.charged() == 0
    assert formulas.credits() == [[0, 7, SERVICE]]


def test_offline_answers_only_from_the_cache(excel: Excel) -> None:
    excel.start(offline=True)
    miss = formulas.company("stripe.com", "industry")
    assert isinstance(miss, str)
    assert miss.startswith("#PROFNET! offline")
    column = rows_of(formulas.company([["stripe.com"], ["acme.io"]], "industry"))
    assert all(row[0].startswith("#PROFNET! offline") for row in column)
    assert excel.calls() == 0
    excel.start()
    online = formulas.company("stripe.com", "industry")
    excel.start(offline=True)
    assert formulas.company("stripe.com", "industry") == online
    assert formulas.company([["stripe.com"], ["acme.io"]], "industry")[0] == [online]
    assert excel.calls() == 1


# -- every other formula ----------------------------------------------------------------------


def test_profile_skills_and_certifications(excel: Excel) -> None:
    url = profile_url()
    plain = rows_of(formulas.profile(url))
    assert len(plain[0]) == len(r.PROFILE_DETAIL.field_names) - 2, "no skills unless asked"
    assert formulas.profile(f"  {url}  ", "full_name") == plain[0][0]
    with_skills = rows_of(formulas.profile(url, "full_name, skills"))
    assert with_skills[0][0] == plain[0][0]
    assert with_skills[0][1], "naming skills switches them on"
    everything = rows_of(formulas.profile(url, None, True, 1.0, True))
    assert everything[0] == list(r.PROFILE_DETAIL.field_names)
    column = rows_of(formulas.profile([[url], [None], ["https://x.com/in/a"]], "full_name"))
    assert column[0] == [plain[0][0]]
    assert column[1] == [""]
    assert is_error(column[2][0])


def test_headcount_is_an_integer_per_url(excel: Excel) -> None:
    url = company_url(excel)
    count = formulas.headcount(url)
    assert isinstance(count, int)
    assert not isinstance(count, bool)
    filtered = formulas.headcount(url, 103644278.0, None, [["eng"], ["sales"]], None, None, "", 1.0)
    assert isinstance(filtered, int)
    column = rows_of(formulas.headcount([[url], [url], [None]], "103644278"))
    assert isinstance(column[0][0], int)
    assert column[0] == column[1]
    assert column[2] == [""]
    assert is_error(formulas.headcount("https://www.profnet.com/in/someone/"))


@pytest.mark.parametrize(
    "shown",
    ["#N/A waiting...", "#PROFNET! not found: check the id, URL or name", " #PROFNET! busy"],
)
def test_a_cell_showing_an_error_or_still_calculating_is_never_sent_as_a_value(
    excel: Excel, shown: str
) -> None:
    """`=PROFNET_HEADCOUNT(B2:B6, PROFNET_GEOCODE("Berlin"))` while the geocode runs (xlwings
    shows `#N/A waiting...`) or after it failed: the text was paid as a filter, once per URL,
    and a wrong count cached. Nothing is sent; the formula says which argument and why."""
    url = company_url(excel)
    before = excel.charged()
    answers = [
        formulas.headcount([[url], [url + "?x"]], shown),
        formulas.headcount(url, None, None, None, None, None, shown),
        formulas.search_jobs("python", shown),
        formulas.search_posts(shown),
        formulas.find_profiles("Anna Schmidt", shown),
        formulas.geocode(shown),
        formulas.company(shown),
    ]
    assert excel.charged() == before, answers
    for answer in answers:
        for text in (
            (cell for row in answer for cell in row) if isinstance(answer, list) else [answer]
        ):
            assert is_error(text), answer
            assert "comes from a" in text, text


@pytest.mark.parametrize("place", ["Berlin", -5.0, 1.5, "Berlin, Germany"])
def test_a_place_name_where_a_geo_id_goes_is_refused_not_paid(excel: Excel, place: object) -> None:
    url = company_url(excel)
    before = excel.charged()
    counted = formulas.headcount(url, place)
    jobs = formulas.search_jobs("python", place)
    assert excel.charged() == before
    assert is_error(counted), counted
    assert is_error(jobs), jobs
    if isinstance(place, str):
        assert "PROFNET_GEOCODE" in counted
    geo_id = formulas.geocode("Berlin")
    assert isinstance(formulas.headcount(url, geo_id), int), "the geo id itself is taken"


def test_geocode_gives_the_geo_id_or_the_first_place_of_a_type(excel: Excel) -> None:
    geo_id = formulas.geocode("Berlin")
    assert isinstance(geo_id, str)
    assert geo_id.isdigit()
    row = rows_of(formulas.geocode(" berlin ", None, "geo_id, name, type"))
    assert row[0][0] == geo_id
    assert row[0][1].startswith("Berlin")
    city = rows_of(formulas.geocode([["Berlin"], ["Paris"]], "city", "name, type"))
    assert all(found[1] == "CITY" for found in city)
    metro = formulas.geocode("Berlin", "metro area", "type")
    assert metro == "METRO_AREA" or str(metro).startswith("#PROFNET! no place of type METRO_AREA")
    assert formulas.geocode("sandbox-timeout").startswith("#PROFNET!")
    planet = formulas.geocode("Berlin", "PLANET")  # before: "not found: check the ... name"
    assert isinstance(planet, str)
    assert planet.startswith("#PROFNET! no place of type PLANET among the ")
    assert "(their types: CITY" in planet
    assert planet.endswith("give one of those, or leave the type empty for the best match")


def test_posts_and_recommendations_spill_one_row_per_item(excel: Excel) -> None:
    url = company_url(excel)
    posts = rows_of(formulas.company_posts(url, None, "urn, text, reactions_count"))
    assert posts[0] == ["urn", "text", "reactions_count"], "a list has a header by default"
    assert len(posts) > 1
    assert isinstance(posts[1][2], int)
    assert rows_of(formulas.company_posts(url, "reposts", "urn", False))[0][0].startswith("urn:")
    stacked = rows_of(formulas.company_posts([[url], [None], ["acme.io"]], None, "urn"))
    assert stacked[0] == ["company_url", "urn"]
    assert stacked[1][0] == url
    assert any(is_error(row[1]) for row in stacked)
    person = profile_url()
    mine = rows_of(formulas.profile_posts(person, "comments", "urn, posted_at"))
    assert mine[0] == ["urn", "posted_at"]
    received = formulas.recommendations(person, None, "recommender_name")
    given = formulas.recommendations(person, True, "recommendee_name, text")
    assert rows_of(received)[0] == ["recommender_name"]
    assert rows_of(given)[0] == ["recommendee_name", "text"]
    post = formulas.post(posts[1][0], "urn")
    assert post == posts[1][0].rsplit(":", 1)[1], "a URN from a post list works"
    rounded = formulas.post(float(post), "urn")
    assert isinstance(rounded, str)
    assert "format the cells as Text" in rounded, "ids above 2**53 are rounded by Excel"
    assert formulas.post("123") == NOT_FOUND


def test_searches_spill_their_results(excel: Excel) -> None:
    posts = rows_of(formulas.search_posts("python", "DATE", "past-month", None, "urn, author_name"))
    assert posts[0] == ["urn", "author_name"]
    assert len(posts) > 1
    jobs = rows_of(
        formulas.search_jobs(
            "engineer", None, None, None, "full-time", None, None, None, 0.0, "job_id, title"
        )
    )
    assert jobs[0] == ["job_id", "title"]
    if len(jobs) > 1:
        job_id = jobs[1][0]
        assert formulas.job(job_id, "title") == jobs[1][1]
        assert formulas.job([[job_id], [job_id]], "job_id") == [[job_id], [job_id]]
    assert formulas.search_jobs("", None, None, None, None, None, None, None).startswith(
        "#PROFNET! invalid input"
    )
    assert formulas.search_posts([["a"], ["b"]]).startswith("#PROFNET!")
    bad = formulas.search_posts("python", "newest")
    assert isinstance(bad, str)
    assert "date, relevance" in bad


def test_a_search_given_an_empty_cell_or_a_placeholder_pays_nothing(excel: Excel) -> None:
    """Helper 96: `PROFNET_SEARCH_POSTS(0)` (`=A1` of an empty A1) and `("N/A")` paid 5
    credits each, `PROFNET_SEARCH_JOBS("-")` 10: as a lookup's key, they are blanks."""
    before = excel.charged()
    for keyword in (0, 0.0, "N/A", "-", "TBD"):
        assert formulas.search_posts(keyword).startswith("#PROFNET! invalid input")
        assert formulas.search_jobs(keyword).startswith("#PROFNET! invalid input")
    assert excel.charged() == before


def test_a_name_that_is_also_a_placeholder_is_searched_for(excel: Excel) -> None:
    """Helper 97: `PROFNET_FIND_PROFILES("Nat", "Acme")` searched by the company alone and
    paid for a stranger; `PROFNET_SEARCH_POSTS("NIL")` was refused."""
    found = formulas.find_profiles("Nat", "Acme", None, None, None, None, "full_name")
    assert str(found).startswith("Nat "), found
    assert not str(formulas.search_posts("NIL")).startswith("#PROFNET!")


def test_find_profiles_and_schools(excel: Excel) -> None:
    best = rows_of(
        formulas.find_profiles("Anna Schmidt", "", None, None, None, None, "full_name, profnet_url")
    )
    assert len(best) == 1
    assert best[0][0] == "Anna Schmidt"
    several = rows_of(
        formulas.find_profiles("Anna Schmidt", None, None, None, None, 3.0, "full_name", True)
    )
    assert several[0] == ["full_name"]
    assert 2 <= len(several) <= 4
    per_row = rows_of(
        formulas.find_profiles(
            [["Anna Schmidt"], ["Bob Smith"], [None]], "Acme", None, None, None, None, "full_name"
        )
    )
    assert per_row[0] == ["Anna Schmidt"]
    assert per_row[2] == [""]
    uneven = formulas.find_profiles([["a"], ["b"]], [["x"], ["y"], ["z"]])
    assert isinstance(uneven, str)
    assert "as many cells" in uneven
    too_many = formulas.find_profiles("Anna Schmidt", None, None, None, None, 6)
    assert isinstance(too_many, str)
    assert "limit" in too_many
    school = formulas.schools("University", None, None, None, "school_name")
    assert isinstance(school, str)
    assert not is_error(school)
    assert len(rows_of(formulas.schools("University", None, None, 3, "school_name"))) == 3
    assert (
        len(rows_of(formulas.schools([["Stanford"], ["Oxford"]], None, None, None, "school_name")))
        == 2
    )


def test_leads_and_companies_of_a_finished_search(excel: Excel) -> None:
    client = excel.clients[-1]
    job = client.search_leads(title_keywords="CTO", limit=5)
    leads = rows_of(formulas.leads(job.request_id, "name, title"))
    assert leads[0] == ["name", "title"]
    assert len(leads) == 6
    spent = excel.charged()
    assert formulas.leads(f" {job.request_id} ", "name, title") == leads
    assert excel.charged() == spent
    assert excel.calls("get-lead-search-status") == 1
    search = client.search_companies(company_headcounts="B-C", limit=3)
    found = rows_of(formulas.companies(search.request_id, None, False))
    assert len(found) == 3
    assert len(found[0]) == len(r.COMPANY_SEARCH_ITEM.field_names)
    assert formulas.leads("no-such-search").startswith(
        "#PROFNET! the service knows no leads search no-such-search (nothing spent)"
    )
    other = formulas.companies(job.request_id)  # a lead search's id: a review found no hint
    assert other.startswith("#PROFNET! the service knows no companies search"), other
    assert "if it is a leads search's request_id, use PROFNET_LEADS" in other
    assert formulas.leads(None).startswith("#PROFNET! PROFNET_LEADS needs")


def test_leads_read_before_are_shown_offline(excel: Excel) -> None:
    job = excel.clients[-1].search_leads(title_keywords="CFO", limit=4)
    online = rows_of(formulas.leads(job.request_id, "name"))
    assert len(online) == 5
    excel.start(offline=True)
    calls = excel.calls()
    assert rows_of(formulas.leads(job.request_id, "name")) == online
    assert formulas.leads("never-read").startswith("#PROFNET! offline")
    assert excel.calls() == calls


def test_a_search_still_running_says_when_to_come_back(excel: Excel) -> None:
    from profnet_sheets.sandbox import start_sandbox

    with start_sandbox(api_keys=("slow",), job_seconds=600) as slow:
        from profnet_sheets import Client
        from profnet_sheets.excel import session

        client = Client(api_key="slow", base_url=slow.base_url, cache="memory")
        session.install(client)
        job = client.search_leads(title_keywords="CTO", limit=5)
        out = formulas.leads(job.request_id)
        client.close()
    assert isinstance(out, str)
    assert "still processing" in out
    assert "recalculate" in out


def test_the_udfs_hand_everything_to_the_formulas(excel: Excel) -> None:
    assert udfs.PROFNET_COMPANY("stripe.com", "industry") == formulas.company(
        "stripe.com", "industry"
    )
    assert udfs.PROFNET_GEOCODE("Berlin") == formulas.geocode("Berlin")
    assert udfs.PROFNET_CREDITS() == formulas.credits()


# -- edge cases of review ---------------------------------------------------------------------


def test_a_zero_key_is_a_blank_cell_not_a_paid_lookup(excel: Excel) -> None:
    # =PROFNET_COMPANY(A2) with A2 =B2 and B2 empty: Excel hands over 0.
    assert formulas.company(0.0) == ""
    assert formulas.company(-0.0, "industry") == ""
    column = rows_of(formulas.company([[0.0], ["stripe.com"], [0]], "industry"))
    assert column[0] == column[2] == [""]
    assert not is_error(column[1][0])
    assert excel.calls("get-company-details") == 1, "only stripe.com"


@pytest.mark.parametrize("fields", ["urn", "urn, text"])
def test_a_list_with_no_results_is_empty_not_its_header(excel: Excel, fields: str) -> None:
    beyond = 5_000  # an offset past the last post
    assert formulas.search_posts("python", None, None, beyond, fields) == ""
    assert formulas.search_posts("python", None, None, beyond, fields, False) == ""


def test_one_key_and_a_range_say_the_same_for_the_same_error(excel: Excel) -> None:
    gone = formulas.post("123")
    assert gone == NOT_FOUND
    assert "check the id, URL" in gone
    assert rows_of(formulas.post([["123"], ["124"]], "urn"))[0] == [gone]
    failed = formulas.geocode("sandbox-timeout")
    assert isinstance(failed, str)
    assert failed.startswith("#PROFNET! the service failed:")
    assert rows_of(formulas.geocode([["sandbox-timeout"], ["Berlin"]]))[0] == [failed]


def _one_key_and_a_range(key: str, credits: int = 100_000) -> tuple[Any, Any]:
    """`=PROFNET_COMPANY` of one key, then of a range, with `key` at a sandbox knowing only
    the key `poor`, holding `credits`."""
    from profnet_sheets import Client
    from profnet_sheets.excel import session
    from profnet_sheets.excel.session import SessionConfig
    from profnet_sheets.sandbox import start_sandbox

    with start_sandbox(api_keys=("poor",), credits=credits) as sandbox:
        client = Client(api_key=key, base_url=sandbox.base_url, cache="memory")
        session.install(client, SessionConfig(budget=None))
        one = formulas.company("stripe.com", "industry")
        column = formulas.company([["stripe.com"], ["acme.io"]], "industry")
        client.close()
    session.reset()
    return one, column


def test_out_of_credits_reads_the_same_for_one_key_and_a_range() -> None:
    one, column = _one_key_and_a_range("poor", credits=0)
    assert isinstance(one, str)
    assert one.startswith("#PROFNET! out of credits at the service: get-company-details")
    assert rows_of(column)[0] == [one]


def test_a_refused_key_reads_the_same_for_one_key_and_a_range() -> None:
    """Before: a range's cells said the command line's words (`uv run profnet-sheets check`)."""
    one, column = _one_key_and_a_range("wrong")
    assert isinstance(one, str)
    assert one.startswith("#PROFNET! the service refused the API key: ")
    assert rows_of(column) == [[one], [one]]


def test_credits_say_when_the_data_is_the_sandboxs(excel: Excel) -> None:
    from profnet_sheets import Client
    from profnet_sheets.excel import session
    from profnet_sheets.excel.session import SANDBOX_NOTICE, SessionConfig

    assert formulas.credits()[0][2] == SERVICE
    sandboxed = Client(cache="memory")  # no key, no base URL: the embedded sandbox
    session.install(sandboxed, SessionConfig(budget=None))
    try:
        assert formulas.credits(True) == [
            ["credits spent", "budget left", "data"],
            [0, "no limit", SANDBOX_NOTICE],
        ]
        assert SANDBOX_NOTICE.startswith("SANDBOX: synthetic data")
    finally:
        sandboxed.close()


def test_credits_say_what_a_spending_cap_of_this_machine_leaves(tmp_path: Path) -> None:
    """A new user's review: `PROFNET_CREDITS()` said what a team's cap leaves, never a cap of
    this machine's own."""
    from profnet_sheets import Client
    from profnet_sheets.excel import session
    from profnet_sheets.excel.session import SessionConfig

    capped = Client(cache="memory", cache_dir=tmp_path, spending_cap="30/day")
    session.install(capped, SessionConfig(budget=None))
    try:
        formulas.company("capped.io", "company_name")
        top, values = formulas.credits(True)
        assert (top[3], values[3]) == ("spending cap", "spending cap: 29 left")
    finally:
        capped.close()
