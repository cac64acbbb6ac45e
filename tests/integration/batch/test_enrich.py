"""enrich() against the sandbox: every kind, rows kept exactly, errors per row, money."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import polars as pl
import pytest
import requests

from profnet_sheets import Client
from profnet_sheets.batch import EnrichmentInterrupted, enrich, plan_enrichment
from profnet_sheets.batch.marks import NOT_FETCHED
from profnet_sheets.sandbox import RunningSandbox, start_sandbox

pytestmark = pytest.mark.integration
KEY = "batch-key"


@pytest.fixture(scope="module")
def sandbox() -> Iterator[RunningSandbox]:
    with start_sandbox(api_keys=(KEY,), credits=10_000_000, job_seconds=0, seed=3) as running:
        yield running


@pytest.fixture
def client(sandbox: RunningSandbox, tmp_path: Path) -> Iterator[Client]:
    requests.post(f"{sandbox.base_url}/_sandbox/reset", timeout=5).raise_for_status()
    with Client(api_key=KEY, base_url=sandbox.base_url, cache=str(tmp_path)) as made:
        yield made


MESSY = [
    "stripe.com",
    "https://www.stripe.com/about",
    None,
    "not a domain",
    "acme.io",
    "stripe.com",
    "",
    "  acme.io ",
]


def test_rows_order_duplicates_and_nulls_are_kept(client: Client, sandbox: RunningSandbox) -> None:
    frame = pl.DataFrame({"site": MESSY, "row": list(range(len(MESSY)))})
    out = enrich(frame, "site", "company", client=client, progress=False)
    assert out.height == frame.height
    assert out["row"].to_list() == frame["row"].to_list()
    assert out["site"].to_list() == MESSY
    names = out["company_name"].to_list()
    assert names[0] == names[1] == names[5] == "Stripe"
    assert names[4] == names[7] == "Acme"
    assert names[2] is None
    assert names[6] is None
    errors = out["company_error"].to_list()
    assert errors[2] is None, "a blank cell is not an error"
    assert errors[6] is None
    assert errors[3].startswith("invalid input:")
    assert "not a domain" in errors[3]
    assert sandbox.charged(KEY) == 2, "each unique company fetched once"
    assert out.schema["company_founded"] == pl.Int64
    assert out.schema["company_specialties"] == pl.List(pl.String)


def test_a_rerun_pays_nothing_and_the_plan_knows(client: Client, sandbox: RunningSandbox) -> None:
    frame = pl.DataFrame({"site": MESSY})
    before = plan_enrichment(frame, "site", "company", client=client)
    assert (before.unique_keys, len(before.cached), before.credits) == (2, 0, 2)
    assert (len(before.invalid), len(before.blank)) == (1, 2)
    enrich(frame, "site", "company", client=client, progress=False)
    after = plan_enrichment(frame, "site", "company", client=client)
    assert (len(after.cached), after.credits) == (2, 0)
    enrich(
        frame,
        "site",
        "company",
        client=Client(api_key=KEY, base_url=sandbox.base_url, cache=client.settings.cache),
        progress=False,
    )
    assert sandbox.charged(KEY) == 2


def test_a_plan_of_another_table_is_refused_and_one_not_run_says_nothing_of_a_run(
    client: Client, sandbox: RunningSandbox
) -> None:
    """A new user's review: a notebook cell run again after the table grew left the new rows
    empty with no error, and a plan never passed to enrich said `0 enriched` of a run that
    enriched 14."""
    frame = pl.DataFrame({"site": ["stripe.com", "acme.com", "plan1.com", "plan2.com"]})
    plan = plan_enrichment(frame, "site", "company", client=client)
    with pytest.raises(ValueError, match="this plan was not run"):
        plan.result_summary()
    assert repr(plan).startswith("<Plan company of 'site': 4 rows: 4 to fetch, "), "not a dump"
    grown = pl.concat([frame, pl.DataFrame({"site": ["plan3.com", "notion.so"]})])
    with pytest.raises(ValueError, match="plan= was made for another table") as refused:
        enrich(grown, "site", "company", client=client, plan=plan, progress=False)
    assert str(refused.value) == (
        "plan= was made for another table (4 rows, 4 distinct keys in 'site'); this one has "
        "6 rows, 6 distinct keys in 'site': make the plan again for it (plan_enrichment(...)) "
        "and look at its cost, or leave plan= out"
    )
    assert sandbox.charged(KEY) == 0
    done = enrich(frame.sort("site"), "site", "company", client=client, plan=plan, progress=False)
    assert done["company_name"].null_count() == 0, "the same table sorted: its own plan"
    assert plan.result_summary() == "4 rows: 4 enriched, 0 with an error, 0 blank"
    assert repr(plan) == "<Plan company of 'site': 4 rows: 4 enriched, 0 with an error, 0 blank>"


def test_the_budget_stops_before_it_is_passed(client: Client, sandbox: RunningSandbox) -> None:
    frame = pl.DataFrame({"site": [f"budget{i}.io" for i in range(6)]})
    out = enrich(frame, "site", "company", client=client, budget=4, concurrency=1, progress=False)
    assert sandbox.charged(KEY) == 4
    errors = out["company_error"].to_list()
    assert errors.count(NOT_FETCHED) == 2
    assert out["company_name"].null_count() == 2
    rerun = enrich(frame, "site", "company", client=client, progress=False)
    assert rerun["company_error"].null_count() == 6
    assert sandbox.charged(KEY) == 6, "the re-run paid only for the two it had not fetched"


def test_ctrl_c_keeps_what_is_done_and_a_rerun_pays_for_the_rest(
    client: Client, sandbox: RunningSandbox
) -> None:
    frame = pl.DataFrame({"site": [f"stop{i}.io" for i in range(10)]})
    original = client.call
    calls = {"n": 0}

    def interrupting(name: str, params: Any = None, **more: Any) -> Any:
        calls["n"] += 1
        if calls["n"] == 5:
            raise KeyboardInterrupt
        return original(name, params, **more)

    client.call = interrupting  # type: ignore[method-assign]
    with pytest.raises(EnrichmentInterrupted) as caught:
        enrich(frame, "site", "company", client=client, concurrency=1, progress=False)
    partial = caught.value.result
    assert partial.height == 10
    done = partial["company_name"].drop_nulls().len()
    assert done >= 4, "the four calls before the interruption"
    assert done == sandbox.charged(KEY), "every call paid for is in the result"
    client.call = original  # type: ignore[method-assign]
    enrich(frame, "site", "company", client=client, progress=False)
    assert sandbox.charged(KEY) == 10, "each company paid once across the two runs"


def stopped_after_the_first(
    client: Client, sandbox: RunningSandbox, prefix: str, latency_ms: int
) -> pl.DataFrame:
    """The partial result of enriching 12 keys (`prefix`0.io ...), 4 in flight at the
    sandbox's `latency_ms`, stopped as Ctrl-C (or a form's Cancel) does after the first."""
    frame = pl.DataFrame({"site": [f"{prefix}{i}.io" for i in range(12)]})
    faults = f"{sandbox.base_url}/_sandbox/faults"
    requests.put(faults, json={"latency_ms": latency_ms}, timeout=5).raise_for_status()

    def stopper(done: int, total: int) -> None:
        if done >= 1:
            raise KeyboardInterrupt

    try:
        with pytest.raises(EnrichmentInterrupted) as caught:
            enrich(frame, "site", "company", client=client, concurrency=4, progress=stopper)
    finally:
        requests.put(faults, json={"latency_ms": 0}, timeout=5).raise_for_status()
    return caught.value.result


def test_calls_in_flight_when_stopped_keep_their_answers(
    client: Client, sandbox: RunningSandbox
) -> None:
    partial = stopped_after_the_first(client, sandbox, "flight", 150)
    kept = partial["company_name"].drop_nulls().len()
    assert kept > 1, "the calls under way when it stopped finished and were kept"
    assert kept == sandbox.charged(KEY), "every call paid for is in the result"


def test_rows_never_sent_say_out_of_credits_when_credits_ran_out_after_a_ctrl_c(
    client: Client, sandbox: RunningSandbox
) -> None:
    """A review: Ctrl-C first, then calls under way met the 402. The run ended out of
    credits (its summary and exit code: running again needs a top-up), but the rows never
    sent said `interrupted`."""
    base = sandbox.base_url
    requests.put(
        f"{base}/_sandbox/keys", json={"key": KEY, "credits": 1}, timeout=5
    ).raise_for_status()
    try:
        result = stopped_after_the_first(client, sandbox, "dry", 400)
    finally:
        topped_up = {"key": KEY, "credits": 10_000_000}  # the module's sandbox, for the others
        requests.put(f"{base}/_sandbox/keys", json=topped_up, timeout=5).raise_for_status()
    assert client.out_of_credits, "a call under way met the 402"
    errors = result["company_error"].drop_nulls().to_list()
    assert len(errors) == 11, errors
    assert all(error.startswith("out of credits: ") for error in errors), errors


def test_lazy_frames_stay_lazy(client: Client) -> None:
    lazy = pl.LazyFrame({"site": ["stripe.com", "acme.io"]})
    out = enrich(lazy, "site", "company", ["company_name"], client=client, progress=False)
    assert isinstance(out, pl.LazyFrame)
    assert out.collect()["company_name"].to_list() == ["Stripe", "Acme"]


def test_every_kind(client: Client) -> None:
    company = client.get_company_details(domain="stripe.com")
    posts = client.search_posts(keyword="python")["posts"]
    jobs = client.search_jobs(keyword="engineer")["jobs"]
    leads = client.search_leads(title_keywords="CTO", limit=3).results()
    profile_urls = [lead["profnet_url"] for lead in leads]
    cases: list[tuple[str, dict[str, list[Any]], str | dict[str, str], str]] = [
        ("company", {"c": ["stripe.com", "1035"]}, "c", "company_name"),
        ("profile", {"u": profile_urls}, "u", "profile_full_name"),
        ("profile_posts", {"u": profile_urls}, "u", "profile_posts_total"),
        ("company_posts", {"u": [company["profnet_url"]]}, "u", "company_posts"),
        ("job", {"j": [jobs[0]["job_id"], "123"]}, "j", "job_title"),
        ("post", {"p": [posts[0]["urn"]]}, "p", "post_text"),
        (
            "headcount",
            {"u": [company["profnet_url"]], "kw": ["python"]},
            {"profnet_url": "u", "keywords": "kw"},
            "headcount",
        ),
        ("geocode", {"place": ["Munich", "Nowhere-xyz"]}, "place", "geocode_geo_id"),
        (
            "recommendations_received",
            {"u": profile_urls},
            "u",
            "recommendations_received",
        ),
        (
            "recommendations_given",
            {"u": profile_urls},
            "u",
            "recommendations_given",
        ),
        (
            "find_profile",
            {"n": ["Anna Schmidt"], "co": ["Acme"]},
            {"name": "n", "company_name": "co"},
            "find_profile_full_name",
        ),
        ("school", {"s": ["University of Oxford"]}, "s", "school_name"),
    ]
    for kind, data, column, field in cases:
        out = enrich(pl.DataFrame(data), column, kind, client=client, progress=False)
        assert out[field][0] is not None, (kind, out.row(0, named=True))
        assert out[f"{kind}_error"][0] is None, (kind, out[f"{kind}_error"][0])
    job_errors = enrich(pl.DataFrame({"j": ["123"]}), "j", "job", client=client, progress=False)
    assert job_errors["job_error"][0] == "not found"
    geo = enrich(
        pl.DataFrame({"p": ["Nowhere-xyz"]}), "p", "geocode", client=client, progress=False
    )
    assert geo["geocode_error"][0] == "not found"
    profile = enrich(
        pl.DataFrame({"u": profile_urls[:1]}),
        "u",
        "profile",
        client=client,
        options={"include_skills": True},
        progress=False,
    )
    assert profile.schema["profile_experience"] == pl.List(
        pl.Struct(
            {
                "title": pl.String,
                "company": pl.String,
                "company_url": pl.String,
                "location": pl.String,
                "start_date": pl.String,
                "end_date": pl.String,
                "description": pl.String,
            }
        )
    )
    assert profile["profile_skills"][0].len() > 0


def test_clear_errors_for_wrong_arguments(client: Client) -> None:
    frame = pl.DataFrame({"site": ["a.io"]})
    with pytest.raises(ValueError, match="unknown kind 'firm'"):
        enrich(frame, "site", "firm", client=client)
    with pytest.raises(ValueError, match="no column domain"):
        enrich(frame, "domain", "company", client=client)
    with pytest.raises(ValueError, match="no field 'revenue'"):
        enrich(frame, "site", "company", ["revenue"], client=client)
    with pytest.raises(ValueError, match="prefix"):
        enrich(
            frame.with_columns(company_error=pl.lit("x")),
            "site",
            "company",
            client=client,
            progress=False,
        )
    for bad in (0, -1, 2.5, True):  # None is the client's own maximum
        with pytest.raises(ValueError, match=f"concurrency={bad!r}"):
            enrich(frame, "site", "company", client=client, concurrency=bad)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="budget=-5"):
        enrich(frame, "site", "company", client=client, budget=-5)


def test_a_pandas_frame_comes_back_as_pandas(client: Client) -> None:
    import pandas as pd

    frame = pd.DataFrame(
        {"site": ["stripe.com", None, "acme.io"], "n": [1, 2, 3], "x": [0.5, None, 2.0]},
        index=[10, 20, 30],
    )
    out = enrich(
        frame, "site", "company", ["company_name", "founded"], client=client, progress=False
    )
    assert isinstance(out, pd.DataFrame), "pandas in, pandas out"
    assert list(out.index) == [10, 20, 30]
    pd.testing.assert_frame_equal(out[["site", "n", "x"]], frame)
    assert out["company_name"].isna().tolist() == [False, True, False]
    assert out["company_name"].dropna().tolist() == ["Stripe", "Acme"]
    assert str(out["company_founded"].dtype) == "Int64"
    assert out["company_error"].isna().all()


def test_a_person_looked_up_by_name_is_not_paid_for_a_row_without_one(
    client: Client, sandbox: RunningSandbox
) -> None:
    """Before: a contact list's row with no name but a company got a stranger at that company
    (paid, no error). A row without its main input is one the user did not mean; with no
    name column mapped, the company alone is the lookup asked for (decision 481)."""
    frame = pl.DataFrame({"n": ["Anna Schmidt", None, None], "co": ["Acme", "Acme", None]})
    mapped = {"name": "n", "company_name": "co"}
    plan = plan_enrichment(frame, mapped, "find_profile", client=client)
    assert "3 rows: 1 to fetch, 0 already cached (free), 1 that cannot be looked up, 1 blank" in (
        plan.summary()
    )
    out = enrich(frame, mapped, "find_profile", client=client, progress=False)
    errors = out["find_profile_error"].to_list()
    assert errors[0] is None
    assert errors[1].startswith("invalid input: no name in this row, only what narrows it down")
    assert errors[2] is None, "blank"
    assert sandbox.charged(KEY) == 1
    alone = enrich(frame, {"company_name": "co"}, "find_profile", client=client, progress=False)
    assert alone["find_profile_full_name"].to_list()[:2] != [None, None], "company alone asked"


def test_a_pandas_frame_with_two_columns_of_one_name_is_refused_by_name() -> None:
    """A new user's review: it raised pandas' own AttributeError ('DataFrame' object has no
    attribute 'dtype'); nothing was paid, and nothing said which column."""
    import pandas as pd

    from profnet_sheets import ProfnetError

    frame = pd.DataFrame([["a1.com", "x", 1]], columns=["Website", "Website", "n"])
    with pytest.raises(ProfnetError, match="more than one column named 'Website'"):
        enrich(frame, "Website", "company", progress=False)


def test_a_pandas_frames_missing_text_is_missing_not_the_text_nan() -> None:
    """A new user's review: pandas 3's string columns give NaN for a missing cell, which the
    form's export wrote as the text `NaN` (the user's table is exported as it was)."""
    import pandas as pd

    from profnet_sheets.batch.frames import as_polars

    frame = pd.DataFrame({"account": ["A", None, "B"], "employees": [10, None, 30]})
    converted = as_polars(frame)
    assert isinstance(converted, pl.DataFrame)
    assert converted["account"].to_list() == ["A", None, "B"]
    assert converted["employees"].to_list() == [10.0, None, 30.0]


def test_a_pandas_column_mixing_text_and_numbers_is_read_as_the_cells_text(
    client: Client, sandbox: RunningSandbox
) -> None:
    """What `pd.read_excel` gives for ids with a word among them. Before: a TypeError deep in
    polars (text then numbers), or numbers read as blank and text as bytes (with a bytes
    value among them) (decision 478)."""
    import datetime as dt

    import pandas as pd

    from profnet_sheets.batch.frames import as_polars

    ids = pd.DataFrame({"Company ID": ["unknown", 1035, 2000.0, None], "n": [1, 2, 3, 4]})
    mixed = as_polars(ids)
    assert isinstance(mixed, pl.DataFrame)
    assert mixed["Company ID"].to_list() == ["unknown", "1035", "2000", None]
    assert mixed["n"].to_list() == [1, 2, 3, 4]
    sites = ["acme.io", 1035, None, 3.5, True, b"bytes.io", dt.date(2024, 1, 2)]
    out = enrich(pd.DataFrame({"site": sites}), "site", "company", client=client, progress=False)
    assert isinstance(out, pd.DataFrame)
    found = out["company_name"].notna().tolist()
    assert found == [True, True, False, False, False, True, False], "acme.io, 1035, bytes.io"
    errors = out["company_error"].tolist()
    assert "'3.5' is not a whole number" in errors[3]
    assert "'TRUE' is not a company id" in errors[4]
    assert "'2024-01-02' is not a company id" in errors[6]
    assert sandbox.charged(KEY) == 3


def test_offline_rows_say_they_are_not_in_the_cache(
    client: Client, sandbox: RunningSandbox
) -> None:
    from profnet_sheets.batch.marks import OFFLINE_MISS

    client.get_company_details(domain="stripe.com")
    frame = pl.DataFrame({"site": ["stripe.com", "never-fetched.io"]})
    offline = client.with_options(offline=True)
    out = enrich(frame, "site", "company", client=offline, progress=False)
    assert out["company_error"].to_list() == [None, OFFLINE_MISS]
    assert sandbox.charged(KEY) == 1


def test_a_failure_while_planning_is_raised_not_swallowed(client: Client) -> None:
    """A key whose call cannot even be built by an unexpected error stops the run loudly:
    rows after it must never come back looking like blank cells."""
    import dataclasses

    from profnet_sheets.batch.kinds import kind_named

    company = kind_named("company")

    def call(row: dict[str, Any], options: Any) -> dict[str, Any]:
        if row["company"] == "c.io":
            raise TypeError("a bug while building the call")
        return company.call(row, options)

    broken = dataclasses.replace(company, call=call)
    frame = pl.DataFrame({"site": ["a.io", "b.io", "c.io", "d.io", "e.io"]})
    with pytest.raises(TypeError, match="a bug while building the call"):
        enrich(frame, "site", broken, client=client, concurrency=2, progress=False)


def test_a_name_clash_is_refused_before_anything_is_paid(
    client: Client, sandbox: RunningSandbox
) -> None:
    frame = pl.DataFrame({"site": ["clash.io"], "company_industry": ["mine"]})
    with pytest.raises(ValueError, match="already has company_industry"):
        enrich(frame, "site", "company", client=client, progress=False)
    assert sandbox.charged(KEY) == 0


@pytest.mark.parametrize(
    ("kind", "options", "said"),
    [
        ("profile", {"include_skills": "maybe"}, "'maybe' is not a true/false value"),
        ("profile_posts", {"type": "bogus"}, "type must be one of posts, comments, reactions"),
    ],
)
def test_an_option_value_the_spec_refuses_is_refused_once_up_front(
    client: Client, sandbox: RunningSandbox, kind: str, options: dict[str, Any], said: str
) -> None:
    """Before: the same wrong value was every row's error, the run said done (decision 475)."""
    urls = ["https://www.profnet.com/in/opt-a", "https://www.profnet.com/in/opt-b"]
    frame = pl.DataFrame({"url": urls})
    with pytest.raises(ValueError, match=f"options=.*{said}") as refused:
        enrich(frame, "url", kind, client=client, options=options, progress=False)
    assert str(next(iter(options.values()))) in str(refused.value)
    assert sandbox.charged(KEY) == 0
    out = enrich(frame, "url", "profile", client=client, options={"include_skills": "yes"})
    assert out["profile_error"].to_list() == [None, None]
    sites = pl.DataFrame({"site": ["opt-a.io"]})  # an input given for every row: per row
    same = enrich(sites, "site", "company", client=client, options={"company": "opt-b.io"})
    assert same["company_error"].to_list() == [None]


