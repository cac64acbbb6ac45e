"""Read and write CSV, XLSX and Parquet; every exported string safe from formula injection."""

from __future__ import annotations

import codecs
import contextlib
import logging
import os
import re
import secrets
import stat
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, Literal, TypeVar

import polars as pl

from profnet_sheets.errors import ProfnetError
from profnet_sheets.redact import listed, shown

if TYPE_CHECKING:
    from polars._typing import PolarsDataType

__all__ = [
    "CSV_SUFFIXES",
    "PARQUET_SUFFIXES",
    "XLSX_SUFFIXES",
    "BatchInputError",
    "check_excel_limits",
    "check_target",
    "escape_formula",
    "escape_frame",
    "read_table",
    "scan_table",
    "sink_table",
    "write_table",
]

CSV_SUFFIXES: Final = frozenset({".csv", ".tsv", ".txt"})
XLSX_SUFFIXES: Final = frozenset({".xlsx", ".xlsm"})
PARQUET_SUFFIXES: Final = frozenset({".parquet"})

Kind = Literal["csv", "xlsx", "parquet"]
_Frame = TypeVar("_Frame", pl.DataFrame, pl.LazyFrame)

# OWASP "CSV injection": a cell starting with one of these may run as a formula when opened.
_DANGEROUS: Final = ("=", "+", "-", "@", "\t", "\r", "\n", "\0")
_DANGEROUS_PATTERN: Final = r"^[=+\-@\t\r\n\x00]"

_SEPARATORS: Final = (",", ";", "\t", "|")
# A one-column CSV must not be split on commas inside its values: read it on a byte that never
# occurs in text (ASCII "unit separator").
_NO_SEPARATOR: Final = "\x1f"
_SNIFF_BYTES: Final = 64 * 1024
_SNIFF_RECORDS: Final = 50

# Byte-order marks, longest first (the UTF-32 LE mark starts with the UTF-16 LE one).
_BOMS: Final = (
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)

# Excel's sheet limits: rows including the header, and columns.
_XLSX_MAX_ROWS: Final = 1_048_576
_XLSX_MAX_COLS: Final = 16_384
_XLSX_MAX_CHARS: Final = 32_767  # characters in one cell; xlsxwriter cuts longer text
# A CR that does not start a CRLF: a line end of classic Mac files (polars would take it as data).
_LONE_CR: Final = re.compile(rb"\r(?!\n)")
_CHECK_CHUNK: Final = 1 << 20
# Integers beyond this lose digits as Excel numbers (doubles): they are written as text.
_EXACT_INT: Final = 2**53


class BatchInputError(ProfnetError, ValueError):
    """A table cannot be read or written: unknown kind, missing file, unreadable content.

    Also a ``ValueError``, so code that validates input generically catches it.
    """

    def __init__(self, message: str, *, path: str | Path | None = None) -> None:
        super().__init__(message)
        self.path = None if path is None else Path(path)


# --------------------------------------------------------------------------------------------
# Escaping


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
    return "'" + value if value.startswith(_DANGEROUS) else value


def escape_frame(frame: pl.DataFrame, columns: Iterable[str] | None = None) -> pl.DataFrame:
    """``frame`` with :func:`escape_formula` applied to every string, nested ones included.

    Covers String (and Categorical/Enum, which become String) columns, strings inside List and
    Array columns and String fields of Struct columns at any depth (``List(Struct)`` of
    experience items, for example). ``columns`` limits it to those columns; columns without
    strings are left as they are. Nulls stay null. Column names are not changed (the writers
    escape the header row).
    """
    return frame.with_columns(_escape_exprs(frame.schema, columns))


def _escape_exprs(schema: pl.Schema, columns: Iterable[str] | None) -> list[pl.Expr]:
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


