"""Tables in and out: CSV/XLSX/Parquet round trips, encodings, and formula-injection safety."""

from __future__ import annotations

import csv
import datetime as dt
import io
import json
import os
import re
from pathlib import Path
from typing import IO

import openpyxl
import polars as pl
import pytest
import xlsxwriter
from hypothesis import given
from hypothesis import strategies as st

from profnet_sheets.batch import xlsx as batch_xlsx
from profnet_sheets.batch.csvread import csv_separator, csv_style
from profnet_sheets.batch.decode import InputWarning
from profnet_sheets.batch.io import (
    BatchInputError,
    escape_formula,
    escape_frame,
    read_table,
    read_workbook,
    scan_table,
    sink_table,
    write_table,
)
from profnet_sheets.errors import ProfnetError

DANGEROUS = ("=", "+", "-", "@", "\t", "\r", "\n", "\0")
HOSTILE = [f'{prefix}HYPERLINK("http://evil")' for prefix in DANGEROUS]


def sample() -> pl.DataFrame:
    return pl.DataFrame(
        {
            "id": ["00123", "12345", None, "0042"],
            "name": ["José", "", "Zoë 漢字 😀", 'say "hi", ok'],
            "zip": ["01234", "75001", "8010", None],
            "note": ["two\nlines", None, "a;b|c\td", "plain"],
        }
    )


def ooxml_unescape(text: str) -> str:
    return re.sub(r"_x([0-9A-Fa-f]{4})_", lambda match: chr(int(match[1], 16)), text)


def files_in(folder: Path) -> list[str]:
    return sorted(path.name for path in folder.iterdir())


# ---------------------------------------------------------------------------- round trips


@pytest.mark.parametrize("suffix", [".csv", ".tsv", ".txt", ".xlsx", ".parquet"])
def test_round_trip_keeps_strings_exactly(tmp_path: Path, suffix: str) -> None:
    frame = sample()
    path = write_table(frame, tmp_path / f"table{suffix}")
    assert path == tmp_path / f"table{suffix}"
    back = read_table(path)
    assert back.columns == frame.columns
    assert back.schema == pl.Schema(dict.fromkeys(frame.columns, pl.String))
    assert back.rows() == frame.rows()
    assert files_in(tmp_path) == [f"table{suffix}"]  # no temporary file left behind


def test_csv_is_utf8_with_bom_and_numbers_read_back_as_numbers(tmp_path: Path) -> None:
    frame = pl.DataFrame({"n": [12345, None, -7], "x": [1.5, 2.0, None], "s": ["é", "b", "c"]})
    path = write_table(frame, tmp_path / "numbers.csv")
    raw = path.read_bytes()
    assert raw.startswith(b"\xef\xbb\xbfn,x,s\n")
    assert "é".encode() in raw
    back = read_table(path)
    assert back.columns == ["n", "x", "s"]  # the BOM is not part of the first name
    assert back["n"].to_list() == [12345, None, -7]
    assert back["x"].to_list() == [1.5, 2.0, None]


def test_numeric_columns_are_never_escaped(tmp_path: Path) -> None:
    frame = pl.DataFrame({"n": [-5, 3], "s": ["-5", "3"]})
    back = read_table(write_table(frame, tmp_path / "n.csv"))
    assert back["n"].to_list() == [-5, 3]  # a number, not text: no formula risk
    assert back["s"].to_list() == ["'-5", "3"]  # text that looks negative: quoted (OWASP)


def test_parquet_keeps_types_and_nested_data_unescaped(tmp_path: Path) -> None:
    frame = pl.DataFrame(
        {
            "n": [1, None],
            "skills": [["=SUM(A1)", "python"], None],
            "company": [{"name": "@evil", "size": 3}, None],
            "experience": [[{"title": "-cmd", "years": 2}], []],
        }
    )
    back = read_table(write_table(frame, tmp_path / "t.parquet"))
    assert back.schema == frame.schema
    assert back.rows() == frame.rows()


# ---------------------------------------------------------------------------- CSV reading


def write_bytes(folder: Path, name: str, data: bytes) -> Path:
    path = folder / name
    path.write_bytes(data)
    return path


def test_cp1252_semicolon_csv_from_excel_on_windows(tmp_path: Path) -> None:
    text = "Société;Ville;Prix\r\nCafé Müller;Köln;1,50\r\n“Quotes” €;Zürich;2\r\n"
    path = write_bytes(tmp_path, "ventes.csv", text.encode("cp1252"))
    frame = read_table(path)
    assert frame.columns == ["Société", "Ville", "Prix"]
    assert frame.rows() == [("Café Müller", "Köln", "1,50"), ("“Quotes” €", "Zürich", "2")]


def test_latin1_bytes_cp1252_leaves_undefined_fall_back(tmp_path: Path) -> None:
    path = write_bytes(tmp_path, "odd.csv", b"a,b\n\x81x,\xe9\n")
    assert read_table(path).rows() == [("\x81x", "é")]


