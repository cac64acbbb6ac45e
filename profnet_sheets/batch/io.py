"""Read and write CSV, XLSX and Parquet; what the service returned safe from formula injection."""

from __future__ import annotations

import codecs
import contextlib
import csv
import io
import os
import secrets
import stat
from collections.abc import Callable, Collection, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, Literal, TypeVar

import polars as pl

from profnet_sheets.batch.csvread import csv_separator, read_csv, scan_csv
from profnet_sheets.batch.escape import escape_formula, escape_frame
from profnet_sheets.batch.flat import flatten
from profnet_sheets.batch.frames import as_polars
from profnet_sheets.batch.problems import BatchInputError, first_line
from profnet_sheets.batch.xlsx import Workbook, read_workbook, read_xlsx, write_xlsx

if TYPE_CHECKING:
    pass

__all__ = [
    "CSV_SUFFIXES",
    "PARQUET_SUFFIXES",
    "XLSX_SUFFIXES",
    "BatchInputError",
    "check_excel_limits",
    "check_target",
    "csv_separator",
    "escape_formula",
    "escape_frame",
    "read_table",
    "read_workbook",
    "scan_table",
    "sink_table",
    "write_table",
]

CSV_SUFFIXES: Final = frozenset({".csv", ".tsv", ".txt"})
XLSX_SUFFIXES: Final = frozenset({".xlsx", ".xlsm"})
PARQUET_SUFFIXES: Final = frozenset({".parquet"})

Kind = Literal["csv", "xlsx", "parquet"]
_Frame = TypeVar("_Frame", pl.DataFrame, pl.LazyFrame)


# Excel's sheet limits: rows including the header, and columns.
_XLSX_MAX_ROWS: Final = 1_048_576
_XLSX_MAX_COLS: Final = 16_384
_XLSX_MAX_CHARS: Final = 32_767  # characters in one cell; xlsxwriter cuts longer text
# Integers beyond this lose digits as Excel numbers (doubles): they are written as text.
_EXACT_INT: Final = 2**53


# --------------------------------------------------------------------------------------------
# Escaping


# --------------------------------------------------------------------------------------------
# Paths


def _kind(path: Path, *, writing: bool = False) -> Kind:
    suffix = path.suffix.lower()
    if suffix in CSV_SUFFIXES:
        return "csv"
    if suffix in PARQUET_SUFFIXES:
        return "parquet"
    if suffix == ".xlsm" and writing:
        msg = f"{path}: cannot write .xlsm (a macro workbook); write .xlsx instead"
        raise BatchInputError(msg, path=path)
    if suffix in XLSX_SUFFIXES:
        return "xlsx"
    readable = CSV_SUFFIXES | XLSX_SUFFIXES | PARQUET_SUFFIXES
    kinds = ", ".join(sorted(readable - ({".xlsm"} if writing else set())))
    msg = f"{path}: unsupported file kind {suffix or '(no extension)'!r}; supported: {kinds}"
    raise BatchInputError(msg, path=path)


def _existing_file(path: str | Path) -> tuple[Path, Kind]:
    source = Path(path).expanduser()
    kind = _kind(source)
    if not source.exists():
        raise BatchInputError(f"{source}: no such file", path=source)
    if not source.is_file():
        raise BatchInputError(f"{source}: not a file", path=source)
    return source, kind


# --------------------------------------------------------------------------------------------
# Reading


