"""Background work for the forms: one task at a time in a thread, Cancel, one clear message."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Any

from profnet_sheets.errors import ProfnetError
from profnet_sheets.widgets.tables import Tone, message


class Cancelled(KeyboardInterrupt):
    """The user pressed Cancel (a KeyboardInterrupt, so that enrich keeps what is done)."""


class Feedback:
    """The form's status line and error line (HTML widgets; safe to set from a thread)."""

    def __init__(self) -> None:
        import ipywidgets as w

        self.status_widget: Any = w.HTML()
        self.status_widget.add_class("profnet-status")
        self.error_widget: Any = w.HTML()
        self.error_widget.add_class("profnet-error-line")
        self.status_text = ""
        self.error_text = ""
        self.final = False  # the status says how the action ended: an error leaves it

    def status(self, text: str, tone: Tone = "info", *, final: bool = False) -> None:
        self.status_text = text
        self.final = final
        self.status_widget.value = message(text, tone)

    def error(self, text: str) -> None:
        self.error_text = text
        self.error_widget.value = message(text, "error")

    def attempt(self, action: Callable[[], object]) -> None:
        """Do a quick action here and now (no thread); an error becomes the form's message."""
        self.error("")
        try:
            action()
        except Exception as error:
            self.error(error_message(error))


def error_message(error: BaseException) -> str:
    """One clear message for an error: ours say what to do next; others say what they are."""
    if isinstance(error, ProfnetError | ValueError):
        return str(error)
    return f"Unexpected error ({type(error).__name__}): {error}"


class Runner:
    """Runs one task at a time in a background thread (asyncio tasks stop with the cell under
    ipykernel 7; threads go on). Its buttons are disabled meanwhile and Cancel enabled; an
    error becomes one message in the form; `join()` waits for the task (tests, scripts)."""

    def __init__(
        self,
        feedback: Feedback,
        buttons: Sequence[Any] = (),
        cancel_button: Any = None,
        on_idle: Callable[[], None] | None = None,
    ) -> None:
        self.feedback = feedback
        self.buttons = list(buttons)
        self.cancel_button = cancel_button
        self.on_idle = on_idle  # called when a task ends (to set what depends on its outcome)
        self.thread: threading.Thread | None = None
        self.busy_text = (
            "Already running: wait for it to end"
            + (" or press Cancel" if cancel_button is not None else "")
            + "; nothing new was started."
        )
        self._cancel = threading.Event()
        self._lock = threading.Lock()
        if cancel_button is not None:
            cancel_button.disabled = True
            cancel_button.on_click(lambda _: self.cancel())

    @property
    def running(self) -> bool:
        return self.thread is not None and self.thread.is_alive()

    def start(self, task: Callable[[], None]) -> bool:
        """Run `task` in the background; False (nothing done but a message) while another
        runs."""
        with self._lock:
            if self.running:
                self.feedback.error(self.busy_text)
                return False
            self._cancel.clear()
            self.feedback.error("")
            self.feedback.final = False
            self._enable(False)
            self.thread = threading.Thread(
                target=self._run, args=(task,), daemon=True, name="profnet-form"
            )
            self.thread.start()
            return True

    def _enable(self, idle: bool) -> None:
        for button in self.buttons:
            button.disabled = not idle
        if self.cancel_button is not None:
            self.cancel_button.disabled = idle
        if idle and self.on_idle is not None:
            self.on_idle()

    def _run(self, task: Callable[[], None]) -> None:
        try:
            task()
        except Cancelled:
            self.feedback.status("Cancelled.")
        except Exception as error:
            if not self.feedback.final:  # it said what was under way: the error says the rest
                self.feedback.status("")
            self.feedback.error(error_message(error))
        finally:
            if self.feedback.error_text == self.busy_text:  # a refusal told while it ran
                self.feedback.error("")
            self._enable(True)

    def cancel(self) -> None:
        """Ask the running task to stop at its next checkpoint."""
        if self.running:
            self._cancel.set()
            self.feedback.status("Cancelling…")

    @property
    def cancelled(self) -> bool:
        return self._cancel.is_set()

    def check(self) -> None:
        """A checkpoint: raise Cancelled when Cancel was pressed."""
        if self._cancel.is_set():
            raise Cancelled

    def sleep(self, seconds: float) -> None:
        """Wait (a poll's delay), ending early with Cancelled when Cancel is pressed."""
        if self._cancel.wait(seconds):
            raise Cancelled

    def join(self, timeout: float | None = None) -> None:
        """Wait for the running task, if any."""
        thread = self.thread
        if thread is not None:
            thread.join(timeout)