def _flatten(frame: _Frame, *, escape: bool, csv: bool) -> _Frame:
    """``frame`` ready for CSV/XLSX: strings escaped, nested data as JSON, header escaped.

    For CSV, durations become ISO 8601 text (``P1DT6H``): the CSV writer has no format for them.
    """
    schema = frame.collect_schema()
    if escape:
        frame = frame.with_columns(_escape_exprs(schema, None))
        schema = frame.collect_schema()
    nested = [_json_text(name, dtype) for name, dtype in schema.items() if _is_nested(dtype)]
    categorical = [
        pl.col(name).cast(pl.String)
        for name, dtype in schema.items()
        if isinstance(dtype, pl.Categorical | pl.Enum)
    ]
    durations = [
        pl.col(name).dt.to_string("iso")
        for name, dtype in schema.items()
        if csv and isinstance(dtype, pl.Duration)
    ]
    if nested or categorical or durations:
        frame = frame.with_columns(nested + categorical + durations)
    if escape:
        renamed = {name: escape_formula(name) for name in schema.names()}
        frame = frame.rename({old: new for old, new in renamed.items() if old != new})
    return frame


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
    kinds = ", ".join(sorted(CSV_SUFFIXES | XLSX_SUFFIXES | PARQUET_SUFFIXES))
    msg = f"{path}: unsupported file kind {shown(suffix or '(no extension)')}; supported: {kinds}"
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
    path: str | Path, *, sheet: str | int | None = None, encoding: str | None = None
) -> pl.DataFrame:
    """The table in ``path``, by extension: CSV (.csv .tsv .txt), XLSX (.xlsx .xlsm), Parquet.

    CSV and XLSX columns are all strings, as the user sees them: ids and zip codes keep their
    leading zeros, ``12345`` stays ``"12345"`` and Excel's integral numbers read back as
    ``"1035"``, not ``"1035.0"``; empty cells are null.

    CSV: the encoding is detected unless given (UTF-8 with or without BOM, UTF-16/32 with a
    BOM, else cp1252 then latin-1); the delimiter is sniffed among ``,`` ``;`` tab ``|``;
    ragged rows are padded with nulls or cut to the header's width; quoted newlines are kept;
    an empty or header-only file is a frame with 0 rows.

    XLSX: ``sheet`` is a name or a 0-based position (default the first sheet); empty rows and
    columns are kept so that row ``i`` of the frame is row ``i + 2`` in Excel. Date cells read
    as ``"2024-05-06"`` or ``"2024-05-06 13:45:00"``.

    Parquet: read as stored. ``sheet`` applies to XLSX only, ``encoding`` to CSV only.

    Raises BatchInputError (a ValueError) for a missing file, an unsupported extension or
    unreadable content, naming the file.
    """
    source, kind = _existing_file(path)
    if kind == "csv":
        return _read_csv(source, encoding)
    if kind == "xlsx":
        return _read_xlsx(source, sheet)
    try:
        return pl.read_parquet(source)
    except (pl.exceptions.PolarsError, OSError) as error:
        msg = f"{source}: not a readable Parquet file ({_first_line(error)})"
        raise BatchInputError(msg, path=source) from error


def scan_table(path: str | Path) -> pl.LazyFrame:
    """A lazy, streaming view of a big CSV (all columns strings) or Parquet file.

    The CSV must be UTF-8 (a BOM is fine); its delimiter is sniffed as in :func:`read_table`.
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
    head = _read_bytes(source, limit=_SNIFF_BYTES)
    if head.startswith(codecs.BOM_UTF8):
        head = head[len(codecs.BOM_UTF8) :]
    elif any(head.startswith(bom) for bom, _ in _BOMS):
        msg = (
            f"{source}: a UTF-16/UTF-32 file cannot be streamed; save it as CSV UTF-8, "
            "or use read_table"
        )
        raise BatchInputError(msg, path=source)
    _check_streamable(source)
    sample = codecs.getincrementaldecoder("utf-8")().decode(head, final=False)
    return pl.scan_csv(
        source,
        separator=_sniff_separator(sample, complete=len(head) < _SNIFF_BYTES),
        infer_schema=False,
        truncate_ragged_lines=True,
        raise_if_empty=False,
    )


def _check_streamable(source: Path) -> None:
    """Raise unless the whole file is UTF-8 with LF or CRLF line ends (what polars streams
    right): checked before anything is read for real, so a bad byte deep in a big file is an
    error up front, not half way through (and after the lookups were paid)."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    offset, pending_cr = 0, False
    try:
        with source.open("rb") as file:
            while chunk := file.read(_CHECK_CHUNK):
                decoder.decode(chunk)
                lone_cr = (pending_cr and not chunk.startswith(b"\n")) or bool(
                    _LONE_CR.search(chunk, 0, len(chunk) - 1)
                )
                if lone_cr:
                    msg = (
                        f"{source}: has line ends made of a CR alone (an old Mac format), which "
                        "cannot be streamed; use read_table, or save it with Windows or Unix "
                        "line ends"
                    )
                    raise BatchInputError(msg, path=source)
                pending_cr = chunk.endswith(b"\r")
                offset += len(chunk)
            decoder.decode(b"", final=True)
    except UnicodeDecodeError as error:
        msg = (
            f"{source}: not UTF-8 (near byte {offset + error.start}); streaming needs UTF-8: "
            "save it as CSV UTF-8, or use read_table, which detects the encoding"
        )
        raise BatchInputError(msg, path=source) from error
    except OSError as error:
        msg = f"{source}: cannot be read ({error.strerror or error})"
        raise BatchInputError(msg, path=source) from error


