"""XLSX files: read with their cells' types; written as text that never runs, dates, widths."""

from __future__ import annotations

import contextlib
import logging
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import date, datetime, time
from pathlib import Path
from typing import Any, Final

import polars as pl

from profnet_sheets.batch.csvread import kind_of_file
from profnet_sheets.batch.escape import DANGEROUS
from profnet_sheets.batch.formulas import sheets_with_formulas
from profnet_sheets.batch.problems import BatchInputError, first_line

__all__ = [
    "CopiedSheet",
    "Workbook",
    "fitted_widths",
    "header_row",
    "read_workbook",
    "read_xlsx",
    "sheet_names",
    "write_xlsx",
    "written_header",
]

# Integers beyond this lose digits as Excel numbers (doubles): they are written as text.
_EXACT_INT: Final = 2**53
_TEMPORAL_WIDTH: Final = 19  # 2026-11-03 14:22:05
_MAX_WIDTH: Final = 60
_TITLE_ROWS_AT_MOST: Final = 10  # rows above a table looked at for its header
# The enriched sheet's cells are read as typed (5 reads, a Python object each) up to this many:
# a bigger table's mixed columns are written as the text Excel shows, as they are read.
_OWN_CELLS_AT_MOST: Final = 500_000
_UNNAMED: Final = "__UNNAMED__"  # fastexcel's name for a column whose header cell is empty


@contextlib.contextmanager
def _quiet(logger_name: str) -> Iterator[None]:
    logger = logging.getLogger(logger_name)
    level = logger.level
    logger.setLevel(logging.ERROR)
    try:
        yield
    finally:
        logger.setLevel(level)


def read_xlsx(source: Path, sheet: str | int | None) -> pl.DataFrame:
    reader = _reader(source)
    name = _sheet_name(reader, source, sheet)
    try:
        # First the types the cells have (to tidy date text), then every cell as its text.
        # An all-empty column logs a warning while its type is guessed: expected here.
        header = len(_title_rows(reader, name))
        with _quiet("fastexcel"):
            typed = reader.load_sheet(name, header_row=header, schema_sample_rows=None)
        frame = reader.load_sheet(
            name, header_row=header, dtypes="string", schema_sample_rows=None
        ).to_polars()
        read = _typed(frame, typed.to_polars())
        return _long_numbers_shown(reader, name, header, read)
    except fastexcel_error() as error:
        msg = f"{source}: sheet {name!r} cannot be read ({first_line(error)})"
        raise BatchInputError(msg, path=source) from error


# Digits a number cell's text has when it may be one an Excel number no longer holds exactly.
_LONG_DIGITS: Final = r"^[+-]?[0-9]{16,}$"


def _long_numbers_shown(reader: Any, name: str, header: int, read: pl.DataFrame) -> pl.DataFrame:
    """`read` with each number cell of a text column (one mixing kinds) that is beyond what
    an Excel number holds exactly (2**53 and up: its last digits already gone in the file)
    as Excel shows it (`1.23457E+17`), which no id parameter takes, instead of digits that
    read as another id (`123456789012345696` for 123456789012345678): a text cell's digits
    are the user's own and stay. Only columns with such digits are read again."""
    long = [
        column
        for column in read.columns
        if read[column].dtype == pl.String and read[column].str.contains(_LONG_DIGITS).any()
    ]
    if not long:
        return read
    reads = {
        dtype: reader.load_sheet(
            name, header_row=header, schema_sample_rows=None, use_columns=long, dtypes=dtype
        ).to_polars()
        for dtype in ("float", "boolean")  # text reads as true/false only when it says so
    }
    shown = []
    for column in long:
        number, truth = reads["float"][column], reads["boolean"][column]
        beyond = number.is_not_null() & truth.is_not_null() & (number.abs() >= _EXACT_INT)
        beyond_only = pl.select(pl.when(beyond).then(number)).to_series()
        excel = beyond_only.map_elements(lambda value: f"{value:.6G}", return_dtype=pl.String)
        shown.append(pl.select(pl.when(beyond).then(excel).otherwise(read[column])).to_series())
    return read.with_columns(
        series.alias(column) for series, column in zip(shown, long, strict=True)
    )