def test_explicit_encoding(tmp_path: Path) -> None:
    path = write_bytes(tmp_path, "l1.csv", "nom,ville\nJosé,Genève\n".encode("latin-1"))
    assert read_table(path, encoding="latin-1").rows() == [("José", "Genève")]
    with pytest.raises(BatchInputError, match="utf-8"):
        read_table(path, encoding="utf-8")
    with pytest.raises(BatchInputError, match="unknown encoding"):
        read_table(path, encoding="no-such-codec")


def test_utf16_unicode_text_from_excel(tmp_path: Path) -> None:
    text = "id\tname\r\n00123\tZoë 漢字\r\n0042\t\r\n"
    path = write_bytes(tmp_path, "unicode.txt", text.encode("utf-16"))  # with a BOM
    frame = read_table(path)
    assert frame.columns == ["id", "name"]
    assert frame.rows() == [("00123", "Zoë 漢字"), ("0042", None)]


def test_utf8_bom_is_stripped(tmp_path: Path) -> None:
    path = write_bytes(tmp_path, "bom.csv", b"\xef\xbb\xbfid,name\n007,Bond\n")
    frame = read_table(path)
    assert frame.columns == ["id", "name"]
    assert frame.rows() == [("007", "Bond")]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("a;b\n1,5;2,25\n3;4\n", [("1,5", "2,25"), ("3", "4")]),
        ("a|b\nx,y|z\n", [("x,y", "z")]),
        ('a,b,c\n"x;y",1,2\n', [("x;y", 1, 2)]),
        ("a\tb\n1\tx\n", [(1, "x")]),
    ],
)
def test_delimiter_is_sniffed(tmp_path: Path, text: str, expected: list[tuple[str, ...]]) -> None:
    assert read_table(write_bytes(tmp_path, "d.csv", text.encode())).rows() == expected


@pytest.mark.parametrize(
    ("data", "separator"),
    [
        (b"sep=;\nname;site\nAcme, Inc.;acme.com\n", ";"),
        (b"\xef\xbb\xbfSEP=,\r\nname,site\r\nAcme; Inc.,acme.com\r\n", ","),
        (b'"sep=|"\nname|site\nAcme, Inc.|acme.com\n', "|"),
        (b"sep=\t\t\t\nname\tsite\nAcme, Inc.\tacme.com\n", "\t"),
        (b"sep=;;;\nname;site\nAcme, Inc.;acme.com\n", ";"),
        (b'"sep=;";;\nname;site\nAcme, Inc.;acme.com\n', ";"),
    ],
)
def test_excels_sep_line_names_the_delimiter_and_is_no_row(
    tmp_path: Path, data: bytes, separator: str
) -> None:
    """Excel's `sep=;` first line: the delimiter it names is the one read (not sniffed),
    read whole or streamed, and the line is neither the header nor a row."""
    path = write_bytes(tmp_path, "eu.csv", data)
    whole = read_table(path)
    assert whole.columns == ["name", "site"]
    assert whole.rows()[0][1] == "acme.com", whole.rows()
    assert scan_table(path).collect().rows() == whole.rows()
    assert csv_separator(path) == separator
    assert csv_style(path).sep_line
    assert csv_style(path).header == ("name", "site")


def test_a_csv_with_a_sep_line_is_written_back_with_it(tmp_path: Path) -> None:
    frame = pl.DataFrame({"name": ["Acme"], "site": ["acme.com"]})
    for write in (write_table, sink_table):
        out = tmp_path / f"{write.__name__}.csv"
        data = frame if write is write_table else frame.lazy()
        write(data, out, separator=";", bom=False, line_end="\r\n", sep_line=True)  # type: ignore[operator]
        assert out.read_bytes() == b"sep=;\r\nname;site\r\nAcme;acme.com\r\n"
    plain = tmp_path / "plain.csv"
    write_table(frame, plain, bom=False)
    assert plain.read_bytes() == b"name,site\nAcme,acme.com\n", "no sep line unless asked"


def test_single_column_csv_keeps_commas_in_values(tmp_path: Path) -> None:
    path = write_bytes(tmp_path, "one.csv", b"company\nAcme, Inc.\nInitech; Ltd\n")
    frame = read_table(path)
    assert frame.columns == ["company"]
    assert frame["company"].to_list() == ["Acme, Inc.", "Initech; Ltd"]


@pytest.mark.parametrize("data", [b"", b"\n", b"\xef\xbb\xbf", b"  \r\n"])
def test_empty_csv_is_an_empty_frame(tmp_path: Path, data: bytes) -> None:
    frame = read_table(write_bytes(tmp_path, "empty.csv", data))
    assert frame.shape == (0, 0)


@pytest.mark.parametrize("data", [b"id,name\n", b"id,name", b"\xef\xbb\xbfid;name\r\n"])
def test_header_only_csv_has_columns_and_no_rows(tmp_path: Path, data: bytes) -> None:
    frame = read_table(write_bytes(tmp_path, "header.csv", data))
    assert frame.height == 0
    assert frame.columns == ["id", "name"]
    assert frame.schema == pl.Schema({"id": pl.String, "name": pl.String})


