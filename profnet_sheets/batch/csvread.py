"""Reading CSV: its encoding, its delimiter, ragged rows, its number columns; whole or streamed."""

from __future__ import annotations

import codecs
import csv
import io
import re
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Final

import polars as pl

from profnet_sheets.batch.decode import InputWarning, decode
from profnet_sheets.batch.infer import typed
from profnet_sheets.batch.problems import BatchInputError, first_line

__all__ = ["CsvStyle", "csv_separator", "csv_style", "read_csv", "scan_csv"]

_SEPARATORS: Final = (",", ";", "\t", "|")
# A one-column CSV must not be split on commas inside its values: read it on a byte that never
# occurs in text (ASCII "unit separator").
_NO_SEPARATOR: Final = "\x1f"
_SNIFF_BYTES: Final = 64 * 1024
_SNIFF_RECORDS: Final = 50
# A CR that does not start a CRLF: a line end of classic Mac files (polars would take it as data).
_LONE_CR: Final = re.compile(rb"\r(?!\n)")
_CHECK_CHUNK: Final = 1 << 20
# Excel's first line naming the delimiter (`sep=;`): a hint for Excel, not a row of the table.
# Some tools quote it or pad it with the delimiter (`"sep=;"`, `sep=;;;`, `"sep=;";;`).
_SEP_LINE: Final = re.compile(r'"?sep=([^\w\s"]|\t)\1*"?\1*[ \t]*(?:\r\n|\r|\n|$)', re.IGNORECASE)
_LINE_END: Final = re.compile(r'\A(?:[^"\r\n]|"[^"]*")*(\r\n|\r|\n)')
_BOMS: Final = (codecs.BOM_UTF32_LE, codecs.BOM_UTF32_BE, codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)
EXTRA: Final = "extra"  # extra_1, extra_2...: the fields of rows longer than the header


# What a file with a .csv name holds when it is not text at all (a renamed or mis-saved file).
_SIGNATURES: Final = (
    (b"\x1f\x8b", "a gzip archive"),
    (b"PK\x03\x04", "a ZIP archive (an .xlsx workbook is one)"),
    (b"\xd0\xcf\x11\xe0", "an old Office file (.xls)"),
    (b"PAR1", "a Parquet file"),
    (b"\x89PNG", "a PNG image"),
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"%PDF", "a PDF document"),
    (b"SQLite format 3\x00", "an SQLite database"),
)


_CONTROL_BYTES: Final = bytes(b for b in range(32) if b not in b"\t\n\r\f\v\x1b")
_BINARY_SHARE: Final = 10  # more than 1 byte in 10 a control byte: not text


def kind_of_file(head: bytes) -> str | None:
    """What a file whose first bytes are `head` is when it is not text (`a ZIP archive (an
    .xlsx workbook is one)`, `binary data ...`), or None: text (a stray NUL in a value is
    text; UTF-16/32 is told by its BOM)."""
    what = next((name for magic, name in _SIGNATURES if head.startswith(magic)), None)
    controls = len(head) - len(head.translate(None, _CONTROL_BYTES))
    if what is None and controls * _BINARY_SHARE > len(head) and not head.startswith(_BOMS):
        what = "binary data (control bytes, not text)"
    return what


def _refuse_binary(head: bytes, source: Path) -> None:
    """BatchInputError when a file's first bytes are not text: a known kind of file, or more
    than a tenth control bytes."""
    what = kind_of_file(head)
    if what is not None:
        msg = (
            f"{source}: is {what}, not CSV text; give a table saved as CSV UTF-8 "
            "(or an .xlsx or .parquet file under its own extension)"
        )
        raise BatchInputError(msg, path=source)


def _read_bytes(source: Path, *, limit: int | None = None) -> bytes:
    try:
        with source.open("rb") as file:
            return file.read() if limit is None else file.read(limit)
    except OSError as error:
        msg = f"{source}: cannot be read ({error.strerror or error})"
        raise BatchInputError(msg, path=source) from error


