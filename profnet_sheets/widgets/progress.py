"""An embedded tqdm progress bar for the forms: reset per phase, throttled, never closed."""

from __future__ import annotations

import threading
import time
from typing import Any

MIN_INTERVAL = 0.1  # seconds between two redraws (each is a message to the browser)
# No tqdm rates (a phase's steps are not calls); the postfix is the service's pace.
BAR_FORMAT = "{l_bar}{bar}| {n_fmt}/{total_fmt} [{elapsed}{postfix}]"


class Bar:
    """A `tqdm.notebook` bar living inside a form (its `widget` is the bar's container).

    It is made with `display=False` and never closed: each phase (`start`) resets it, so one
    bar serves the search, then the reading of its pages. Safe to move from a worker thread.
    """

    def __init__(self, desc: str = "", css_class: str = "profnet-progress") -> None:
        from tqdm.notebook import tqdm

        self._bar: Any = tqdm(
            total=1, desc=desc, display=False, leave=True, mininterval=0, bar_format=BAR_FORMAT
        )
        self.widget: Any = self._bar.container
        self.widget.add_class("profnet-progress")
        self.widget.add_class(css_class)
        self.widget.layout.display = "none"  # shown when a phase starts
        self._lock = threading.Lock()
        self._drawn = 0.0

    @property
    def n(self) -> int:
        return int(self._bar.n)

    @property
    def total(self) -> int:
        return int(self._bar.total or 0)

    @property
    def style(self) -> str:
        """The bar's style: '' while it runs, 'success' or 'danger' at the end."""
        return str(self.widget.children[1].bar_style)

    def start(self, desc: str, total: int) -> None:
        """Begin a phase of `total` steps, from 0."""
        with self._lock:
            self.widget.layout.display = ""
            self._bar.reset(total=max(total, 1))
            self._bar.set_description(desc, refresh=False)
            self._bar.refresh()
            self._drawn = time.monotonic()

    def to(self, n: int, total: int | None = None, note: str | None = None) -> None:
        """Move to step `n` (and a new total when it became known; `note`: the pace, shown
        after the time); redrawn at most every MIN_INTERVAL seconds, and always at the end."""
        with self._lock:
            if note is not None:
                self._bar.set_postfix_str(note, refresh=False)
            if total is not None and total != self._bar.total:
                self._bar.total = max(total, 1)
                self.widget.children[1].max = self._bar.total
            self._bar.n = n
            now = time.monotonic()
            if now - self._drawn >= MIN_INTERVAL or n >= (self._bar.total or 0):
                self._bar.refresh()
                self._drawn = now

    def finish(self, ok: bool = True) -> None:
        """End the phase: green when it went through, red when it stopped short."""
        with self._lock:
            if ok:
                self._bar.n = self._bar.total
            self._bar.refresh()
            self.widget.children[1].bar_style = "success" if ok else "danger"
