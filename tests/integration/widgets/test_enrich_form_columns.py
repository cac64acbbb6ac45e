"""EnrichForm on a messy CRM export: no column guessed for a kind its headers do not name, and
nothing paid until the user chooses one (issue 22)."""

from __future__ import annotations

import html
from pathlib import Path

import pytest

from profnet_sheets.sandbox import RunningSandbox
from profnet_sheets.widgets import EnrichForm
from tests.integration.widgets.conftest import MakeClient

pytestmark = pytest.mark.integration
CRM = Path(__file__).parents[2] / "data" / "crm_export.csv"


def crm_loaded(make_client: MakeClient) -> EnrichForm:
    form = EnrichForm(client=make_client())
    form.path.value = str(CRM)
    form.load_button.click()
    return form


def test_the_form_asks_for_a_column_and_enables_nothing_paid_until_one_is_chosen(
    make_client: MakeClient, fresh: RunningSandbox
) -> None:
    form = crm_loaded(make_client)
    assert form.column.value == "Website", "company page URLs: a company's keys for certain"
    form.kind.value = "profile"
    assert form.column.value is None, "no date or zip code is taken for a profile URL"
    assert "Choose a column" in form.cost.value
    assert form.run_button.disabled
    assert form.preview_button.disabled
    form.run(wait=True)
    assert form.result is None
    assert "Choose the column" in form.feedback.error_text
    assert fresh.charged() == 0
    form.column.value = "Owner"  # the user's choice is read as asked
    assert not form.run_button.disabled
    assert not form.preview_button.disabled
    assert "profile keys from 'Owner'" in html.unescape(form.cost.value)


def test_the_forms_preview_shows_the_first_keys_as_sent(
    make_client: MakeClient, fresh: RunningSandbox
) -> None:
    form = crm_loaded(make_client)
    form.kind.value = "company_posts"
    assert form.column.value == "Website"
    assert (
        "First keys as asked: https://www.profnet.com/company/stripe/, "
        "https://www.profnet.com/company/acme-gmbh/, https://www.profnet.com/company/notion/"
    ) in form.cost.value
    assert fresh.charged() == 0