def read_csv(source: Path, encoding: str | None = None, *, as_text: bool = False) -> pl.DataFrame:
    """The whole CSV: decoded (`decode.decode`: UTF-8 kept as it is, other encodings guessed
    with a warning), its delimiter sniffed, rows longer than the header kept (their extra
    fields in columns `extra_1`, `extra_2`..., with a warning), number columns typed
    (`infer.typed`: `-5` a number, `01234` and `+1 555 0100` text) unless `as_text` (every
    column as the text written: to write it back as it was)."""
    raw = _read_bytes(source)
    _refuse_binary(raw[:_SNIFF_BYTES], source)
    try:
        text = decode(raw, source, encoding)
    except LookupError as error:
        msg = f"{source}: unknown encoding {encoding!r}"
        raise BatchInputError(msg, path=source) from error
    except UnicodeDecodeError as error:
        msg = (
            f"{source}: cannot be decoded as {encoding or error.encoding} (byte {error.start}); "
            "leave the encoding out to detect it"
        )
        raise BatchInputError(msg, path=source) from error
    declared, text = _declared(text)
    data = _lone_cr_as_newlines(text.encode("utf-8"))
    if not data or data.isspace():
        return pl.DataFrame()
    separator = declared or _sniff_separator(
        text[:_SNIFF_BYTES], complete=len(data) <= _SNIFF_BYTES
    )
    try:
        try:
            frame = _parse(data, separator)
        except pl.exceptions.ComputeError as error:
            if "more fields" not in str(error):
                raise
            frame = _parse(_widened(data.decode("utf-8"), separator, source), separator)
    except pl.exceptions.PolarsError as error:
        msg = f"{source}: not a readable CSV file ({first_line(error)})"
        if (line := _unclosed_quote(text)) is not None:
            msg = (
                f'{source}: not a readable CSV file (line {line:,} opens a quote (") that no '
                "line closes); close it, or save the file again as CSV UTF-8"
            )
        raise BatchInputError(msg, path=source) from error
    except csv.Error:  # the csv module's reading of a long row: a line break in a bare field
        msg = (
            f"{source}: not a readable CSV file (a field holds a quote or a line break but "
            "is not enclosed in quotes); save it again as CSV UTF-8"
        )
        raise BatchInputError(msg, path=source) from None
    return frame if as_text else typed(frame)


def _unclosed_quote(text: str) -> int | None:
    """The line (from 1) whose quote no later line closes, or None: every quote closed."""
    open_at: int | None = None
    for number, line in enumerate(text.splitlines(), 1):
        if line.count('"') % 2:
            open_at = number if open_at is None else None
    return open_at


def _parse(data: bytes, separator: str) -> pl.DataFrame:
    return pl.read_csv(
        data,
        separator=separator,
        infer_schema=False,
        truncate_ragged_lines=False,  # a longer row is an error, never silently cut
        raise_if_empty=False,
    )


def _widened(text: str, separator: str, source: Path) -> bytes:
    """`text` with a header as wide as its widest row (extra_1, extra_2...), warned."""
    consumed = 0

    def lines() -> Iterator[str]:
        nonlocal consumed
        for line in io.StringIO(text):
            consumed += len(line)
            yield line

    header = next(csv.reader(lines(), delimiter=separator))
    rest = text[consumed:]
    widths = [len(row) for row in csv.reader(io.StringIO(rest), delimiter=separator)]
    widest = max(widths, default=len(header))
    longer = [number + 1 for number, width in enumerate(widths) if width > len(header)]
    taken = set(header)
    extra: list[str] = []
    index = 1
    while len(extra) < widest - len(header):
        name = f"{EXTRA}_{index}"
        if name not in taken:
            extra.append(name)
        index += 1
    shown = ", ".join(map(str, longer[:5])) + (
        f" and {len(longer) - 5} more" if len(longer) > 5 else ""
    )
    warnings.warn(
        f"{source.name}: {len(longer)} row{'s' if len(longer) != 1 else ''} ({shown} under the "
        "header) "
        f"{'have' if len(longer) != 1 else 'has'} more fields than the header: kept in "
        f"{', '.join(extra)}",
        InputWarning,
        stacklevel=4,
    )
    out = io.StringIO()
    csv.writer(out, delimiter=separator, lineterminator="\n").writerow([*header, *extra])
    return (out.getvalue() + rest).encode("utf-8")


def _declared(text: str) -> tuple[str | None, str]:
    """The delimiter Excel's `sep=` first line names (None: no such line), and the text
    without that line."""
    line = _SEP_LINE.match(text)
    if line is None:
        return None, text
    return line.group(1), text[line.end() :]


