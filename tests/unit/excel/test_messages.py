"""One wording for an error, whether the cell holds one key or a range (through the engine)."""

from __future__ import annotations

import pytest

from profnet_sheets import errors
from profnet_sheets.batch import marks
from profnet_sheets.batch.marks import not_fetched
from profnet_sheets.client.client import Client
from profnet_sheets.client.spend import CAP_SETTING
from profnet_sheets.excel import session
from profnet_sheets.excel.cells import MAX_ERROR_TEXT
from profnet_sheets.excel.messages import message_for, row_message


@pytest.mark.parametrize(
    "error",
    [
        errors.NotFound("get-company-details: not found."),
        errors.InsufficientCredits("get-company-details: the account has no credits left."),
        errors.ServiceError("get-company-details: the service failed with HTTP 500."),
        errors.TransportError("get-company-details: no answer."),
        errors.TransportError(
            "get-company-details: timed out. 5 attempts went out with no answer: the service may "
            "have charged 5 credits for them (counted as possibly spent)."
        ),
        errors.RateLimited("get-company-details: still rate limited."),
        errors.InvalidParameter("company: 'x y' is not a company id"),
        errors.OfflineMiss("offline"),
    ],
    ids=lambda error: type(error).__name__,
)
def test_a_rows_error_reads_as_one_keys(error: errors.ProfnetError) -> None:
    assert row_message(marks.error_text(error)) == message_for(error)


def test_the_messages_say_what_to_do() -> None:
    assert "check the id, URL" in message_for(errors.NotFound("x: not found."))
    offline = message_for(errors.OfflineMiss("offline"))
    assert "PROFNET_EXCEL_OFFLINE to FALSE" in offline
    assert "restart the UDF server" in offline
    refused = message_for(errors.Unauthorized("x: refused"))
    assert "profnet-sheets config --api-key" in refused
    assert "restart the UDF server" in refused
    assert "Excel itself restarted" in refused, "the UDF server inherits Excel's environment"
    assert not refused.startswith("#PROFNET! the service refused the API key: set PROFNET_API_KEY")
    lost = errors.TransportError("x: timed out. 1 attempt ... the service may have charged 1")
    again = "Recalculate later: it is asked again, and may be charged again"
    assert message_for(lost).endswith(again)
    assert "nothing fetched is paid again" in message_for(errors.TransportError("x: refused."))
    risky = errors.ServiceError(
        "get-lead-results: the service failed with HTTP 500. It was not repeated: the service "
        "may have done, and charged, it already. Try again later."
    )
    assert message_for(risky).endswith(again)


LITE_REMEDIES = [
    errors.BudgetExceeded("over", needed=1, left=0, limit="PROFNET_EXCEL_BUDGET"),
    errors.OfflineMiss("offline"),
    errors.Unauthorized("x: refused"),
]


@pytest.mark.parametrize("error", LITE_REMEDIES, ids=lambda error: type(error).__name__)
def test_in_lite_the_messages_name_lites_remedies_not_the_udf_servers(
    error: errors.ProfnetError,
) -> None:
    lite = message_for(error, "lite")
    assert "restart xlwings Lite" in lite
    assert "xlwings Lite > Environment Variables, scope Local" in lite
    for desktop_words in ("UDF server", "xlwings tab", "xlwings.conf"):
        assert desktop_words not in lite
    assert "UDF server" in message_for(error, "desktop")


@pytest.mark.parametrize("error", LITE_REMEDIES, ids=lambda error: type(error).__name__)
def test_the_sessions_host_chooses_the_words(error: errors.ProfnetError) -> None:
    assert message_for(error) == message_for(error, "desktop")  # no session: the desktop's
    client = Client(api_key="k", base_url="http://127.0.0.1:9", cache="memory")
    try:
        session.install(client).host = "lite"
        assert message_for(error) == message_for(error, "lite")
    finally:
        session.reset()
        client.close()


