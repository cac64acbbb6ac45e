"""One enrichment as every front end runs it: plan (the cost first), run within the run's own
budget, write, and an outcome that counts rows and this run's own spend, and says how it ended.

The CLI, the forms and Excel's macros call this; none of them recomputes a plan, a spend or
an ending of its own.
"""

from __future__ import annotations

import contextlib
import time
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import polars as pl

from profnet_sheets.batch.columns import resolve_columns
from profnet_sheets.batch.csvread import CsvStyle, csv_style
from profnet_sheets.batch.decode import InputWarning
from profnet_sheets.batch.engine import EnrichmentInterrupted, enrich, plan_enrichment
from profnet_sheets.batch.formulas import formulas_without_values
from profnet_sheets.batch.io import (
    CSV_SUFFIXES,
    XLSX_SUFFIXES,
    BatchInputError,
    check_excel_limits,
    check_target,
    csv_separator,
    read_table,
    read_workbook,
    scan_table,
    sink_table,
    write_table,
)
from profnet_sheets.batch.marks import (
    LIMIT_REACHED,
    NOT_DONE,
    NOT_FETCHED,
    OFFLINE_MISS,
    SERVICE_ERROR,
    unknown_ledger,
)
from profnet_sheets.batch.plan import Plan
from profnet_sheets.batch.problems import first_line
from profnet_sheets.batch.xlsx import Workbook, header_row, sheet_names, written_header
from profnet_sheets.client.client import Client
from profnet_sheets.client.spend import BUDGET_SETTING, CAP_SETTING, Quote
from profnet_sheets.redact import listed, shown
from profnet_sheets.words import are, command, counted, spend_said

# Exit codes of a run that ended early (documented in docs/guide.md).
EXIT_BUDGET = 3  # the run's budget or the spending cap was reached
EXIT_NO_CREDITS = 4  # the service said the account has no credits left
EXIT_STOPPED = 5  # the client stopped buying: the cache failed, or unreadable answers
EXIT_UNREACHABLE = 6  # the service could not be reached: nothing more was sent
EXIT_KEY_REFUSED = 7  # the service refused the API key: nothing more was sent
EXIT_FAILED_ROWS = 8  # it ran to the end, but calls of some rows failed (the service's fault)
EXIT_INTERRUPTED = 130  # Ctrl-C (or Cancel)
Say = Callable[[str], None]