def _head(path: Path) -> tuple[bytes, str]:
    """The first bytes of a CSV file, and their text (its warnings said when it is read)."""
    head = _read_bytes(path, limit=_SNIFF_BYTES)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", InputWarning)  # said once, when the file is read
        try:
            sample = decode(head, path)
        except UnicodeDecodeError:  # a multi-byte character cut at the end of the sample
            sample = head.decode("utf-8", errors="ignore")
    return head, sample


def csv_separator(source: Path | str) -> str:
    """The delimiter of a CSV file as it is read (`,` `;` tab `|`; `,` for one column): what
    its enriched copy is written with."""
    head, sample = _head(Path(source))
    declared, sample = _declared(sample)
    found = declared or _sniff_separator(sample, complete=len(head) < _SNIFF_BYTES)
    return "," if found == _NO_SEPARATOR else found


@dataclass(frozen=True)
class CsvStyle:
    """What a CSV's copy keeps of it: a BOM or none (one always when the file was not UTF-8,
    as its copy is UTF-8: so Excel reads its accents), its line ends (`\\r\\n` or `\\n`),
    its header row as written (empty and repeated names too, which a frame renames), and
    whether it opened with Excel's `sep=` line (its copy does too: Excel reads it the same)."""

    bom: bool
    line_end: str
    utf8: bool
    header: tuple[str, ...] = ()
    sep_line: bool = False


def csv_style(source: Path | str) -> CsvStyle:
    """The BOM, line ends and encoding of a CSV file, from its first bytes."""
    head, sample = _head(Path(source))
    utf8 = not head.startswith(_BOMS)
    if utf8 and not head.startswith(codecs.BOM_UTF8):
        try:
            codecs.getincrementaldecoder("utf-8")().decode(head, final=False)
        except UnicodeDecodeError:
            utf8 = False
    bom = head.startswith(codecs.BOM_UTF8) or not utf8
    declared, sample = _declared(sample)
    separator = declared or _sniff_separator(sample, complete=len(head) < _SNIFF_BYTES)
    header = next(csv.reader(io.StringIO(sample, newline=""), delimiter=separator), [])
    return CsvStyle(bom, _line_end(sample), utf8, tuple(header), sep_line=declared is not None)


def _line_end(text: str) -> str:
    """The first line end of `text` outside quotes: `\r\n`, `\n`, or old Mac's `\r`
    (`\n` when it has none)."""
    line_end = _LINE_END.search(text)
    return line_end.group(1) if line_end else "\n"


def scan_csv(source: Path, *, as_text: bool = False) -> pl.LazyFrame:
    """A lazy, streaming view of a big UTF-8 CSV, its number columns typed (unless `as_text`:
    see `read_csv`). BatchInputError, before anything is read for real, when it cannot be
    streamed (another encoding, old Mac line ends, rows longer than the header): read_csv
    reads such a file whole."""
    head = _read_bytes(source, limit=_SNIFF_BYTES)
    _refuse_binary(head, source)
    if head.startswith(codecs.BOM_UTF8):
        head = head[len(codecs.BOM_UTF8) :]
    elif any(head.startswith(bom) for bom in _BOMS):
        msg = (
            f"{source}: a UTF-16/UTF-32 file cannot be streamed; save it as CSV UTF-8, "
            "or use read_table"
        )
        raise BatchInputError(msg, path=source)
    _check_streamable(source)
    sample = codecs.getincrementaldecoder("utf-8")().decode(head, final=False)
    declared, sample = _declared(sample)
    lazy = pl.scan_csv(
        source,
        separator=declared or _sniff_separator(sample, complete=len(head) < _SNIFF_BYTES),
        skip_lines=0 if declared is None else 1,
        infer_schema=False,
        truncate_ragged_lines=False,
        raise_if_empty=False,
    )
    try:
        checked = typed(lazy)  # one streaming pass: it also finds rows longer than the header
    except pl.exceptions.ComputeError as error:
        msg = f"{source}: cannot be streamed ({first_line(error)}); use read_table"
        raise BatchInputError(msg, path=source) from error
    return lazy if as_text else checked


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
                # A CR ending the chunk is told by the next one's first byte.
                end = len(chunk) - 1 if chunk.endswith(b"\r") else len(chunk)
                lone_cr = (pending_cr and not chunk.startswith(b"\n")) or bool(
                    _LONE_CR.search(chunk, 0, end)
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
