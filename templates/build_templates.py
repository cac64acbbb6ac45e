"""Build the Excel templates (run: `uv run python templates/build_templates.py [OUT_DIR]`).

Four workbooks, each with a first sheet that says what to do, example inputs, PROFNET_*
formulas and an `xlwings.conf` sheet naming the UDF module: company enrichment, lead list
enrichment, lead search and company search. The two enrichment workbooks have an Enrich sheet
for the Enrich selection macro (the kind and fields to add) and an As values sheet of keys to
select; every one lists the macros (Enrich selection, Freeze as values) and the one line of VBA
a button runs. The output is byte-for-byte reproducible (fixed document dates), so a review of
a change to this script is a review of the templates.
"""

from __future__ import annotations

import csv
import datetime as dt
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import xlsxwriter
from xlsxwriter.workbook import Workbook
from xlsxwriter.worksheet import Worksheet

from profnet_sheets.batch.kinds import KINDS
from profnet_sheets.client.jobs import SearchKind
from profnet_sheets.excel import macros, searches, selection
from profnet_sheets.excel.session import (
    BUDGET_KEY,
    CONF_SHEET,
    DEFAULT_BUDGET,
    OFFLINE_KEY,
    PROFILE_KEYS,
    REFRESH_KEY,
)

HERE = Path(__file__).resolve().parent
CREATED = dt.datetime(2024, 1, 1)  # fixed, so that a rebuild gives the same bytes
UDF_MODULE = "profnet_sheets.excel.udfs"
GUIDE = "docs/excel.md in the profnet-sheets repository"
SETUP = [
    "Once per computer: install profnet-sheets with its excel extra, then run: xlwings addin "
    "install (the xlwings tab appears in Excel). Details for Windows and macOS: the guide.",
    "Your API key: run profnet-sheets config --api-key ... --base-url ... (read when the UDF "
    "server starts: after a change, xlwings tab > Restart UDF Server). The PROFNET_API_KEY and "
    "PROFNET_BASE_URL environment variables work too, but Excel must be closed and opened again "
    "to see a change. Without a key, everything runs on the built-in SANDBOX (synthetic data, "
    "nothing paid): =PROFNET_CREDITS(TRUE) and the searches' Last run block say so.",
    "Check the setup for free (is the service reachable, does it take the key, which prices): "
    'profnet-sheets check, or a button whose macro is: RunPython "from '
    'profnet_sheets.excel.macros import check_connection; check_connection()". A service that '
    "names things otherwise than the spec (the key's header, the network's host, prices) takes "
    f"{', '.join(PROFILE_KEYS)} on the {CONF_SHEET} sheet (docs/real-service.md).",
    "Once per workbook, on Windows: File > Save As > Excel Macro-Enabled Workbook (.xlsm), then "
    "xlwings tab > Import Functions, then Ctrl+Alt+F9 to calculate. On macOS there are no "
    "PROFNET_ formulas (xlwings' formulas are Windows only: they show #NAME?); the search "
    "macros work.",
]
MONEY = [
    f"Money: every new lookup costs credits, once; recalculating is free (answers are cached). "
    f"An Excel session spends at most {BUDGET_KEY} credits (default {DEFAULT_BUDGET}; change "
    f"it on the {CONF_SHEET} sheet, then xlwings tab > Restart UDF Server). "
    "=PROFNET_CREDITS(TRUE) shows what was spent.",
    f"Offline: {OFFLINE_KEY} = TRUE answers only from the cache (no credits at all).",
    "Answers are kept whatever their age, so recalculating never pays again; "
    f"{REFRESH_KEY} = TRUE fetches (and pays for) the answers past their freshness.",
    "Errors show as #PROFNET! and say what to do.",
]
MACROS = [
    f"{selection.ENRICH} (Windows and Mac): select a column of keys (domains, profile URLs, "
    f"ids...), then run it: it looks up the {selection.KIND} chosen on the "
    f"{selection.ENRICH_SHEET} sheet (a sheet of that name with {selection.KIND} in A2 and its "
    "value in B2, fields in A3:B3), shows the cost and asks first, and writes VALUES (no "
    "formulas: nothing to recalculate, nothing to pay again) beside the selection, under a "
    "header. Button macro: "
    'RunPython "from profnet_sheets.excel.macros import enrich_selection; enrich_selection()"',
    f"{selection.FREEZE} (Windows and Mac): select cells holding PROFNET_ formulas and run it: "
    "they become the values they show (the whole answer of each), so that the workbook can be "
    "shared and opened without the add-in or credits. It asks first; it cannot be undone. "
    'Button macro: RunPython "from profnet_sheets.excel.macros import freeze_selection; '
    'freeze_selection()"',
    "A button: save as .xlsm, Developer > Insert > Button, New, and paste the RunPython line "
    "into the Sub (the xlwings add-in provides RunPython).",
]


