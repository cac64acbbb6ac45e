"""Which columns feed a kind (by header, then by what validates), and the added columns' names."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from profnet_sheets.batch.columns import (
    choose_column,
    choose_columns,
    mapping_from_options,
    resolve_columns,
)
from profnet_sheets.batch.io import read_table
from profnet_sheets.batch.kinds import KINDS
from profnet_sheets.batch.naming import column_name, column_names

JUNK_SITES = ["stripe.com", "N/A", "acme.com", "see notes", "jane@gmail.com", "-", "notion.so"]
ACCOUNTS = pl.DataFrame(
    {
        "Account": ["Stripe Inc", "Beta GmbH", "Acme", "Delta", "Jane", "Foo", "Notion Labs"],
        "Website": JUNK_SITES,
        "Employees": [120, 45, 9, 3, 1, 2, 400],
        "ARR": [1.5, 2.0, 0.1, 0.0, None, 3.3, 9.9],
    }
)


def test_the_issues_table_gives_the_website_not_the_employees() -> None:
    assert choose_column(ACCOUNTS, "company") == "Website"
    names = ACCOUNTS.select("Account", "Employees", "ARR")
    assert choose_column(names, "company") is None, "a company's name is not its key"


def test_a_number_column_is_a_company_key_only_when_its_header_says_ids() -> None:
    frame = pl.DataFrame({"Employees": [120, 45], "Name": ["Stripe", "Acme"]})
    assert choose_column(frame, "company") is None, "numbers are never the domain, nor a word"
    with_ids = frame.with_columns(pl.col("Employees").alias("Company ID"))
    assert choose_column(with_ids, "company") == "Company ID"
    text_numbers = pl.DataFrame({"Headcount": ["120", "45"], "Note": ["x", "y"]})
    assert choose_column(text_numbers, "company") is None


CRM = read_table(Path(__file__).parents[1] / "data" / "crm_export.csv")


@pytest.mark.parametrize(
    "kind",
    [
        "profile",
        "profile_posts",
        "recommendations_received",
        "recommendations_given",
        "job",
        "post",
        "geocode",
        "find_profile",
        "school",
    ],
)
def test_no_column_of_a_crm_export_is_guessed_for_a_kind_it_does_not_name(kind: str) -> None:
    """Dates (2023-09-08 is a valid profile slug), zip codes (valid job ids), words: never."""
    assert choose_columns(CRM, kind) == {}
    with pytest.raises(ValueError, match=r"no column is named for .*'Created Date', 'Zip'"):
        resolve_columns(CRM, kind, [])


@pytest.mark.parametrize("kind", ["company", "company_posts", "headcount"])
def test_the_company_page_urls_of_a_crm_export_feed_the_kinds_they_fit(kind: str) -> None:
    assert choose_column(CRM, kind) == "Website"


ALL_KINDS = sorted(KINDS)
# A CRM's headers that hold its own ids, counts, levels, names: each says something about the
# thing, none its key; every value validates as a company id, a job id or a post id.
CRM_STYLE_HEADERS = (
    *("ID", "Account ID", "Record ID", "HubSpot Company ID", "Contact ID", "Company Number"),
    *("Company", "Account", "Job", "Post", "Employer ID", "Company Size", "Company Type"),
    *("Job Level", "Job Type", "Job Count", "Post Count", "Posts", "Profile Views", "Profile ID"),
    *("School Type", "School ID", "Country Code", "Region ID", "Email Address", "Page Views"),
    *("URL Count", "Link Clicks", "Website Visits", "Domain Rank", "Job Title Level"),
)


@pytest.mark.parametrize("kind", ALL_KINDS)
def test_a_header_with_a_kinds_word_is_no_key_unless_it_names_the_key(kind: str) -> None:
    """`Account ID` read as company ids, `Job Level` as job ids, `Post Count` as post ids: paid."""
    frame = pl.DataFrame({header: ["4521", "2", "3"] for header in CRM_STYLE_HEADERS})
    assert choose_columns(frame, kind) == {}
    with pytest.raises(ValueError, match="no column is named"):
        resolve_columns(frame, kind, [])


KEY_HEADERS = [
    *(
        ("company", h, "4521")
        for h in ("Company ID", "company_id", "CompanyID", "LinkedIn Company ID")
    ),
    *(("company", h, "acme") for h in ("Company URL", "Website", "Company Website", "Domain")),
    *(("company", h, "acme") for h in ("Website URL", "Primary Domain", "Work Email")),
    *(("company_posts", h, "acme") for h in ("Company URL", "Company Page", "LinkedIn")),
    *(("headcount", h, "acme") for h in ("Company URL", "LinkedIn URL", "Company LinkedIn URL")),
    *(
        ("profile", h, "anna")
        for h in ("LinkedIn URL", "Profile URL", "LinkedIn Profile", "Profil")
    ),
    *(("profile_posts", h, "anna") for h in ("Profile", "profnet_url", "URL")),
    *(("recommendations_received", h, "anna") for h in ("Profile URL", "LinkedIn")),
    *(("recommendations_given", h, "anna") for h in ("Profile URL", "LinkedIn")),
    *(("job", h, "4521") for h in ("Job ID", "job_id", "Job URL", "LinkedIn Job ID")),
    *(("post", h, "4521") for h in ("Post URL", "Post URN", "Post ID", "post_urn", "URN")),
    *(("geocode", h, "Berlin") for h in ("City", "Billing City", "Location", "Country")),
    *(("school", h, "TU Berlin") for h in ("School", "School Name", "University")),
    *(("find_profile", h, "Anna Schmidt") for h in ("Full Name", "Name", "Contact")),
]


@pytest.mark.parametrize(("kind", "header", "value"), KEY_HEADERS)
def test_a_header_that_names_the_key_is_read_among_a_crms_others(
    kind: str, header: str, value: str
) -> None:
    others = {name: ["4521", "2", "3"] for name in CRM_STYLE_HEADERS if name != header}
    frame = pl.DataFrame({**others, header: [value, value + "x", value + "y"]})
    assert choose_column(frame, kind) == header


def test_values_pick_a_column_only_when_their_shape_leaves_no_doubt() -> None:
    unnamed = pl.DataFrame(
        {
            "A": ["anna-schmidt", "bo-li"],  # bare slugs: valid profile keys, but only words
            "B": ["4298248448", "4298248449"],  # valid job ids, but only numbers
            "C": ["urn:profnet:activity:7123456789012345678", None],
        }
    )
    assert choose_column(unnamed, "profile") is None
    assert choose_column(unnamed, "job") is None
    assert choose_column(unnamed, "post") == "C"
    assert choose_column(unnamed.rename({"A": "Profile"}), "profile") == "Profile", "named"


@pytest.mark.parametrize(
    ("header", "kind"),
    [
        ("Webseite", "company"),
        ("Site web", "company"),
        ("Sitio web", "company"),
        ("Domäne", "company"),
        ("E-Mail", "company"),
        ("LinkedIn Profil", "profile"),
        ("Perfil", "profile"),
        ("Job URL", "job"),
        ("Standort", "geocode"),
        ("Ville", "geocode"),
        ("Université", "school"),
    ],
)
def test_headers_in_the_users_language(header: str, kind: str) -> None:
    frame = pl.DataFrame({"Notes": ["hello", "world"], header: ["x", "y"]})
    assert choose_column(frame, kind) == header


def test_by_header_first_then_by_what_validates() -> None:
    frame = pl.DataFrame(
        {
            "Notes": ["https://www.profnet.com/in/anna/", "profnet.com/in/bo"],
            "Profile": ["https://www.profnet.com/in/cy/", None],
        }
    )
    assert choose_column(frame, "profile") == "Profile"
    unnamed = frame.rename({"Profile": "Other"}).with_columns(pl.lit("x").alias("Other"))
    assert choose_column(unnamed, "profile") == "Notes", "then the column that validates"


def test_several_inputs_by_their_headers() -> None:
    people = pl.DataFrame(
        {
            "Full Name": ["Anna Schmidt"],
            "Company Name": ["Acme"],
            "Job Title": ["CTO"],
            "City": ["Berlin"],
            "Rows": [1],
        }
    )
    assert choose_columns(people, "find_profile") == {
        "name": "Full Name",
        "company_name": "Company Name",
        "job_title": "Job Title",
        "location": "City",
    }


def test_column_options_of_the_command_line() -> None:
    assert mapping_from_options("company", ["Website"]) == "Website"
    assert mapping_from_options("find_profile", ["name=Full Name", "company=Employer"]) == {
        "name": "Full Name",
        "company_name": "Employer",
    }
    assert mapping_from_options("company", ["company=Site"]) == {"company": "Site"}
    with pytest.raises(ValueError, match="find_profile takes columns for name"):
        mapping_from_options("find_profile", ["salary=Pay"])
    with pytest.raises(
        ValueError,
        match="company reads one column, named alone: give --column 'Name', not 'name=Name'",
    ):
        mapping_from_options("company", ["name=Name"])  # helper 93: the advice was `company=`


def test_added_columns_never_repeat_a_word() -> None:
    assert column_name("company_", "company_name") == "company_name"
    assert column_name("company_", "industry") == "company_industry"
    assert column_name("headcount_", "headcount") == "headcount"
    assert column_name("profile_posts_", "posts_total") == "profile_posts_total"
    assert column_name("acct_", "company_name") == "acct_company_name"
    assert column_name("out.", "company_name") == "out.company_name"
    assert column_name("", "company_name") == "company_name"
    assert column_names("x_", ["x", "x_x"]) == {"x": "x_x", "x_x": "x_x_x"}, "never one name twice"
    in_a_search = column_names("company_", ["company_name", "founded"], taken=["company_name"])
    assert in_a_search == {"company_name": "company_company_name", "founded": "company_founded"}


@pytest.mark.parametrize("kind", ALL_KINDS)
@pytest.mark.parametrize("payload", [None, [], "", 0])
def test_an_answer_with_no_data_is_found_nothing_by_every_kind(kind: str, payload: object) -> None:
    """A review: `lookup profile_posts` crashed after paying on `{"data": null}` (its record
    asked `.get` of None), where enrich and lookup say `not found`."""
    assert KINDS[kind].record(payload) is None


def test_a_file_enriched_before_is_read_from_its_own_keys_not_the_columns_a_run_wrote() -> None:
    """Helper 96: enriching `s1.csv` (enriched before) again read `company_profnet_url`
    rather than `Website`, and paid 18 credits for companies paid for already."""
    enriched = pl.DataFrame(
        {
            "Account": ["Stripe", "Shopify"],
            "Website": ["stripe.com", "shopify.com"],
            "company_company_name": ["Stripe", "Shopify"],
            "company_profnet_url": [
                "https://www.profnet.com/company/stripe/",
                "https://www.profnet.com/company/shopify/",
            ],
            "company_error": [None, None],
        },
        schema_overrides={"company_error": pl.String},
    )
    assert choose_column(enriched, "company") == "Website"
    only_written = enriched.drop("Website")
    assert choose_column(only_written, "company") == "company_profnet_url", "none other left"


def test_a_file_without_a_header_row_is_warned_of() -> None:
    """Helper 96: a CSV of domains with no header row read `acme.com` as the column's name,
    and that row was never enriched, with no word of it."""
    headless = pl.DataFrame({"acme.com": ["stripe.com", "shopify.com"]})
    _, note = resolve_columns(headless, "company", [])
    assert note is not None
    assert "Warning: its header 'acme.com' reads as a company key itself" in note
    _, plain = resolve_columns(ACCOUNTS, "company", [])
    assert plain is not None
    assert "Warning" not in plain
