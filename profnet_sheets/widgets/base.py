"""What every form shares: display in a notebook, a runner, results shown, enrichment run."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import polars as pl

from profnet_sheets.batch.marks import INTERRUPTED
from profnet_sheets.batch.plan import Plan
from profnet_sheets.batch.workflow import Enrichment
from profnet_sheets.client.client import Client
from profnet_sheets.widgets.progress import Bar
from profnet_sheets.widgets.runner import Feedback, Runner
from profnet_sheets.widgets.tables import MAX_ROWS_SHOWN, html_table
from profnet_sheets.words import spend_said


class Form:
    """A form: `widget` is what a notebook shows (the form itself displays as it)."""

    widget: Any
    runner: Runner
    client: Client

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        return self.widget._repr_mimebundle_(**kwargs)

    def join(self, timeout: float | None = None) -> None:
        """Wait for the form's background work (a search, an enrichment) to end."""
        self.runner.join(timeout)

    def start(self, task: Callable[[], None], *, wait: bool = False) -> bool:
        """Run `task` in the background (`wait`: until it ends); False when work is running
        (the form's error line then says that nothing new was started)."""
        started = self.runner.start(task)
        if wait:
            self.join()
        return started


def frame_html(frame: pl.DataFrame, noun: tuple[str, str]) -> str:
    """A results table for a frame (its first rows)."""
    rows = frame.head(MAX_ROWS_SHOWN).to_dicts()
    return html_table(rows, frame.columns, total=frame.height, noun=noun)


def run_enrichment(
    client: Client,
    frame: pl.DataFrame,
    column: str,
    kind: str,
    *,
    runner: Runner,
    bar: Bar,
    feedback: Feedback,
    options: Mapping[str, Any] | None = None,
) -> pl.DataFrame:
    """Enrich `frame` through the library's workflow with its own progress bar (Cancel keeps
    what is done): the cost preview first, then the lookups; a summary in the status line, with
    what this run spent, and what to do when it ended early."""
    job = Enrichment(client, frame, column, kind, options=options)
    feedback.status(f"Enriching: {job.plan.summary(job.client.budget.left)}.")
    bar.start(f"enrich {job.plan.kind.name}", job.plan.unique_keys)

    pace = client.pace.progress_note()  # calls/s, and whether the service throttles

    def hook(done: int, total: int) -> None:
        bar.to(done, total, pace())  # first: the bar shows what is done, Cancel or not
        runner.check()

    result, outcome = job.run(progress=hook)
    assert isinstance(result, pl.DataFrame)  # a DataFrame in, a DataFrame out
    spent = f"Spent {spend_said(outcome.spent, outcome.uncertain)}."
    if outcome.ending == "interrupted":
        bar.to(lookups_done(job.plan, result, column), job.plan.unique_keys)
        bar.finish(ok=False)
        kept = (
            f"the lookups done are in the table, but {outcome.rerun()}"
            if outcome.unkept or outcome.cache_failed
            else "the lookups done are kept (and cached); enrich again to finish, the done "
            "ones are free"
        )
        feedback.status(f"Cancelled: {kept}. {spent}")
        return result
    bar.finish(ok=outcome.ending is None)
    advice = outcome.advice()
    if advice:
        feedback.error(f"{advice} {spent}")
    else:
        feedback.status(f"Enriched {outcome.rows}. {spent}", "success")
    return result


def lookups_done(plan: Plan, result: pl.DataFrame, column: str) -> int:
    """The lookups an interrupted run finished (those under way when it stopped included):
    every lookup of the plan but those whose rows say they were not fetched."""
    error = pl.col(f"{plan.kind.name}_error")
    stopped = result.filter(error == INTERRUPTED).get_column(column).unique().to_list()
    not_done = {plan.call_of[(value,)] for value in stopped if (value,) in plan.call_of}
    return plan.unique_keys - len(not_done)
