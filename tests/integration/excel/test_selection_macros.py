"""Enrich selection and Freeze as values end to end: their logic against the sandbox, through
the thin xlwings shells, driven by the stand-in workbook of tests/unit/excel/workbook.py."""

from __future__ import annotations

import datetime as dt
from typing import Any

from profnet_sheets import Client
from profnet_sheets.excel import macros, selection
from tests.integration.excel.conftest import KEY, Excel
from tests.unit.excel import workbook
from tests.unit.excel.test_templates import BUILDER, TEMPLATES, sheet_rows

WEBSITES = [["Account", "Website"], ["Stripe", "stripe.com"], ["Acme", "https://www.acme.com/x"]]
WEBSITES += [["Stripe again", "WWW.STRIPE.COM"], ["Nobody", None], ["Bad", "not a domain"]]


class Book(workbook.Book):
    """A workbook with an Enrich sheet (kind, fields) and a Data sheet of websites."""

    def __init__(self, kind: Any = "company", fields: Any = "industry, company_size") -> None:
        super().__init__(
            {"Enrich": [["Setting", "Value"], ["kind", kind], ["fields", fields]], "Data": WEBSITES}
        )

    def report(self) -> dict[str, Any]:
        block = self.sheets["Enrich"].range(macros.REPORT_CLEAR).value
        return {row[0]: row[1] for row in block if row[0] is not None}


def truth(excel: Excel, domain: str) -> dict[str, Any]:
    with Client(api_key=KEY, base_url=excel.sandbox.base_url, cache="memory") as client:
        record: dict[str, Any] = client.get_company_details(domain=domain)
    return record


def test_enrich_selection_writes_values_beside_the_column_after_asking(excel: Excel) -> None:
    stripe, acme = truth(excel, "stripe.com"), truth(excel, "acme.com")
    base = excel.charged()
    book = Book()
    book.select("Data", "B2:B6")
    macros.enrich_selection(book)
    assert book.app.prompts == [
        "Enrich selection: 5 rows: 3 to fetch, 0 already cached (free), 1 that cannot be "
        "looked up, 1 blank; at most 2 credits (rows with the same key are fetched once); "
        "answers lost on the way and asked again may cost more (a budget bounds it). Run it?"
    ]
    table = book.sheets["Data"].table()
    assert [row[2:] for row in table] == [
        ["industry", "company_size"],
        [stripe["industry"], stripe["company_size"]],
        [acme["industry"], acme["company_size"]],
        [stripe["industry"], stripe["company_size"]],
        [None, None],  # a blank key: a blank row
        [table[5][2], None],
    ]
    assert table[5][2].startswith("#PROFNET! invalid input: 'not a domain'")
    assert all(
        not isinstance(cell, workbook.Formula | dt.datetime) for row in table for cell in row
    ), "values only, texts as text (a size 11-50 is not a date)"
    assert excel.charged() - base == 2
    report = book.report()
    assert report["status"] == (
        "done: 5 rows written to Data!C1:D6, 1 with an error (#PROFNET! in the row); "
        "2 credits spent"
    )
    assert report["credits spent"] == 2
    assert any("lookups" in str(line) for line in book.app.bar)
    assert book.app.bar[-1] is False, "the status bar is handed back to Excel"

    # Again over its own earlier output (the same header): free, and nothing asked.
    macros.enrich_selection(book)
    assert len(book.app.prompts) == 1
    assert excel.charged() - base == 2
    assert book.sheets["Data"].table() == table


def test_a_whole_column_selected_with_its_header(excel: Excel) -> None:
    book = Book(kind="Company", fields="website")
    book.select("Data", "B1:B1048576")
    macros.enrich_selection(book)
    column = [row[2] for row in book.sheets["Data"].table()]
    assert column[0] == "website"
    assert column[1] == truth(excel, "stripe.com")["website"]
    assert len(column) == 6


def test_nothing_is_overwritten_spent_or_run_without_consent(excel: Excel) -> None:
    busy = Book()
    busy.sheets["Data"].range("D3").value = "my notes"
    busy.select("Data", "B2:B6")
    macros.enrich_selection(busy)
    assert "C1:D6, where the values go, is not empty" in busy.report()["status"]
    assert busy.sheets["Data"].range("D3").value == "my notes"

    cancelled = Book()
    cancelled.app.answer = "cancel"
    cancelled.select("Data", "B2:B6")
    macros.enrich_selection(cancelled)
    assert cancelled.report()["status"] == "cancelled: nothing spent"
    assert cancelled.sheets["Data"].range("C1").value is None

    wide = Book()
    wide.select("Data", "A2:B6")
    macros.enrich_selection(wide)
    assert "select one column of keys (the selection is 2 columns wide)" in wide.report()["status"]

    unknown = Book(kind="revenue")
    unknown.select("Data", "B2:B6")
    macros.enrich_selection(unknown)
    assert "unknown kind 'revenue'" in unknown.report()["status"]

    excel.start(budget=1)
    poor = Book()
    poor.select("Data", "B2:B6")
    macros.enrich_selection(poor)
    assert poor.report()["status"].endswith("budget left 1. Over the budget (1 left): not run.")
    assert poor.app.prompts == []
    assert excel.calls() == 0


