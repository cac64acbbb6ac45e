"""Words for users: counts with the right plural, commands as the user runs them."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Final


def canonical_name(name: str) -> str:
    """A field's or a kind's name as a user may write it, as the spec writes it: `Company
    Name`, `company-name` -> `company_name`."""
    return "_".join(name.strip().lower().replace("-", " ").split())


def counted(number: int, one: str, many: str | None = None) -> str:
    """`1 credit`, `2 credits`, `1,200 leads` (`many`: the plural, when not `one` + s)."""
    return f"{number:,} " + (one if number == 1 else many or one + "s")


def are(number: int) -> str:
    """The verb after a count: `the 1 done is`, `the 2 done are`."""
    return "is" if number == 1 else "are"


def spend_said(spent: int, maybe: int = 0, verb: str = "") -> str:
    """`550 credits` (`spent`), `550 credits (+600 possibly)`: what was charged for sure, and apart
    what may have been (`maybe`, counted in `spent`: calls whose answers were lost after they
    went out); `verb` after the sure part (`550 credits spent (+600 possibly)`)."""
    said = counted(spent - maybe, "credit") + (f" {verb}" if verb else "")
    return f"{said} (+{maybe:,} possibly)" if maybe else said


# How a user runs the command line: from a clone (a source checkout, beside its
# pyproject.toml) through uv; installed from a wheel, by its name alone.
COMMAND: Final = (
    "uv run " if (Path(__file__).resolve().parents[1] / "pyproject.toml").exists() else ""
) + "profnet-sheets"


def command(arguments: str) -> str:
    """A command as the user runs it here: `uv run profnet-sheets config --api-key ...`."""
    return f"{COMMAND} {arguments}"


def looks_like(name: str, known: Iterable[str]) -> str | None:
    """The one of `known` that `name` looks like (a misspelling of it), or None."""
    import difflib  # only for a name that is not known: not at every import

    like = difflib.get_close_matches(name, sorted(known), n=1, cutoff=0.75)
    return like[0] if like else None