def test_ragged_rows_are_kept_whole_and_quoted_newlines(tmp_path: Path) -> None:
    data = b'a,b,c\r\n1,2\r\n3,4,5,6\r\n"multi\nline","",x\r\n7,,9\r\n'
    with pytest.warns(
        InputWarning, match=r"1 row \(2 under the header\) has more fields .*extra_1"
    ):
        frame = read_table(write_bytes(tmp_path, "ragged.csv", data))
    assert frame.columns == ["a", "b", "c", "extra_1"], "never silently cut"
    assert frame.rows() == [
        ("1", "2", None, None),
        ("3", "4", "5", 6),
        ("multi\nline", "", "x", None),
        ("7", None, "9", None),
    ]


def test_csv_numbers_are_numbers_only_when_every_value_is_one_exactly(tmp_path: Path) -> None:
    data = (
        b"id,amount,flag,delta,phone,zip,big,count\n"
        b"00123,12345,true,-5,+1 555 0100,01234,123456789012345678901,7\n"
        b"1e5,3.10,0,2,+49 30 1,12345,1,\n"
    )
    frame = read_table(write_bytes(tmp_path, "n.csv", data))
    assert frame.rows() == [
        ("00123", 12345.0, "true", -5, "+1 555 0100", "01234", "123456789012345678901", 7),
        ("1e5", 3.1, "0", 2, "+49 30 1", "12345", "1", None),
    ]
    assert frame.schema["count"] == pl.Int64


# ---------------------------------------------------------------------------- XLSX reading


def make_workbook(path: Path) -> Path:
    workbook = xlsxwriter.Workbook(str(path), {"default_date_format": "yyyy-mm-dd"})
    sheet = workbook.add_worksheet("Leads")
    sheet.write_row(0, 0, ["id", "revenue", "", "name", "joined"])
    sheet.write_row(1, 0, [1035, 3.5])
    sheet.write_string(1, 3, "Acme")
    sheet.write_datetime(1, 4, dt.date(2024, 5, 6))
    # rows 3 and 4 (Excel numbering) left empty on purpose
    sheet.write_string(4, 0, "00123")
    sheet.write_number(4, 1, -2.0)
    sheet.write_string(4, 3, "Initech")
    sheet.write_datetime(
        4,
        4,
        dt.datetime(2024, 1, 2, 13, 45),
        workbook.add_format({"num_format": "yyyy-mm-dd hh:mm"}),
    )
    sheet.write_number(5, 0, 12345678)
    other = workbook.add_worksheet("Other")
    other.write_row(0, 0, ["x"])
    other.write_row(1, 0, [7])
    workbook.add_worksheet("Empty")
    workbook.close()
    return path


def test_xlsx_keeps_empty_rows_and_columns_aligned(tmp_path: Path) -> None:
    frame = read_table(make_workbook(tmp_path / "leads.xlsx"))
    assert frame.height == 5  # Excel rows 2..6, the two empty ones included
    assert frame.width == 5  # the unnamed empty column is kept
    assert frame["id"].to_list() == ["1035", None, None, "00123", "12345678"]
    assert frame["name"].to_list() == ["Acme", None, None, "Initech", None]
    assert frame.row(1) == (None,) * 5


def test_xlsx_cells_keep_their_types(tmp_path: Path) -> None:
    frame = read_table(make_workbook(tmp_path / "leads.xlsx"))
    assert frame["id"][0] == "1035", "a column mixing numbers and text: the text Excel shows"
    assert frame["revenue"].to_list() == [3.5, None, None, -2.0, None]
    assert frame["joined"].to_list() == [
        dt.datetime(2024, 5, 6),
        None,
        None,
        dt.datetime(2024, 1, 2, 13, 45),
        None,
    ]
    assert frame.schema["name"] == pl.String


def test_xlsx_sheet_by_name_or_position(tmp_path: Path) -> None:
    path = make_workbook(tmp_path / "leads.xlsx")
    assert read_table(path, sheet="Other").rows() == [(7,)]
    assert read_table(path, sheet=1).rows() == [(7,)]
    assert read_table(path, sheet=0).equals(read_table(path))
    assert read_table(path, sheet="Empty").shape == (0, 0)
    with pytest.raises(BatchInputError, match=r"no sheet named 'Nope'.*'Leads'"):
        read_table(path, sheet="Nope")
    with pytest.raises(BatchInputError, match="no sheet number 3"):
        read_table(path, sheet=3)


def titled_workbook(path: Path, rows: list[list[object]]) -> Path:
    workbook = xlsxwriter.Workbook(str(path))
    sheet = workbook.add_worksheet("Accounts")
    for number, row in enumerate(rows):
        sheet.write_row(number, 0, row)
    workbook.close()
    return path