def _title_rows(reader: Any, name: str) -> tuple[tuple[str | None, ...], ...]:
    """The rows above the table's header, as text: none, unless the sheet opens with one or
    two titles (rows of one cell: a title, a merged banner, a date), then an empty row, then a
    row of two names or more that look like column names (two distinct words at least, one
    may repeat; no number, domain, URL or e-mail address): that row is the header. A row of
    column groups (names over some of the next row's columns only, as merged cells leave them)
    over a row of column names, over data with a number, domain, URL or e-mail in its first
    row, is read as a title too, under titles of one cell and empty rows or none.
    A column of data over a gap, or a short header over two columns of data, leaves the first
    row the header."""
    with _quiet("fastexcel"):
        top = reader.load_sheet(
            name,
            header_row=None,
            skip_rows=0,
            n_rows=_TITLE_ROWS_AT_MOST + 1,
            dtypes="string",
            schema_sample_rows=None,
        ).to_polars()
    rows = top.rows()
    for start in range(min(_TITLES_AT_MOST + 2, len(rows))):  # titles of one cell, gaps
        if start and sum(bool(cell and cell.strip()) for cell in rows[start - 1]) > 1:
            break
        if _groups_over_header(rows[start:]):
            return tuple(rows[: start + 1])
    for index, row in enumerate(rows):
        filled = [cell.strip() for cell in row if cell is not None and cell.strip()]
        if len(filled) < 2:
            continue
        titles = [above for above in rows[:index] if any(cell and cell.strip() for cell in above)]
        gap = index > 0 and not any(cell and cell.strip() for cell in rows[index - 1])
        names = len(set(filled)) >= 2 and all(map(_is_a_name, filled))  # a name may repeat
        return tuple(rows[:index]) if gap and names and len(titles) <= _TITLES_AT_MOST else ()
    return ()


def _groups_over_header(rows: list[tuple[str | None, ...]]) -> bool:
    """Whether the first row names two groups or more of the second's columns (`Account`
    over `Name` and `Website`, `Owner` over `First` and `Last`: a merged cell's value in its
    first column only: each group but the last spans an empty cell after it), the second
    names every column, and the third holds data (some cell no column's name)."""
    if len(rows) < 3:
        return False
    groups, header, data = (
        [i for i, cell in enumerate(row) if cell and cell.strip()] for row in rows[:3]
    )
    names = [(rows[1][i] or "").strip() for i in header]
    spans = all(group + 1 not in groups and group + 1 in header for group in groups[:-1])
    return (
        2 <= len(groups) < len(header)  # one cell alone over a header is a title: a gap says it
        and spans
        and set(groups) <= set(header)
        and len(set(names)) == len(names)
        and all(_is_a_name((rows[0][i] or "").strip()) for i in groups)
        and all(map(_is_a_name, names))
        and any(not _is_a_name((rows[2][i] or "").strip()) for i in data)
    )


_TITLES_AT_MOST: Final = 2  # a title and a subtitle over a table
_KEY_LIKE: Final = re.compile(r"@|://|^www\.|^[\w-]+(\.[\w-]+)+(/|$)", re.IGNORECASE)


def _is_a_name(text: str) -> bool:
    """Whether a cell reads as a column's name: not a number, a domain, a URL or an e-mail."""
    return not _is_number(text) and not _KEY_LIKE.search(text)


def header_row(source: Path, sheet: str | int | None) -> int:
    """The row of the sheet's table header, from 0 (rows above it are titles: `_title_rows`)."""
    reader = _reader(source)
    return len(_title_rows(reader, _sheet_name(reader, source, sheet)))


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def written_header(names: list[str]) -> dict[str, str]:
    """The header a table read from a workbook is written with: a column whose header cell
    was empty (fastexcel names it `__UNNAMED__1`) written with an empty name again."""
    return {name: "" for name in names if name.startswith(_UNNAMED)}


def fastexcel_error() -> type[Exception]:
    import fastexcel

    error: type[Exception] = fastexcel.FastExcelError
    return error


_ZIP: Final = b"PK\x03\x04"  # an .xlsx workbook is a ZIP archive
_HEAD_BYTES: Final = 4096


def _reader(source: Path) -> Any:
    import fastexcel

    try:
        return fastexcel.read_excel(source)
    except fastexcel.FastExcelError as error:
        msg = f"{source}: not a readable Excel workbook ({first_line(error)})"
        with contextlib.suppress(OSError):
            with source.open("rb") as file:
                head = file.read(_HEAD_BYTES)
            if not head.startswith(_ZIP):  # no workbook at all: what it is, said plainly
                what = kind_of_file(head) or "text (a CSV file renamed, perhaps)"
                msg = (
                    f"{source}: is {what}, not an Excel workbook; give the file the extension "
                    "of what it holds (.csv for text)"
                )
        raise BatchInputError(msg, path=source) from error