def read_table(
    path: str | Path,
    *,
    sheet: str | int | None = None,
    encoding: str | None = None,
    as_text: bool = False,
) -> pl.DataFrame:
    """The table in ``path``, by extension: CSV (.csv .tsv .txt), XLSX (.xlsx .xlsm), Parquet.

    Columns keep what they hold: a CSV column whose every value is a number written plainly
    (``-5``, ``120``, ``1.5``) is a number column; anything else stays text as written (ids
    and zip codes keep their leading zeros, ``+1 555 0100`` stays text, ids too long for
    Int64 stay exact text). XLSX cells keep their types (whole numbers as Int64, dates as
    dates); a column mixing kinds is the text Excel shows (``1035``, not ``1035.0``). Empty
    cells are null.

    CSV: the encoding is detected unless given (a BOM; UTF-8, never turned into mojibake;
    UTF-8 with stray lines of cp1252, or another encoding guessed by charset-normalizer, with
    an InputWarning); the delimiter is sniffed among ``,`` ``;`` tab ``|``; rows longer than
    the header keep their extra fields in columns ``extra_1``... (with an InputWarning),
    shorter ones are padded with nulls; quoted newlines are kept; an empty or header-only file
    is a frame with 0 rows.

    XLSX: ``sheet`` is a name or a 0-based position (default the first sheet); empty rows and
    columns are kept so that row ``i`` of the frame is row ``i + 2`` in Excel (below the
    header: a sheet that opens with title rows, then an empty row, then a row of names has
    that row as its header).

    Parquet: read as stored. ``sheet`` applies to XLSX only, ``encoding`` and ``as_text``
    (every column as the text written, no number columns: to write a CSV back as it was) to
    CSV only.

    Raises BatchInputError (a ValueError) for a missing file, an unsupported extension or
    unreadable content, naming the file.
    """
    source, kind = _existing_file(path)
    if kind == "csv":
        return read_csv(source, encoding, as_text=as_text)
    if kind == "xlsx":
        return read_xlsx(source, sheet)
    try:
        return pl.read_parquet(source)
    except (pl.exceptions.PolarsError, OSError) as error:
        msg = f"{source}: not a readable Parquet file ({first_line(error)})"
        raise BatchInputError(msg, path=source) from error


def scan_table(path: str | Path, *, as_text: bool = False) -> pl.LazyFrame:
    """A lazy, streaming view of a big CSV or Parquet file.

    The CSV must be UTF-8 (a BOM is fine) with every row as wide as its header, or
    BatchInputError says so before anything is read for real (read_table reads it whole
    instead); its delimiter is sniffed and its number columns typed as in :func:`read_table`
    (``as_text`` too).
    XLSX cannot be streamed: save big tables as CSV or Parquet.
    """
    source, kind = _existing_file(path)
    if kind == "xlsx":
        msg = (
            f"{source}: Excel workbooks cannot be streamed; save big tables as CSV or Parquet "
            "(or use read_table for a workbook that fits in memory)"
        )
        raise BatchInputError(msg, path=source)
    if kind == "parquet":
        return pl.scan_parquet(source)
    return scan_csv(source, as_text=as_text)


# --------------------------------------------------------------------------------------------
# Writing


def write_table(
    frame: pl.DataFrame | Any,
    path: str | Path,
    *,
    escape: bool = True,
    separator: str | None = None,
    kept: Collection[str] = (),
    around: Workbook | None = None,
    bom: bool = True,
    line_end: str = "\n",
    header: Mapping[str, str] | None = None,
    sep_line: bool = False,
) -> Path:
    """Write ``frame`` to ``path`` by extension, atomically; return the path written.

    CSV (.csv, .txt; .tsv tab-separated): UTF-8, with a BOM (unless ``bom=False``: an input
    that had none) so that Excel on Windows reads accents right; ``separator`` (default ``,``)
    and ``line_end`` (default ``\\n``) keep the input's delimiter and line ends, ``header``
    the names written for columns renamed when read (an empty or repeated name), ``sep_line``
    Excel's ``sep=;`` first line (an input that had one). Every string,
    nested ones and header names included, goes through :func:`escape_formula` (unless
    ``escape=False``), except the columns ``kept``: the user's own, given back exactly as they
    came (the danger is in what the service returned). CSV is the one format where a
    spreadsheet parses text as formulas.

    XLSX (.xlsx): one sheet ("Sheet1") with a header row and fitted column widths (with
    ``around``, the workbook ``frame`` was read from: under its sheet's name, at its place,
    the other sheets copied as values: see :func:`read_workbook`); strings are always
    written as text, never as formulas or links, and those that start like a formula carry
    Excel's invisible quote prefix (no visible `'`, still text when edited); numbers as
    numbers, dates and datetimes as Excel dates (a timestamp with a zone as its UTC time);
    integers beyond 2**53 as text (Excel numbers would drop digits).

    CSV and XLSX: lists of values are written `a; b` (as the Excel formulas show them),
    records and lists of records as JSON. Parquet: as is, nested types kept, never escaped.

    The file is written next to ``path`` under a temporary name and renamed over it at the
    end: an interrupted or failed write leaves the old file (or none), never half a file.
    A pandas DataFrame (what enrich gives back for one) is written as polars reads it.
    """
    if not isinstance(frame, pl.DataFrame):
        converted = as_polars(frame, "write_table")
        frame = converted.collect() if isinstance(converted, pl.LazyFrame) else converted
    target = Path(path).expanduser()
    kind = _kind(target, writing=True)
    if kind == "csv":
        flat = flatten(frame, escape=escape, csv=True, kept=kept)
        delimiter = _delimiter(target, separator)

        def write(temp: Path) -> None:
            _write_csv(flat, temp, delimiter, bom, line_end, header or {}, sep_line=sep_line)

    elif kind == "xlsx":
        flat = flatten(frame, escape=False, csv=False)
        check_excel_limits(flat, target)

        def write(temp: Path) -> None:
            write_xlsx(flat, temp, around)

    else:

        def write(temp: Path) -> None:
            frame.write_parquet(temp)

    _atomic_write(target, write)
    return target


