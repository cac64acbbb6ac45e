"""Ctrl-C, SIGTERM and SIGHUP as one Ctrl-C for a command that pays: the first stops the run
(a KeyboardInterrupt where the run is); each later one is said and changes nothing, so what
was done is written whatever the number of signals."""

from __future__ import annotations

import contextlib
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from types import FrameType, TracebackType
from typing import Any

# The signals that end a command: Ctrl-C, a scheduler stopping a job, a closed terminal.
STOPPING = tuple(
    getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name)
)


class Stops:
    """While entered (on the main thread), the signals of STOPPING stop the run as Ctrl-C
    does, once. `received`: the first one, or None; `exit_code`: 128 + its number (130 for
    Ctrl-C), the shell's convention."""

    def __init__(self, say: Callable[[str], None]) -> None:
        self.say = say
        self.received: int | None = None
        self._before: dict[int, Any] = {}
        self._hook_before: Callable[[Any], object] | None = None
        self._lost = False  # the stop was raised where Python ignores it (a weakref callback)
        self._asking = False  # a question waits for its answer: nothing is under way

    def __enter__(self) -> Stops:
        if threading.current_thread() is threading.main_thread():
            for number in STOPPING:
                self._before[number] = signal.signal(number, self._handle)
            self._hook_before = sys.unraisablehook
            sys.unraisablehook = self._unraisable
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        for number, before in self._before.items():
            signal.signal(number, before)
        self._before.clear()
        if self._hook_before is not None:
            sys.unraisablehook = self._hook_before
            self._hook_before = None

    @contextlib.contextmanager
    def asking(self) -> Iterator[None]:
        """While a question waits for its answer, a first signal stops without a word of
        calls under way (none is): the asker says what it means."""
        self._asking = True
        try:
            yield
        finally:
            self._asking = False

    @property
    def active(self) -> bool:
        """Whether the signals are this object's to handle now (entered on the main thread)."""
        return bool(self._before)

    @property
    def name(self) -> str:
        """The first signal's name (`SIGTERM`; Ctrl-C for SIGINT)."""
        if self.received is None or self.received == signal.SIGINT:
            return "Ctrl-C"
        return signal.Signals(self.received).name

    @property
    def exit_code(self) -> int:
        return 128 + (self.received or signal.SIGINT)

    def _unraisable(self, unraisable: Any) -> None:
        """A stop raised where Python only prints it (a finalizer, a weakref callback) is
        raised again at once, where the run is."""
        main = threading.main_thread().ident
        if isinstance(unraisable.exc_value, KeyboardInterrupt) and main and self.received:
            self._lost = True  # sent again once this hook has returned (raised here, ignored)
            again = threading.Timer(0.05, signal.pthread_kill, (main, self.received))
            again.daemon = True
            again.start()
        elif self._hook_before is not None:
            self._hook_before(unraisable)

    def _handle(self, number: int, frame: FrameType | None) -> None:
        if self._lost:
            self._lost = False
            raise KeyboardInterrupt
        if self.received is None:
            self.received = number
            if self._asking:
                raise KeyboardInterrupt
            self.say(
                f"{self.name}: stopping. Calls under way finish (they may be paid); then what "
                "was done is written."
            )
            raise KeyboardInterrupt
        again = "Ctrl-C" if number == signal.SIGINT else signal.Signals(number).name
        self.say(
            f"{again} again: stopping already; what was done is being written, and the "
            "command ends once it is."
        )