@dataclass(frozen=True)
class Outcome:
    """How a run ended, counted in rows, with this run's own spend."""

    rows: str  # the plan's result summary: `12 rows: 7 enriched, 2 with an error, 3 blank`
    done: int  # rows enriched
    not_done: int  # rows not fetched: the budget, credits, a stop or Ctrl-C ended the run first
    spent: int  # credits this run spent, those that may have been charged included
    uncertain: int  # of `spent`, what may (or may not) have been charged
    ending: (
        str | None
    )  # None: it ran to the end; else "budget", "credits", "unreachable", "key", "stopped",
    # "interrupted"
    reason: str | None = None  # what stopped the buying, when it stopped
    unkept: int = 0  # answers this run paid for that the cache could not keep
    cache_failed: bool = False  # the cache itself failed: what it held may not come back
    failed: int = 0  # rows whose call failed (the service failed, the connection was lost)
    in_memory: bool = False  # answers kept in this process only (PROFNET_CACHE=memory or off)
    team_cap: bool = False  # the spending cap is the team's: every machine on its Redis counts
    # The unreadable ledger set aside that the spending cap cannot count past (it leaves 0).
    cap_unknown: str | None = None
    cap_renews: bool = True  # the spending cap counts from zero again (a day's, a month's)
    offline_misses: int = 0  # rows not in the cache, not fetched: the client is offline

    @property
    def exit_code(self) -> int:
        codes = {
            "budget": EXIT_BUDGET,
            "credits": EXIT_NO_CREDITS,
            "stopped": EXIT_STOPPED,
            "unreachable": EXIT_UNREACHABLE,
            "key": EXIT_KEY_REFUSED,
            "interrupted": EXIT_INTERRUPTED,
        }
        if self.ending is None:
            return EXIT_FAILED_ROWS if self.failed else 0
        return codes[self.ending]

    def spend(self) -> str:
        """`22 credits spent` (`(+3 possibly)`), this run's own."""
        return spend_said(self.spent, self.uncertain, "spent")

    def rerun(self) -> str:
        """What running again pays for what this run paid: nothing, or the answers not kept."""
        if not self.unkept and self.cache_failed:
            return (
                "the answers were saved in the cache before it failed, so running again is "
                "free only if it comes back with its data"
            )
        if self.in_memory:
            return (
                "the answers are kept in memory only (PROFNET_CACHE), so a run in another "
                "process pays them again"
            )
        if not self.unkept:
            return "the answers are cached, so running again is free"
        said = (
            f"{counted(self.unkept, 'paid answer')} could not be kept in the cache, so running "
            f"again pays {'it' if self.unkept == 1 else 'them'} again"
        )
        return said + (", and the rest too if it comes back without its data" * self.cache_failed)

    def advice(self) -> str | None:
        """What to do when the run ended early, in the user's words; None when it did not."""
        kept = (
            f"the {self.done:,} done {are(self.done)} kept and will not be paid again"
            if self.done
            else "nothing was lost"
            if not self.uncertain
            else f"no answer came for the {counted(self.uncertain, 'credit')} possibly spent"
        )
        if self.unkept or (self.done and (self.cache_failed or self.in_memory)):
            kept = f"the {self.done:,} done {are(self.done)} in the result, but {self.rerun()}"
        if self.ending == "interrupted" and not self.not_done and not self.failed:
            return "Interrupted once every row was done: nothing is left to run again."
        if self.ending is None and self.offline_misses and not self.failed:
            return (
                f"{counted(self.offline_misses, 'row')} not in the cache, not fetched: offline "
                "(PROFNET_OFFLINE). Run again online to fetch them (the rows done are free)."
            )
        if self.ending is None and self.failed:
            them = "it" if self.failed == 1 else "them"
            return (
                f"{counted(self.failed, 'row')} failed (the service failed or the connection "
                f"was lost, after the retries): run again to try {them} again; {kept}."
            )
        left = self.not_done + (self.failed if self.ending in ("unreachable", "stopped") else 0)
        if self.ending == "stopped" and not left and not self.failed:
            return (
                f"Stopped buying ({self.reason}) once every row was done: nothing is left to "
                f"run again; {kept}."
            )
        return stop_advice(
            self.ending,
            self.reason,
            counted(left, "row"),
            kept,
            self.team_cap,
            self.cap_unknown,
            self.cap_renews,
        )


def stop_advice(
    ending: str | None,
    reason: str | None,
    not_done: str,
    kept: str,
    team_cap: bool = False,
    cap_unknown: str | None = None,
    cap_renews: bool = True,
) -> str | None:
    """The one line of a run that ended early (`ending` as in Outcome), for every command that
    pays: what was not done (`2 rows`, `1 lookup`), why, what to do; None when it did not.
    `team_cap`: the spending cap is a team's (every machine on its Redis spends under it);
    `cap_unknown`: the unreadable ledger set aside that the cap cannot count past;
    `cap_renews`: the cap has a next period (a day's, a month's; not one in all)."""
    wait = ", or run again once its period has passed" if cap_renews else ""
    if ending == "credits":
        return f"Out of credits: {not_done} not done. Top up and run again; {kept}."
    if ending == "budget" and reason == CAP_SETTING and cap_unknown:
        return (
            f"Spending cap cannot be kept: {not_done} not done. A ledger of its period was set "
            f"aside unreadable as {cap_unknown}, so what was spent before is unknown; check "
            "the spend with the service, then delete that file (or remove the cap, "
            f"{CAP_SETTING}) and run again; {kept}."
        )
    if ending == "budget" and reason == CAP_SETTING and team_cap:
        return (
            f"Team spending cap reached: {not_done} not done. The cap counts what every "
            f"machine on the team's Redis spent (`{command('credits')}` shows each); raise it "
            f"on every machine ({CAP_SETTING}, or `{command('config --spending-cap ...')}`)"
            f"{wait}; {kept}."
        )
    if ending == "budget" and reason == CAP_SETTING:
        return (
            f"Spending cap reached: {not_done} not done. Raise the spending cap "
            f"({CAP_SETTING}, or `{command('config --spending-cap ...')}`){wait}; {kept}."
        )
    if ending == "budget":
        return (
            f"Budget reached: {not_done} not done. Raise the budget ({BUDGET_SETTING}) and "
            f"run again; {kept}."
        )
    if ending == "unreachable":
        return (
            f"Service unreachable: {reason}: {not_done} not done. Check the network and "
            f"the base URL with `{command('check')}`, then run again; {kept}."
        )
    if ending == "stopped":
        return f"Stopped buying ({reason}): {not_done} not done. Run again; {kept}."
    if ending == "key":
        return (
            f"API key refused by the service: {not_done} not done. Check the key "
            f"(PROFNET_API_KEY) with `{command('check')}`, then run again; {kept}."
        )
    if ending == "interrupted":
        return f"Interrupted: {not_done} not done. Run again to finish; {kept}."
    return None


