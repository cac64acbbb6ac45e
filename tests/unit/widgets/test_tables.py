"""HTML tables and messages are escaped; downloads and export paths are what users expect."""

from __future__ import annotations

import base64
import re
from pathlib import Path

import pytest

from profnet_sheets.widgets.tables import (
    MAX_CELL_CHARS,
    cell_text,
    download_link,
    export_path,
    html_table,
    message,
)
from profnet_sheets.words import counted


def test_service_text_is_escaped_not_run() -> None:
    rows = [{"name": "<script>alert(1)</script>", "title": "=2+3"}]
    table = html_table(rows, ["name", "title"], noun=("lead", "leads"))
    assert "<script>alert" not in table
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in table
    assert "<td>=2+3</td>" in table  # shown as it is; exports escape it for spreadsheets
    assert "1 lead<" in table, "one lead, not 1 leads"


def test_long_tables_say_how_many_are_shown() -> None:
    rows = [{"n": i} for i in range(5)]
    table = html_table(rows, ["n"], total=1200, noun=("lead", "leads"), max_rows=3)
    assert table.count("<tr>") == 4  # header + 3
    assert "1,200 leads (the first 3 shown; export them all)" in table


def test_cells() -> None:
    assert cell_text(None) == ""
    assert cell_text(["a", {"b": 1}]) == '["a",{"b":1}]'
    long = cell_text("x" * 500)
    assert len(long) == MAX_CELL_CHARS
    assert long.endswith("…")


def test_messages_are_escaped_and_toned() -> None:
    assert message("") == ""
    shown = message("<b>no</b>", "error")
    assert "&lt;b&gt;" in shown
    assert 'class="profnet-error"' in shown


def test_download_link_carries_the_file() -> None:
    link = download_link(b"a,b\n'=1,2\n", "out/leads.csv")
    assert 'download="leads.csv"' in link
    found = re.search(r'href="data:text/csv;base64,([^"]+)"', link)
    assert found is not None
    assert base64.b64decode(found.group(1)) == b"a,b\n'=1,2\n"


@pytest.mark.parametrize(
    ("typed", "suffix", "expected"),
    [
        ("leads", ".csv", "leads.csv"),
        ("out/leads.xlsx", ".csv", "out/leads.csv"),
        ("acme.inc", ".xlsx", "acme.inc.xlsx"),
        ("  ", ".csv", "export.csv"),
    ],
)
def test_export_path(typed: str, suffix: str, expected: str) -> None:
    assert export_path(typed, suffix) == Path(expected)


@pytest.mark.parametrize(
    ("number", "words", "text"),
    [
        (1, ("credit",), "1 credit"),
        (0, ("credit",), "0 credits"),
        (1200, ("company", "companies"), "1,200 companies"),
        (1, ("company", "companies"), "1 company"),
    ],
)
def test_counted(number: int, words: tuple[str, ...], text: str) -> None:
    assert counted(number, *words) == text


def test_an_answer_is_shown_as_a_table_of_its_fields_not_json() -> None:
    from profnet_sheets.widgets.tables import answer_html

    shown = answer_html({"company_name": "<Acme>", "specialties": ["RPO", "Hiring"], "size": 12})
    assert "<td>company_name</td><td>&lt;Acme&gt;</td>" in shown
    assert "<td>RPO; Hiring</td>" in shown, "lists of text read as in the exports"
    assert "3 fields" in shown
    assert "{" not in shown.split("</style>")[1]
    rows = answer_html([{"name": "Berlin", "geo_id": 1}, {"name": "Bern", "geo_id": 2}])
    assert "<th>name</th><th>geo_id</th>" in rows
    assert "2 rows" in rows
