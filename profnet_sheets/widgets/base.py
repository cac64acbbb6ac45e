"""What every form shares: display in a notebook, a runner, results shown, enrichment run."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import polars as pl

from profnet_sheets.batch import EnrichmentInterrupted, enrich, plan_enrichment
from profnet_sheets.batch.engine import INTERRUPTED
from profnet_sheets.batch.plan import Plan
from profnet_sheets.client.client import Client
from profnet_sheets.widgets.cost import credits_text
from profnet_sheets.widgets.progress import Bar
from profnet_sheets.widgets.runner import Feedback, Runner
from profnet_sheets.widgets.spend import for_one_action
from profnet_sheets.widgets.tables import MAX_ROWS_SHOWN, html_table


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
    """Enrich `frame` with its own progress bar (Cancel keeps what is done): the cost preview
    first, then the lookups; a summary in the status line, with what this run spent."""
    client, spend = for_one_action(client)
    plan = plan_enrichment(frame, column, kind, client=client, options=options)
    feedback.status(f"Enriching: {plan.summary(client.budget.left)}.")
    bar.start(f"enrich {plan.kind.name}", plan.unique_keys)

    def hook(done: int, total: int) -> None:
        bar.to(done, total)  # first: the bar shows what is done, Cancel or not
        runner.check()

    try:
        result: pl.DataFrame = enrich(
            frame, column, kind, client=client, options=options, plan=plan, progress=hook
        )
    except EnrichmentInterrupted as stop:
        bar.to(lookups_done(plan, stop.result, column), plan.unique_keys)
        bar.finish(ok=False)
        feedback.status(
            "Cancelled: the lookups done are kept (and cached); enrich again to finish, "
            f"the done ones are free. Spent {credits_text(spend.spent)}."
        )
        return stop.result
    bar.finish()
    feedback.status(
        f"Enriched {plan.result_summary()}. Spent {credits_text(spend.spent)}.", "success"
    )
    return result


def lookups_done(plan: Plan, result: pl.DataFrame, column: str) -> int:
    """The lookups an interrupted run finished (those under way when it stopped included):
    every lookup of the plan but those whose rows say they were not fetched."""
    error = pl.col(f"{plan.kind.name}_error")
    stopped = result.filter(error == INTERRUPTED).get_column(column).unique().to_list()
    not_done = {plan.call_of[(value,)] for value in stopped if (value,) in plan.call_of}
    return plan.unique_keys - len(not_done)