def test_xlsx_title_rows_over_the_table_are_not_its_header(tmp_path: Path) -> None:
    """A title (and a subtitle) then an empty row over the table: the header is the table's
    own (the title was the header, `__UNNAMED__1` the key column, the header row a key);
    the enriched sheet keeps the titles above it, and an empty header cell stays empty."""
    path = titled_workbook(
        tmp_path / "titled.xlsx",
        [
            [None],
            ["Q3 target accounts"],
            ["confidential"],
            [None],
            ["Company", "Website", None],
            ["Acme", "acme.com", 1],
            ["Globex", "globex.io", 2],
        ],
    )
    frame = read_table(path)
    assert frame.columns[:2] == ["Company", "Website"]
    assert frame.rows() == [("Acme", "acme.com", 1), ("Globex", "globex.io", 2)]
    out = tmp_path / "out.xlsx"
    enriched = frame.with_columns(pl.Series("company_name", ["Acme", "Globex"]))
    write_table(enriched, out, around=read_workbook(path, None))
    sheet = openpyxl.load_workbook(out).active
    assert sheet is not None
    cells = [list(row) for row in sheet.iter_rows(max_col=4, values_only=True)]
    assert cells[1][0] == "Q3 target accounts"
    assert cells[2][0] == "confidential"
    assert cells[4] == ["Company", "Website", None, "company_name"], "no __UNNAMED__ written"
    assert cells[5] == ["Acme", "acme.com", 1, "Acme"]
    assert sheet.freeze_panes == "A6"
    assert sheet.auto_filter.ref == "A5:D7"


@pytest.mark.parametrize(
    "rows",
    [
        [["Website", None], ["Acme", "acme.com"], ["Globex", "globex.io"]],  # a short header
        [["Report"], ["Company", "Website"], ["Acme", "acme.com"]],  # no empty row under it
        [["Report"], [None], [1, 2], [3, 4]],  # numbers under the gap: data, not a header
        # a column of data over a gap: not three titles (a code review)
        [["Website"], ["acme.com"], ["globex.com"], [None], ["initech.com", "call back"]],
        [["Website"], [None], ["Acme", "acme.com"], ["Globex", "globex.io"]],  # data, no names
        [["Report"], [None], ["Name", "Name"], ["a", "b"]],  # a name twice: no header
        # groups over names over names: nothing says which row is data
        [["Account", None, "Owner"], ["Name", "City", "First"], ["Acme", "Berlin", "Ann"]],
    ],
)
def test_xlsx_the_first_row_stays_the_header_unless_titles_and_a_gap_are_over_it(
    tmp_path: Path, rows: list[list[object]]
) -> None:
    frame = read_table(titled_workbook(tmp_path / "plain.xlsx", rows))
    assert frame.columns[0] == rows[0][0]
    assert frame.height == len(rows) - 1


@pytest.mark.parametrize(
    "above",
    [[], [["Q3 accounts"]], [["Q3 accounts"], [None]], [["Q3 accounts"], [None], ["Region EU"]]],
    ids=["groups", "a title over them", "a title and a gap", "two titles and a gap"],
)
def test_xlsx_column_groups_over_the_header_are_read_as_titles(
    tmp_path: Path, above: list[list[object]]
) -> None:
    """A new user's review: groups under a title (and a gap) were read as the header, the
    real header then paid for as a key."""
    groups = [["Account", None, "Owner", None], ["Name", "Website", "First", "Last"]]
    rows = [*above, *groups, ["Acme", "acme.io", "Ann", "Lee"]]
    frame = read_table(titled_workbook(tmp_path / "groups.xlsx", rows))
    assert frame.columns == ["Name", "Website", "First", "Last"]
    assert frame.height == 1


@pytest.mark.parametrize(
    ("rows", "columns", "height"),
    [
        ([["Website"], ["acme.com"]], ["Website"], 1),  # a review: an IndexError
        (
            [
                ["Q3 accounts"],
                [None],
                ["Company", "Profile", None],
                ["Acme", "profnet.com/company/acme", "call back"],
                ["Globex", "https://www.profnet.com/company/globex/", None],
            ],
            ["Company", "Profile", "__UNNAMED__2"],
            2,
        ),  # a review: a header with an empty cell read as groups, its first row lost
    ],
    ids=["one column, one row", "a title, a gap, a header with an empty cell"],
)
def test_xlsx_plain_tables_are_not_read_as_groups(
    tmp_path: Path, rows: list[list[object]], columns: list[str], height: int
) -> None:
    frame = read_table(titled_workbook(tmp_path / "plain.xlsx", rows))
    assert (frame.columns, frame.height) == (columns, height)


def test_xlsx_header_only(tmp_path: Path) -> None:
    path = tmp_path / "h.xlsx"
    workbook = xlsxwriter.Workbook(str(path))
    workbook.add_worksheet().write_row(0, 0, ["id", "name"])
    workbook.close()
    frame = read_table(path)
    assert frame.shape == (0, 2)
    assert frame.columns == ["id", "name"]


def test_corrupt_files_raise_batch_input_error(tmp_path: Path) -> None:
    for name in ("bad.xlsx", "bad.parquet"):
        path = write_bytes(tmp_path, name, b"not really")
        with pytest.raises(BatchInputError, match=name):
            read_table(path)


# ---------------------------------------------------------------------------- errors


