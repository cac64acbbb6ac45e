"""Whatever Excel hands over, no formula raises: it answers values, rows, or #PROFNET! text.

The session's client is offline (and points nowhere), so fuzzing can never send or pay.
"""

from __future__ import annotations

import datetime as dt
import inspect
import math
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from profnet_sheets import Client
from profnet_sheets.excel import cells, formulas, session
from profnet_sheets.excel.session import SessionConfig
from tests.unit.excel.test_udfs import ISSUE

FORMULAS: dict[str, Callable[..., Any]] = {
    name: getattr(formulas, name.removeprefix("PROFNET_").lower()) for name in ISSUE
}
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.floats(allow_nan=True, allow_infinity=True),
    st.integers(min_value=-(2**63), max_value=2**63),
    st.sampled_from(sorted(cells.EXCEL_ERROR_CODES)),
    st.sampled_from(["#N/A", " #VALUE! ", "", "   ", "\u00a0", "TRUE", "yes"]),
    st.sampled_from(
        [
            "stripe.com",
            " https://www.stripe.com/about ",
            "https://www.profnet.com/company/acme/",
            "https://www.profnet.com/in/anna-schmidt/",
            "company_name, industry",
            "urn:profnet:activity:7123456789012345678",
            "Berlin",
            "city",
        ]
    ),
    st.text(max_size=30),
    st.datetimes(min_value=dt.datetime(1900, 1, 1)),
)
ROW = st.lists(SCALARS, min_size=0, max_size=4)
EXCEL_VALUES = st.one_of(SCALARS, ROW, st.lists(ROW, min_size=0, max_size=4))


@pytest.fixture(scope="module", autouse=True)
def offline_session() -> Iterator[None]:
    client = Client(api_key="fuzz", base_url="http://127.0.0.1:9", cache="memory", offline=True)
    session.install(client, SessionConfig(budget=0, offline=True))
    yield
    session.reset()
    client.close()


def is_cell(value: object) -> bool:
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, str):
        bug = value.startswith("#PROFNET! unexpected")  # the guard caught a bug of ours
        return (
            len(value) <= cells.MAX_CELL_TEXT
            and not bug
            and (
                not value.startswith("#PROFNET!")
                or ("\n" not in value and "Traceback" not in value)
            )
        )
    return isinstance(value, int | bool)


def assert_excel_result(result: object) -> None:
    if isinstance(result, list):
        assert result, "an empty list does not spill: give a value"
        assert all(isinstance(row, list) for row in result)
        assert len({len(row) for row in result}) == 1, "a rectangle"
        assert all(is_cell(value) for row in result for value in row), result
    else:
        assert is_cell(result), result


@settings(
    max_examples=400, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data(), name=st.sampled_from(sorted(FORMULAS)))
def test_no_formula_ever_raises(data: st.DataObject, name: str) -> None:
    function = FORMULAS[name]
    parameters = list(inspect.signature(function).parameters)
    count = data.draw(st.integers(min_value=len(ISSUE[name]), max_value=len(parameters)))
    arguments = [data.draw(EXCEL_VALUES, label=parameters[i]) for i in range(count)]
    assert_excel_result(function(*arguments))


def test_offline_answers_say_so_and_what_to_do() -> None:
    out = formulas.company([["stripe.com"], ["acme.io"]], "industry")
    assert out == [[cells.error_text(_offline())]] * 2
    assert formulas.company("stripe.com") == cells.error_text(_offline())


def _offline() -> str:
    from profnet_sheets.excel.messages import OFFLINE

    return OFFLINE


def test_an_unexpected_failure_is_text_not_a_traceback(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken() -> session.ExcelSession:
        raise ZeroDivisionError("boom")

    monkeypatch.setattr(session, "current", broken)
    out = formulas.company("stripe.com")
    assert out == "#PROFNET! unexpected ZeroDivisionError: boom. Please report it"