def sheet_names(source: Path, sheet: str | int | None) -> tuple[str, list[str]]:
    """The name of the sheet `sheet` means in the workbook `source`, and every sheet's."""
    reader = _reader(source)
    return _sheet_name(reader, source, sheet), list(reader.sheet_names)


def _sheet_name(reader: Any, source: Path, sheet: str | int | None) -> str:
    """The name of the sheet `sheet` means: the first one shown (None; the first when every
    one is hidden), a 0-based position, a name."""
    names: list[str] = reader.sheet_names
    if sheet is None:
        with _quiet("fastexcel"):
            shown = (it for it in names if reader.load_sheet(it, n_rows=1).visible == "visible")
            return next(shown, names[0])
    if isinstance(sheet, int) and not isinstance(sheet, bool):
        if not 0 <= sheet < len(names):
            msg = (
                f"{source}: no sheet number {sheet}; sheets are numbered from 0 and it has "
                f"{len(names)}: {', '.join(map(repr, names))}"
            )
            raise BatchInputError(msg, path=source)
        return names[sheet]
    if isinstance(sheet, str) and sheet in names:
        return sheet
    msg = f"{source}: no sheet named {sheet!r}; its sheets: {', '.join(map(repr, names))}"
    raise BatchInputError(msg, path=source)


@dataclass(frozen=True)
class CopiedSheet:
    """A sheet of the input workbook copied as values: its rows (row 1 on) of cells from
    `first_column` on, each cell as its type (a number, a date or time, true/false, text,
    None when empty); `rows` None: the enriched sheet, `above` the title rows over its
    table's header (as text), written back above it, `own` its cells as typed (the user's
    columns are written back from them: a column mixing numbers and text is read as text)."""

    name: str
    rows: tuple[tuple[Any, ...], ...] | None
    first_column: int = 0
    hidden: bool = False
    above: tuple[tuple[str | None, ...], ...] = ()
    own: tuple[tuple[Any, ...], ...] = ()  # the enriched sheet's cells as typed, row 1 on


@dataclass(frozen=True)
class Workbook:
    """The sheets of the input workbook, in order, the enriched one among them; `dropped`:
    the sheets that could not be read (a chart sheet, say), named to the user; `formulas`:
    those whose formulas are written as their last values."""

    sheets: tuple[CopiedSheet, ...]
    dropped: tuple[str, ...] = ()
    formulas: tuple[str, ...] = ()

    @property
    def enriched(self) -> str:
        return next(sheet.name for sheet in self.sheets if sheet.rows is None)

    @property
    def copied(self) -> list[str]:
        return [sheet.name for sheet in self.sheets if sheet.rows is not None]


def read_workbook(source: Path, sheet: str | int | None) -> Workbook:
    """The workbook `source` around its sheet `sheet` (the one enriched): every other sheet's
    values, to write them back beside the enriched one (formulas as their last values;
    formatting, widths, merged cells, charts and comments are not kept)."""
    reader = _reader(source)
    enriched = _sheet_name(reader, source, sheet)
    sheets: list[CopiedSheet] = []
    dropped: list[str] = []
    for name in reader.sheet_names:
        if name == enriched:
            with _quiet("fastexcel"):
                above = _title_rows(reader, name)
                size = reader.load_sheet(name, header_row=None, n_rows=1)
                small = size.total_height * size.width <= _OWN_CELLS_AT_MOST
                own = (_copied(reader, name).rows or ()) if small else ()
            sheets.append(CopiedSheet(name, None, above=above, own=own))
            continue
        try:
            with _quiet("fastexcel"):
                copied = _copied(reader, name)
        except fastexcel_error():
            dropped.append(name)
            continue
        sheets.append(copied)
    kept = {copy.name for copy in sheets}
    formulas = tuple(name for name in sheets_with_formulas(source) if name in kept)
    return Workbook(tuple(sheets), tuple(dropped), formulas)