def _read_bytes(source: Path, *, limit: int | None = None) -> bytes:
    try:
        with source.open("rb") as file:
            return file.read() if limit is None else file.read(limit)
    except OSError as error:
        msg = f"{source}: cannot be read ({error.strerror or error})"
        raise BatchInputError(msg, path=source) from error


def _read_csv(source: Path, encoding: str | None) -> pl.DataFrame:
    data = _lone_cr_as_newlines(_utf8(_read_bytes(source), encoding, source))
    if not data or data.isspace():
        return pl.DataFrame()
    separator = _sniff_separator(
        data[:_SNIFF_BYTES].decode("utf-8", errors="ignore"),
        complete=len(data) <= _SNIFF_BYTES,
    )
    try:
        return pl.read_csv(
            data,
            separator=separator,
            infer_schema=False,
            truncate_ragged_lines=True,
            raise_if_empty=False,
        )
    except pl.exceptions.PolarsError as error:
        msg = f"{source}: not a readable CSV file ({_first_line(error)})"
        raise BatchInputError(msg, path=source) from error


def _utf8(data: bytes, encoding: str | None, source: Path) -> bytes:
    """``data`` as UTF-8 without a BOM, decoding it from ``encoding`` or a detected one."""
    if encoding is not None:
        try:
            codec = codecs.lookup(encoding).name
        except LookupError as error:
            msg = f"{source}: unknown encoding {shown(encoding)}"
            raise BatchInputError(msg, path=source) from error
        try:
            text = data.decode("utf-8-sig" if codec == "utf-8" else codec)
        except UnicodeDecodeError as error:
            msg = (
                f"{source}: cannot be decoded as {encoding} (byte {error.start}); "
                "leave the encoding out to detect it"
            )
            raise BatchInputError(msg, path=source) from error
        return text.removeprefix("\ufeff").encode("utf-8")
    for bom, codec in _BOMS:
        if data.startswith(bom):
            try:
                return data.decode(codec).removeprefix("\ufeff").encode("utf-8")
            except UnicodeDecodeError as error:
                msg = f"{source}: starts like {codec} but cannot be decoded ({error.reason})"
                raise BatchInputError(msg, path=source) from error
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        pass
    else:
        return data
    try:  # Excel on Windows ("CSV (Comma delimited)") writes the ANSI code page
        return data.decode("cp1252").encode("utf-8")
    except UnicodeDecodeError:  # the five bytes cp1252 leaves undefined
        return data.decode("latin-1").encode("utf-8")


def _lone_cr_as_newlines(data: bytes) -> bytes:
    """Line ends made of a CR alone (classic Mac files) as LF, outside quoted fields (where a
    CR is data): polars would otherwise read such a file as one row, and cut it."""
    if not _LONE_CR.search(data):
        return data
    parts = data.split(b'"')
    parts[::2] = [_LONE_CR.sub(b"\n", part) for part in parts[::2]]
    return b'"'.join(parts)


