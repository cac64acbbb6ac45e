"""What the command line says of a search whose reading a limit cut: which limit, and what to
do before reading the rest (a review of decisions 532 and 540: a team cap and a cap that
cannot be kept were said as this machine's cap, `raise the spending cap`)."""

from __future__ import annotations

import pytest

from profnet_sheets.cli import _cut_search_said
from profnet_sheets.client.spend import BUDGET_SETTING, CAP_SETTING
from profnet_sheets.errors import BudgetExceeded, ProfnetError


@pytest.mark.parametrize(
    ("cut", "limit", "todo"),
    [
        (BudgetExceeded("x", limit=BUDGET_SETTING), "Budget reached", "raise --budget"),
        (ProfnetError("x"), "Budget reached", "raise --budget"),
        (
            BudgetExceeded("x", limit=CAP_SETTING),
            "Spending cap reached",
            "raise the spending cap (PROFNET_SPENDING_CAP) or wait for its next period",
        ),
        (
            BudgetExceeded("x", limit=CAP_SETTING, team=True),
            "Team spending cap reached",
            "raise it on every machine (PROFNET_SPENDING_CAP) or wait for its next period",
        ),
        (
            BudgetExceeded("x", limit=CAP_SETTING, renews=False),
            "Spending cap reached",
            "raise the spending cap (PROFNET_SPENDING_CAP)",
        ),
        (
            BudgetExceeded("x", limit=CAP_SETTING, team=True, renews=False),
            "Team spending cap reached",
            "raise it on every machine (PROFNET_SPENDING_CAP)",
        ),
        (
            BudgetExceeded("x", limit=CAP_SETTING, unknown="/c/l.sqlite.unreadable-1"),
            "Spending cap cannot be kept",
            "check the spend with the service, then delete /c/l.sqlite.unreadable-1 (or remove "
            "the cap, PROFNET_SPENDING_CAP)",
        ),
    ],
    ids=["budget", "other", "cap", "team cap", "cap in all", "team cap in all", "cannot be kept"],
)
def test_a_search_cut_short_names_its_limit_and_what_to_do(
    cut: Exception, limit: str, todo: str
) -> None:
    assert _cut_search_said(cut) == (limit, todo)
