"""LookupForm headless: cost line, one lookup, the same again free."""

from __future__ import annotations

import pytest

from profnet_sheets.sandbox import RunningSandbox
from profnet_sheets.widgets import LookupForm
from tests.integration.widgets.conftest import MakeClient

pytestmark = pytest.mark.integration


def test_a_lookup_then_the_same_again_for_free(
    make_client: MakeClient, fresh: RunningSandbox
) -> None:
    form = LookupForm(make_client())
    assert form.cost.value.count("Type a value to look up") == 1
    form.kind.value = "geocode"
    form.value.value = "Berlin"
    assert "At most 1 credit" in form.cost.value
    form.button.click()
    form.join(10)
    assert form.feedback.error_text == ""
    assert form.answer[0]["name"] == "Berlin, Berlin, Germany"
    assert "Berlin, Berlin, Germany" in form.result.value
    assert form.feedback.status_text == "find-geocode-by-location: spent 1 credit."
    assert form.cost.value.count("Free: the answer is in the cache.") == 1
    form.lookup(wait=True)
    assert fresh.charged() == 1


def test_a_wrong_value_is_said_before_anything_is_sent(
    make_client: MakeClient, fresh: RunningSandbox
) -> None:
    form = LookupForm(make_client())
    form.kind.value = "profile"
    form.value.value = "not a profile"
    assert "profile URL" in form.cost.value or "profnet_url" in form.cost.value
    form.lookup(wait=True)
    assert form.feedback.error_text
    assert fresh.charged() == 0