def test_keys_the_spending_cap_skipped_are_not_progress(
    sandbox: RunningSandbox, tmp_path: Path
) -> None:
    """Before: a run the cap cut at its first half reported 50% done at once (the keys it
    skipped counted as done), and ended at 100%. Now only keys fetched, or answered by the
    cache, move the count (decision 401)."""
    requests.post(f"{sandbox.base_url}/_sandbox/reset", timeout=5).raise_for_status()
    frame = pl.DataFrame({"site": [f"half{i}.io" for i in range(6)]})
    faults = f"{sandbox.base_url}/_sandbox/faults"
    requests.put(faults, json={"latency_ms": 50}, timeout=5).raise_for_status()
    runs: list[list[tuple[int, int]]] = []
    try:
        for _ in range(2):  # then again: the cache answers what was paid, the rest is skipped
            seen: list[tuple[int, int]] = []
            runs.append(seen)
            with Client(
                api_key=KEY,
                base_url=sandbox.base_url,
                cache=str(tmp_path / "cache"),
                cache_dir=tmp_path / "cache",  # the cap's ledger: this test's own
                spending_cap="3/day",
            ) as client:
                out = enrich(
                    frame, "site", "company", client=client, concurrency=4, progress=_noted(seen)
                )
            assert out["company_error"].str.starts_with("spending cap reached").sum() == 3
    finally:
        requests.put(faults, json={"latency_ms": 0}, timeout=5).raise_for_status()
    for seen in runs:
        assert max(done for done, _ in seen) == 3, seen
        assert seen[-1] == (3, 6), "ends at half: 3 fetched (then cached) of 6, 3 skipped"
    assert sandbox.charged(KEY) == 3