def test_freeze_replaces_profnet_formulas_by_their_values(excel: Excel) -> None:
    book = workbook.Book({"Data": [["Website"], ["stripe.com"], ["acme.com"]]})
    sheet = book.sheets["Data"]
    answer = [["company_name", "company_size"], ["Stripe", "1-10"], ["Acme", "11-50"]]
    sheet.formula("B1", '=PROFNET_COMPANY(A2:A3, "company_name, company_size", TRUE)', answer)
    sheet.formula("D1", "=SUM(1, 2)", [[3.0]])
    sheet.formula("E1", '=PROFNET_COMPANY("x")', [["#PROFNET! invalid input: 'x' ..."]])
    sheet.formula("F1", "=PROFNET_CREDITS()", [[12.0, 988.0, "SANDBOX"]])
    book.select("Data", "A1:F3")
    macros.freeze_selection(book)
    assert book.app.prompts[0].startswith(
        "Freeze as values: replace 2 PROFNET_ formulas (9 cells) by the values they show?"
    )
    assert "E1 (shows #PROFNET! invalid input" in book.app.prompts[0]
    assert sheet.formulas == {(1, 4): "=SUM(1, 2)", (1, 5): '=PROFNET_COMPANY("x")'}
    assert sheet.range("B1:C3").value == answer, "sizes stay text, not dates"
    assert sheet.range("F1:H1").value == [[12.0, 988.0, "SANDBOX"]]
    assert book.app.prompts[-1].startswith("Freeze as values: 2 formulas replaced by 9 values.")
    assert excel.calls() == 0, "freezing reads what the cells show: nothing is fetched"


def test_freeze_asks_first_and_says_when_there_is_nothing_to_freeze(excel: Excel) -> None:
    book = workbook.Book({"Data": [["x"]]}, answer="cancel")
    sheet = book.sheets["Data"]
    sheet.formula("B1", "=PROFNET_GEOCODE(A1)", [["90009706"]])
    book.select("Data", "B1")
    macros.freeze_selection(book)
    assert sheet.formulas == {(1, 2): "=PROFNET_GEOCODE(A1)"}, "cancelled: unchanged"
    book.select("Data", "A1")
    macros.freeze_selection(book)
    assert book.app.prompts[-1].startswith("Freeze as values: no PROFNET_ formula")
    nothing = workbook.Book({"Data": [["x"]]})
    macros.freeze_selection(nothing)
    assert nothing.app.prompts == ["#PROFNET! select the cells first, then run the macro again"]


def test_the_company_enrichment_template_enriches_its_as_values_sheet(excel: Excel) -> None:
    path = TEMPLATES / "profnet_company_enrichment.xlsx"
    sheets = {name: sheet_rows(path, name) for name in (BUILDER.AS_VALUES, selection.ENRICH_SHEET)}
    book = workbook.Book(sheets)
    book.select(BUILDER.AS_VALUES, f"B2:B{len(sheets[BUILDER.AS_VALUES])}")
    macros.enrich_selection(book)
    table = book.sheets[BUILDER.AS_VALUES].table()
    assert table[0][2:] == ["company_name", "industry", "company_size", "website"]
    assert book.app.prompts[0].startswith("Enrich selection: 20 rows")
    assert excel.charged() > 0
    assert sum(1 for row in table[1:] if str(row[2]).startswith("#PROFNET!")) < 5


def test_a_selection_cut_by_the_accounts_credits_says_so_and_runs_at_once_after_a_top_up(
    excel: Excel,
) -> None:
    """A new user's review: with 3 credits for 8 keys the status said `done: ... 5 with an
    error`, and the run agreed to right after the top-up sent nothing (the formulas' 10 s
    hold): `0 credits spent`, the same rows out of credits again. A button is a run of its
    own, and a run a limit or a stop cut says so first."""
    import requests

    def credits(left: int) -> None:
        requests.put(
            f"{excel.sandbox.base_url}/_sandbox/keys",
            json={"key": KEY, "credits": left},
            timeout=5,
        ).raise_for_status()

    credits(3)
    book = workbook.Book(
        {
            "Enrich": [["Setting", "Value"], ["kind", "company"], ["fields", "company_name"]],
            "Data": [["Website"]] + [[f"topped{n}.com"] for n in range(8)],
        }
    )
    book.select("Data", "A2:A9")
    base = excel.charged()
    macros.enrich_selection(book)
    status = {row[0]: row[1] for row in book.sheets["Enrich"].range(macros.REPORT_CLEAR).value}
    assert str(status["status"]).startswith("stopped: 5 of 8 rows not done (out of credits"), status
    assert "run Enrich selection again once that is fixed" in str(status["status"])
    assert excel.charged() - base == 3
    credits(100)
    macros.enrich_selection(book)  # agreed to at once (the stand-in workbook says OK)
    again = {row[0]: row[1] for row in book.sheets["Enrich"].range(macros.REPORT_CLEAR).value}
    assert excel.charged() - base == 8, "the 5 left, asked of the service again"
    assert str(again["status"]).startswith("done: 8 rows written"), again


def test_the_cost_prompt_counts_cells_no_key_can_be_as_such_not_as_blank(excel: Excel) -> None:
    """A new user's review: TRUE and a date were counted as blank rows in the prompt, then
    came back as `#PROFNET! invalid input`."""
    book = workbook.Book(
        {
            "Enrich": [["Setting", "Value"], ["kind", "company"], ["fields", "company_name"]],
            "Data": [["Website"], ["stripe.com"], [None], [True], [dt.datetime(2024, 1, 5)]],
        }
    )
    book.select("Data", "A2:A5")
    macros.enrich_selection(book)
    assert book.app.prompts[0].startswith(
        "Enrich selection: 4 rows: 1 to fetch, 0 already cached (free), 2 that cannot be "
        "looked up, 1 blank;"
    ), book.app.prompts
