"""The `profnet-sheets` command's entry: the command line, or which extra it needs."""

from __future__ import annotations

import signal
import sys

from profnet_sheets.extras import missing_extra


def main() -> None:
    """Run the command line; without its extra (a core install), say which one to install. A
    Ctrl-C while it starts (before a command has sent anything) ends it in one line, 130."""
    try:
        from profnet_sheets.cli import main as command_line
    except ModuleNotFoundError as error:
        said = missing_extra(error, "the profnet-sheets command")
        if said is None:
            raise
        sys.exit(f"profnet-sheets: {said}")
    except KeyboardInterrupt:
        print("Interrupted (Ctrl-C) while starting: nothing was sent.", file=sys.stderr)
        sys.exit(128 + signal.SIGINT)
    command_line()
