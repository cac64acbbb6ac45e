"""The Check connection macro (issue 16): the free setup check, with the service profile read
from the workbook's xlwings.conf sheet, the report in a message box."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from profnet_sheets.excel import macros, session
from profnet_sheets.sandbox import RunningSandbox, start_sandbox
from tests.unit.excel import workbook

pytestmark = pytest.mark.integration

KEY = "excel-check-key"
HOST = "people-net.example"
HEADER = "X-PeopleNet-Key"
GATEWAY = {"X-Gateway-Host": "people-net.gateway.example"}
PRICES = {"get-profile-details": 2}


@pytest.fixture(scope="module")
def other() -> Iterator[RunningSandbox]:
    with start_sandbox(
        api_keys=(KEY,),
        network_host=HOST,
        key_header=HEADER,
        required_headers=GATEWAY,
        prices=PRICES,
    ) as running:
        yield running


def book(box: RunningSandbox, **changes: Any) -> workbook.Book:
    """A workbook whose xlwings.conf sheet holds the service profile, with `changes`."""
    rows = {
        "PROFNET_BASE_URL": box.base_url,
        "PROFNET_KEY_HEADER": HEADER,
        "PROFNET_HEADERS": json.dumps(GATEWAY),
        "PROFNET_NETWORK_HOSTS": HOST,
        "PROFNET_PRICES": json.dumps(PRICES),
        **changes,
    }
    return workbook.Book({session.CONF_SHEET: [[name, value] for name, value in rows.items()]})


@pytest.fixture(autouse=True)
def key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PROFNET_API_KEY", KEY)


def test_the_workbooks_profile_is_checked_for_free(other: RunningSandbox) -> None:
    excel = book(other)
    macros.check_connection(excel)
    (report,) = excel.app.prompts
    lines = report.splitlines()
    assert lines[-1] == "OK: ready"
    assert f"key header:  {HEADER}" in lines
    assert f"network:     {HOST}" in lines
    assert "prices:      the spec's, except:" in lines
    assert "  get-profile-details           2 credits (the spec: 1)" in lines
    assert len([line for line in lines if "credit" in line]) == 2, "only the changed price"
    assert excel.app.bar[-1] is False
    assert other.charged(KEY) == 0


def test_what_to_change_is_in_the_message_box(
    other: RunningSandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    excel = book(other, PROFNET_KEY_HEADER="")
    macros.check_connection(excel)
    assert (
        excel.app.prompts[0]
        .splitlines()[-1]
        .startswith("NOT READY: the service did not see a key in the X-SERVICE-API-KEY header")
    )
    monkeypatch.setenv("PROFNET_PRICES", "{}")  # the environment comes first
    bad = book(other, PROFNET_PRICES='{"search-leads": "fifty"}')
    macros.check_connection(bad)
    assert bad.app.prompts[0].splitlines()[-1] == "OK: ready"
    monkeypatch.delenv("PROFNET_PRICES")
    macros.check_connection(bad)
    (said,) = bad.app.prompts[1:]
    assert said.startswith(
        "#PROFNET! Also read from the workbook's xlwings.conf sheet: Setting prices = "
        """'{"search-leads": "fifty"}' is not usable: the price of search-leads must be"""
    )


def test_a_key_on_the_sheet_is_refused_in_one_line_that_says_to_take_it_out(
    other: RunningSandbox,
) -> None:
    """It was ignored without a word: a workbook holding the key is shared with it."""
    excel = book(other, PROFNET_API_KEY="a key in a workbook is never read")
    before = other.calls(KEY)
    macros.check_connection(excel)
    (said,) = excel.app.prompts
    assert said.startswith(
        "#PROFNET! PROFNET_API_KEY is in the workbook's xlwings.conf sheet: the key is never "
        "read from there (a workbook is shared); take it out"
    ), said
    assert "a key in a workbook is never read" not in said
    assert other.calls(KEY) == before, "nothing sent"
