"""Decoding a CSV: UTF-8 as it is, mixed files per line, other encodings guessed and said."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

from profnet_sheets.batch.decode import InputWarning, decode
from profnet_sheets.batch.io import read_table

JAPANESE = "会社名,ウェブサイト\n株式会社トヨタ,toyota.jp\n任天堂株式会社,nintendo.co.jp\n"


def decoded(data: bytes) -> tuple[str, list[str]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        text = decode(data, "f.csv")
    return text, [str(warning.message) for warning in caught]


def test_utf8_is_never_turned_into_mojibake_and_says_nothing() -> None:
    text = "Name\nMünchen — Zoë 漢字 😀\n"
    assert decoded(text.encode()) == (text, [])


def test_one_latin1_line_in_a_utf8_file_is_read_alone_and_named() -> None:
    data = "Name\nMünchen\nZürich\n".encode() + "Köln\n".encode("latin-1") + "Genève\n".encode()
    text, said = decoded(data)
    assert text == "Name\nMünchen\nZürich\nKöln\nGenève\n", "the UTF-8 lines stay right"
    assert said == [
        "f.csv: UTF-8 except line 4, read as cp1252 (Windows Western European): check those rows"
    ]


def test_shift_jis_is_read_as_japanese_with_a_warning_that_it_was_guessed() -> None:
    text, said = decoded(JAPANESE.encode("shift_jis"))
    assert text == JAPANESE
    assert len(said) == 1
    assert "not UTF-8: read as cp932 (Japanese Shift-JIS), a guess" in said[0]


def test_excel_windows_csv_is_cp1252_and_other_readings_are_named() -> None:
    text, said = decoded("Société;Prix\nCafé “Müller”;€5\n".encode("cp1252"))
    assert text == "Société;Prix\nCafé “Müller”;€5\n"
    assert "read as cp1252 (Windows Western European), a guess" in said[0]
    assert "save it as CSV UTF-8" in said[0]


def test_read_table_warns_and_reads_japanese(tmp_path: Path) -> None:
    path = tmp_path / "jp.csv"
    path.write_bytes(JAPANESE.encode("shift_jis"))
    with pytest.warns(InputWarning, match="Shift-JIS"):
        frame = read_table(path)
    assert frame.columns == ["会社名", "ウェブサイト"]
    assert frame["会社名"].to_list() == ["株式会社トヨタ", "任天堂株式会社"]