def test_unknown_extension_names_file_and_kinds(tmp_path: Path) -> None:
    path = write_bytes(tmp_path, "data.json", b"{}")
    with pytest.raises(BatchInputError, match=r"data\.json.*\.csv.*\.parquet.*\.xlsx") as info:
        read_table(path)
    assert isinstance(info.value, ValueError)
    assert isinstance(info.value, ProfnetError)
    assert info.value.path == path
    with pytest.raises(BatchInputError, match=r"data\.json"):
        write_table(sample(), path)
    with pytest.raises(BatchInputError, match=r"\.xlsm"):
        write_table(sample(), tmp_path / "macro.xlsm")


@pytest.mark.parametrize("name", ["missing.csv", "missing.xlsx", "missing.parquet"])
def test_missing_file_names_the_path(tmp_path: Path, name: str) -> None:
    with pytest.raises(BatchInputError, match="missing") as info:
        read_table(tmp_path / name)
    assert str(tmp_path / name) in str(info.value)
    with pytest.raises(BatchInputError, match="no such file"):
        scan_table(tmp_path / name)


def test_missing_folder_when_writing(tmp_path: Path) -> None:
    with pytest.raises(BatchInputError, match="does not exist"):
        write_table(sample(), tmp_path / "nowhere" / "out.csv")


# ---------------------------------------------------------------------------- escaping


@pytest.mark.parametrize("prefix", DANGEROUS)
def test_escape_formula_quotes_every_owasp_prefix(prefix: str) -> None:
    assert escape_formula(f"{prefix}1+1") == f"'{prefix}1+1"


@pytest.mark.parametrize("value", ["", "Acme", "'=already", " =1+1", "1+1", "a=b", "€"])
def test_escape_formula_leaves_safe_strings(value: str) -> None:
    assert escape_formula(value) == value


@given(st.text())
def test_escape_formula_output_is_never_dangerous(value: str) -> None:
    escaped = escape_formula(value)
    assert not escaped.startswith(DANGEROUS)
    assert escaped in (value, "'" + value)
    assert escape_formula(escaped) == escaped  # idempotent


@given(st.text().filter(lambda text: not text.startswith(DANGEROUS)))
def test_escape_formula_is_identity_on_safe_strings(value: str) -> None:
    assert escape_formula(value) == value


@given(st.lists(st.one_of(st.none(), st.text(max_size=8)), max_size=20))
def test_escape_frame_matches_escape_formula(values: list[str | None]) -> None:
    frame = pl.DataFrame({"s": values}, schema={"s": pl.String})
    expected = [None if value is None else escape_formula(value) for value in values]
    assert escape_frame(frame)["s"].to_list() == expected


def test_escape_frame_nested_and_nulls() -> None:
    frame = pl.DataFrame(
        {
            "s": ["=1", None, "ok"],
            "n": [-1, 2, None],
            "tags": [["+a", None, "b"], None, []],
            "company": [
                {"name": "@x", "size": 1, "hq": {"city": "-c", "zip": "0123"}},
                None,
                {"name": None, "size": None, "hq": None},
            ],
            "experience": [[{"title": "\tt", "years": 1}], None, [None]],
            "cat": pl.Series(["=c", None, "d"], dtype=pl.Categorical),
        }
    )
    escaped = escape_frame(frame)
    assert escaped["s"].to_list() == ["'=1", None, "ok"]
    assert escaped["n"].to_list() == [-1, 2, None]
    assert escaped["tags"].to_list() == [["'+a", None, "b"], None, []]
    assert escaped["company"].to_list() == [
        {"name": "'@x", "size": 1, "hq": {"city": "'-c", "zip": "0123"}},
        None,
        {"name": None, "size": None, "hq": None},
    ]
    assert escaped["experience"].to_list() == [[{"title": "'\tt", "years": 1}], None, [None]]
    assert escaped["cat"].to_list() == ["'=c", None, "d"]
    assert escaped.schema["company"] == frame.schema["company"]
    assert escaped.schema["experience"] == frame.schema["experience"]


def test_escape_frame_only_given_columns() -> None:
    frame = pl.DataFrame({"a": ["=1"], "b": ["=2"]})
    assert escape_frame(frame, ["b"]).row(0) == ("=1", "'=2")
    assert escape_frame(frame, "a").row(0) == ("'=1", "=2")
    with pytest.raises(BatchInputError, match="'zz'"):
        escape_frame(frame, ["zz"])


def hostile_frame() -> pl.DataFrame:
    return pl.DataFrame(
        {
            "value": HOSTILE,
            "tags": [[value, "safe"] for value in HOSTILE],
            "company": [{"name": value, "size": 1} for value in HOSTILE],
            "experience": [[{"title": value, "years": 2}] for value in HOSTILE],
        }
    )


def test_csv_escapes_every_prefix_joins_lists_and_writes_records_as_json(tmp_path: Path) -> None:
    frame = hostile_frame().with_columns(pl.col("value").alias("=header"))
    path = write_table(frame, tmp_path / "out.csv")
    rows = list(csv.reader(io.StringIO(path.read_text(encoding="utf-8-sig"), newline="")))
    assert rows[0] == ["value", "tags", "company", "experience", "'=header"]
    for row in rows:
        for cell in row:
            assert not cell.startswith(DANGEROUS), cell
    back = read_table(path)
    assert back["value"].to_list() == ["'" + value for value in HOSTILE]
    for value, tags, company, experience in zip(
        HOSTILE, back["tags"], back["company"], back["experience"], strict=True
    ):
        assert tags == "'" + value + "; safe"
        assert json.loads(company) == {"name": "'" + value, "size": 1}
        assert json.loads(experience) == [{"title": "'" + value, "years": 2}]