# What a cell is, told apart by reading the sheet once per type (fastexcel's `dtypes`, with
# its default coercion): text reads as a number only when it is written as one, never as a
# date or true/false; a date or time cell alone reads as a duration; a number reads as
# true/false (not zero) and, in Excel's range of dates, as a date.
_READS: Final = ("string", "float", "datetime", "duration", "boolean")


def _copied(reader: Any, name: str) -> CopiedSheet:
    """The sheet `name` as its cells, each with its own type (a column may mix them)."""
    loaded = {
        dtype: reader.load_sheet(
            name, header_row=None, skip_rows=0, schema_sample_rows=None, dtypes=dtype
        )
        for dtype in _READS
    }
    text = loaded["string"]
    first = min((column.absolute_index for column in text.selected_columns), default=0)
    frames = {dtype: sheet.to_polars() for dtype, sheet in loaded.items()}
    columns = [
        _cells(*(_within_python(frames[dtype].to_series(index)) for dtype in _READS))
        for index in range(frames["string"].width)
    ]
    rows = tuple(zip(*columns, strict=True)) if columns else ()
    return CopiedSheet(name, rows, first, text.visible != "visible")


def _within_python(read: pl.Series) -> pl.Series:
    """A column as read, its dates past Python's (a number of 2,958,466 or more read as a
    date, which it is not: year 10000 and on) as none."""
    if not isinstance(read.dtype, pl.Datetime):
        return read
    kept = pl.select(pl.when(read.dt.year().is_between(1, 9999)).then(read)).to_series()
    return kept.alias(read.name)


def _cells(
    text: pl.Series, number: pl.Series, when: pl.Series, span: pl.Series, flag: pl.Series
) -> list[Any]:
    """One column's cells, each as its type (see `_READS`)."""
    cells: list[Any] = []
    for shown, value, moment, duration, truth in zip(text, number, when, span, flag, strict=True):
        if shown is None:
            cells.append(None)
        elif duration is not None:
            cells.append(moment if moment is not None else shown)
        elif shown in ("true", "false") and value is not None and truth is not None:
            cells.append(truth)
        elif value is not None and truth is not None:
            whole = value == round(value) and abs(value) <= _EXACT_INT
            cells.append(int(value) if whole else value)
        else:
            cells.append(shown)
    return cells


def _typed(text: pl.DataFrame, cells: pl.DataFrame) -> pl.DataFrame:
    """Each column as its cells are: numbers as numbers (whole ones up to 2**53 as Int64),
    dates and times as such, true/false as booleans; a column mixing kinds (or text) as the
    text Excel shows (`1035`, not `1035.0`)."""
    columns = []
    for name in text.columns:
        cell = cells.get_column(name) if name in cells.columns else None
        dtype = None if cell is None else cell.dtype
        if (
            cell is None
            or dtype in (pl.String, pl.Null)
            or cell.null_count() != text[name].null_count()
        ):
            columns.append(text[name].cast(pl.String))
        elif dtype is not None and dtype.is_float() and _whole(cell):
            columns.append(cell.cast(pl.Int64))
        elif isinstance(dtype, pl.Datetime) and _midnights(cell):
            columns.append(cell.cast(pl.Date))  # a date cell, not a time of day
        else:
            columns.append(cell)
    return pl.DataFrame(columns)


def _midnights(column: pl.Series) -> bool:
    values = column.drop_nulls()
    return values.len() > 0 and bool((values.dt.truncate("1d") == values).all())


def _whole(column: pl.Series) -> bool:
    values = column.drop_nulls()
    return bool(((values == values.round(0)) & (values.abs() < _EXACT_INT)).all())


