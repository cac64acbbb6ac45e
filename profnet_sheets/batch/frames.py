"""Tables in and out of enrich(): polars as it is, pandas converted in and given back as pandas."""

from __future__ import annotations

import datetime as dt
import decimal
import numbers
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
        names = [str(name) for name in frame.columns]
        twice = sorted({name for name in names if names.count(name) > 1})
        if twice:
            from profnet_sheets.errors import ArgumentError
            from profnet_sheets.redact import shown

            raise ArgumentError(
                f"{taker}: the table has more than one column named "
                f"{', '.join(shown(name) for name in twice)}: give each column a name of its "
                "own (df.columns = [...]), then run again"
            )
        mixed = [name for name in frame.columns if _holds_text_and_more(frame[name])]
        plain = frame.drop(columns=mixed) if mixed else frame
        try:
            converted = pl.from_pandas(plain)
        except ImportError:  # pandas' string columns want pyarrow; go column by column
            converted = pl.DataFrame(
                {str(name): _column_values(plain[name]) for name in plain.columns}, strict=False
            )
        if not mixed:
            return converted
        texts = {str(name): pl.Series(str(name), _texts(frame[name]), pl.String) for name in mixed}
        return pl.DataFrame(
            [
                texts[str(name)] if str(name) in texts else converted[str(name)]
                for name in frame.columns
            ]
        )
    hint = ""
    if hasattr(frame, "to_frame"):  # a Series, polars' or pandas'
        hint = ": a Series becomes one with .to_frame()"
    raise TypeError(f"{taker} takes a polars or pandas DataFrame, not {type(frame).__name__}{hint}")


def _holds_text_and_more(column: Any) -> bool:
    """Whether a pandas column of Python objects mixes text with numbers, booleans, dates or
    bytes (what `read_excel` gives for a column of ids with a word among them): polars holds
    one type a column, and would refuse it or read some of its values as missing."""
    if column.dtype != object:
        return False
    from pandas.api.types import infer_dtype

    return infer_dtype(column, skipna=True) in ("mixed", "mixed-integer")


def _texts(column: Any) -> list[str | None]:
    """Each value of a mixed column as the text a spreadsheet cell would show: numbers as
    their digits (`1035.0` -> `1035`), booleans TRUE/FALSE, dates in ISO form, bytes decoded
    as UTF-8; missing values None."""
    return [None if value is None else _text(value) for value in _column_values(column)]


def _text(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, bool) or getattr(getattr(value, "dtype", None), "kind", "") == "b":
        return "TRUE" if value else "FALSE"  # numpy's booleans too
    if isinstance(value, numbers.Integral):
        return str(int(value))
    if isinstance(value, numbers.Real | decimal.Decimal):
        number = float(value)  # as a cell shows it: 15 significant digits
        return str(int(number)) if number.is_integer() else format(number, ".15g")
    if isinstance(value, bytes):
        return value.decode("utf-8", errors="replace")
    if isinstance(value, dt.date | dt.time):
        return value.isoformat()
    return str(value)


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