class Enrichment:
    """A table to enrich: its plan (the cost preview) on creation, then `run()` within a budget
    of its own (inside the client's, and the spending cap), and the outcome."""

    def __init__(
        self,
        client: Client,
        table: pl.DataFrame | pl.LazyFrame,
        column: str | Mapping[str, str],
        kind: str,
        *,
        fields: Sequence[str] | None = None,
        options: Mapping[str, Any] | None = None,
        prefix: str | None = None,
        budget: int | None = None,
    ) -> None:
        self.client = client.with_budget(budget)
        self.table, self.column, self.kind = table, column, kind
        self.fields, self.options, self.prefix = fields, options, prefix
        self.plan: Plan = plan_enrichment(
            table,
            column,
            kind,
            client=self.client,
            options=options,
            prefix=prefix,
            fields=list(fields) if fields else None,
        )

    @property
    def quote(self) -> Quote:
        """What the budget and the spending cap say of the most the run may cost."""
        return self.client.quote(self.plan.credits)

    def preview(self) -> str:
        """The cost preview: the plan's counts and most, what a limit leaves when it leaves
        too little, and the first keys as they are asked."""
        text = self.plan.summary(quote=self.quote)  # a limit short says what it leaves
        if examples := self.plan.examples():
            text += f". First keys as asked: {examples}"
        return text

    def run(
        self, *, concurrency: int | None = None, progress: Any = None
    ) -> tuple[pl.DataFrame | pl.LazyFrame, Outcome]:
        """The enriched table (what was done, when interrupted) and how the run ended."""
        unkept = self.client.unkept
        try:
            result = enrich(
                self.table,
                self.column,
                self.kind,
                list(self.fields) if self.fields else None,
                client=self.client,
                options=self.options,
                concurrency=concurrency or self.client.settings.concurrency,
                plan=self.plan,
                prefix=self.prefix,
                progress=progress,
            )
            interrupted = False
        except EnrichmentInterrupted as stop:
            result, interrupted = stop.result, True
        return result, self.outcome(interrupted, unkept=self.client.unkept - unkept)

    def outcome(self, interrupted: bool = False, unkept: int = 0) -> Outcome:
        """How the run ended; `unkept`: the answers it paid for that the cache did not keep."""
        plan, client = self.plan, self.client
        cap = client.settings.spending_cap
        not_done = plan.rows_failed_with(NOT_DONE)
        failed = plan.rows_failed_with((SERVICE_ERROR,))
        ending: str | None = None
        if client.out_of_credits:  # before Cancel or Ctrl-C: running again needs a top-up
            ending = "credits"
        elif interrupted:
            ending = "interrupted"
        elif client.key_refused and not_done:
            ending = "key"
        elif client.unreachable is not None and (not_done or failed):
            # (its last rows' retries refused for it: failed, the service no less unreached)
            ending = "unreachable"
        elif client.stopped is not None and (not_done or unkept or failed or client.ledger_failed):
            ending = "stopped"  # a ledger that failed after the last row: spend not counted
        elif plan.rows_failed_with(LIMIT_REACHED):
            ending = "budget"
        errors, blank = plan.error_rows(), plan.rows_of(plan.blank)
        return Outcome(
            rows=plan.result_summary(),
            done=plan.rows - errors - blank,
            not_done=not_done,
            spent=client.budget.spent,
            uncertain=client.budget.uncertain,
            ending=ending,
            reason=self._stop_reason(ending),
            unkept=unkept,
            cache_failed=client.cache_failed,
            failed=failed,
            team_cap=client.team_cap,
            cap_unknown=next(filter(None, map(unknown_ledger, plan.failed.values())), None),
            cap_renews=cap is None or cap.renews,
            offline_misses=plan.rows_failed_with((OFFLINE_MISS,)),
        )

    def _stop_reason(self, ending: str | None) -> str | None:
        """What stopped the buying: the service unreachable, the stop's words; a limit's
        setting when only the spending cap cut rows (CAP_SETTING: said as the cap's)."""
        if ending == "unreachable":
            return self.client.unreachable
        if ending == "budget":
            return None if self.plan.rows_failed_with((NOT_FETCHED,)) else CAP_SETTING
        return self.client.stopped