def _delimiter(target: Path, separator: str | None) -> str:
    if separator is not None:
        return separator
    return "\t" if target.suffix.lower() == ".tsv" else ","


PROBE_BYTES = 64 * 1024  # what the output's folder must take before anything is paid


def check_target(path: str | Path, source: str | Path | None = None) -> Path:
    """``path`` (user expanded) if a table can be written there, else BatchInputError: a kind
    :func:`write_table` writes, in a folder that exists and takes a small probe file (rights,
    room), not a folder itself, not the input ``source``. For checking an output before any
    work (or money) is spent on it."""
    target = Path(path).expanduser()
    if target.is_dir():
        raise BatchInputError(
            f"{target}: is a folder; give a file name in it, such as {target / 'enriched.csv'}",
            path=target,
        )
    _kind(target, writing=True)
    if not target.parent.is_dir():
        msg = (
            f"{target}: the folder {target.parent} does not exist: create it first, or write "
            "into a folder that does"
        )
        raise BatchInputError(msg, path=target)
    if source is not None and target.resolve() == Path(source).expanduser().resolve():
        other = target.with_name(f"{target.stem}-enriched{target.suffix}")
        msg = f"{target}: is the input file; write elsewhere (for example --out {other})"
        raise BatchInputError(msg, path=target)
    probe = target.parent / f".{target.name}.{os.getpid()}.probe"
    try:
        with probe.open("wb") as file:
            file.write(b"\0" * PROBE_BYTES)
    except OSError as error:
        reason = error.strerror or type(error).__name__
        msg = f"{target}: cannot be written in {target.parent} ({reason}); nothing was paid"
        raise BatchInputError(msg, path=target) from None
    finally:
        with contextlib.suppress(OSError):  # never made (a read-only folder): nothing to remove
            probe.unlink(missing_ok=True)
    return target


def check_excel_limits(frame: pl.DataFrame, path: str | Path) -> None:
    """Raise BatchInputError unless ``frame`` fits in one Excel sheet: at most 1,048,575 rows
    under the header, 16,384 columns and 32,767 characters in a cell (longer text would be cut,
    silently, by the writer). Nested columns are measured as the JSON text written."""
    target = Path(path)
    if frame.height + 1 > _XLSX_MAX_ROWS or frame.width > _XLSX_MAX_COLS:
        msg = (
            f"{target}: {frame.height} rows x {frame.width} columns do not fit in an Excel "
            f"sheet ({_XLSX_MAX_ROWS - 1} rows, {_XLSX_MAX_COLS} columns at most): "
            "write CSV or Parquet"
        )
        raise BatchInputError(msg, path=target)
    flat = flatten(frame, escape=False, csv=False)  # as written: lists joined, records JSON
    texts = [name for name, dtype in flat.schema.items() if isinstance(dtype, pl.String)]
    if not texts or not flat.height:
        return
    longest = flat.select(pl.col(texts).str.len_chars().max()).row(0)
    for name, length in zip(texts, longest, strict=True):
        if length is not None and length > _XLSX_MAX_CHARS:
            row = (flat[name].str.len_chars().arg_max() or 0) + 1
            msg = (
                f"{target}: column {name!r} holds {length:,} characters in row {row} under the "
                f"header; an Excel cell holds at most {_XLSX_MAX_CHARS:,}: write CSV or Parquet "
                "instead"
            )
            raise BatchInputError(msg, path=target)