def test_a_service_never_reached_reads_alike_in_one_cell_and_a_range_in_each_hosts_words() -> None:
    """A new user's review: in one Lite range, 6 cells said `cannot be reached (uv run
    profnet-sheets check)` and 4 `the service failed: could not reach the service` for the
    same cause; Lite has no command line (decision 486)."""
    from profnet_sheets.batch.marks import error_text as row_error

    refused = errors.TransportError("x: could not reach the service.", details="connect")
    assert message_for(refused, "desktop") == row_message(row_error(refused), "desktop")
    desktop, lite = message_for(refused, "desktop"), message_for(refused, "lite")
    assert "the service cannot be reached" in desktop
    assert "profnet-sheets check" in desktop
    assert lite == row_message(row_error(refused), "lite")
    assert "profnet-sheets" not in lite
    assert "PROFNET_BASE_URL (xlwings Lite > Environment Variables, scope Local)" in lite


def test_a_stop_says_whether_the_call_went_out_and_what_it_may_have_cost() -> None:
    """A review of decision 520: a cell said `nothing was sent` for a call whose attempt went
    out before the cache failed (1 credit possibly spent), and for a call whose answer proved
    the base URL wrong."""
    waiting = errors.StoppedBuying("not sent", reason="could not read", lifted_by=("cache",))
    said = message_for(waiting, "desktop")
    assert said.startswith("#PROFNET! the cache failed: nothing was sent. Formulas try it again")
    retried = errors.StoppedBuying("its retry not sent", reason="disk full", lifted_by=("cache",))
    retried.possibly_charged, retried.sent = 1, True
    said = message_for(retried, "desktop")
    assert "the cache failed: it went out and may have been charged (1 credit, counted as " in said
    wrong = errors.StoppedBuying("not the service", reason="a gateway at a wrong path")
    wrong.sent = True
    said = message_for(wrong, "desktop")
    assert said.startswith("#PROFNET! buying stopped: it went out, and its answer was not kept.")
    assert "restart the UDF server" in said
    assert said.endswith("(a gateway at a wrong path)")


def test_a_team_cap_and_a_cap_that_cannot_be_kept_are_said_as_they_are() -> None:
    """A new user's review: three Excel machines on one Redis, a team cap reached: the cell
    said `the spending cap is reached (..., for every run on this service)`."""
    cap = "PROFNET_SPENDING_CAP"
    team = message_for(errors.BudgetExceeded("x", needed=1, left=0, limit=cap, team=True))
    assert "the team cap is reached (PROFNET_SPENDING_CAP, for every machine on the team's" in team
    own = message_for(errors.BudgetExceeded("x", needed=1, left=0, limit=cap))
    assert "the spending cap is reached (PROFNET_SPENDING_CAP, for every run on this" in own
    short = message_for(
        errors.BudgetExceeded("x", needed=5, left=2, limit=cap, exhausted=False, team=True)
    )
    assert "the team cap leaves 2 (PROFNET_SPENDING_CAP, for every machine" in short
    unknown = message_for(
        errors.BudgetExceeded("x", needed=1, limit=cap, unknown="/c/l.sqlite.unreadable-1")
    )
    assert "cannot be kept" in unknown
    assert "/c/l.sqlite.unreadable-1" in unknown


def test_a_long_path_of_a_ledger_set_aside_keeps_its_file_name_in_a_cell() -> None:
    """A review of decision 543: the file is said last so that a cut cell keeps what to do;
    a Windows path of a long user name lost the file's name at the cell's end."""
    folder = "C:\\Users\\" + "firstname.lastname" * 4 + "\\AppData\\Local\\profnet-sheets\\Cache"
    file = f"{folder}\\svc-01e3ffdc22-ledger.sqlite.unreadable-20261129T021800"
    cell = row_message(not_fetched(CAP_SETTING, unknown=file))
    assert cell.endswith("\\svc-01e3ffdc22-ledger.sqlite.unreadable-20261129T021800"), cell
    assert "check the spend with the service, then delete that file" in cell
    assert len(cell) <= len("#PROFNET! ") + MAX_ERROR_TEXT
    short = "/home/ana/.cache/profnet-sheets/svc-1-ledger.sqlite.unreadable-1"
    assert row_message(not_fetched(CAP_SETTING, unknown=short)).endswith(f": {short}")
