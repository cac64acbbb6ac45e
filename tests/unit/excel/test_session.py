"""The Excel session's settings: where the budget and offline mode come from, first wins."""

from __future__ import annotations

import os
from typing import Any

import pytest

from profnet_sheets.config import Settings
from profnet_sheets.errors import ConfigurationError
from profnet_sheets.excel import session
from profnet_sheets.excel.session import DEFAULT_BUDGET, SessionConfig, session_config
from tests.unit.excel.workbook import Book, ExcelError


def test_a_safe_default_budget() -> None:
    assert session_config([]) == SessionConfig(DEFAULT_BUDGET, False, "the default")


def test_first_source_naming_a_key_wins_and_is_named() -> None:
    config = session_config(
        [
            ("the environment", {"PATH": "/bin"}),
            ("the workbook's xlwings.conf sheet", {"profnet_excel_budget": 250.0}),
            ("your xlwings.conf file", {"PROFNET_EXCEL_BUDGET": "9"}),
        ]
    )
    assert config.budget == 250
    assert config.budget_from == "PROFNET_EXCEL_BUDGET in the workbook's xlwings.conf sheet"


@pytest.mark.parametrize(("value", "budget"), [("none", None), ("Unlimited", None), (0, 0)])
def test_no_limit_or_nothing_at_all(value: object, budget: int | None) -> None:
    assert session_config([("env", {"PROFNET_EXCEL_BUDGET": value})]).budget == budget


@pytest.mark.parametrize("value", ["lots", -1, 2.5, "#N/A"])
def test_a_budget_that_is_not_a_number_says_where_it_is(value: object) -> None:
    with pytest.raises(ConfigurationError) as caught:
        session_config([("the environment", {"PROFNET_EXCEL_BUDGET": value})])
    assert "PROFNET_EXCEL_BUDGET" in str(caught.value)
    assert "the environment" in str(caught.value)


def test_blank_values_do_not_count() -> None:
    config = session_config(
        [("sheet", {"PROFNET_EXCEL_BUDGET": "  "}), ("file", {"PROFNET_EXCEL_BUDGET": "30"})]
    )
    assert config.budget == 30


def test_the_clients_own_settings_come_after_the_excel_keys() -> None:
    settings = Settings(budget=70, offline=True)
    assert session_config([], settings) == SessionConfig(70, True, "PROFNET_BUDGET")
    overridden = session_config(
        [("env", {"PROFNET_EXCEL_BUDGET": "5", "PROFNET_EXCEL_OFFLINE": "no"})], settings
    )
    assert (overridden.budget, overridden.offline) == (5, False)
    with pytest.raises(ConfigurationError, match="PROFNET_EXCEL_OFFLINE"):
        session_config([("env", {"PROFNET_EXCEL_OFFLINE": "maybe"})])


def test_a_workbooks_xlwings_conf_sheet_is_read_as_name_value_pairs() -> None:
    rows: list[list[Any]] = [
        ["UDF Modules", "profnet_sheets.excel.udfs"],
        ["PROFNET_EXCEL_BUDGET", 300.0],
    ]
    book = Book({"xlwings.conf": [*rows, [None, None]]})
    assert session.book_config(book) == dict(rows)
    assert session.book_config(Book({})) == {}
    assert session_config([("sheet", session.book_config(book))]).budget == 300


def test_a_setting_showing_an_excel_error_is_refused_not_taken_as_empty() -> None:
    book = Book({"xlwings.conf": [["PROFNET_EXCEL_BUDGET", ExcelError("#REF!")]]})
    with pytest.raises(ConfigurationError, match="#REF!"):
        session_config([("the workbook's xlwings.conf sheet", session.book_config(book))])


@pytest.mark.parametrize(("value", "refresh"), [(None, False), ("TRUE", True), (False, False)])
def test_answers_are_kept_past_their_freshness_unless_told_to_refresh(
    value: object, refresh: bool
) -> None:
    found = [] if value is None else [("env", {session.REFRESH_KEY: value})]
    assert session_config(found).refresh is refresh
    with pytest.raises(ConfigurationError, match=session.REFRESH_KEY):
        session_config([("env", {session.REFRESH_KEY: "sometimes"})])


def test_without_excel_the_workbook_and_user_files_say_nothing() -> None:
    assert session.active_workbook_config() == {}
    names = [where for where, _ in session.sources(lambda: {"x": 1})]
    assert names == [
        "the environment",
        "the workbook's xlwings.conf sheet",
        "your xlwings.conf file",
    ]