@dataclass(frozen=True)
class FileRun:
    """What enriching a file did: where it was written, how it ended, how long it took."""

    path: Path
    outcome: Outcome
    seconds: float

    def summary(self) -> str:
        return (
            f"{self.outcome.rows}; {self.outcome.spend()}; {self.seconds:.1f} s. "
            f"Written to {self.path}."
        )


def read_input(
    source: Path,
    *,
    sheet: str | None = None,
    encoding: str | None = None,
    stream: bool,
    say: Say,
    as_text: bool = False,
) -> pl.DataFrame | pl.LazyFrame:
    """A CSV, XLSX or Parquet file (scanned lazily when it can be streamed; a CSV's columns
    as the text written when `as_text`); what the reading noticed (an uncertain decode, ragged
    rows) said through `say`."""
    table: Any = None
    with warnings.catch_warnings(record=True) as noticed:
        warnings.simplefilter("always", InputWarning)
        if stream and encoding is None:
            with contextlib.suppress(BatchInputError):  # not UTF-8, ragged...: read whole
                table = scan_table(source, as_text=as_text)
        if table is None:
            text_like = source.suffix.lower() in (".csv", ".tsv", ".txt")
            table = read_table(
                source,
                sheet=_sheet(sheet),
                encoding=encoding if text_like else None,
                as_text=as_text,
            )
    for warning in noticed:
        say(f"Warning: {warning.message}")
    read: pl.DataFrame | pl.LazyFrame = table
    return read


