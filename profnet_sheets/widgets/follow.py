"""A search followed in a form: its status with progress, then every page of its results;
what Cancel means in each phase (the search still running at the service, or complete)."""

from __future__ import annotations

from dataclasses import dataclass

import polars as pl

from profnet_sheets.client.jobs import SearchStatus
from profnet_sheets.searches.workflow import Search
from profnet_sheets.widgets.progress import Bar
from profnet_sheets.widgets.runner import Cancelled, Feedback, Runner
from profnet_sheets.words import counted


@dataclass
class Follow:
    """Where a form shows a search it follows, and how long it waits for it."""

    runner: Runner
    bar: Bar
    feedback: Feedback
    noun: tuple[str, str]  # ("lead", "leads")
    timeout: float

    def results(self, search: Search) -> pl.DataFrame | None:
        """Wait for the search (started or attached), then read every page; None when Cancel
        was pressed (the status line then says what that means for the search). Errors go
        up, the bar turned red."""
        self.bar.start("search", 100)
        reading = False
        try:
            # Cancel ends a poll's wait at once (the runner's sleep).
            status = search.wait(
                on_status=self._on_status, timeout=self.timeout, sleep=self.runner.sleep
            )
            reading = True
            expected = status.total_results
            self.bar.start(
                f"read {self.noun[1]}", expected if expected is not None else search.limit or 0
            )
            frame = search.read(on_page=self._on_page)
        except Cancelled:
            self.bar.finish(ok=False)
            self.feedback.status(
                f"{self._cancelled(search.request_id, reading)} Spent {search.spend.said()}."
            )
            return None
        except Exception:
            self.bar.finish(ok=False)
            read = (
                f"{self.bar.n:,} of {counted(self.bar.total, *self.noun)} read and kept: press "
                "Attach once the error below is dealt with to read the rest (the pages read "
                "are not paid again). "
                if reading and self.bar.n
                else ""
            )
            if read or search.spend.spent:  # nothing spent nor read: the error says it all
                self.feedback.status(f"{read}Spent {search.spend.said()}.", final=True)
            raise
        self.bar.finish()
        return frame

    def _cancelled(self, request_id: str, reading: bool) -> str:
        """What Cancel did: stopped waiting for a search that goes on, or stopped reading the
        results of a search that is complete."""
        if not reading:
            return (
                f"Cancelled. The search {request_id} goes on at the service: press Attach "
                "later to follow it (its status is free; pages read are not paid again)."
            )
        return (
            f"Cancelled while reading the results ({self.bar.n:,} of "
            f"{counted(self.bar.total, *self.noun)} read). The search {request_id} is "
            "complete at the service: press Attach to read them all (the pages read are not "
            "paid again)."
        )

    def _on_status(self, status: SearchStatus) -> None:
        self.bar.to(status.progress or 0)
        shown = "?" if status.progress is None else status.progress
        self.feedback.status(f"Search {status.request_id}: {status.status}, {shown}%")

    def _on_page(self, read: int, expected: int) -> None:
        self.bar.to(read, expected)  # first: the bar shows what is read, Cancel or not
        self.feedback.status(f"Reading results: {read:,} of {counted(expected, *self.noun)}")
        self.runner.check()
