"""polars dtypes derived from the spec's resources (one source of truth for column types)."""

from __future__ import annotations

import polars as pl

from profnet_sheets.spec.schema import ArrayOf, ObjectOf, Scalar, Shape

_SCALARS: dict[str, pl.DataType] = {
    "string": pl.String(),
    "integer": pl.Int64(),
    "number": pl.Float64(),
    "boolean": pl.Boolean(),
}


def dtype_of(shape: Shape) -> pl.DataType:
    """The polars type of a JSON shape: Int64 for counts and years, List(String) for lists of
    strings, nested List(Struct) for experience, posts and the like."""
    if isinstance(shape, Scalar):
        return _SCALARS[shape.kind]
    if isinstance(shape, ArrayOf):
        return pl.List(dtype_of(shape.items))
    if shape.open or not shape.fields:
        return pl.String()  # an open object (an echo of filters) is kept as JSON text
    return pl.Struct({field.name: dtype_of(field.shape) for field in shape.fields})


TIMESTAMP: pl.DataType = pl.Datetime("us", "UTC")


def is_timestamp(shape: Shape) -> bool:
    """A `<timestamp>` of the spec (an ISO 8601 string in UTC)."""
    return isinstance(shape, Scalar) and shape.format == "date-time"


def column_dtype(shape: Shape) -> pl.DataType:
    """The polars type of a column holding a field: `dtype_of`, but a timestamp is a
    Datetime in UTC (a date in Excel, a timestamp in Parquet); inside lists and records it
    stays the service's text."""
    return TIMESTAMP if is_timestamp(shape) else dtype_of(shape)


def schema_of(
    shape: ObjectOf, names: dict[str, str] | None = None, only: list[str] | None = None
) -> pl.Schema:
    """Column name -> dtype for the fields of an object shape (all, or `only` these), each
    named `names[field]` (default: the field's name)."""
    fields = only if only is not None else list(shape.field_names)
    columns = names or {}
    return pl.Schema(
        {columns.get(name, name): column_dtype(shape.field(name).shape) for name in fields}
    )