def _noted(seen: list[tuple[int, int]]) -> Callable[[int, int], None]:
    """A progress hook that notes each `(done, total)` it is called with in `seen`."""
    return lambda done, total: seen.append((done, total))


def test_an_offline_plan_says_nothing_is_fetched_and_costs_nothing(
    client: Client, sandbox: RunningSandbox
) -> None:
    """A new user's review: with PROFNET_OFFLINE the preview said `3 to fetch ... at most 3
    credits` and asked to spend them; nothing is sent offline."""
    frame = pl.DataFrame({"site": ["off-a.io", "off-b.io", "off-c.io"]})
    enrich(frame.head(1), "site", "company", client=client, progress=False)
    offline = client.with_options(offline=True)
    plan = plan_enrichment(frame, "site", "company", client=offline)
    assert (plan.credits, str(plan)) == (
        0,
        "3 rows: 2 not in the cache (offline: not fetched), 1 already cached (free), 0 that "
        "cannot be looked up, 0 blank; at most 0 credits (rows with the same key are fetched "
        "once)",
    )
    assert offline.estimate([("get-company-details", {"domain": "off-b.io"})]).credits == 0
    assert client.estimate([("get-company-details", {"domain": "off-b.io"})]).credits == 1
    out = enrich(frame, "site", "company", client=offline, progress=False)
    assert (
        out["company_error"].to_list()[1:]
        == ["offline: not in the cache (run online to fetch it)"] * 2
    )
    assert sandbox.charged(KEY) == 1


