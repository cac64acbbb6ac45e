"""RunPython entry points behind the search and Check connection buttons: thin shells over
xlwings; searches.py and client/check.py decide.

A button's VBA macro:
    RunPython "from profnet_sheets.excel.macros import lead_search; lead_search()"
    RunPython "from profnet_sheets.excel.macros import check_connection; check_connection()"
or the xlwings tab's Run main, with the template's .py file beside the workbook.
"""

from __future__ import annotations

from typing import Any, Final

from profnet_sheets.client.check import check_setup
from profnet_sheets.client.jobs import SearchKind
from profnet_sheets.errors import SearchError
from profnet_sheets.excel import searches, session
from profnet_sheets.excel.cells import Rows
from profnet_sheets.excel.messages import message_for

FILTER_CELLS: Final = "A2:B60"  # (name, value) rows under the Filters sheet's header
REPORT_CELL: Final = "E1"  # the 'Last run' block
REPORT_CLEAR: Final = "E1:F12"
REQUEST_ID_CELL: Final = "F3"  # in that block: the request_id (=PROFNET_LEADS(Filters!F3))


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


def _report(book: Any, rows: Rows) -> None:
    """The 'Last run' block (its texts already made literal by searches.summary)."""
    sheet = _sheet(book, searches.FILTERS_SHEET)
    sheet.range(REPORT_CLEAR).clear_contents()
    sheet.range(REPORT_CELL).value = rows


def run_search(book: Any, kind: SearchKind) -> None:
    """Filters -> the cost (asked for confirmation) -> the search, with progress in the
    status bar -> the Results sheet, and a 'Last run' block beside the filters."""
    app = book.app
    request = None
    data = ""  # where the data comes from, once the session is known
    try:
        current = session.current(lambda: session.book_config(book))
        data = session.data_source(current.client)
        # Errors as text: read as empty, a filter showing #NAME? would widen the search.
        rows = session.read_cells(_sheet(book, searches.FILTERS_SHEET), FILTER_CELLS)
        request = searches.read_filters(kind, rows or [], current.client.profile)
        cost = searches.cost(current.client, request)
        if not cost.within_budget:
            line = f"{cost.line()} Over the budget: not run."
            _report(book, searches.summary(request, line, data=data))
            return
        prompt = f"{cost.line()} Run it?"
        if cost.total and app.alert(prompt, title="profnet", buttons="ok_cancel") != "ok":
            _report(book, searches.summary(request, "cancelled: nothing spent", data=data))
            return

        def show(line: str) -> None:
            app.status_bar = line

        done = searches.run(current.client, request, show)
        results = _sheet(book, searches.RESULTS_SHEET)
        results.clear_contents()
        results.range("A1").value = searches.sheet_rows(done.frame)
        _report(book, searches.summary(request, done, data=data))
    except Exception as error:  # a button never shows a traceback: the reason, and what to do
        request_id = error.request_id if isinstance(error, SearchError) else ""
        if request is None:
            request = searches.SearchRequest(kind, {})
        _report(book, searches.summary(request, message_for(error), request_id or "", data))
    finally:
        app.status_bar = False