@dataclass(frozen=True)
class Template:
    """One workbook: its file name, what it is for, and how its sheets are written."""

    name: str
    title: str
    steps: Sequence[str]
    sheets: Callable[[Workbook, Formats], None]


@dataclass(frozen=True)
class Formats:
    title: Any
    bold: Any
    wrap: Any
    header: Any


def _formats(book: Workbook) -> Formats:
    return Formats(
        title=book.add_format({"bold": True, "font_size": 16}),
        bold=book.add_format({"bold": True}),
        wrap=book.add_format({"text_wrap": True, "valign": "top"}),
        header=book.add_format({"bold": True, "bottom": 1}),
    )


def _start_here(book: Workbook, formats: Formats, template: Template) -> None:
    sheet = book.add_worksheet("Start here")
    sheet.set_column(0, 0, 4)
    sheet.set_column(1, 1, 110)
    sheet.write_string(0, 1, template.title, formats.title)
    lines = [
        ("Setup", SETUP),
        ("This workbook", template.steps),
        ("Macros", MACROS),
        ("Good to know", MONEY),
    ]
    row = 2
    for heading, texts in lines:
        sheet.write_string(row, 1, heading, formats.bold)
        row += 1
        for number, text in enumerate(texts, start=1):
            sheet.write_number(row, 0, number)
            sheet.write_string(row, 1, text, formats.wrap)
            row += 1
        row += 1
    sheet.write_string(row, 1, f"Every formula, one by one: {GUIDE}.")


def _conf(book: Workbook) -> None:
    sheet = book.add_worksheet(CONF_SHEET)
    sheet.set_column(0, 1, 32)
    sheet.write_string(0, 0, "UDF Modules")
    sheet.write_string(0, 1, UDF_MODULE)
    sheet.write_string(1, 0, BUDGET_KEY)
    sheet.write_number(1, 1, DEFAULT_BUDGET)
    sheet.write_string(2, 0, OFFLINE_KEY)
    sheet.write_boolean(2, 1, False)
    sheet.write_string(3, 0, REFRESH_KEY)
    sheet.write_boolean(3, 1, False)


AS_VALUES = "As values"  # keys with free columns right of them, for Enrich selection


def _enrich(
    book: Workbook, formats: Formats, kind: str, fields: str, keys: Sequence[Sequence[str]]
) -> None:
    """A sheet of keys with nothing right of them, for the Enrich selection macro; and the
    Enrich sheet: what it looks up (a list of the kinds to pick from) and the fields it
    writes (its 'Last run' block goes at E1)."""
    plain = book.add_worksheet(AS_VALUES)
    plain.set_column(0, 1, 40)
    plain.set_column(2, 8, 24)
    _header(plain, formats, keys[0])
    for row, values in enumerate(keys[1:], start=1):
        for column, value in enumerate(values):
            plain.write_string(row, column, value)
    sheet = book.add_worksheet(selection.ENRICH_SHEET)
    sheet.set_column(0, 0, 12)
    sheet.set_column(1, 1, 44)
    sheet.set_column(2, 2, 70)
    sheet.set_column(4, 5, 28)
    _header(sheet, formats, ["Setting", "Value", "What it is"])
    values = {selection.KIND: kind, selection.FIELDS: fields}
    for row, (name, description) in enumerate(selection.setting_rows(), start=1):
        sheet.write_string(row, 0, name)
        sheet.write_string(row, 1, values[name])
        sheet.write_string(row, 2, description, formats.wrap)
    sheet.data_validation(1, 1, 1, 1, {"validate": "list", "source": sorted(KINDS)})
    sheet.write_string(
        4,
        0,
        f"Select a column of keys on another sheet, then run {selection.ENRICH} (see Start "
        "here, Macros). The values go right of the selection, under a header.",
    )


def _header(sheet: Worksheet, formats: Formats, names: Sequence[str], column: int = 0) -> None:
    for offset, name in enumerate(names):
        sheet.write_string(0, column + offset, name, formats.header)


def _spill(sheet: Worksheet, cell: str, formula: str) -> None:
    """A formula whose answer spills (written as a dynamic array: no implicit @)."""
    sheet.write_dynamic_array_formula(cell, formula, None, "")


def _sample_companies() -> list[tuple[str, str]]:
    with (HERE / "sample_companies.csv").open(encoding="utf-8", newline="") as handle:
        return [(row["Account"], row["Website"]) for row in csv.DictReader(handle)][:20]


