"""SetupCheck: the free setup check behind a Check connection button (issue 16)."""

from __future__ import annotations

import pytest

from profnet_sheets import Settings
from profnet_sheets.sandbox import RunningSandbox
from profnet_sheets.widgets import SetupCheck
from tests.integration.widgets.conftest import MakeClient

pytestmark = pytest.mark.integration


def test_the_button_says_the_setup_is_ready_and_spends_nothing(
    make_client: MakeClient, fresh: RunningSandbox
) -> None:
    form = SetupCheck(make_client())
    form.button.click()
    form.join()
    assert form.report is not None
    assert form.report.ok
    assert form.feedback.status_text == "Ready: the service answers and takes the key."
    assert "key:         accepted" in form.result.value
    assert "get-profile-details           1 credit" in form.result.value
    assert fresh.charged() == 0
    assert not form.button.disabled


def test_a_refused_key_is_one_line_in_the_form(fresh: RunningSandbox) -> None:
    settings = Settings.load(api_key="not-this-one", base_url=fresh.base_url)
    form = SetupCheck(settings=settings)
    form.check(wait=True)
    assert form.feedback.error_text.startswith(
        "Not ready: the service refused the API key sent in X-SERVICE-API-KEY"
    )
    assert "not-this-one" not in form.result.value
    assert fresh.charged() == 0
