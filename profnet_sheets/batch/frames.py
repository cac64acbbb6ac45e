"""Tables in and out of enrich(): polars as it is, pandas converted in and given back as pandas."""

from __future__ import annotations

from typing import Any

import polars as pl

Frame = pl.DataFrame | pl.LazyFrame


def _is_pandas(frame: Any) -> bool:
    """A pandas DataFrame (not a Series: a table is wanted)."""
    return type(frame).__module__.startswith("pandas") and hasattr(frame, "columns")


def as_polars(frame: Any, taker: str = "enrich") -> Frame:
    """A polars DataFrame or LazyFrame as it is; a pandas DataFrame converted (no pyarrow
    needed); anything else a TypeError (saying what `taker` takes)."""
    if isinstance(frame, pl.DataFrame | pl.LazyFrame):
        return frame
    if _is_pandas(frame):
        try:
            return pl.from_pandas(frame)
        except ImportError:  # pandas' string columns want pyarrow; go column by column
            return pl.DataFrame(
                {str(name): _column_values(frame[name]) for name in frame.columns}, strict=False
            )
    hint = ""
    if hasattr(frame, "to_frame"):  # a Series, polars' or pandas'
        hint = ": a Series becomes one with .to_frame()"
    raise TypeError(f"{taker} takes a polars or pandas DataFrame, not {type(frame).__name__}{hint}")


def _column_values(column: Any) -> list[Any]:
    """A pandas column's values, its missing ones None (pandas' string columns give NaN for
    them, which would be the text `NaN` in a column of text)."""
    return [
        None if missing else value
        for value, missing in zip(column.tolist(), column.isna(), strict=True)
    ]


def like_input(original: Any, result: pl.DataFrame, added: list[str]) -> Any:
    """`result` as the kind of table `original` was: a polars DataFrame as it is; for a pandas
    DataFrame, the original itself (its columns, dtypes and index untouched) with the `added`
    columns put beside it."""
    if not _is_pandas(original):
        return result
    import pandas as pd

    out = original.copy()
    for name in added:
        out[name] = pd.Series(_pandas_values(result[name]), index=original.index, name=name)
    return out


def _pandas_values(series: pl.Series) -> Any:
    """A polars column as pandas holds it: nullable integers and booleans, UTC timestamps,
    text as pandas' string dtype, lists and records as Python lists and dicts (no pyarrow
    needed)."""
    import pandas as pd

    values = series.to_list()
    dtype = series.dtype
    if dtype.is_integer():
        return pd.array(values, dtype="Int64")
    if isinstance(dtype, pl.Boolean):
        return pd.array(values, dtype="boolean")
    if dtype.is_float():
        return pd.array(values, dtype="Float64")
    if isinstance(dtype, pl.Datetime):
        return pd.to_datetime(values, utc=dtype.time_zone is not None)
    if dtype.is_nested():
        return pd.array(values, dtype=object)
    return values  # text: pandas' own string dtype