def sink_table(
    lazy: pl.LazyFrame,
    path: str | Path,
    *,
    escape: bool = True,
    separator: str | None = None,
    kept: Collection[str] = (),
    bom: bool = True,
    line_end: str = "\n",
    header: Mapping[str, str] | None = None,
    sep_line: bool = False,
) -> Path:
    """Stream ``lazy`` to a big .parquet or .csv file without collecting it; atomic.

    CSV gets the same treatment as in :func:`write_table` (escaping but in ``kept``, lists
    joined, records as JSON, ``bom``, ``separator``, ``line_end``, ``header``, ``sep_line``),
    applied as lazy expressions. XLSX cannot be streamed: collect and use :func:`write_table`,
    or sink to CSV or Parquet.
    """
    target = Path(path).expanduser()
    kind = _kind(target, writing=True)
    if kind == "xlsx":
        msg = (
            f"{target}: Excel workbooks cannot be streamed; sink to .parquet or .csv, or "
            "collect the frame and use write_table"
        )
        raise BatchInputError(msg, path=target)
    if kind == "parquet":

        def write(temp: Path) -> None:
            lazy.sink_parquet(temp)

    else:
        flat = flatten(lazy, escape=escape, csv=True, kept=kept)
        delimiter = _delimiter(target, separator)

        def write(temp: Path) -> None:
            _write_csv(flat, temp, delimiter, bom, line_end, header or {}, sep_line=sep_line)

    _atomic_write(target, write)
    return target


def _write_csv(
    frame: pl.DataFrame | pl.LazyFrame,
    temp: Path,
    separator: str,
    bom: bool,
    line_end: str,
    header: Mapping[str, str],
    *,
    sep_line: bool = False,
) -> None:
    """``frame`` as CSV (streamed when lazy), its header row written as ``header`` names its
    columns (a frame's names are unique: an input's `Website,,Website` comes back as it was),
    after Excel's `sep=` line with ``sep_line``."""
    names = [header.get(name, name) for name in frame.collect_schema().names()]
    line = io.StringIO(f"sep={separator}{line_end}" if sep_line else "")
    line.seek(0, io.SEEK_END)
    csv.writer(line, delimiter=separator, lineterminator=line_end).writerow(names)
    with temp.open("wb") as file:
        file.write((codecs.BOM_UTF8 if bom else b"") + line.getvalue().encode("utf-8"))
        if isinstance(frame, pl.LazyFrame):
            frame.sink_csv(
                file, include_header=False, separator=separator, line_terminator=line_end
            )
        else:
            frame.write_csv(
                file, include_header=False, separator=separator, line_terminator=line_end
            )


def _atomic_write(target: Path, write: Callable[[Path], None]) -> None:
    """Run ``write`` on a new temporary file beside ``target``, then rename it over it."""
    folder = target.parent
    if not folder.is_dir():
        raise BatchInputError(f"{target}: the folder {folder} does not exist", path=target)
    temp = _new_temp(target)
    try:
        write(temp)
        with temp.open("rb") as file:  # on disk before the rename, not only in the cache
            os.fsync(file.fileno())
        with contextlib.suppress(OSError):  # keep the permissions of the file replaced
            os.chmod(temp, stat.S_IMODE(target.stat().st_mode))
        try:
            os.replace(temp, target)
        except PermissionError as error:
            msg = (
                f"{target}: cannot be replaced ({error.strerror or error}); is it open in "
                "Excel or read-only? Close it and try again"
            )
            raise BatchInputError(msg, path=target) from error
    except BaseException:
        with contextlib.suppress(OSError):
            temp.unlink()
        raise


def _new_temp(target: Path) -> Path:
    """Create an empty, unique file beside ``target`` (with the usual permissions)."""
    while True:
        temp = target.with_name(f".{target.stem}.{secrets.token_hex(4)}.tmp{target.suffix}")
        try:
            os.close(os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))
        except FileExistsError:
            continue
        except OSError as error:
            msg = f"{target}: cannot write in {target.parent} ({error.strerror or error})"
            raise BatchInputError(msg, path=target) from error
        return temp
