"""A fake clock for the code that takes a `clock` (and a `sleep`): time passes only when moved."""

from __future__ import annotations

import threading
from collections.abc import Callable


class FakeClock:
    """Seconds that pass only when the test moves them (`advance`) or the code under test sleeps
    (`sleep` moves the clock at once, and records the pause). `at` runs something when the clock
    reaches a moment: what another party does meanwhile (a lease that runs out, a holder that
    leaves)."""

    def __init__(self, now: float = 1_000.0) -> None:
        self.now = now
        self.slept: list[float] = []
        self._due: list[tuple[float, Callable[[], object]]] = []
        self._guard = threading.Lock()

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.advance(seconds)

    def advance(self, seconds: float) -> None:
        with self._guard:
            self.now += seconds
            due = [action for moment, action in self._due if moment <= self.now]
            self._due = [(moment, action) for moment, action in self._due if moment > self.now]
        for action in due:
            action()

    def at(self, seconds_from_now: float, action: Callable[[], object]) -> None:
        """Run `action` once the clock has moved `seconds_from_now` on."""
        with self._guard:
            self._due.append((self.now + seconds_from_now, action))

    @property
    def waited(self) -> float:
        """Seconds the code under test slept, summed."""
        return sum(self.slept)