def _companies(book: Workbook, formats: Formats) -> None:
    sheet = book.add_worksheet("Companies")
    sheet.set_column(0, 1, 34)
    sheet.set_column(2, 8, 22)
    _header(sheet, formats, ["Account", "Website"])
    rows = _sample_companies()
    for row, (account, website) in enumerate(rows, start=1):
        sheet.write_string(row, 0, account)
        sheet.write_string(row, 1, website)
    fields = "company_name, industry, company_size, headquarters, founded, website"
    _spill(sheet, "C1", f'=PROFNET_COMPANY(B2:B{len(rows) + 1}, "{fields}", TRUE)')
    _enrich(
        book,
        formats,
        "company",
        "company_name, industry, company_size, website",
        [("Account", "Website"), *rows],
    )

    single = book.add_worksheet("One cell at a time")
    single.set_column(0, 0, 44)
    single.set_column(1, 4, 30)
    # (what, formula, rows it takes): an answer spills over the rows below it, so the next
    # example starts under it (a spill onto another formula shows #SPILL!).
    examples = [
        ("Industry of one company", '=PROFNET_COMPANY("stripe.com", "industry")', 1),
        ("Its page URL", '=PROFNET_COMPANY("stripe.com", "profnet_url")', 1),
        ("Geo id of Berlin", '=PROFNET_GEOCODE("Berlin")', 1),
        ("Its people living in Berlin (headcount)", "=PROFNET_HEADCOUNT(B3, B4)", 1),
        ("Credits spent, budget left, data (spills below)", "=PROFNET_CREDITS(TRUE)", 3),
        (
            "Its latest posts (they spill below)",
            '=PROFNET_COMPANY_POSTS(B3, , "posted_at, text")',
            1,
        ),
    ]
    _header(single, formats, ["What", "Formula"])
    row = 1
    for what, formula, rows in examples:
        single.write_string(row, 0, what)
        _spill(single, f"B{row + 1}", formula)
        row += rows


def _leads(book: Workbook, formats: Formats) -> None:
    people = [
        ("Anna Schmidt", "Acme Robotics"),
        ("Bob Smith", "Northpeak Capital"),
        ("Chen Li", "Velorix"),
        ("Dana Park", "Brightwell Health"),
        ("Elif Kaya", "Quantifi Labs"),
    ]
    sheet = book.add_worksheet("Leads")
    sheet.set_column(0, 1, 22)
    sheet.set_column(2, 6, 40)
    _header(sheet, formats, ["Name", "Company"])
    for row, (name, company) in enumerate(people, start=1):
        sheet.write_string(row, 0, name)
        sheet.write_string(row, 1, company)
    last = len(people) + 1
    _spill(
        sheet,
        "C1",
        f'=PROFNET_FIND_PROFILES(A2:A{last}, B2:B{last}, , , , , "profnet_url, headline", TRUE)',
    )
    _spill(sheet, "E1", f'=PROFNET_PROFILE(C2:C{last}, "location, about", , , TRUE)')

    urls = book.add_worksheet("Profiles")
    urls.set_column(0, 0, 48)
    urls.set_column(1, 4, 36)
    _header(urls, formats, ["Profile URL"])
    examples = ["https://www.profnet.com/in/anna-schmidt/", "profnet.com/in/bob-smith", ""]
    for row, url in enumerate(examples, start=1):
        urls.write_string(row, 0, url)
    _spill(urls, "B1", '=PROFNET_PROFILE(A2:A4, "full_name, headline, location", , , TRUE)')
    _spill(urls, "A7", '=PROFNET_RECOMMENDATIONS(A2, , "recommender_name, relationship")')
    _enrich(
        book,
        formats,
        "profile",
        "full_name, headline, location",
        [("Profile URL",), *((url,) for url in examples if url)],
    )


def _search(kind: SearchKind, examples: dict[str, Any]) -> Callable[[Workbook, Formats], None]:
    function = "PROFNET_LEADS" if kind == "leads" else "PROFNET_COMPANIES"

    def sheets(book: Workbook, formats: Formats) -> None:
        sheet = book.add_worksheet(searches.FILTERS_SHEET)
        sheet.set_column(0, 0, 32)
        sheet.set_column(1, 1, 30)
        sheet.set_column(2, 2, 60)
        sheet.set_column(4, 5, 28)
        _header(sheet, formats, ["Filter", "Value", "What it is"])
        for row, (name, description) in enumerate(searches.filter_rows(kind), start=1):
            sheet.write_string(row, 0, name)
            sheet.write_string(row, 2, description)
            value = examples.get(name)
            if isinstance(value, str) and value.startswith("="):
                _spill(sheet, f"B{row + 1}", value)
            elif isinstance(value, bool):
                sheet.write_boolean(row, 1, value)
            elif isinstance(value, int):
                sheet.write_number(row, 1, value)
            elif value is not None:
                sheet.write_string(row, 1, value)
        results = book.add_worksheet(searches.RESULTS_SHEET)
        results.write_string(0, 0, "The results of the last search appear here.")
        again = book.add_worksheet("By request id")
        again.write_string(0, 0, "The results of the last run again, by its request_id (free):")
        _spill(again, "A2", f"={function}({searches.FILTERS_SHEET}!{macros.REQUEST_ID_CELL})")

    return sheets


