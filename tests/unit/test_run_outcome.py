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
        "Interrupted: 2 rows not done. Run again to finish; the 1 done is kept and will not "
        "be paid again."
    )


def test_a_stop_after_the_last_row_does_not_ask_for_a_run_that_pays_for_nothing() -> None:
    """A team's review: Redis died as a run's last answers came back: `0 rows not done. Run
    again; ... running again pays them again` (a re-run with nothing left paid 20-40)."""
    reason = "the team's Redis cache could not count the spend (Connection refused)"
    done = Outcome("40 rows: 40 enriched", 40, 0, 40, 0, "stopped", reason, unkept=20)
    said = done.advice()
    assert said is not None
    assert said.startswith(f"Stopped buying ({reason}) once every row was done: nothing is left")
    assert "Run again" not in said
    assert "20 paid answers could not be kept in the cache" in said