def test_csv_without_escaping(tmp_path: Path) -> None:
    frame = pl.DataFrame({"=h": ["=1+1", "-5"]})
    back = read_table(write_table(frame, tmp_path / "raw.csv", escape=False))
    assert back.rows() == [("=1+1",), ("-5",)]
    assert back.columns == ["=h"]


def test_xlsx_cells_are_text_never_formulas_and_show_no_quote(tmp_path: Path) -> None:
    frame = hostile_frame().with_columns(
        pl.col("value").alias("=header"),
        pl.Series("plain", ["=1+1", "http://x.test", "00123", "3", "", None, "ok", "@a"]),
        pl.Series("n", [1, -2, None, 2**60, 5, 6, 7, 8]),
    )
    path = write_table(frame, tmp_path / "out.xlsx")
    sheet = openpyxl.load_workbook(path).active
    assert sheet is not None
    rows = list(sheet.iter_rows())
    header = [cell.value for cell in rows[0]]
    assert header == ["value", "tags", "company", "experience", "=header", "plain", "n"]
    assert rows[0][4].quotePrefix, "a header that looks like a formula stays text"
    for row in rows:
        for cell in row:
            assert cell.data_type != "f", cell.coordinate
            if isinstance(cell.value, str):
                assert cell.data_type == "s"
                assert cell.quotePrefix == ooxml_unescape(cell.value).startswith(DANGEROUS)
    # openpyxl leaves OOXML's escapes of control characters (CR is "_x000D_") undecoded
    values = [ooxml_unescape(str(cell.value)) for cell in sheet["A"][1:]]
    assert values == HOSTILE, "as they were: no visible quote, Excel's quote prefix instead"
    plain = [cell.value for cell in sheet["F"][1:]]
    assert plain[:4] == ["=1+1", "http://x.test", "00123", "3"]
    assert sheet["F2"].quotePrefix
    assert sheet["F2"].hyperlink is None
    assert [cell.value for cell in sheet["G"][1:5]] == [1, -2, None, str(2**60)]
    back = read_table(path)
    assert back["value"].to_list() == HOSTILE
    assert back.columns[4] == "=header"
    for value, tags, company, experience in zip(
        HOSTILE, back["tags"], back["company"], back["experience"], strict=True
    ):
        assert tags == f"{value}; safe", "lists as the Excel formulas show them"
        assert json.loads(company) == {"name": value, "size": 1}
        assert json.loads(experience) == [{"title": value, "years": 2}]


def test_xlsx_columns_are_as_wide_as_their_text(tmp_path: Path) -> None:
    frame = pl.DataFrame({"id": [1, 2], "a_long_header_name": ["x", "y"], "note": ["w" * 30, None]})
    sheet = openpyxl.load_workbook(write_table(frame, tmp_path / "w.xlsx")).active
    assert sheet is not None
    widths = [sheet.column_dimensions[letter].width for letter in "ABC"]
    assert widths[0] < widths[2], widths
    assert widths[1] >= len("a_long_header_name")
    assert widths[2] >= 30


def test_xlsx_temporal_and_boolean_cells(tmp_path: Path) -> None:
    frame = pl.DataFrame(
        {
            "day": [dt.date(2024, 5, 6)],
            "at": [dt.datetime(2024, 1, 2, 13, 45, 10)],
            "ok": [True],
            "x": [0.25],
        }
    )
    path = write_table(frame, tmp_path / "t.xlsx")
    sheet = openpyxl.load_workbook(path).active
    assert sheet is not None
    assert sheet["A2"].value == dt.datetime(2024, 5, 6)
    assert sheet["B2"].value == dt.datetime(2024, 1, 2, 13, 45, 10)
    assert sheet["C2"].value is True
    assert sheet["D2"].value == 0.25
    assert read_table(path).row(0) == (
        dt.date(2024, 5, 6),
        dt.datetime(2024, 1, 2, 13, 45, 10),
        True,
        0.25,
    )


def test_timestamps_with_a_zone_are_dates_in_xlsx_and_utc_text_in_csv(tmp_path: Path) -> None:
    utc = dt.UTC
    frame = pl.DataFrame({"posted_at": [dt.datetime(2026, 11, 3, 14, 22, 5, tzinfo=utc), None]})
    sheet = openpyxl.load_workbook(write_table(frame, tmp_path / "t.xlsx")).active
    assert sheet is not None
    assert sheet["A2"].value == dt.datetime(2026, 11, 3, 14, 22, 5)
    text = write_table(frame, tmp_path / "t.csv").read_text(encoding="utf-8-sig")
    assert text.splitlines()[1] == "2026-11-03T14:22:05Z"


