"""Generated Excel values against the sandbox over HTTP: no formula ever raises (nothing real is
paid: the sandbox's credits are synthetic)."""

from __future__ import annotations

import inspect
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from profnet_sheets import Client
from profnet_sheets.excel import session
from profnet_sheets.excel.session import SessionConfig
from profnet_sheets.sandbox import RunningSandbox
from tests.integration.excel.conftest import KEY
from tests.unit.excel.test_formulas_fuzz import EXCEL_VALUES, FORMULAS, assert_excel_result
from tests.unit.excel.test_udfs import ISSUE

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def online(sandbox: RunningSandbox) -> Iterator[None]:
    client = Client(api_key=KEY, base_url=sandbox.base_url, cache="memory", retries=0)
    session.install(client, SessionConfig(budget=2_000))
    yield
    session.reset()
    client.close()


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), name=st.sampled_from(sorted(FORMULAS)))
def test_no_formula_raises_against_the_service(
    online: None, data: st.DataObject, name: str
) -> None:
    function = FORMULAS[name]
    parameters = list(inspect.signature(function).parameters)
    count = data.draw(st.integers(min_value=len(ISSUE[name]), max_value=len(parameters)))
    arguments = [data.draw(EXCEL_VALUES, label=parameters[i]) for i in range(count)]
    assert_excel_result(function(*arguments))
