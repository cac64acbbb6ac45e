"""The types of a CSV's text columns: numbers where every value is one exactly, text otherwise."""

from __future__ import annotations

from typing import Final, TypeVar

import polars as pl

__all__ = ["number_columns", "typed"]

# A whole number as a number is written: no `+`, no leading zero, no spaces or separators.
_INTEGER: Final = r"^-?(?:0|[1-9][0-9]*)$"
# A decimal number: the same integer part, a fraction and/or an exponent.
_DECIMAL: Final = r"^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]{1,3})?$"
_EXACT_DIGITS: Final = 15  # a double holds every decimal of up to 15 significant digits
_Frame = TypeVar("_Frame", pl.DataFrame, pl.LazyFrame)


def _checks(name: str) -> list[pl.Expr]:
    text = pl.col(name)
    present = text.is_not_null()
    digits = (
        text.str.replace(r"[eE].*$", "")
        .str.replace_all(r"[-.]", "")
        .str.strip_chars_start("0")
        .str.len_chars()
    )
    return [
        (present.sum() > 0).alias(f"{name}\0any"),
        (text.str.contains(_INTEGER) | ~present).all().alias(f"{name}\0int"),
        (text.cast(pl.Int64, strict=False).is_not_null() | ~present).all().alias(f"{name}\0fits"),
        (text.str.contains(_DECIMAL) | ~present).all().alias(f"{name}\0dec"),
        ((digits <= _EXACT_DIGITS) | ~present).all().alias(f"{name}\0exact"),
    ]


def number_columns(frame: pl.DataFrame | pl.LazyFrame) -> dict[str, pl.DataType]:
    """Column -> Int64 or Float64 for the text columns whose every value is a number written
    plainly (`-5`, `120`, `1.5`, `2e3`), read back to the same value: no leading zeros
    (`01234`), no `+` (`+1 555 0100`), no spaces or thousands separators, integers within
    Int64, decimals of at most 15 significant digits. The rest stays text."""
    schema = frame.collect_schema()
    names = [name for name, dtype in schema.items() if dtype == pl.String]
    if not names:
        return {}
    query = frame.select([check for name in names for check in _checks(name)])
    if isinstance(query, pl.LazyFrame):
        row = query.collect(engine="streaming").row(0, named=True)
    else:
        row = query.row(0, named=True)
    found: dict[str, pl.DataType] = {}
    for name in names:
        if not row[f"{name}\0any"]:
            continue
        if row[f"{name}\0int"] and row[f"{name}\0fits"]:
            found[name] = pl.Int64()
        elif row[f"{name}\0dec"] and row[f"{name}\0exact"]:
            found[name] = pl.Float64()
    return found


def typed(frame: _Frame) -> _Frame:
    """`frame` (all text, as read) with its number columns as numbers (`number_columns`)."""
    numbers = number_columns(frame)
    if not numbers:
        return frame
    return frame.with_columns(pl.col(name).cast(dtype) for name, dtype in numbers.items())