def write_xlsx(frame: pl.DataFrame, path: Path, around: Workbook | None = None) -> None:
    """``frame`` (flat already: see ``flat.flatten``) as a sheet: a bold, frozen header row
    with filters, then the rows; columns as wide as their text (up to a limit). Strings only
    ever as text: one that starts like a formula gets Excel's quote prefix (invisible, and the
    cell stays text when edited), never a visible `'`.

    The sheet is "Sheet1", alone; or, ``around`` given (the workbook ``frame`` was read
    from), it takes the name and place of its sheet, every other sheet copied beside it as
    values (see `read_workbook`)."""
    import xlsxwriter  # type: ignore[import-untyped]

    workbook = xlsxwriter.Workbook(
        str(path),
        {
            "strings_to_formulas": False,
            "strings_to_urls": False,
            "strings_to_numbers": False,
            "nan_inf_to_errors": True,
            "constant_memory": True,
        },
    )
    try:
        quoted = workbook.add_format({"quote_prefix": True})
        for copy in around.sheets if around is not None else (CopiedSheet("Sheet1", None),):
            sheet = workbook.add_worksheet(copy.name)
            if copy.rows is None:
                _write_table(workbook, sheet, frame, quoted, copy)
                sheet.activate()
            else:
                _write_values(workbook, sheet, copy, quoted)
                if copy.hidden:
                    sheet.hide()
    except BaseException:
        with contextlib.suppress(Exception):
            workbook.close()
        raise
    try:
        workbook.close()
    except xlsxwriter.exceptions.XlsxFileError as error:  # a disk full, a folder gone: its OSError
        cause = error.args[0] if error.args and isinstance(error.args[0], OSError) else None
        raise cause or OSError(str(error)) from None


def _write_table(
    workbook: Any, sheet: Any, frame: pl.DataFrame, quoted: Any, copy: CopiedSheet | None = None
) -> None:
    """The enriched table under the title rows of `copy` (as text): header (an input column's
    empty header cell left empty), widths, frozen header row, filters, then its cells: the
    user's columns from `copy`'s own cells, each as its type, when they line up with the
    frame's (else, and for the columns added, the frame's values)."""
    above = copy.above if copy is not None else ()
    header = workbook.add_format({"bold": True})
    header_quoted = workbook.add_format({"bold": True, "quote_prefix": True})
    for col, width in enumerate(fitted_widths(frame)):
        sheet.set_column(col, col, width)
    top = len(above)
    typed = _typed_writer(workbook, sheet, quoted)
    for row, cells in enumerate(copy.own[:top] if copy is not None and copy.own else above):
        for col, value in enumerate(cells):
            if value is not None:
                typed(row, col, value)  # a title's date stays a date
    unnamed = written_header(frame.columns)
    own = _own_rows(frame, copy, top) if copy is not None else None
    typed_header = copy.own[top] if copy is not None and own is not None else ()
    for col, column in enumerate(frame.columns):
        given = typed_header[col] if col < len(typed_header) else None
        repeated = given is not None and _renamed_repeat(str(given), column)
        name = str(given) if repeated else column  # a repeated name as the sheet has it
        if name not in unnamed:
            style = header_quoted if name.startswith(DANGEROUS) else header
            sheet.write_string(top, col, name, style)
    _write_cells(workbook, sheet, frame, quoted, first_row=top + 1, own=own)
    sheet.freeze_panes(top + 1, 0)
    if frame.width:
        sheet.autofilter(top, 0, top + max(frame.height, 1), frame.width - 1)


def _own_rows(
    frame: pl.DataFrame, copy: CopiedSheet, top: int
) -> tuple[tuple[Any, ...], ...] | None:
    """The input's own rows under its header, when its columns are the frame's first ones
    (the same names, an empty header cell being fastexcel's `__UNNAMED__`) and its rows the
    frame's; None otherwise."""
    if not copy.own or len(copy.own) <= top:
        return None
    names, rows = copy.own[top], copy.own[top + 1 :]
    width = len(names)
    if width > frame.width or len(rows) != frame.height:
        return None
    for name, column in zip(names, frame.columns[:width], strict=False):
        same = (
            column.startswith(_UNNAMED)
            if name is None
            else str(name) == column or _renamed_repeat(str(name), column)
        )
        if not same:
            return None
    return rows


def _renamed_repeat(name: str, column: str) -> bool:
    """Whether `column` is fastexcel's name for a header cell `name` that repeats an earlier
    one (`Website` read as `Website_1`)."""
    return column.startswith(name + "_") and column[len(name) + 1 :].isdigit()


def _write_cells(
    workbook: Any,
    sheet: Any,
    frame: pl.DataFrame,
    quoted: Any,
    first_row: int = 0,
    own: tuple[tuple[Any, ...], ...] | None = None,
) -> None:
    """Every non-null cell of ``frame``, from row ``first_row`` on; the first columns from
    the rows `own` instead (each cell as its type), as wide as they are."""
    writers = [_cell_writer(workbook, sheet, dtype, quoted) for dtype in frame.dtypes]
    typed = _typed_writer(workbook, sheet, quoted)
    width = len(own[0]) if own else 0
    for index, values in enumerate(frame.iter_rows()):
        row = first_row + index
        if own:
            for col, cell in enumerate(own[index]):
                if cell is not None:
                    typed(row, col, cell)
        for col, value in enumerate(values[width:], start=width):
            if value is not None:
                writers[col](row, col, value)


