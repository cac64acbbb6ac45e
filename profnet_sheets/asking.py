"""A yes-or-no question in a terminal that Ctrl-C ends at once, whichever thread the signal
reached (polars' threads may take it while the main thread waits for a line)."""

from __future__ import annotations

import os
import select
import sys

import click

from profnet_sheets.stops import Stops

_YES, _NO = ("y", "yes"), ("n", "no", "")
_GLANCE = 0.2  # seconds between two looks at a signal taken by another thread


def confirmed(question: str, stops: Stops) -> bool:
    """Whether `question` is answered yes (no by default, asked again until understood; the
    end of input is a no). A first Ctrl-C while it waits raises KeyboardInterrupt, said by the
    caller: nothing is under way to finish."""
    with stops.asking():
        while True:
            click.echo(f"{question} [y/N]: ", nl=False, err=True)
            line = _typed_line()
            if not line:  # the end of input: no answer can come
                click.echo(err=True)
                return False
            answer = line.strip().lower()
            if answer in _YES or answer in _NO:
                return answer in _YES
            click.echo("Error: invalid input", err=True)


def _typed_line() -> str:
    """The next line typed, waited for in short glances: between two, the main thread runs
    the signal handlers (a read blocked in the kernel would not wake for a signal that
    another thread took)."""
    if os.name != "nt":  # a console's input cannot be selected on Windows
        while not select.select([sys.stdin], [], [], _GLANCE)[0]:
            pass
    return sys.stdin.readline()