def test_empty_frame_writes_and_reads(tmp_path: Path) -> None:
    frame = pl.DataFrame(schema={"id": pl.String, "n": pl.Int64})
    for suffix in (".csv", ".xlsx"):
        back = read_table(write_table(frame, tmp_path / f"e{suffix}"))
        assert back.columns == ["id", "n"]
        assert back.height == 0


# ---------------------------------------------------------------------------- atomic writes


def test_failed_write_leaves_no_partial_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "out.csv"

    def half_then_fail(self: pl.DataFrame, file: IO[bytes], **_: object) -> None:
        file.write(b"001,Jo")  # after the header row
        raise OSError("disk full")

    monkeypatch.setattr(pl.DataFrame, "write_csv", half_then_fail)
    with pytest.raises(OSError, match="disk full"):
        write_table(sample(), target)
    assert files_in(tmp_path) == []


def test_failed_write_keeps_the_previous_file(tmp_path: Path) -> None:
    target = write_table(sample(), tmp_path / "out.parquet")
    before = target.read_bytes()
    unwritable = pl.DataFrame({"o": pl.Series([object()], dtype=pl.Object)})
    with pytest.raises(pl.exceptions.ComputeError):
        write_table(unwritable, target)
    assert target.read_bytes() == before
    assert files_in(tmp_path) == ["out.parquet"]


def test_failed_xlsx_write_leaves_no_partial_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = 0
    original = batch_xlsx._cell_writer

    def failing_writer(*args: object) -> object:
        write = original(*args)  # type: ignore[arg-type]

        def wrapped(row: int, col: int, value: object) -> object:
            nonlocal calls
            calls += 1
            if calls > 3:
                raise RuntimeError("interrupted")
            return write(row, col, value)

        return wrapped

    monkeypatch.setattr(batch_xlsx, "_cell_writer", failing_writer)
    with pytest.raises(RuntimeError, match="interrupted"):
        write_table(sample(), tmp_path / "out.xlsx")
    assert files_in(tmp_path) == []


def test_overwrite_replaces_content_and_keeps_permissions(tmp_path: Path) -> None:
    target = write_table(sample(), tmp_path / "out.csv")
    target.chmod(0o640)
    write_table(pl.DataFrame({"other": ["x"]}), target)
    assert read_table(target).rows() == [("x",)]
    assert target.stat().st_mode & 0o777 == 0o640
    assert files_in(tmp_path) == ["out.csv"]


# ---------------------------------------------------------------------------- streaming


def test_scan_table_streams_a_big_csv(tmp_path: Path) -> None:
    n = 100_000
    path = tmp_path / "big.csv"
    pl.DataFrame(
        {"id": pl.int_range(n, eager=True).cast(pl.String).str.zfill(7), "v": ["x;y"] * n}
    ).write_csv(path, separator=";", include_bom=True)
    lazy = scan_table(path)
    assert isinstance(lazy, pl.LazyFrame)
    assert lazy.collect_schema() == pl.Schema({"id": pl.String, "v": pl.String})
    head = lazy.head(2).collect()
    assert head.rows() == [("0000000", "x;y"), ("0000001", "x;y")]
    assert lazy.select(pl.len()).collect().item() == n


def test_scan_table_parquet_and_refusals(tmp_path: Path) -> None:
    parquet = write_table(sample(), tmp_path / "s.parquet")
    assert scan_table(parquet).collect().equals(sample())
    with pytest.raises(BatchInputError, match="CSV or Parquet"):
        scan_table(make_workbook(tmp_path / "w.xlsx"))
    utf16 = write_bytes(tmp_path, "u.csv", "a\tb\n1\t2\n".encode("utf-16"))
    with pytest.raises(BatchInputError, match="read_table"):
        scan_table(utf16)
    cp1252 = write_bytes(tmp_path, "c.csv", "a\nCafé\n".encode("cp1252"))
    with pytest.raises(BatchInputError, match="not UTF-8"):
        scan_table(cp1252)
    assert scan_table(write_bytes(tmp_path, "e.csv", b"")).collect().shape == (0, 0)


def test_sink_table_csv_is_escaped_and_flat(tmp_path: Path) -> None:
    path = sink_table(hostile_frame().lazy(), tmp_path / "out.csv")
    assert path.read_bytes().startswith(b"\xef\xbb\xbf")
    back = read_table(path)
    assert back["value"].to_list() == ["'" + value for value in HOSTILE]
    assert back["company"][0] == '{"name":"\'' + HOSTILE[0].replace('"', '\\"') + '","size":1}'
    assert files_in(tmp_path) == ["out.csv"]


def test_sink_table_parquet_keeps_nested(tmp_path: Path) -> None:
    frame = hostile_frame()
    path = sink_table(frame.lazy(), tmp_path / "out.parquet")
    assert read_table(path).equals(frame)
    with pytest.raises(BatchInputError, match="write_table"):
        sink_table(frame.lazy(), tmp_path / "out.xlsx")
    assert files_in(tmp_path) == ["out.parquet"]


def test_write_table_accepts_str_paths(tmp_path: Path) -> None:
    path = write_table(sample(), str(tmp_path / "s.csv"))
    assert isinstance(path, Path)
    assert os.path.exists(path)