def enrich_file(
    client: Client,
    source: Path,
    target: Path | None,
    kind: str,
    *,
    columns: Sequence[str] = (),
    fields: Sequence[str] | None = None,
    budget: int | None = None,
    sheet: str | None = None,
    concurrency: int | None = None,
    prefix: str | None = None,
    encoding: str | None = None,
    confirm: Callable[[Enrichment], bool] = lambda job: True,
    say: Say = lambda text: None,
) -> FileRun | None:
    """Enrich a column of a file into `target` (None: preview only): the target is checked
    before anything is paid (writable, not the input); the plan is said (its first keys as
    sent, and a limit that leaves too little) and the job `confirm`ed (False: stop, None
    returned); the result is written even when the run ended early (what was paid is in
    it), and a write that fails after paying says what a re-run pays (nothing, or the
    answers the cache could not keep)."""
    started = time.perf_counter()
    if target is not None:
        check_target(target, source=source)
    suffixes = {source.suffix.lower(), (target or source).suffix.lower()}
    if sheet is not None and source.suffix.lower() not in XLSX_SUFFIXES:
        say(f"Warning: {source.name} is no workbook: --sheet {shown(sheet)} is left unused.")
    if encoding is not None and source.suffix.lower() not in CSV_SUFFIXES:
        say(f"Warning: {source.name} is no text file: --encoding {shown(encoding)} is unused.")
    table = read_input(
        source,
        sheet=sheet,
        encoding=encoding,
        stream=suffixes <= {".csv", ".parquet"},
        say=say,
        # the user's cells written back as they were
        as_text=target is not None and _csv_to_csv(source, target),
    )
    names = table.collect_schema().names()
    if source.suffix.lower() in XLSX_SUFFIXES and sheet is None:
        read, every = sheet_names(source, None)
        if len(every) > 1:
            hidden = " (the first one shown)" if read != every[0] else ""
            say(
                f"{source.name}: reading the sheet {shown(read)}{hidden} of "
                f"{counted(len(every), 'sheet')}: choose another with --sheet."
            )
    if source.suffix.lower() in XLSX_SUFFIXES and (titles := header_row(source, _sheet(sheet))):
        say(
            f"{source.name}: the table's header is row {titles + 1}: the "
            f"{counted(titles, 'row')} above it read as its title or column groups (kept above "
            "the table in an .xlsx written)."
        )
    if not names:
        empty, others = "the file is empty", []
        if source.suffix.lower() in XLSX_SUFFIXES:
            read, every = sheet_names(source, _sheet(sheet))
            empty, others = f"the sheet {shown(read)} is empty", [it for it in every if it != read]
        elsewhere = f" (the workbook has {listed(others)} too: --sheet)" if others else ""
        raise BatchInputError(
            f"{source}: {empty} (no header row); give a table whose first row names its "
            f"columns{elsewhere}"
        )
    try:
        column, note = resolve_columns(table, kind, list(columns), client.profile)
    except ValueError as error:
        raise BatchInputError(f"{source}: {error}{_other_sheets(source, sheet)}") from None
    for name in [column] if isinstance(column, str) else column.values():
        if name not in names:
            like = [it for it in names if it.strip().casefold() == name.strip().casefold()]
            meant = f"did you mean {shown(like[0])}? " if like else ""
            raise BatchInputError(
                f"{source}: no column {shown(name)}; {meant}its columns are {listed(names)} "
                f"(give one of them with --column){_other_sheets(source, sheet)}"
            )
    if note:
        say(note)
    if isinstance(table, pl.DataFrame) and target and target.suffix.lower() in (".xlsx", ".xlsm"):
        check_excel_limits(table, target)
    around = None
    if target is not None and {source.suffix.lower(), target.suffix.lower()} <= XLSX_SUFFIXES:
        around = read_workbook(source, _sheet(sheet))  # read before anything is paid
    if source.suffix.lower() in XLSX_SUFFIXES and (blank := formulas_without_values(source)):
        counts = ", ".join(f"{count:,} in {name!r}" for name, count in blank.items())
        say(
            f"Warning: {source.name}: formula cells with no value saved ({counts}): the file "
            "was never calculated (a program wrote it), so they read as blank and are written "
            "blank. Open and save it in Excel or LibreOffice first, then run again."
        )
    # How the copy is written, read before anything is paid.
    keep = _kept_separator(source, target) if target is not None else None
    text_copy = target is not None and _csv_to_csv(source, target)
    style = csv_style(source) if text_copy else CsvStyle(True, "\n", True)
    job = Enrichment(client, table, column, kind, fields=fields, prefix=prefix, budget=budget)
    say(f"{source.name}: {job.preview()}.")
    if doubt := job.plan.doubtful():
        say(f"Warning: {doubt}")
    if not confirm(job) or target is None:  # no target: a preview only (a dry run)
        return None
    result, outcome = job.run(concurrency=concurrency)
    if client.settings.cache in ("memory", "off"):
        outcome = replace(outcome, in_memory=True)
    # The input's header as written (`Website,,Website`), where the frame renamed it (its
    # `extra_N` columns, for rows longer than the header, come after it).
    fits = len(style.header) <= len(names)
    header = dict(zip(names, style.header, strict=False)) if fits else {}
    if source.suffix.lower() in XLSX_SUFFIXES:  # a workbook's empty header cells stay empty
        header = written_header(names)
    # A Ctrl-C while writing stops nothing: what was paid is written (atomically), and the
    # user's own columns as they came: only what the service returned is escaped.
    while True:
        try:
            if isinstance(result, pl.LazyFrame):
                path = sink_table(
                    result,
                    target,
                    separator=keep,
                    kept=names,
                    bom=style.bom,
                    line_end=style.line_end,
                    header=header,
                    sep_line=style.sep_line and style.utf8,
                )
            else:
                path = write_table(
                    result,
                    target,
                    separator=keep,
                    kept=names,
                    around=around,
                    bom=style.bom,
                    line_end=style.line_end,
                    header=header,
                    sep_line=style.sep_line and style.utf8,
                )
            break
        except KeyboardInterrupt:  # a run a limit, credits or a stop ended stays so ended
            if outcome.ending is None:
                outcome = replace(outcome, ending="interrupted")
        except (OSError, BatchInputError, pl.exceptions.PolarsError) as error:
            # (every row was fetched before: a streamed table is written after its lookups)
            raise BatchInputError(_not_written(target, error, outcome), path=target) from None
    if around is not None and (around.copied or around.dropped or around.formulas):
        say(_sheets_said(path, around))
    if not style.utf8:
        say(f"{path.name}: written as UTF-8 with a BOM (the input was not UTF-8).")
    return FileRun(path, outcome, time.perf_counter() - started)


