"""How a run's last line says it ended (batch/workflow.Outcome.advice)."""

from __future__ import annotations

from profnet_sheets.batch.workflow import Outcome


def test_ctrl_c_after_the_last_row_says_nothing_is_left_to_run() -> None:
    """Before: `Interrupted: 0 rows not done. Run again to finish; ...`."""
    done = Outcome("3 rows: 3 enriched", 3, 0, 3, 0, "interrupted")
    assert done.advice() == "Interrupted once every row was done: nothing is left to run again."
    assert done.exit_code == 130
    cut = Outcome("3 rows: 1 enriched", 1, 2, 1, 0, "interrupted")
    assert cut.advice() == (
        "Interrupted: 2 rows not done. Run again to finish; the 1 done are kept and will not "
        "be paid again."
    )