def test_csv_writes_durations_arrays_and_categoricals_as_text(tmp_path: Path) -> None:
    frame = pl.DataFrame(
        {
            "pair": pl.Series([["=a", "b"], None], dtype=pl.Array(pl.String, 2)),
            "kind": pl.Series(["=x", "y"], dtype=pl.Categorical),
            "tenure": [dt.timedelta(days=1, hours=6), None],
        }
    )
    for write in (write_table, lambda f, p: sink_table(f.lazy(), p)):
        path = write(frame, tmp_path / "t.csv")
        assert read_table(path).rows() == [("'=a; b", "'=x", "P1DT6H"), (None, "y", None)]


@pytest.mark.parametrize("suffix", [".csv", ".xlsx"])
def test_binary_data_is_written_as_its_hex_digits(tmp_path: Path, suffix: str) -> None:
    """A Parquet input's binary column, written to CSV, failed after the run had paid."""
    frame = pl.DataFrame({"blob": pl.Series([b"\x0a\x1b", None], dtype=pl.Binary), "n": [1, 2]})
    for write in (write_table, lambda f, p: sink_table(f.lazy(), p)):
        if suffix == ".xlsx" and write is not write_table:
            continue
        path = write(frame, tmp_path / f"t{suffix}")
        assert read_table(path)["blob"].to_list() == ["0a1b", None]


def test_the_columns_kept_are_written_as_they_came_the_others_escaped(tmp_path: Path) -> None:
    frame = pl.DataFrame({"Phone": ["+1 555 0100", "-5"], "=added": ["=1+1", "ok"]})
    write_table(frame, tmp_path / "out.csv", kept=["Phone"])
    text = (tmp_path / "out.csv").read_text(encoding="utf-8-sig")
    assert text.splitlines() == ["Phone,'=added", "+1 555 0100,'=1+1", "-5,ok"]


def test_a_big_enriched_sheet_is_written_from_its_frame_not_read_five_times_more(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its own cells are read as typed only up to a size (5 more reads of the sheet, a Python
    object per cell: 200k rows took 5 s and 500 MB); above it, the frame's values."""
    path = titled_workbook(
        tmp_path / "big.xlsx", [["Website", "Mixed"], ["a.io", 7], ["b.io", "x"]]
    )
    monkeypatch.setattr(batch_xlsx, "_OWN_CELLS_AT_MOST", 4)
    assert read_workbook(path, None).sheets[0].own == ()
    monkeypatch.setattr(batch_xlsx, "_OWN_CELLS_AT_MOST", 6)
    assert read_workbook(path, None).sheets[0].own[1] == ("a.io", 7)


def test_xlsx_numbers_past_excels_dates_are_kept_as_numbers(tmp_path: Path) -> None:
    """A new user's review: any XLSX with a number of 2,958,466 or more (a revenue, a phone
    number stored as one) failed XLSX to XLSX with `year 15589 is out of range`: every number
    is also read as a date, and those past year 9999 are none Python can hold."""
    path = tmp_path / "revenue.xlsx"
    book = openpyxl.Workbook()
    sheet = book.active
    assert sheet is not None
    sheet.append(["Website", "Revenue"])
    sheet.append(["stripe.com", 5_000_000])
    sheet.append(["acme.com", -1_000_000])
    pipeline = book.create_sheet("Pipeline")
    pipeline.append(["Deal", "Value"])
    pipeline.append(["x", 99_999_999])
    book.save(path)
    frame = read_table(path)
    out = tmp_path / "out.xlsx"
    write_table(frame, out, around=read_workbook(path, None))
    written = openpyxl.load_workbook(out)
    assert [row[1] for row in written.worksheets[0].iter_rows(values_only=True)] == [
        "Revenue",
        5_000_000,
        -1_000_000,
    ]
    assert list(written["Pipeline"].iter_rows(values_only=True)) == [
        ("Deal", "Value"),
        ("x", 99_999_999),
    ]


def test_a_text_file_named_xlsx_is_said_to_be_text(tmp_path: Path) -> None:
    """Helper 96: a CSV renamed `.xlsx` gave calamine's `Zip error: ... Could not find EOCD`."""
    renamed = tmp_path / "accounts.xlsx"
    renamed.write_text("Website\nacme.com\n", encoding="utf-8")
    with pytest.raises(BatchInputError, match=r"is text \(a CSV file renamed, perhaps\), not an"):
        read_table(renamed)
    pdf = tmp_path / "report.xlsx"
    pdf.write_bytes(b"%PDF-1.4 ...")
    with pytest.raises(BatchInputError, match="is a PDF document, not an Excel workbook"):
        read_table(pdf)


def test_a_quote_never_closed_is_said_with_its_line(tmp_path: Path) -> None:
    """Helper 96: an unterminated quote gave `could not parse `"acme.com)`, with no line."""
    source = tmp_path / "q.csv"
    source.write_text('Website\nstripe.com\n"acme.com\nklarna.com\n', encoding="utf-8")
    with pytest.raises(BatchInputError, match=r"line 3 opens a quote \(\"\) that no line closes"):
        read_table(source)