def _not_written(target: Path, error: BaseException, outcome: Outcome) -> str:
    """Why `target` was not written, and what the run did and paid, as its end would have
    said: the rows not done, the answers the cache could not keep, what running again pays."""
    said = f"{target}: could not be written ({first_line(error)}). {outcome.rows}"
    said += f"; {outcome.spend()}" + (f". Stopped buying: {outcome.reason}" * bool(outcome.reason))
    left = outcome.not_done + outcome.failed
    if not left:
        return f"{said}: {outcome.rerun()} (with another --out)."
    return (
        f"{said}. {counted(left, 'row')} {'was' if left == 1 else 'were'} not done: running "
        f"again (with another --out) pays for {'it' if left == 1 else 'them'}; for the rows "
        f"done, {outcome.rerun()}."
    )


def _other_sheets(source: Path, sheet: str | None) -> str:
    """For a workbook of several sheets, the sheet read and the others (another may hold
    the table): `; read from the sheet 'Notes', and the workbook has 'Accounts' too: ...`."""
    if source.suffix.lower() not in XLSX_SUFFIXES:
        return ""
    read, every = sheet_names(source, _sheet(sheet))
    others = [name for name in every if name != read]
    if not others:
        return ""
    return (
        f"; that is the sheet {shown(read)}, and the workbook has {listed(others)} too: "
        "choose one with --sheet"
    )


def _sheet(sheet: str | None) -> str | int | None:
    """A sheet as the user named it: digits are its position (0: the first)."""
    return int(sheet) if sheet and sheet.isdigit() else sheet


def _sheets_said(path: Path, around: Workbook) -> str:
    """What became of the workbook's sheets: the enriched one, those copied, those left out."""
    said = f"{path.name}: the sheet {around.enriched!r} enriched"
    if around.copied:
        said += f"; {listed(around.copied)} copied beside it as values (formatting not kept)"
    if around.formulas:
        said += f"; formulas written as their last values in {listed(around.formulas)}"
    if around.dropped:
        said += f"; left out, as they could not be read: {listed(around.dropped)}"
    return said + "."


def _csv_to_csv(source: Path, target: Path) -> bool:
    """Text in, text out (.csv, .tsv, .txt): the user's cells can go back as the text read."""
    return {source.suffix.lower(), target.suffix.lower()} <= CSV_SUFFIXES


def _kept_separator(source: Path, target: Path) -> str | None:
    """The input's delimiter, kept when a CSV is written as .csv or .txt (None: the default)."""
    csv_like = (".csv", ".txt")
    if source.suffix.lower() in csv_like and target.suffix.lower() in csv_like:
        return csv_separator(source)
    return None
