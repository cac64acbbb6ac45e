"""RunPython entry points behind the buttons: thin shells over xlwings (Windows and macOS
Excel); searches.py, selection.py and setup_check.py decide.

A button's VBA macro:
    RunPython "from profnet_sheets.excel.macros import lead_search; lead_search()"
(or company_search, enrich_selection, freeze_selection, check_connection), or the xlwings
tab's Run main, with the template's .py file beside the workbook.
"""

from __future__ import annotations

from typing import Any, Final

from profnet_sheets.errors import ArgumentError, SearchError, SearchFailed
from profnet_sheets.excel import searches, selection, session
from profnet_sheets.excel.cells import Rows
from profnet_sheets.excel.messages import message_for
from profnet_sheets.searches.workflow import Search
from profnet_sheets.setup_check import check_setup
from profnet_sheets.spec.endpoints import SearchKind

FILTER_CELLS: Final = "A2:B60"  # (name, value) rows under the Filters sheet's header
REPORT_CELL: Final = "E1"  # the 'Last run' block
REPORT_CLEAR: Final = "E1:F12"
REQUEST_ID_CELL: Final = "F3"  # in that block: the request_id (=PROFNET_LEADS(Filters!F3))
SETTING_CELLS: Final = "A2:B20"  # (setting, value) rows under the Enrich sheet's header
ENRICH: Final = selection.ENRICH_SHEET  # its 'Last run' block is at REPORT_CELL too


def lead_search(book: Any = None) -> None:
    """Run the lead search of the Filters sheet; results on the Results sheet."""
    run_search(_caller(book), "leads")


def company_search(book: Any = None) -> None:
    """Run the company search of the Filters sheet; results on the Results sheet."""
    run_search(_caller(book), "companies")


def check_connection(book: Any = None) -> None:
    """Check connection: is the service reachable, does it take the key, which profile and
    prices (the workbook's xlwings.conf sheet included): free; the report in a message box."""
    book = _caller(book)
    app = book.app
    app.status_bar = "profnet: checking the connection (free)…"
    try:
        report = check_setup(
            session.load_settings(session.sources(lambda: session.book_config(book)))
        )
        text = "\n".join(report.lines(every_price=False))
    except Exception as error:  # a button never shows a traceback: the reason, and what to do
        text = message_for(error)
    finally:
        app.status_bar = False
    app.alert(text, title="profnet: Check connection")


def _caller(book: Any) -> Any:
    if book is not None:
        return book
    import xlwings as xw

    return xw.Book.caller()


def _sheet(book: Any, name: str) -> Any:
    try:
        return book.sheets[name]
    except Exception:  # xlwings raises different errors on Windows and macOS
        return book.sheets.add(name, after=book.sheets[-1])


def _report(book: Any, rows: Rows, sheet_name: str = searches.FILTERS_SHEET) -> None:
    """The 'Last run' block (its texts already made literal by searches.summary)."""
    sheet = _sheet(book, sheet_name)
    sheet.range(REPORT_CLEAR).clear_contents()
    sheet.range(REPORT_CELL).value = rows


def run_search(book: Any, kind: SearchKind) -> None:
    """Filters -> the cost (asked for confirmation) -> the search, with progress in the
    status bar -> the Results sheet, and a 'Last run' block beside the filters."""
    app = book.app
    request = None
    search = None  # once the session is known: its request id and spend, whatever happens
    data = ""  # where the data comes from, once the session is known
    try:
        current = session.current(lambda: session.book_config(book))
        data = session.data_source(current.client)
        # Errors as text: read as empty, a filter showing #NAME? would widen the search.
        rows = session.read_cells(_sheet(book, searches.FILTERS_SHEET), FILTER_CELLS)
        request = searches.read_filters(kind, rows or [], current.client.profile)
        cost = searches.cost(current.client, request)
        if not cost.within_budget:
            line = f"{cost.line()} {cost.over()}"
            _report(book, searches.summary(request, line, data=data))
            return
        prompt = f"{cost.line()} Run it?"
        if cost.total and app.alert(prompt, title="profnet", buttons="ok_cancel") != "ok":
            _report(book, searches.summary(request, "cancelled: nothing spent", data=data))
            return

        def show(line: str) -> None:
            app.status_bar = line

        search = Search(current.client, kind)
        in_doubt = bool(cost.doubt)  # the prompt said the same search was left in doubt
        done = searches.run(current.client, request, show, search=search, doubt_said=in_doubt)
        results = _sheet(book, searches.RESULTS_SHEET)
        results.clear_contents()
        results.range("A1").value = searches.sheet_rows(done.frame)
        _report(book, searches.summary(request, done, data=data))
    except Exception as error:  # a button never shows a traceback: the reason, and what to do
        request_id = error.request_id if isinstance(error, SearchError) else ""
        if not request_id and search is not None and search.job is not None:
            request_id = search.job.request_id  # started (or reused), then it failed
        spent = (0, 0) if search is None else (search.spend.spent, search.spend.maybe)
        if request is None:
            request = searches.SearchRequest(kind, {})
        said = message_for(error)
        reusable = not isinstance(error, SearchFailed)  # a failed one is forgotten: paid again
        _report(book, searches.summary(request, said, request_id or "", data, spent, reusable))
    finally:
        app.status_bar = False


