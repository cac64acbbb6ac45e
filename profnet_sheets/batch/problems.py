"""What goes wrong with a table file: BatchInputError, and a polars error's first line."""

from __future__ import annotations

from pathlib import Path

from profnet_sheets.errors import ProfnetError


class BatchInputError(ProfnetError, ValueError):
    """A table cannot be read or written: unknown kind, missing file, unreadable content.

    Also a ``ValueError``, so code that validates input generically catches it.
    """

    def __init__(self, message: str, *, path: str | Path | None = None) -> None:
        super().__init__(message)
        self.path = None if path is None else Path(path)


def first_line(error: BaseException) -> str:
    """The first line of an error's text (polars adds hints below it)."""
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__