def _sniff_separator(sample: str, *, complete: bool) -> str:
    """The delimiter of the CSV text ``sample``: the one in the header most rows agree with.

    Counts ``,`` ``;`` tab ``|`` outside double quotes, per record; ties go to the earlier
    one in that list. A header with none of them is one column: no delimiter at all.
    """
    records: list[dict[str, int]] = []
    counts = dict.fromkeys(_SEPARATORS, 0)
    quoted, blank = False, True
    for char in sample:
        if char == '"':
            quoted = not quoted
            blank = False
        elif quoted:
            continue
        elif char == "\n":
            if not blank:
                records.append(counts)
                if len(records) >= _SNIFF_RECORDS:
                    break
            counts, blank = dict.fromkeys(_SEPARATORS, 0), True
        else:
            if char in counts:
                counts[char] += 1
            if not char.isspace():
                blank = False
    else:  # the last record has no newline: count it if it is whole (or the only one)
        if not blank and (complete or not records):
            records.append(counts)
    if not records:
        return ","
    header, rows = records[0], records[1:]
    best, best_score = _NO_SEPARATOR, (-1.0, 0)
    for separator in _SEPARATORS:
        width = header[separator]
        if not width:
            continue
        agree = sum(row[separator] == width for row in rows) / len(rows) if rows else 1.0
        if (agree, width) > best_score:
            best, best_score = separator, (agree, width)
    return best


@contextlib.contextmanager
def _quiet(logger_name: str) -> Iterator[None]:
    logger = logging.getLogger(logger_name)
    level = logger.level
    logger.setLevel(logging.ERROR)
    try:
        yield
    finally:
        logger.setLevel(level)


def _read_xlsx(source: Path, sheet: str | int | None) -> pl.DataFrame:
    import fastexcel

    try:
        reader = fastexcel.read_excel(source)
    except fastexcel.FastExcelError as error:
        msg = f"{source}: not a readable Excel workbook ({_first_line(error)})"
        raise BatchInputError(msg, path=source) from error
    names = reader.sheet_names
    if sheet is None:
        name = names[0]
    elif isinstance(sheet, int) and not isinstance(sheet, bool):
        if not 0 <= sheet < len(names):
            msg = (
                f"{source}: no sheet number {sheet}; sheets are numbered from 0 and it has "
                f"{len(names)}: {', '.join(map(repr, names))}"
            )
            raise BatchInputError(msg, path=source)
        name = names[sheet]
    elif isinstance(sheet, str) and sheet in names:
        name = sheet
    else:
        msg = f"{source}: no sheet named {shown(sheet)}; its sheets: {listed(names)}"
        raise BatchInputError(msg, path=source)
    try:
        # First the types the cells have (to tidy date text), then every cell as its text.
        # An all-empty column logs a warning while its type is guessed: expected here.
        with _quiet("fastexcel"):
            typed = reader.load_sheet(name, schema_sample_rows=None).available_columns()
        frame = reader.load_sheet(name, dtypes="string", schema_sample_rows=None).to_polars()
    except fastexcel.FastExcelError as error:
        msg = f"{source}: sheet {shown(name)} cannot be read ({_first_line(error)})"
        raise BatchInputError(msg, path=source) from error
    temporal = [
        column.name
        for column in typed
        if column.dtype in ("datetime", "date") and column.name in frame.columns
    ]
    frame = frame.cast(pl.String)  # an all-empty column comes back as Null
    if temporal:  # dates show as 2024-05-06, times of day as 13:45:00, as in Excel
        frame = frame.with_columns(
            pl.col(temporal)
            .str.replace(r"^1899-12-3[01] ", "")
            .str.replace(r"^(\d{4}-\d\d-\d\d) 00:00:00$", "$1")
        )
    return frame


def _first_line(error: BaseException) -> str:
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__


# --------------------------------------------------------------------------------------------
# Writing


