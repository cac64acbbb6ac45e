"""Bad input (issue 7) at the file layer: what once lost rows or data silently, now kept or
refused with the file's name and what to do. Round trips and encodings in general are in
tests/unit/test_batch_io.py; the same files through the CLI in
tests/integration/test_reliability_input.py.
"""

from __future__ import annotations

from pathlib import Path

import openpyxl
import polars as pl
import pytest

from profnet_sheets.batch.io import (
    BatchInputError,
    check_excel_limits,
    check_target,
    read_table,
    scan_table,
    write_table,
)

EXCEL_CELL = 32_767


@pytest.mark.parametrize(
    "data",
    [
        b"name,site\rA,a.io\rB,b.io\r",  # classic Mac
        b"name,site\r\nA,a.io\rB,b.io\nC,c.io",  # all three at once
    ],
)
def test_lone_cr_line_ends_keep_every_row(tmp_path: Path, data: bytes) -> None:
    source = tmp_path / "mac.csv"
    source.write_bytes(data)
    frame = read_table(source)
    assert frame["name"].to_list()[:2] == ["A", "B"]
    assert frame["site"].to_list()[:2] == ["a.io", "b.io"]
    assert frame.height == data.count(b",") - 1


def test_a_cr_inside_quotes_is_data_not_a_line_end(tmp_path: Path) -> None:
    source = tmp_path / "quoted.csv"
    source.write_bytes(b'name,note\rA,"one\rtwo"\rB,"say ""hi""\r"\r')
    frame = read_table(source)
    assert frame.rows() == [("A", "one\rtwo"), ("B", 'say "hi"\r')]


@pytest.mark.parametrize(
    ("data", "says", "rows"),
    [
        (b"name,site\n" + b"a,b.io\n" * 20_000 + b"Caf\xe9,c.io\n", "not UTF-8", 20_001),
        (b"name,site\n" + b"a,b.io\n" * 20_000 + b"x,y\rz,w\n", "CR alone", 20_002),
    ],
    ids=["a cp1252 byte past the sniffed head", "a lone CR past the sniffed head"],
)
def test_streaming_refuses_up_front_what_it_would_misread(
    tmp_path: Path, data: bytes, says: str, rows: int
) -> None:
    source = tmp_path / "big.csv"
    source.write_bytes(data)
    with pytest.raises(BatchInputError, match=says) as caught:
        scan_table(source)
    assert str(source) in str(caught.value)
    assert read_table(source).height == rows, "read whole, every row is there"


def test_a_file_with_windows_line_ends_is_streamed(tmp_path: Path) -> None:
    source = tmp_path / "windows.csv"
    source.write_bytes(b"name,site\r\na,b.io\r\nc,d.io\r\n")
    assert scan_table(source).collect().rows() == [("a", "b.io"), ("c", "d.io")]


def test_a_cell_too_long_for_excel_is_refused_not_cut(tmp_path: Path) -> None:
    fits = pl.DataFrame({"a": ["=" + "x" * (EXCEL_CELL - 1)], "b": [["y" * 100]]})
    write_table(fits, tmp_path / "fits.xlsx")
    sheet = openpyxl.load_workbook(tmp_path / "fits.xlsx").active
    assert sheet is not None
    assert sheet["A2"].value == "=" + "x" * (EXCEL_CELL - 1), "whole, no visible quote"
    assert sheet["A2"].quotePrefix, "and text when edited"
    too_long = pl.DataFrame({"a": ["ok", "=" + "x" * EXCEL_CELL]})
    with pytest.raises(BatchInputError, match=r"column 'a' holds 32,768 characters in row 2"):
        write_table(too_long, tmp_path / "long.xlsx")
    assert not (tmp_path / "long.xlsx").exists()
    with pytest.raises(BatchInputError, match="write CSV or Parquet"):
        check_excel_limits(pl.DataFrame({"n": [["z" * EXCEL_CELL, "z"]]}), tmp_path / "n.xlsx")
    write_table(too_long, tmp_path / "long.csv")
    assert read_table(tmp_path / "long.csv")["a"][1] == "'=" + "x" * EXCEL_CELL


def test_a_read_only_folder_is_said_not_a_traceback(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On a read-only file system removing the probe (never made) fails too: before, that
    error replaced the message (a new user's review, from enrich and search)."""
    import errno

    def read_only(self: Path, *args: object, **kwargs: object) -> None:
        raise OSError(errno.EROFS, "Read-only file system", str(self))

    monkeypatch.setattr(Path, "open", read_only)
    monkeypatch.setattr(Path, "unlink", read_only)
    with pytest.raises(BatchInputError, match=r"cannot be written in .* \(Read-only file system\)"):
        check_target(tmp_path / "out.csv")


@pytest.mark.parametrize(
    ("name", "says"),
    [
        ("out.doc", "unsupported file kind '.doc'"),
        ("out", r"unsupported file kind '\(no extension\)'"),
        ("out.xlsm", "cannot write .xlsm"),
        ("missing/out.csv", "does not exist"),
        ("folder.csv", "is a folder"),
    ],
)
def test_a_target_that_cannot_be_written_is_known_before_any_work(
    tmp_path: Path, name: str, says: str
) -> None:
    (tmp_path / "folder.csv").mkdir()
    with pytest.raises(BatchInputError, match=says):
        check_target(tmp_path / name)
    assert check_target(tmp_path / "fine.parquet") == tmp_path / "fine.parquet"