def _write_values(workbook: Any, sheet: Any, copy: CopiedSheet, quoted: Any) -> None:
    """A copied sheet's cells where they were, each written as its type."""
    typed = _typed_writer(workbook, sheet, quoted)
    for row, values in enumerate(copy.rows or ()):
        for col, value in enumerate(values, start=copy.first_column):
            if value is not None:
                typed(row, col, value)


def _typed_writer(workbook: Any, sheet: Any, quoted: Any) -> Callable[[int, int, Any], None]:
    """How to write one cell read with its own type (a copied sheet's, see `_cells`)."""
    formats = {
        kind: workbook.add_format({"num_format": number_format})
        for kind, number_format in _CELL_FORMATS.items()
    }
    writers: dict[type, Callable[[int, int, Any], Any]] = {
        bool: sheet.write_boolean,
        int: sheet.write_number,
        float: sheet.write_number,
        str: lambda row, col, text: sheet.write_string(
            row, col, text, quoted if text.startswith(DANGEROUS) else None
        ),
    }

    def write(row: int, col: int, value: Any) -> None:
        if isinstance(value, datetime):
            sheet.write_datetime(row, col, value, formats[_moment(value)])
        else:
            writers[type(value)](row, col, value)

    return write


_CELL_FORMATS: Final = {
    "date": "yyyy-mm-dd",
    "datetime": "yyyy-mm-dd hh:mm:ss",
    "time": "hh:mm:ss",
}
_NO_DAY: Final = date(1899, 12, 31)  # the day of a time of day alone, as fastexcel reads it


def _moment(value: datetime) -> str:
    """Which of a date, a date and time or a time of day `value` is."""
    if value.date() <= _NO_DAY:
        return "time"
    return "date" if value.time() == time() else "datetime"


def _cell_writer(
    workbook: Any, sheet: Any, dtype: pl.DataType, quoted: Any
) -> Callable[[int, int, Any], Any]:
    """How to write one non-null cell of a column of ``dtype``."""
    if isinstance(dtype, pl.Boolean):
        return sheet.write_boolean  # type: ignore[no-any-return]
    if dtype.is_integer():

        def write_integer(row: int, col: int, value: int) -> Any:
            if -_EXACT_INT <= value <= _EXACT_INT:
                return sheet.write_number(row, col, value)
            return sheet.write_string(row, col, str(value))

        return write_integer
    if dtype.is_float() or isinstance(dtype, pl.Decimal):
        return lambda row, col, value: sheet.write_number(row, col, float(value))
    formats = {
        pl.Date: "yyyy-mm-dd",
        pl.Datetime: "yyyy-mm-dd hh:mm:ss",
        pl.Time: "hh:mm:ss",
        pl.Duration: "[h]:mm:ss",
    }
    for temporal, number_format in formats.items():
        if isinstance(dtype, temporal) and getattr(dtype, "time_zone", None) is None:
            cell_format = workbook.add_format({"num_format": number_format})
            return lambda row, col, value: sheet.write_datetime(row, col, value, cell_format)
    # Strings and anything else: as text, never a formula (quote-prefixed when it looks like one).

    def write_text(row: int, col: int, value: Any) -> Any:
        text = str(value)
        return sheet.write_string(row, col, text, quoted if text.startswith(DANGEROUS) else None)

    return write_text


def fitted_widths(frame: pl.DataFrame) -> list[float]:
    """Each column's width in characters: its longest value or header as written, plus a
    margin, between 6 and 60 (longer text wraps nowhere: it is cut off by the next cell)."""
    if not frame.width:
        return []
    shown = frame.select(
        pl.col(name).cast(pl.String).str.len_chars().max().alias(name)
        if not isinstance(dtype, pl.Datetime | pl.Date | pl.Time | pl.Duration)
        else pl.lit(_TEMPORAL_WIDTH).alias(name)
        for name, dtype in frame.schema.items()
    ).row(0)
    return [
        float(min(max(len(name), length or 0) + 2, _MAX_WIDTH))
        for name, length in zip(frame.columns, shown, strict=True)
    ]