def _search_steps(kind: SearchKind, name: str) -> list[str]:
    entry = "lead_search" if kind == "leads" else "company_search"
    return [
        f"Fill in the {searches.FILTERS_SHEET} sheet (leave a filter empty to skip it; lists "
        "are separated by ; and ranges of numbers written min, max).",
        f"Run the search: xlwings tab > Run main (with {name}.py from the templates folder beside "
        'this workbook), or a button whose macro is: RunPython "from '
        f'profnet_sheets.excel.macros import {entry}; {entry}()"',
        "It shows the cost and asks first; progress is in the status bar; the results go to the "
        f"{searches.RESULTS_SHEET} sheet, and the request_id beside the filters.",
        "An identical search within 24 hours is reused for free, and its results too.",
    ]


TEMPLATES = [
    Template(
        "profnet_company_enrichment",
        "Company enrichment: a row of company data for every website, id or page URL",
        [
            "Companies sheet: paste your websites (domains, URLs, company ids) in column B; the "
            "formula in C1 fills the table (one call for the whole range).",
            "Change the fields: edit the text in the formula (PROFNET_COMPANY lists the valid "
            "names when one is wrong). One field gives one column.",
            "One cell at a time sheet: single lookups, headcount, geocode, posts, credits.",
            f"Without formulas (Windows and Mac): on the {AS_VALUES} sheet, select the websites "
            f"(B2:B21) and run {selection.ENRICH} (Macros, below; or xlwings tab > Run main "
            "with profnet_company_enrichment.py beside this workbook): the Enrich sheet says "
            "what is added, as values in C1 onwards.",
        ],
        _companies,
    ),
    Template(
        "profnet_lead_list_enrichment",
        "Lead list enrichment: profiles found by name and company, then their details",
        [
            "Leads sheet: names in A, companies in B; C1 finds each person's profile (the best "
            "match, 1 credit each), E1 adds details from those profiles.",
            "Profiles sheet: profile URLs you already have; recommendations of one of them.",
            f"Without formulas (Windows and Mac): on the {AS_VALUES} sheet, select the profile "
            f"URLs (A2:A3) and run {selection.ENRICH} (Macros, below; or xlwings tab > Run "
            "main with profnet_lead_list_enrichment.py beside this workbook): the Enrich sheet "
            "says what is added, as values in B1 onwards.",
        ],
        _leads,
    ),
    Template(
        "profnet_lead_search",
        "Lead search: people by title, company, place and more",
        [
            *_search_steps("leads", "profnet_lead_search"),
            'geo_codes holds =PROFNET_GEOCODE("Berlin"). Where it shows #NAME? (always on '
            "macOS; on Windows until xlwings tab > Import Functions) the search stops and says "
            "so: type the geo id itself instead (profnet-sheets lookup geocode Berlin gives it).",
        ],
        _search(
            "leads",
            {
                "title_keywords": "CTO; VP Engineering",
                "geo_codes": '=PROFNET_GEOCODE("Berlin")',
                "limit": 25,
                "enrich": False,
            },
        ),
    ),
    Template(
        "profnet_company_search",
        "Company search: companies by industry, size, place, growth and more",
        _search_steps("companies", "profnet_company_search"),
        _search(
            "companies",
            {
                "company_headcounts": "B-C",
                "company_headcount_growth": "0, 50",
                "keywords": "software",
                "limit": 25,
                "enrich": False,
            },
        ),
    ),
]


def build(directory: Path = HERE) -> list[Path]:
    """Write every template into `directory`; the paths written."""
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for template in TEMPLATES:
        path = directory / f"{template.name}.xlsx"
        book = xlsxwriter.Workbook(str(path), {"strings_to_formulas": False})
        book.set_properties(
            {"title": template.title, "author": "profnet-sheets", "created": CREATED}
        )
        formats = _formats(book)
        _start_here(book, formats, template)
        template.sheets(book, formats)
        _conf(book)
        book.close()
        written.append(path)
    return written


if __name__ == "__main__":
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else HERE
    for written_path in build(target):
        print(written_path)