def _selected(book: Any) -> Any:
    chosen = book.selection
    if chosen is None:
        raise ArgumentError("select the cells first, then run the macro again")
    return chosen


def _read(sheet: Any, area: str) -> Any:
    """Cells as rows, Excel's errors as their text (never taken for empty cells)."""
    return sheet.range(area).options(err_to_str=True, ndim=2).value


def enrich_selection(book: Any = None) -> None:
    """Enrich the selected column of keys with the kind on the Enrich sheet: the cost is shown
    and asked first; progress in the status bar; values (not formulas) beside the selection,
    under a header; a 'Last run' block on the Enrich sheet."""
    book = _caller(book)
    app = book.app
    data = ""
    try:
        current = session.current(lambda: session.book_config(book))
        data = session.data_source(current.client)
        settings = session.read_cells(_sheet(book, ENRICH), SETTING_CELLS)
        request = selection.read_settings(settings or [])
        chosen = _selected(book)
        sheet = chosen.sheet
        used = sheet.used_range
        rows, columns = chosen.shape
        last_used = used.row + used.shape[0] - 1
        placed = selection.place(chosen.row, chosen.column, rows, columns, last_used)
        keys = selection.keys_of(_read(sheet, placed.keys))
        target = placed.target(len(request.header))
        selection.check_free(_read(sheet, target), request, target)
        found = selection.plan(current, request, keys)
        quote = current.client.quote(found.credits)
        line = selection.cost_line(found, quote.budget_left)
        if not quote.within:
            _report(book, selection.report(f"{line} {searches.over_limit(quote)}", data), ENRICH)
            return
        prompt = f"{line} Run it?"
        if found.credits and app.alert(prompt, title="profnet", buttons="ok_cancel") != "ok":
            _report(book, selection.report("cancelled: nothing spent", data), ENRICH)
            return

        pace = current.client.pace.progress_note()  # calls/s, and whether it throttles

        def show(done: int, total: int) -> None:
            note = pace()
            shown = f" ({note})" if note else ""
            app.status_bar = f"{selection.ENRICH}: {done} of {total} lookups{shown}"

        enriched = selection.run(current, request, keys, found, show)
        sheet.range(placed.target_cell).value = enriched.rows
        _report(book, selection.report(enriched, data, f"{sheet.name}!{target}"), ENRICH)
    except Exception as error:  # a button never shows a traceback: the reason, and what to do
        _report(book, selection.report(message_for(error), data), ENRICH)
    finally:
        app.status_bar = False


def freeze_selection(book: Any = None) -> None:
    """Replace the PROFNET_* formulas of the selection by the values they show (each with
    every cell its answer fills), after asking; then say what was done."""
    book = _caller(book)
    app = book.app
    try:
        chosen = _selected(book)
        sheet = chosen.sheet
        answers = {}
        for row, column in selection.profnet_cells(chosen.row, chosen.column, chosen.formula):
            cell = selection.address(row, column)
            try:  # the spill: every cell the answer fills (`C1#` in Excel 365)
                answers[cell] = _read(sheet, f"{cell}#")
            except Exception:  # no dynamic arrays here: the answer is its own cell
                answers[cell] = _read(sheet, cell)
        frozen = selection.freeze(answers)
        if frozen.blocks:
            if app.alert(frozen.prompt(), title="profnet", buttons="ok_cancel") != "ok":
                return  # cancelled: nothing changed
            for cell, rows in frozen.blocks:
                sheet.range(cell).value = rows
        app.alert(frozen.line(), title="profnet")
    except Exception as error:  # a button never shows a traceback
        app.alert(message_for(error), title="profnet")
