"""Tables made flat for CSV and XLSX: lists as `a; b`, records as JSON, strings escaped for CSV."""

from __future__ import annotations

from collections.abc import Collection
from typing import Any, TypeVar

import polars as pl

from profnet_sheets.batch.escape import escape_exprs, escape_formula

__all__ = ["LIST_SEPARATOR", "flatten"]

LIST_SEPARATOR = "; "  # as the Excel formulas join a list of values (excel.cells.cell)
_Frame = TypeVar("_Frame", pl.DataFrame, pl.LazyFrame)


def _is_nested(dtype: pl.DataType) -> bool:
    return isinstance(dtype, pl.List | pl.Array | pl.Struct)


def _json_text(name: str, dtype: pl.DataType) -> pl.Expr:
    """A nested column as JSON text (null stays null), for formats that hold only scalars."""
    column = pl.col(name)
    if isinstance(dtype, pl.Struct):
        encoded = column.struct.json_encode()
    else:  # a list: wrap it in a one-field struct to encode it, then unwrap the text
        encoded = (
            pl.struct(column.alias("v"))
            .struct.json_encode()
            .str.strip_prefix('{"v":')
            .str.strip_suffix("}")
        )
    return pl.when(column.is_not_null()).then(encoded).alias(name)


def _is_scalar(dtype: Any) -> bool:
    if isinstance(dtype, type):
        dtype = dtype()
    return not _is_nested(dtype) and dtype != pl.Object


def _joined(name: str, dtype: pl.DataType) -> pl.Expr | None:
    """A list of values as `a; b` (nulls left out), as the Excel formulas show it; None for
    lists of records (they stay JSON)."""
    column = pl.col(name)
    if isinstance(dtype, pl.Array):
        column, dtype = column.arr.to_list(), pl.List(dtype.inner)
    if not (isinstance(dtype, pl.List) and _is_scalar(dtype.inner)):
        return None
    return column.list.eval(pl.element().cast(pl.String)).list.join(LIST_SEPARATOR).alias(name)


def _timestamps(name: str, dtype: pl.DataType, *, csv: bool) -> pl.Expr | None:
    """A timestamp with a zone: in CSV its UTC text as the service writes it
    (`2026-11-03T14:22:05Z`); in XLSX its UTC time (Excel dates have no zone)."""
    if not (isinstance(dtype, pl.Datetime) and dtype.time_zone is not None):
        return None
    utc = pl.col(name).dt.convert_time_zone("UTC")
    if csv:
        return utc.dt.to_string("%Y-%m-%dT%H:%M:%S%.fZ").alias(name)
    return utc.dt.replace_time_zone(None).alias(name)


def flatten(frame: _Frame, *, escape: bool, csv: bool, kept: Collection[str] = ()) -> _Frame:
    """``frame`` as CSV or XLSX cells: lists of values joined `a; b`, records and lists of
    records as JSON, categoricals as text; timestamps with a zone in UTC (text with `Z` in
    CSV). ``escape`` (CSV: the one format where text can run as a formula when opened):
    every string, nested ones and the header included, through :func:`escape_formula`, except
    in the columns ``kept`` (the user's own, given back as they were read).

    For CSV, durations become ISO 8601 text (``P1DT6H``): the CSV writer has no format for them.
    Binary data becomes its hex digits (``0a1b``), as text.
    """
    schema = frame.collect_schema()
    escaped = [name for name in schema.names() if name not in kept] if escape else []
    if escaped:
        frame = frame.with_columns(escape_exprs(schema, escaped))
        schema = frame.collect_schema()
    changed: list[pl.Expr] = []
    for name, dtype in schema.items():
        if _is_nested(dtype):
            joined = _joined(name, dtype)
            changed.append(_json_text(name, dtype) if joined is None else joined)
        elif isinstance(dtype, pl.Categorical | pl.Enum):
            changed.append(pl.col(name).cast(pl.String))
        elif isinstance(dtype, pl.Binary):  # no cell holds bytes: their hex digits, as text
            changed.append(pl.col(name).bin.encode("hex"))
        elif csv and isinstance(dtype, pl.Duration):
            changed.append(pl.col(name).dt.to_string("iso"))
        elif (stamp := _timestamps(name, dtype, csv=csv)) is not None:
            changed.append(stamp)
    if changed:
        frame = frame.with_columns(changed)
    if escaped:
        renamed = {name: escape_formula(name) for name in escaped}
        frame = frame.rename({old: new for old, new in renamed.items() if old != new})
    return frame
