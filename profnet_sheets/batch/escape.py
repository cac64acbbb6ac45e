"""Escaping against formula injection (OWASP "CSV injection"): a `'` before what could run."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Final

import polars as pl

from profnet_sheets.batch.problems import BatchInputError

if TYPE_CHECKING:
    from polars._typing import PolarsDataType

__all__ = ["DANGEROUS", "escape_exprs", "escape_formula", "escape_frame"]

# A cell starting with one of these may run as a formula when a spreadsheet opens the file.
DANGEROUS: Final = ("=", "+", "-", "@", "\t", "\r", "\n", "\0")
_DANGEROUS_PATTERN: Final = r"^[=+\-@\t\r\n\x00]"


def escape_formula(value: str) -> str:
    """``value`` with a leading ``'`` when a spreadsheet could read it as a formula (OWASP).

    Strings starting with ``=``, ``+``, ``-``, ``@``, tab, CR, LF or NUL get the quote; others
    come back unchanged, so escaping twice is escaping once. Numbers stored as *strings* are
    escaped too (``"-5"`` becomes ``"'-5"``): that is the accepted OWASP trade-off; numeric
    columns (Int64, Float64) are never touched.

    >>> escape_formula("=HYPERLINK(\\"http://x\\")")
    '\\'=HYPERLINK("http://x")'
    >>> escape_formula("Acme")
    'Acme'
    """
    return "'" + value if value.startswith(DANGEROUS) else value


def escape_frame(frame: pl.DataFrame, columns: Iterable[str] | None = None) -> pl.DataFrame:
    """``frame`` with :func:`escape_formula` applied to every string, nested ones included.

    Covers String (and Categorical/Enum, which become String) columns, strings inside List and
    Array columns and String fields of Struct columns at any depth (``List(Struct)`` of
    experience items, for example). ``columns`` limits it to those columns; columns without
    strings are left as they are. Nulls stay null. Column names are not changed (the writers
    escape the header row).
    """
    return frame.with_columns(escape_exprs(frame.schema, columns))


def escape_exprs(schema: pl.Schema, columns: Iterable[str] | None) -> list[pl.Expr]:
    if columns is None:
        names = list(schema.names())
    elif isinstance(columns, str):
        names = [columns]
    else:
        names = list(dict.fromkeys(columns))
    missing = [name for name in names if name not in schema]
    if missing:
        msg = f"no such column to escape: {', '.join(map(repr, missing))}"
        raise BatchInputError(msg)
    exprs = []
    for name in names:
        expr = _escape_expr(pl.col(name), schema[name])
        if expr is not None:
            exprs.append(expr.alias(name))
    return exprs


def _escape_string(expr: pl.Expr) -> pl.Expr:
    return pl.when(expr.str.contains(_DANGEROUS_PATTERN)).then(pl.lit("'") + expr).otherwise(expr)


def _escape_expr(expr: pl.Expr, dtype: PolarsDataType) -> pl.Expr | None:
    """The escaped ``expr``, or None when ``dtype`` holds no strings."""
    if isinstance(dtype, type):  # nested dtypes may name their inner type by its class
        dtype = dtype()
    if isinstance(dtype, pl.String):
        return _escape_string(expr)
    if isinstance(dtype, pl.Categorical | pl.Enum):
        return _escape_string(expr.cast(pl.String))
    if isinstance(dtype, pl.List):
        inner = _escape_expr(pl.element(), dtype.inner)
        return None if inner is None else expr.list.eval(inner)
    if isinstance(dtype, pl.Array):
        inner = _escape_expr(pl.element(), dtype.inner)
        return None if inner is None else expr.arr.eval(inner)
    if isinstance(dtype, pl.Struct):
        fields = []
        for field in dtype.fields:
            escaped = _escape_expr(pl.field(field.name), field.dtype)
            if escaped is not None:
                fields.append(escaped.alias(field.name))
        return expr.struct.with_fields(fields) if fields else None
    return None