def test_the_service_profile_is_read_from_the_workbook_after_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("PROFNET_KEY_HEADER", "X-From-Env")
    sheet = {
        "PROFNET_KEY_HEADER": "X-From-Sheet",
        "profnet_network_hosts": "people-net.example",  # names in any case
        "PROFNET_PRICES": '{"get-profile-details": 2}',
    }
    found = [
        ("the environment", dict(os.environ)),
        ("the workbook's xlwings.conf sheet", sheet),
        ("your xlwings.conf file", {"PROFNET_NETWORK_HOSTS": "other.example"}),
    ]
    settings = session.load_settings(found)
    assert settings.key_header == "X-From-Env"
    assert settings.network_hosts == ("people-net.example",)
    assert settings.prices.changed() == {"get-profile-details": 2}
    assert settings.api_key is None


@pytest.mark.parametrize(
    ("sheet", "said"),
    [
        (
            {"PROFNET_EXCEL_BUDGT": "2"},
            "PROFNET_EXCEL_BUDGT in the workbook's xlwings.conf sheet "
            "is not a setting read there: did you mean PROFNET_EXCEL_BUDGET?",
        ),
        (
            {"PROFNET_TIMEOUT": "5"},
            "PROFNET_TIMEOUT in the workbook's xlwings.conf sheet is not "
            "a setting read there: (read there: PROFNET_BASE_URL",
        ),
        (
            {"PROFNET_API_KEY": "k"},
            "PROFNET_API_KEY is in the workbook's xlwings.conf sheet: the "
            "key is never read from there (a workbook is shared)",
        ),
    ],
)
def test_a_profnet_name_the_sheet_does_not_read_is_refused_not_ignored(
    sheet: dict[str, str], said: str
) -> None:
    """A new user's review: `PROFNET_EXCEL_BUDGT` on the sheet left the default budget, and
    `PROFNET_SPENDING_CAP` there no cap, without a word, and four companies were paid."""
    found = [("the environment", {}), ("the workbook's xlwings.conf sheet", sheet)]
    with pytest.raises(ConfigurationError) as refused:
        session.load_settings(found)
    assert said in str(refused.value)


def test_the_spending_cap_and_budget_are_read_from_the_sheet() -> None:
    sheet = {"PROFNET_SPENDING_CAP": "1/day", "PROFNET_BUDGET": "3", "UDF Modules": "x"}
    found = [("the environment", {}), ("the workbook's xlwings.conf sheet", sheet)]
    settings = session.load_settings(found)
    assert str(settings.spending_cap) == "1/day"
    assert settings.budget == 3
    assert session.session_config(found, settings).budget == 3


def test_a_misspelt_excel_setting_in_the_environment_is_refused_not_ignored() -> None:
    """A new user's review: `PROFNET_EXCEL_BUGDET=5` in the environment (the only place
    xlwings Lite reads, one of Calc's two) left the default budget of 1,000, said only on
    stderr, which no Excel shows; 40 companies were paid (decision 485). Other PROFNET_ names
    of the environment are every setting's: not Excel's to refuse."""
    environment = {"PROFNET_EXCEL_BUGDET": "5", "PROFNET_TIMEOUT": "5"}
    with pytest.raises(ConfigurationError) as refused:
        session.load_settings([("the environment", environment)])
    assert str(refused.value) == (
        "PROFNET_EXCEL_BUGDET in the environment is not a setting read there: did you mean "
        "PROFNET_EXCEL_BUDGET? (read there: PROFNET_EXCEL_BUDGET, PROFNET_EXCEL_OFFLINE, "
        "PROFNET_EXCEL_REFRESH)"
    )
    session.load_settings([("the environment", {"PROFNET_EXCEL_BUDGET": "5"})])


def test_the_sandbox_notice_says_where_lite_takes_the_key() -> None:
    """No command line in xlwings Lite: its notice names Lite's settings (decision 486)."""
    from profnet_sheets import Client

    client = Client(cache="memory")  # no key: the embedded sandbox
    try:
        assert "profnet-sheets config --api-key" in session.data_source(client)
        session.install(client).host = "lite"
        lite = session.data_source(client)
        assert lite.startswith("SANDBOX: synthetic data, nothing paid")
        assert "xlwings Lite > Environment Variables" in lite
        assert "profnet-sheets" not in lite
    finally:
        session.reset()
        client.close()
