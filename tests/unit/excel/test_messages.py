"""One wording for an error, whether the cell holds one key or a range (through the engine)."""

from __future__ import annotations

import pytest

from profnet_sheets import errors
from profnet_sheets.batch import engine
from profnet_sheets.excel.messages import message_for, row_message


@pytest.mark.parametrize(
    "error",
    [
        errors.NotFound("get-company-details: not found."),
        errors.InsufficientCredits("get-company-details: the account has no credits left."),
        errors.ServiceError("get-company-details: the service failed with HTTP 500."),
        errors.TransportError("get-company-details: no answer."),
        errors.RateLimited("get-company-details: still rate limited."),
        errors.InvalidParameter("company: 'x y' is not a company id"),
        errors.OfflineMiss("offline"),
    ],
    ids=lambda error: type(error).__name__,
)
def test_a_rows_error_reads_as_one_keys(error: errors.ProfnetError) -> None:
    assert row_message(engine._error_text(error)) == message_for(error)


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