def write_table(frame: pl.DataFrame, path: str | Path, *, escape: bool = True) -> Path:
    """Write ``frame`` to ``path`` by extension, atomically; return the path written.

    CSV (.csv, .txt comma-separated, .tsv tab-separated): UTF-8 with a BOM, so that Excel
    on Windows reads accents right. XLSX (.xlsx): one sheet with a header row; strings are
    always written as text, never as formulas or links; naive dates and datetimes as Excel
    dates; integers beyond 2**53 as text (Excel numbers would drop digits). Parquet: as is,
    nested types kept.

    CSV and XLSX: every string, nested ones and header names included, goes through
    :func:`escape_formula` (unless ``escape=False``); List, Array and Struct columns are
    written as JSON text. Parquet is never escaped.

    The file is written next to ``path`` under a temporary name and renamed over it at the
    end: an interrupted or failed write leaves the old file (or none), never half a file.
    """
    target = Path(path).expanduser()
    kind = _kind(target, writing=True)
    if kind == "csv":
        flat = _flatten(frame, escape=escape, csv=True)
        separator = "\t" if target.suffix.lower() == ".tsv" else ","

        def write(temp: Path) -> None:
            flat.write_csv(temp, include_bom=True, separator=separator)

    elif kind == "xlsx":
        flat = _flatten(frame, escape=escape, csv=False)
        check_excel_limits(flat, target)

        def write(temp: Path) -> None:
            _write_xlsx(flat, temp)

    else:

        def write(temp: Path) -> None:
            frame.write_parquet(temp)

    _atomic_write(target, write)
    return target


def check_target(path: str | Path) -> Path:
    """``path`` (user expanded) if a table can be written there, else BatchInputError: a kind
    :func:`write_table` writes, in a folder that exists, not a folder itself. For checking an
    output before any work (or money) is spent on it."""
    target = Path(path).expanduser()
    _kind(target, writing=True)
    if target.is_dir():
        raise BatchInputError(f"{target}: is a folder; give a file name", path=target)
    if not target.parent.is_dir():
        msg = f"{target}: the folder {target.parent} does not exist"
        raise BatchInputError(msg, path=target)
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
    flat = _flatten(frame, escape=True, csv=False)  # as written: quoted, nested as JSON
    texts = [name for name, dtype in flat.schema.items() if isinstance(dtype, pl.String)]
    if not texts or not flat.height:
        return
    longest = flat.select(pl.col(texts).str.len_chars().max()).row(0)
    for name, length in zip(texts, longest, strict=True):
        if length is not None and length > _XLSX_MAX_CHARS:
            row = (flat[name].str.len_chars().arg_max() or 0) + 1
            msg = (
                f"{target}: column {shown(name)} holds {length:,} characters in row {row} under "
                f"the header; an Excel cell holds at most {_XLSX_MAX_CHARS:,}: write CSV or "
                "Parquet instead"
            )
            raise BatchInputError(msg, path=target)


def sink_table(lazy: pl.LazyFrame, path: str | Path, *, escape: bool = True) -> Path:
    """Stream ``lazy`` to a big .parquet or .csv file without collecting it; atomic.

    CSV gets the same treatment as in :func:`write_table` (escaping, nested data as JSON, a
    BOM), applied as lazy expressions. XLSX cannot be streamed: collect and use
    :func:`write_table`, or sink to CSV or Parquet.
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
        flat = _flatten(lazy, escape=escape, csv=True)
        separator = "\t" if target.suffix.lower() == ".tsv" else ","

        def write(temp: Path) -> None:
            flat.sink_csv(temp, include_bom=True, separator=separator)

    _atomic_write(target, write)
    return target


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


def _write_xlsx(frame: pl.DataFrame, path: Path) -> None:
    """One sheet: a bold header row, then the rows; strings only ever as text."""
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
        sheet = workbook.add_worksheet("Sheet1")
        header = workbook.add_format({"bold": True})
        for col, name in enumerate(frame.columns):
            sheet.write_string(0, col, name, header)
        writers = [_cell_writer(workbook, sheet, dtype) for dtype in frame.dtypes]
        for row, values in enumerate(frame.iter_rows(), start=1):
            for col, value in enumerate(values):
                if value is not None:
                    writers[col](row, col, value)
        sheet.freeze_panes(1, 0)
        if frame.width:
            sheet.autofilter(0, 0, max(frame.height, 1), frame.width - 1)
    except BaseException:
        with contextlib.suppress(Exception):
            workbook.close()
        raise
    workbook.close()


def _cell_writer(workbook: Any, sheet: Any, dtype: pl.DataType) -> Callable[[int, int, Any], Any]:
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
    # Strings (escaped already) and anything else: as text, never a formula.
    return lambda row, col, value: sheet.write_string(row, col, str(value))