def test_a_plans_summary_says_when_a_limit_will_stop_the_run(
    client: Client, sandbox: RunningSandbox, tmp_path: Path
) -> None:
    """A new user's review: `at most 6 credits` with a cap leaving 4, and the run stopped
    at 4 (the form's preview said it; the plan did not)."""
    frame = pl.DataFrame({"site": ["a-limit.io", "b-limit.io", "c-limit.io"]})
    with Client(
        api_key=KEY, base_url=sandbox.base_url, cache=str(tmp_path / "c"), budget=2
    ) as tight:
        said = plan_enrichment(frame, "site", "company", client=tight).summary()
    assert said.endswith(
        "at most 3 credits (rows with the same key are fetched once); the "
        "budget has 2 left: the run may stop there"
    ), said
    assert (
        plan_enrichment(frame, "site", "company", client=client)
        .summary()
        .endswith(
            "(rows with the same key are fetched once); answers lost on the way and asked "
            "again may cost more (a budget bounds it)"
        )
    ), "no limit: what lost answers asked again may cost is bounded by none"
    assert sandbox.charged(KEY) == 0


def test_fields_are_named_as_formulas_name_them(client: Client) -> None:
    """Helper 95: `--fields "Company Name, INDUSTRY"` was refused by the CLI and taken by
    the formulas: one reading of a field's name everywhere."""
    frame = pl.DataFrame({"Website": ["stripe.com"]})
    done = enrich(frame, "Website", "company", "Company Name, INDUSTRY", client=client)
    assert done.columns == ["Website", "company_name", "company_industry", "company_error"]
    with pytest.raises(ValueError, match="company has no field 'revenue'"):
        enrich(frame, "Website", "company", ["revenue"], client=client)
