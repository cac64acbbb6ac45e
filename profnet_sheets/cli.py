"""The `profnet-sheets` command line: a thin layer over the library."""

from __future__ import annotations

import contextlib
import errno
import functools
import json
import logging
import math
import os
import re
import signal
import sys
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

import click

from profnet_sheets import BudgetExceeded, Client, ProfnetError, Settings, save_config
from profnet_sheets.asking import confirmed
from profnet_sheets.batch.kinds import KINDS
from profnet_sheets.cache_file import holds_other_data
from profnet_sheets.client import wal
from profnet_sheets.client.finishing import Finished, finishing
from profnet_sheets.client.jobs import SearchJob, status_bar
from profnet_sheets.client.ledger import Holds, SpendTable
from profnet_sheets.client.shared import STOPS_LOG, machine_ledger
from profnet_sheets.client.spend import ASIDE_LEASE, BUDGET_SETTING, CAP_SETTING, Quote
from profnet_sheets.client.team_ledger import TeamLedger
from profnet_sheets.config import (
    config_file,
    disk_place,
    is_placeholder_key,
    names_a_cache_file,
    set_in_environment,
    unwritable_place,
    variable_of,
)
from profnet_sheets.errors import (
    DamagedFile,
    NotFound,
    SearchTimedOut,
    StoppedBuying,
    TeamCacheUnreachable,
)
from profnet_sheets.redact import clipped, masked, shown
from profnet_sheets.sandbox.defaults import DEFAULT_KEY
from profnet_sheets.sandbox.limits import PLANS
from profnet_sheets.spec import Endpoint, Param, endpoint, search_endpoint
from profnet_sheets.spec.endpoints import SearchKind
from profnet_sheets.spec.profile import LITE_ORIGIN
from profnet_sheets.stops import Stops
from profnet_sheets.words import are, command, counted, spend_said

if TYPE_CHECKING:
    from profnet_sheets.client.pace import Pace
    from profnet_sheets.searches.cost import SearchCost
    from profnet_sheets.searches.workflow import Search

ASK = "\0ask"  # `--api-key` given without a value (no argument can hold a NUL)


class _Commands(click.Group):
    """A group whose commands end on a library error with one `Error:` line, never a
    traceback (a command need not catch every ProfnetError itself)."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except StoppedBuying as error:  # before a run (a cache that cannot be read): exit 5
            from profnet_sheets.batch.workflow import EXIT_STOPPED

            click.echo(f"Error: {masked(str(error))}", err=True)
            sys.exit(EXIT_STOPPED)
        except ProfnetError as error:
            raise _failure(error) from None
        except KeyboardInterrupt:  # outside a command's Stops (click: `Aborted!` and exit 1)
            _interrupted(ctx)
        except RuntimeError as error:
            if not _from_ctrl_c(error):
                raise
            _interrupted(ctx)  # a Ctrl-C while a class was made (`Error calling __set_name__`)


def _interrupted(ctx: click.Context) -> NoReturn:
    """End a command a Ctrl-C stopped outside its Stops: before a paying command began, or
    in one that pays nothing."""
    began = _STOPS in ctx.meta
    click.echo(err=True)
    click.echo(f"Interrupted (Ctrl-C){'.' if began else ': no credits spent.'}", err=True)
    sys.exit(128 + signal.SIGINT)


def _from_ctrl_c(error: BaseException) -> bool:
    """Whether `error` was raised because of a KeyboardInterrupt (its cause, or its cause's)."""
    seen: BaseException | None = error
    while seen is not None:
        if isinstance(seen, KeyboardInterrupt):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def _failure(error: ProfnetError) -> click.ClickException:
    """A library error as the CLI's one line (messages show values masked and cut already;
    masked again here, in case a message holds a URL)."""
    return click.ClickException(masked(str(error)))


def _as_typed(text: str) -> str:
    """A library message with the budget named as a search command sets it (`--budget`)."""
    return text.replace(BUDGET_SETTING, "--budget or PROFNET_BUDGET")


def _said(text: str) -> None:
    """`text` on stderr on a line of its own, even while a progress bar is drawn there (tqdm
    clears the bar's line, writes `text` and a newline, then draws the bar again)."""
    from tqdm.auto import tqdm

    tqdm.write(text, file=sys.stderr)


_STOPS = "profnet_sheets.stops"  # where a command's Stops is kept (the click context's meta)


def _stoppable(command: Callable[..., None]) -> Callable[..., None]:
    """A command that pays, run with Ctrl-C, SIGTERM and SIGHUP as one Ctrl-C (stops.py):
    what it did is written whatever the number of signals; one that ends it before anything
    else says so is said in one line, with the exit code 128 + the signal's number."""

    @functools.wraps(command)
    def run(*args: Any, **kwargs: Any) -> None:
        # The handlers say through tqdm (_said): imported now, before a signal can come, so
        # that no handler imports (a signal during the import: a half-made module).
        import tqdm.auto  # noqa: F401

        with Stops(_said) as stops:
            click.get_current_context().meta[_STOPS] = stops
            try:
                command(*args, **kwargs)
            except KeyboardInterrupt:
                click.echo(f"Interrupted ({stops.name}).", err=True)
                sys.exit(stops.exit_code)

    return run


def _stops() -> Stops:
    """The Stops of the command running (one that changes nothing outside a command)."""
    stops: Stops = click.get_current_context().meta.setdefault(_STOPS, Stops(lambda text: None))
    return stops


EXIT_DECLINED = 1  # the user said no at the prompt: nothing was sent (decisions.md #229)


def _may_ask(yes: bool, client: Client) -> bool:
    """Whether a command asks before spending: in a terminal only (a script is not asked),
    unless --yes is given or the data is the sandbox's (synthetic, and free)."""
    return not yes and sys.stdin.isatty() and not client.settings.uses_sandbox


def _ask_to_spend(credits: int | None, question: str = "", before: str = "") -> None:
    """Ask before spending up to `credits` (None: `question`, for an amount not known), as
    `_ask` asks."""
    asked = question or f"Spend up to {counted(credits or 0, 'credit')}?"
    _ask(asked, before)


def _ask_to_spend_quoted(quote: Quote) -> None:
    """Ask before a run `quote` is of: up to its credits, or up to what the limit it passes
    leaves, where the run stops (`Spend up to 3 credits (the budget stops the run there)?`)."""
    short = quote.short
    if short is None:
        _ask_to_spend(quote.credits)
    else:
        _ask(f"Spend up to {counted(quote.most, 'credit')} ({short.name} stops the run there)?")


def _ask(asked: str, before: str = "") -> None:
    """Ask `asked` in a terminal; a no ends the command, saying that nothing was sent
    (`before`: what the command spent before asking, said instead)."""
    answer = _answer(asked)
    if not answer:
        said = f"Nothing more sent ({before})." if before else "Nothing sent: no credits spent."
        click.echo(said, err=True)
        _declined(answer)


def _answer(asked: str) -> bool | None:
    """`asked`, answered yes or no in the terminal; None: a Ctrl-C (or SIGTERM, SIGHUP) came
    first, in a command that pays or not."""
    stops = _stops()
    try:
        with contextlib.nullcontext() if stops.active else stops:
            return confirmed(asked, stops)
    except KeyboardInterrupt:  # what it means is said on a line of its own, by the caller
        click.echo(err=True)
        return None


def _declined(answer: bool | None) -> NoReturn:
    """End a command whose question was answered no (1), or stopped (130 for Ctrl-C)."""
    stops = _stops()
    stopped = stops.exit_code if stops.received is not None else 128 + signal.SIGINT
    sys.exit(EXIT_DECLINED if answer is False else stopped)


@click.group(cls=_Commands, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="profnet-sheets")
def main() -> None:
    """Professional-network data for Excel and Jupyter, with a local sandbox of the service."""
    STOPS_LOG.addHandler(logging.NullHandler())  # each command says its stop in its own line
    STOPS_LOG.propagate = False
    said = logging.getLogger("profnet_sheets")
    if not any(isinstance(handler, _SaidHandler) for handler in said.handlers):
        said.addHandler(_SaidHandler(logging.WARNING))  # on a line of its own, under a bar


class _SaidHandler(logging.Handler):
    """The library's warnings said as the commands say everything: on a line of their own
    on stderr, even while a progress bar is drawn there (it was written onto the bar)."""

    def emit(self, record: logging.LogRecord) -> None:
        try:
            _said(record.getMessage())
        except Exception:  # a warning must never end a command
            self.handleError(record)


def _end_if_stopped(
    run: Client, not_done: str, kept: str, error: ProfnetError | None = None
) -> None:
    """End a paying command that a stop ended (the service unreachable, the account out of
    credits, the client stopped buying, a limit reached: `error`) with the stop's one line,
    as enrich says it, and its exit code; else return."""
    from profnet_sheets.batch.workflow import (
        EXIT_BUDGET,
        EXIT_KEY_REFUSED,
        EXIT_NO_CREDITS,
        EXIT_STOPPED,
        EXIT_UNREACHABLE,
        stop_advice,
    )

    unknown = None
    if isinstance(error, BudgetExceeded):
        ending, reason, code, unknown = "budget", error.limit or None, EXIT_BUDGET, error.unknown
    elif run.unreachable is not None:
        ending, reason, code = "unreachable", run.unreachable, EXIT_UNREACHABLE
    elif run.out_of_credits:
        ending, reason, code = "credits", None, EXIT_NO_CREDITS
    elif run.key_refused:
        ending, reason, code = "key", None, EXIT_KEY_REFUSED
    elif run.stopped is not None:
        ending, reason, code = "stopped", run.stopped, EXIT_STOPPED
    else:
        return
    cap = run.settings.spending_cap
    renews = cap is None or cap.renews
    said = stop_advice(ending, reason, not_done, kept, run.team_cap, unknown, renews)
    click.echo(masked(_as_typed(said or "")), err=True)
    sys.exit(code)


@main.command()
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", default=8765, show_default=True, help="Port to listen on (0: a free one).")
@click.option(
    "--api-key",
    "api_keys",
    multiple=True,
    help=f"An API key the sandbox accepts (repeatable). Default: {DEFAULT_KEY}.",
)
@click.option("--credits", default=100_000, show_default=True, help="Starting balance per key.")
@click.option("--seed", default=0, show_default=True, help="Seed of the synthetic world.")
@click.option(
    "--latency-ms", default=0.0, show_default=True, help="Response time per call (work included)."
)
@click.option(
    "--latency-jitter-ms", default=0.0, show_default=True, help="Random extra latency, 0 to this."
)
@click.option(
    "--job-seconds", default=5.0, show_default=True, help="Time a search takes to complete."
)
@click.option(
    "--fail-rate", default=0.0, show_default=True, help="Share of calls answering 500/503."
)
@click.option(
    "--throttle-rate", default=0.0, show_default=True, help="Share of calls answering 429."
)
@click.option(
    "--drop-rate", default=0.0, show_default=True, help="Share of connections cut mid-response."
)
@click.option(
    "--geocode-timeout-rate", default=0.0, show_default=True, help="Share of geocode 500 timeouts."
)
@click.option(
    "--job-fail-rate", default=0.0, show_default=True, help="Share of searches that fail."
)
@click.option(
    "--rate-limit", type=float, default=None, help="Requests per second per key before 429."
)
@click.option(
    "--rate-limit-per-minute", type=float, default=None, help="Requests per minute per key."
)
@click.option(
    "--faults-counted/--faults-in-front",
    default=True,
    show_default=True,
    help="Whether injected faults come behind the rate limit (each took a token).",
)
@click.option(
    "--limit-retry-after/--no-limit-retry-after",
    default=True,
    show_default=True,
    help="Whether the limits' 429s say Retry-After.",
)
@click.option(
    "--plan",
    type=click.Choice(sorted(PLANS)),
    default=None,
    help="A plan's limits and the real service's 3-5 s latency (docs/sandbox.md); the options "
    "above change them.",
)
@click.option("--retry-after", default=1, show_default=True, help="Retry-After seconds on 429.")
@click.option(
    "--hostile-rate",
    default=0.0,
    show_default=True,
    help="Share of text fields answered as formulas (=, +, -, @...), to test exports.",
)
@click.option(
    "--db",
    type=click.Path(dir_okay=False),
    default=None,
    help="SQLite file for jobs, credits and usage (default: in memory).",
)
@click.option(
    "--cors-origin",
    "cors_origins",
    multiple=True,
    help=f"A web origin that may call it from a browser (repeatable; * for any). Default: "
    f"{LITE_ORIGIN} (xlwings Lite).",
)
def sandbox(
    host: str,
    port: int,
    api_keys: tuple[str, ...],
    credits: int,
    seed: int,
    latency_ms: float,
    latency_jitter_ms: float,
    job_seconds: float,
    fail_rate: float,
    throttle_rate: float,
    drop_rate: float,
    geocode_timeout_rate: float,
    job_fail_rate: float,
    rate_limit: float | None,
    rate_limit_per_minute: float | None,
    faults_counted: bool,
    limit_retry_after: bool,
    plan: str | None,
    retry_after: int,
    hostile_rate: float,
    db: str | None,
    cors_origins: tuple[str, ...],
) -> None:
    """Run the sandbox of the service in the foreground (Ctrl-C stops it)."""
    from profnet_sheets.sandbox.controls import SettingError
    from profnet_sheets.sandbox.server import ListenError, SandboxConfig, serve_forever

    given = click.get_current_context().get_parameter_source
    options: dict[str, Any] = {
        "host": host,
        "port": port,
        "api_keys": api_keys or (DEFAULT_KEY,),
        "credits": credits,
        "seed": seed,
        "latency_ms": latency_ms,
        "latency_jitter_ms": latency_jitter_ms,
        "job_seconds": job_seconds,
        "fail_rate": fail_rate,
        "throttle_rate": throttle_rate,
        "drop_rate": drop_rate,
        "geocode_timeout_rate": geocode_timeout_rate,
        "job_fail_rate": job_fail_rate,
        "rate_limit": rate_limit,
        "rate_limit_per_minute": rate_limit_per_minute,
        "limit_retry_after": limit_retry_after,
        "faults_counted": faults_counted,
        "retry_after": retry_after,
        "hostile_rate": hostile_rate,
        "db": db,
        "cors_origins": cors_origins or (LITE_ORIGIN,),
    }
    for name, value in (PLANS[plan] if plan else {}).items():  # options typed win
        if given(name) is not click.core.ParameterSource.COMMANDLINE:
            options[name] = value
    try:
        config = SandboxConfig(**options)
    except SettingError as error:  # what the control endpoints would refuse too
        named = {"key": "--api-key", "cors_origins": "--cors-origin"}
        option = named.get(error.name, "--" + error.name.replace("_", "-"))
        raise click.BadParameter(str(error), param_hint=option) from None

    def announce(base_url: str) -> None:
        click.echo(
            f"profnet-sheets sandbox: synthetic data on {base_url} "
            f"(keys: {', '.join(config.api_keys)}; {credits} credits each; seed {seed}). "
            f"OpenAPI at /openapi.json.",
            err=True,
        )

    try:
        serve_forever(config, on_listening=announce)
    except ListenError as error:
        advice = (
            "stop what uses it, or choose another port with --port (0: any free one)"
            if error.errno == errno.EADDRINUSE
            else "choose another --port (0: any free one) or --host"
        )
        raise click.ClickException(f"{error.strerror}: {advice}") from None


KEPT_SETTINGS = ("api_key", "base_url", "cache", "budget", "spending_cap", "machine")


@main.command()
@click.option(
    "--api-key",
    is_flag=False,
    flag_value=ASK,
    default=None,
    help="Your API key for the real service. --api-key alone asks for it (not shown as you "
    "type); --api-key - reads it from stdin; either keeps it out of shell history.",
)
@click.option("--base-url", default=None, help="The base URL of the service.")
@click.option("--cache", default=None, help="Cache: a directory, redis://..., memory or off.")
@click.option(
    "--budget",
    type=click.IntRange(min=0),
    default=None,
    help="Credits ONE run may spend (each run, form action or Excel session starts anew).",
)
@click.option(
    "--spending-cap",
    default=None,
    help="Credits ALL runs sharing the ledger may spend: 500/day, 5000/month or 20000 (in all); "
    "on a Redis cache, every machine of the team together.",
)
@click.option(
    "--machine", default=None, help="This computer's name in the team's spend (default: host name)."
)
@click.option(
    "--unset",
    "unset_names",
    multiple=True,
    type=click.Choice(KEPT_SETTINGS),
    help="Take this setting out of the file (repeatable): --unset api_key --unset base_url "
    "goes back to the embedded sandbox.",
)
@click.option("--path", "config_path", default=None, help="Config file (default: yours).")
def config(
    api_key: str | None,
    base_url: str | None,
    cache: str | None,
    budget: int | None,
    spending_cap: str | None,
    machine: str | None,
    unset_names: tuple[str, ...],
    config_path: str | None,
) -> None:
    """Keep settings in your config file (readable by you only); with no option, show them.

    \b
    uv run profnet-sheets config --api-key      asks for the key (not shown as you type)
    pass show profnet | uv run profnet-sheets config --api-key -
    uv run profnet-sheets config --unset budget
    """
    api_key = _key_asked_for(api_key)
    if api_key is not None and not api_key.strip():
        raise click.ClickException(
            "No API key was given (the key read was empty): pipe it in (`... | "
            f"{command('config --api-key -')}`), or run `{command('config --api-key')}` alone "
            "to be asked for it. Nothing was saved."
        )
    if api_key is not None and is_placeholder_key(api_key):
        raise click.ClickException(
            f"The API key given is the documentation's placeholder {api_key.strip()!r}: give "
            f"your own key (from your account page), or run `{command('config --api-key')}` "
            "alone to be asked for it. Nothing was saved."
        )
    values: dict[str, Any] = {
        "api_key": api_key,
        "base_url": base_url,
        "cache": cache,
        "budget": budget,
        "spending_cap": spending_cap,
        "machine": machine,
    }
    if set(unset_names) & {name for name, value in values.items() if value is not None}:
        raise click.UsageError("a setting is both given and unset: give one of them")
    if unset_names or any(value is not None for value in values.values()):
        checked = _load(config_path, **values)  # a value that cannot be used is refused
        unwritable = None if cache is None else unwritable_place(cache)
        if unwritable is not None:
            raise click.ClickException(
                f"--cache {clipped(cache or '')}: {unwritable}: {_cache_advice(cache or '')}; "
                "nothing was saved"
            )
        if cache is not None and (on_disk := disk_place(cache)) is not None:
            values["cache"] = str(on_disk)  # one place from any folder the next run starts in
        if api_key is not None:
            values["api_key"] = checked.api_key  # as it is used: without a line end from stdin
        if spending_cap is not None and checked.spending_cap is not None:
            values["spending_cap"] = str(checked.spending_cap)  # ` 35 / Day` saved as 35/day
        try:
            path = save_config(values, config_path, remove=unset_names)
        except ProfnetError as error:
            raise _failure(error) from None
        click.echo(f"Saved to {path} (permissions 0600).", err=True)
        given = {name for name, value in values.items() if value is not None}
        for name in sorted(set(unset_names) | given):
            if set_in_environment(name):
                click.echo(
                    f"Note: {variable_of(name)} is set here and wins over the config file: "
                    f"unset it for the file's {name} to be used.",
                    err=True,
                )
    settings = _load(config_path)
    click.echo(f"config file: {config_file(config_path)}")
    unset = "not set" + (" (the embedded sandbox is used)" if settings.uses_sandbox else "")
    key = settings.api_key
    budget, cap = settings.budget, settings.spending_cap
    shown = {
        "api_key": key.described() if key else unset,
        "base_url": clipped(settings.base_url) if settings.base_url else unset,
        "cache": clipped(settings.cache or str(settings.cache_dir)),
        "budget": budget if budget is not None else "not set (no limit per run)",
        "spending_cap": cap.said if cap is not None else "not set (no cap)",
        "machine": settings.machine,
    }
    for name, value in shown.items():
        label = "spending cap:" if name == "spending_cap" else f"{name + ':':9}"
        source = f" (from {variable_of(name)}, which wins over the file)" * set_in_environment(name)
        click.echo(f"{label} {value}{source}")


def _key_asked_for(given: str | None) -> str | None:
    """The key of `config --api-key`: as given, read from stdin (`-`: a pipe, a password
    manager), or typed at a prompt that does not show it (`--api-key` alone; `-` in a terminal):
    out of shell history and the process list."""
    if given not in (ASK, "-"):
        return given
    if not sys.stdin.isatty():
        if given == "-":
            return sys.stdin.readline()
        raise click.ClickException(
            "--api-key alone asks for the key in a terminal, and there is none here: pipe it "
            "in with --api-key - (for instance: pass show profnet | "
            f"{command('config --api-key -')})."
        )
    return str(click.prompt("API key", hide_input=True))


def _load(config_path: str | None, **explicit: Any) -> Settings:
    try:
        return Settings.load(config_path=config_path, **explicit)
    except ProfnetError as error:
        raise _failure(error) from None


SAMPLE = "sample_companies.csv"


def sample_path() -> Path:
    """The sample company list: templates/ of a clone, or the copy shipped in the package."""
    for folder in (
        Path(__file__).resolve().parents[1] / "templates",
        Path(__file__).parent / "templates",
    ):
        if (folder / SAMPLE).exists():
            return folder / SAMPLE
    raise click.ClickException(f"{SAMPLE} is missing from this installation")


@main.command()
@click.argument("folder", default="profnet-lite", type=click.Path(file_okay=False))
def lite(folder: str) -> None:
    """Write an xlwings Lite template: main.py (the PROFNET_* functions) and requirements.txt
    (this package's core, pinned), to paste into Lite's editor. FOLDER: default profnet-lite."""
    from profnet_sheets.excel.lite_template import PACKAGE, write

    try:
        written = write(Path(folder))
    except ProfnetError as error:
        raise _failure(error) from None
    for path in written:
        click.echo(f"Wrote {path}")
    click.echo(
        "In Excel: xlwings Lite > paste main.py into its editor and requirements.txt's "
        f"{PACKAGE} line into its requirements; set PROFNET_API_KEY under Environment "
        "Variables, scope Local (never in the workbook), and if you like PROFNET_EXCEL_BUDGET or "
        "PROFNET_SPENDING_CAP; restart xlwings Lite (docs/excel.md, xlwings Lite)."
    )


def _not_empty(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """An output file named (an empty --out, an unset shell variable, is refused: exit 2)."""
    if value is not None and not value.strip():
        raise click.BadParameter("is empty: name the file to write (.csv, .xlsx or .parquet)")
    return value


@main.command()
@click.option(
    "--out",
    default=None,
    callback=_not_empty,
    help="The file to write: .xlsx (default: beside the sample), .csv or .parquet.",
)
@_stoppable
def demo(out: str | None) -> None:
    """The main job on the embedded sandbox: enrich the sample company list into an XLSX."""
    source = sample_path()
    target = Path(out) if out else source.with_name("sample_companies-enriched.xlsx")
    if not out and not os.access(target.parent, os.W_OK):
        target = Path.cwd() / target.name
    _enrich_file(
        source, ["Website"], "company", target, None, None, None, None, True, None, sandbox=True
    )


# Settings of this computer a demo keeps: where its cache lives, and how much it says.
_DEMO_KEEPS = ("PROFNET_CACHE_DIR", "PROFNET_QUIET")


def _sandbox_settings() -> Settings:
    """The settings of a run on the embedded sandbox whatever is configured (no key, base URL,
    cache, limits or service profile of the user's: nothing of theirs is paid or counted). A
    service configured is said to be left alone, instead of the sandbox's notice."""
    kept = {name: value for name, value in os.environ.items() if name in _DEMO_KEEPS}
    settings = Settings.load(environ=kept, config_path=os.devnull)
    try:
        configured = not Settings.load().uses_sandbox
    except (ProfnetError, ValueError):  # a configuration that cannot load: not used here
        configured = True
    if configured and not settings.quiet:
        _said(
            "demo: on the built-in SANDBOX (synthetic data, no real credits spent); the "
            "service configured is not used. Your own file on the service configured (paid; "
            "the cost is said and asked first): "
            f"`{command('enrich FILE --column COLUMN --kind company --out OUT.xlsx')}`."
        )
        settings = settings.with_changes(quiet=True)
    return settings


@main.command()
@click.argument("input_path", metavar="INPUT", type=click.Path(exists=True, dir_okay=False))
@click.option(
    "--column",
    "columns",
    multiple=True,
    help="The column holding the keys (default: chosen by its header and values); for kinds "
    "that read several, PARAMETER=COLUMN, repeated (find_profile: name=, company=, title=, "
    "location=; headcount: profnet_url= and its filters).",
)
@click.option("--kind", required=True, help="What to look up: " + ", ".join(sorted(KINDS)) + ".")
@click.option(
    "--out",
    "out",
    default=None,
    callback=_not_empty,
    help="Output file: .csv, .xlsx or .parquet (not for --dry-run).",
)
@click.option("--fields", default=None, help="Only these fields, comma-separated.")
@click.option(
    "--dry-run",
    is_flag=True,
    help="Show the cost preview and stop (exit 3: a limit leaves nothing to spend).",
)
@click.option(
    "--budget", type=click.IntRange(min=0), default=None, help="Credits this run may spend."
)
@click.option(
    "--concurrency",
    type=click.IntRange(min=1),
    default=None,
    help="At most this many calls in flight (default: PROFNET_CONCURRENCY, 128); within it, "
    "the pace follows what the service takes.",
)
@click.option(
    "--rate",
    default=None,
    help="The plan's rate limit, if you know it: calls per second or minute (20/s, 600/min); "
    "the pace stays under it (default: PROFNET_RATE_LIMIT, else found from the service's 429s; "
    "0 or none: no limit known, found from the 429s).",
)
@click.option("--yes", is_flag=True, help="Do not ask before spending credits.")
@click.option(
    "--sheet",
    default=None,
    help="XLSX: the sheet to read: its name, or its position from 0 (hidden sheets counted).",
)
@click.option(
    "--encoding",
    default=None,
    help="CSV: its encoding (e.g. cp1250), when the one detected reads letters wrong.",
)
@click.option(
    "--prefix",
    default=None,
    help="Start of the new columns' names (default: the kind's, e.g. company_); another one "
    "enriches an enriched file again.",
)
@_stoppable
def enrich(
    input_path: str,
    columns: tuple[str, ...],
    kind: str,
    out: str | None,
    fields: str | None,
    dry_run: bool,
    budget: int | None,
    concurrency: int | None,
    rate: str | None,
    yes: bool,
    sheet: str | None,
    encoding: str | None,
    prefix: str | None,
) -> None:
    """Enrich a column of a CSV, XLSX or Parquet file; each unique key is fetched once.

    \b
    uv run profnet-sheets enrich accounts.csv --column Website --kind company --out a.xlsx
    uv run profnet-sheets enrich people.csv --kind find_profile --column name=Name \\
        --column company=Employer --out people.xlsx
    """
    from profnet_sheets.batch import kind_named

    try:
        kind_named(kind)  # before anything is read or a client made
    except ValueError as error:
        raise click.BadParameter(str(error), param_hint="--kind") from None
    if out is None and not dry_run:
        raise click.UsageError("Missing option '--out' (only --dry-run goes without it).")
    chosen = [name.strip() for name in fields.split(",")] if fields else None
    _enrich_file(
        Path(input_path),
        list(columns),
        kind,
        Path(out) if out else None,
        chosen,
        budget,
        sheet,
        concurrency,
        yes,
        dry_run,
        prefix,
        encoding,
        rate,
    )


def _enrich_file(
    source: Path,
    given: list[str],
    kind: str,
    target: Path | None,
    fields: list[str] | None,
    budget: int | None,
    sheet: str | None,
    concurrency: int | None,
    yes: bool,
    dry_run: bool | None,
    prefix: str | None = None,
    encoding: str | None = None,
    rate: str | None = None,
    *,
    sandbox: bool = False,
) -> None:
    """The library's file workflow (batch.workflow.enrich_file), its errors as one line and
    its ending as the exit code; `sandbox`: on the embedded sandbox, whatever is configured."""
    import polars as pl

    from profnet_sheets.batch.io import BatchInputError
    from profnet_sheets.batch.workflow import EXIT_BUDGET, Enrichment, enrich_file

    nothing_to_send = False
    try:
        with (
            _client(settings=_sandbox_settings())
            if sandbox
            else _paying_client(concurrency=concurrency, rate_limit=rate, budget=budget)
        ) as client:

            def confirm(job: Enrichment) -> bool:
                nonlocal nothing_to_send
                nothing_to_send = job.quote.nothing_left
                if dry_run:
                    return False
                if job.plan.credits and _may_ask(yes, client) and not nothing_to_send:
                    _ask_to_spend_quoted(job.quote)
                return True

            run = enrich_file(
                client,
                source,
                target,
                kind,
                columns=given,
                fields=fields,
                budget=budget,
                sheet=sheet,
                prefix=prefix,
                encoding=encoding,
                confirm=confirm,
                say=_said,
            )
    except KeyboardInterrupt:  # before the run: nothing was sent
        _said(f"Interrupted ({_stops().name}) before anything was sent.")
        sys.exit(_stops().exit_code)
    except StoppedBuying:  # before the run (a cache that cannot be read): the group says it
        raise
    except (ValueError, BatchInputError, ProfnetError) as error:
        raise click.ClickException(str(error)) from None
    except pl.exceptions.PolarsError as error:  # content polars could not read after all
        first = (str(error).strip().splitlines() or [type(error).__name__])[0]
        raise click.ClickException(
            f"{source}: cannot be read ({first}); save it as CSV UTF-8, XLSX or Parquet"
        ) from None
    if run is None:  # a dry run: the plan was the answer (a limit used up: exit 3)
        sys.exit(EXIT_BUDGET if nothing_to_send else 0)
    _said(run.summary())
    advice = run.outcome.advice()
    advice = _as_typed(advice) if advice is not None else None
    if advice:
        _said(advice)
    stops = _stops()
    code = run.outcome.exit_code  # out of credits (say) wins over a Ctrl-C that came after
    if stops.received is not None and run.outcome.ending in (None, "interrupted"):
        code = stops.exit_code  # the signal's own (130, or 143 for SIGTERM)
    if code:
        sys.exit(code)


@main.command()
@click.argument("kind")
@click.argument("values", nargs=-1, required=True)
@click.option("--skills", is_flag=True, help="profile: include skills.")
@click.option("--certifications", is_flag=True, help="profile: include certifications.")
@click.option(
    "--budget",
    type=click.IntRange(min=0),
    default=None,
    help="Credits this lookup may spend (default: PROFNET_BUDGET).",
)
@click.option("--yes", is_flag=True, help="Do not ask before spending credits.")
@_stoppable
def lookup(
    kind: str,
    values: tuple[str, ...],
    skills: bool,
    certifications: bool,
    budget: int | None,
    yes: bool,
) -> None:
    """Look values up (KIND: company, profile, job, post, geocode, school, ...); on stdout, a
    JSON object: each value as typed, in order -> its answer, or {"KIND_error": why} for one
    that failed or that a stop (the budget, the spending cap...) left undone.

    \b
    uv run profnet-sheets lookup company stripe.com https://www.profnet.com/company/acme/
    uv run profnet-sheets lookup profile https://www.profnet.com/in/anna-schmidt/ --skills
    """
    from profnet_sheets.batch import kind_named
    from profnet_sheets.batch.each import look_up_each

    try:
        spec = kind_named(kind)
    except ValueError as error:
        raise click.BadParameter(str(error), param_hint="KIND") from None
    options: dict[str, object] = {}
    if spec.name == "profile":
        options = {"include_skills": skills, "include_certifications": certifications}
    with _paying_client(budget=budget) as client:  # --budget wins over PROFNET_BUDGET
        calls, refused = [], []
        for value in values:  # every value checked (free) before any is paid for
            try:
                params = spec.call({spec.inputs[0]: value}, options)
                client.estimate([(spec.endpoint, params)])
            except ProfnetError as error:  # cannot be a key of this kind: each one said
                refused.append(f"{shown(value)}: {error}")
                continue
            calls.append((value, params))
        refused = list(dict.fromkeys(refused))  # a value given twice, said once
        if len(refused) > 1:  # each on its line, then the one error line, last
            for line in refused:
                click.echo(line, err=True)
            raise click.ClickException(
                f"{counted(len(refused), 'value')} cannot be looked up (said above); nothing "
                "was sent."
            )
        if refused:
            raise click.ClickException(refused[0])
        run = client.with_budget(budget)  # this command's own spend
        cost = run.estimate([(spec.endpoint, params) for _, params in calls])
        free = spec.endpoint in client.profile.free_on_plan
        short = cost.quote.short
        click.echo(
            f"{counted(cost.unique, 'lookup')}: {cost.cached} cached (free); at most "
            f"{counted(cost.credits, 'credit')}"
            + (f" ({spec.endpoint} is free on your plan)" if free else "")
            + (f"; {short.preview()}." if short is not None else "."),
            err=True,
        )
        if cost.credits and _may_ask(yes, client) and not cost.quote.nothing_left:
            _ask_to_spend_quoted(cost.quote)
        unkept_before = client.unkept
        looked = look_up_each(run, spec.endpoint, calls, lambda it: spec.record(it) is None)
        lost = client.unkept - unkept_before  # paid answers the cache could not keep
        answers, failures, stop = looked.answers, looked.failures, looked.stop
        spent, maybe = run.budget.spent, run.budget.uncertain
    # Every value, in the order given, also when a failure, a stop or Ctrl-C ended it early.
    shown_values = _every_value(spec.name, values, answers, failures, stop)
    unasked = {p.adds for p in endpoint(spec.endpoint).params if p.adds and not options.get(p.name)}
    for record in shown_values.values():  # fetched at the same price, shown when asked for
        if isinstance(record, dict):
            for name in unasked & record.keys():
                del record[name]
    if looked.interrupted:
        from profnet_sheets.batch.marks import INTERRUPTED

        for value in values:
            if value not in answers and value not in failures:
                shown_values[value] = {_error_key(spec.name): INTERRUPTED}
    json.dump(shown_values, sys.stdout, indent=2)
    click.echo()
    if free:
        click.echo(f"this lookup: 0 credits: {spec.endpoint} is free on your plan", err=True)
    else:
        if spent:
            said = f"this lookup: {spend_said(spent, maybe)}"
        else:  # nothing paid: every answer came from the cache, unless the lookup failed
            said = "this lookup: 0 credits" if failures else "0 credits: cached"
        click.echo(said, err=True)
    alone = {value: error for value, error in failures.items() if stop is None or value != stop[0]}
    # the values neither answered nor failed alone, each counted once (a value given twice is
    # one lookup)
    undone = counted(sum(v not in answers and v not in alone for v in set(values)), "lookup")
    if looked.interrupted:
        _say_failures(alone)
        raise KeyboardInterrupt  # said as every stopped command says it, with its exit code
    if stop is not None:
        _say_failures(alone)  # before the stop's last line
        value, failure = stop
        done = len(answers)
        the_done = f"the {done} done {are(done)}"
        kept = f"{the_done} cached: not paid again" if done else "nothing was lost"
        if done and client.settings.cache in ("memory", "off"):
            kept = f"{the_done} kept in memory only (PROFNET_CACHE): paid again next run"
        elif done and lost:
            kept = (
                f"{the_done} answered, but {counted(lost, 'paid answer')} could not be "
                f"kept in the cache: running again pays {'it' if lost == 1 else 'them'} again"
            )
        elif not done and maybe:
            kept = f"no answer came for the {counted(maybe, 'credit')} possibly spent"
        _end_if_stopped(run, undone, kept, failure)
        raise click.ClickException(f"{shown(value)}: {failure}")
    if lost:  # every call answered, but paid answers the cache could not keep: exit 5
        _say_failures(alone)
        done = len(answers)
        kept = (
            f"the {done} done {are(done)} answered, but {counted(lost, 'paid answer')} could "
            f"not be kept in the cache: running again pays {'it' if lost == 1 else 'them'} again"
        )
        _end_if_stopped(run, undone, kept)
    if len(alone) == 1:
        ((value, failure),) = alone.items()
        raise click.ClickException(f"{shown(value)}: {failure}")
    if alone:
        _say_failures(alone)
        others = "; the others are answered" if len(alone) < len(calls) else ""
        raise click.ClickException(
            f"{len(alone)} of {counted(len(calls), 'lookup')} failed: each is marked in the JSON "
            f"({_error_key(spec.name)}){others}"
        )


def _say_failures(failures: dict[str, ProfnetError]) -> None:
    """One line on stderr for each value that failed alone: `'x.invalid': ... not found.`"""
    for value, failure in failures.items():
        click.echo(masked(f"{shown(value)}: {failure}"), err=True)


def _error_key(kind: str) -> str:
    """`company_error`: what a value without an answer holds in lookup's JSON (enrich's error
    column's name)."""
    from profnet_sheets.batch.naming import default_prefix, error_column

    return error_column(default_prefix(kind))


def _every_value(
    kind: str,
    values: tuple[str, ...],
    answers: dict[str, Any],
    failures: dict[str, ProfnetError],
    stop: tuple[str, ProfnetError] | None,
) -> dict[str, Any]:
    """Each value as typed -> its answer; a value that failed -> `{"<kind>_error": why}`, in
    the words of enrich's error column (`not found`, `spending cap reached: not fetched ...`:
    docs/guide.md); so do the values after a stop (never sent), in the stop's words."""
    from profnet_sheets.batch.marks import error_text, is_not_done

    marked = _error_key(kind)
    # as the command's messages: credentials never shown
    said = {value: {marked: masked(error_text(error))} for value, error in failures.items()}
    after: dict[str, Any] = {}
    if stop is not None:
        stopped_at, _ = stop
        why = said[stopped_at][marked]
        after = {
            marked: why
            if is_not_done(why)
            else f"not fetched: the lookup stopped at {shown(stopped_at)} (run again once "
            "fixed; done lookups are free)"
        }
    return {
        value: answers[value] if value in answers else said.get(value, after) for value in values
    }


@main.command()
def credits() -> None:
    """What was spent, by endpoint and day, and what the budget leaves; on a Redis cache, the
    team's spend too, per day and period and per machine, and what the team cap leaves."""
    try:
        client = Client()
    except TeamCacheUnreachable as error:
        _machine_credits(error)
    except ProfnetError as error:
        raise _failure(error) from None
    with client:
        ledger = client.ledger
        budget = client.settings.budget
        cap = client.settings.spending_cap
        period = cap.period if cap is not None else "day"  # where a forgetful Redis shows
        try:
            team = ledger if isinstance(ledger, TeamLedger) else None
            # What the team's Redis forgot of this machine's spend, counted there again first.
            retold = team.retell() if team else {}
            holds = ledger.holds(client.service)  # a dead process's holds settled first
            rows = ledger.by_endpoint_and_day(service=client.service)
            total = client.spent()
            uncertain = client.spent(uncertain=True)
            quoted = client.quote(0)
            cap_left = quoted.cap_left
            team_spend = team.team_spend() if team else None
            caps = team.caps() if team else {}
        except ProfnetError as error:
            raise _failure(error) from None
        except ledger.failures as error:
            raise click.ClickException(ledger.cap_failure(error)) from None
    if team is not None:
        click.echo(f"this machine ({client.settings.machine}):")
    empty = not rows and holds.credits  # nothing settled yet, calls under way
    click.echo("Nothing spent yet; calls under way are listed below." if empty else str(rows))
    _echo_total(total, uncertain)
    if team is not None and team_spend is not None:
        click.echo(f"the team (every machine on the Redis cache {team.where}):")
        for line in team_spend.lines():
            click.echo(f"  {line}")
    if holds.credits:
        click.echo(_in_flight(holds, team is not None))
    if holds.aside:
        click.echo(_set_aside(holds))
    if retold:
        click.echo(_forgotten(retold, period))
    if len(set(caps.values())) > 1:
        click.echo(_caps_differ(caps))
    if budget is not None:
        click.echo(f"budget: {budget} per run ({_set_by('budget')}; each run starts anew)")
    if cap is None:
        return
    if team is not None:
        click.echo(
            f"team cap: {cap.said} for every machine on the team's Redis "
            f"({_set_by('spending_cap')}): "
            f"{cap_left} left"
        )
    else:
        click.echo(
            f"spending cap: {cap.said} for every run on this computer's ledger "
            f"({_set_by('spending_cap')}; "
            f"a Redis cache makes it the team's): {cap_left} left"
        )
    unkept = next((it for it in quoted.limits if it.unknown), None)
    if unkept is not None:
        click.echo(f"  0 left: {unkept.unknown_said()}")


def _set_by(setting: str) -> str:
    """Where a setting in force comes from: its variable, or the config file."""
    if set_in_environment(setting):
        return variable_of(setting)
    return f"the config file: config --{setting.replace('_', '-')}"


def _in_flight(holds: Holds, team: bool) -> str:
    """`in flight: N credits held by calls under way ... until ...`: how much, whose, and until
    when at the latest (the holds' own leases, whatever this machine's settings are)."""
    whose = f" on the team's machines ({', '.join(holds.machines)})" if team else ""
    until = _until(holds.until, " until {} at the latest")
    return (
        f"in flight: {counted(holds.credits, 'credit')} held by calls under way{whose}{until}"
        " (those of a process that stopped then count as possibly spent)"
    )


def _until(moment: float | None, said: str) -> str:
    """`said` with the UTC time of `moment` in it (`2025-05-17 13:40:00 UTC`); "" for none."""
    if moment is None:
        return ""
    return said.format(datetime.fromtimestamp(moment, UTC).strftime("%Y-%m-%d %H:%M:%S UTC"))


def _set_aside(holds: Holds) -> str:
    """`set aside: 40 credits ... until ...`: the room searches started keep for their
    results, and until when at the latest unless they are read meanwhile."""
    until = _until(holds.aside_until, ", until {} at the latest unless they are read")
    return (
        f"set aside: {counted(holds.aside, 'credit')} under the cap for the results of searches "
        f"started and not read yet (not spent: what their reading does not take is given "
        f"back{until})"
    )


def _forgotten(retold: dict[str, int], period: str) -> str:
    """The warning for spend this machine told the team's Redis, which forgot it and was told
    again (`retold`: by period, the cap's `period` first)."""
    when = {"day": "today", "month": "this month", "total": "in all"}
    first, *then = sorted(retold, key=lambda it: (it != period, list(when).index(it)))
    also = [f"{retold[it]:,} {when[it]}" for it in then if retold[it] != retold[first]]
    return (
        f"Warning: the team's Redis had forgotten {counted(retold[first], 'credit')} this "
        f"machine spent {when[first]}"
        + (f" ({', '.join(also)})" if also else "")
        + " (a Redis restarted without persistence, or one that failed to count "
        "them): they are counted there again, in every machine's team cap. What the other "
        "machines spent is counted again as this machine last saw it, and in full as each of "
        "them runs a command; until then the cap may count less. Turn on the Redis's "
        "persistence (appendonly yes)."
    )


def _caps_differ(caps: dict[str, str | None]) -> str:
    """The warning for a team whose machines spend under different spending caps."""
    each = ", ".join(f"{machine} {cap or 'none'}" for machine, cap in caps.items())
    return (
        f"Warning: the team's machines used different spending caps lately ({each}). "
        "Each machine refuses only past its own, so the team can spend up to the largest "
        "(without limit from a machine with none): set the same PROFNET_SPENDING_CAP on every "
        "machine."
    )


def _echo_total(total: int, uncertain: int) -> None:
    """The ledger's total line: sure credits, and those possibly spent."""
    click.echo(
        f"total: {counted(total, 'credit')}" + (f" (+{uncertain} possibly)" if uncertain else "")
    )


def _machine_credits(error: TeamCacheUnreachable) -> NoReturn:
    """This machine's own spend, from its ledger, when the team's Redis cannot be reached;
    then why the team's is not shown."""
    settings = Settings.load()
    service, ledger = machine_ledger(settings)
    click.echo(f"this machine ({settings.machine}), from its own ledger:")
    rows, total, uncertain = SpendTable(), 0, 0
    if ledger is not None:
        with contextlib.closing(ledger):
            rows = ledger.by_endpoint_and_day(service=service)
            total = ledger.total(service=service)
            uncertain = ledger.total(service=service, uncertain=True)
    click.echo(str(rows))
    _echo_total(total, uncertain)
    raise click.ClickException(
        f"{error} The team's spend and what the team cap leaves are kept in that Redis: they "
        "show once it answers."
    )


def _web_origin(ctx: click.Context, param: click.Parameter, value: str) -> str:
    """A browser's origin (scheme://host[:port]), or a usage error naming it."""
    from profnet_sheets.sandbox.cors import allowed_origins

    try:
        (origin,) = allowed_origins((value,))
    except ValueError:
        origin = "*"
    if origin == "*":
        raise click.BadParameter(
            f"{value!r} is not an origin: give the scheme://host[:port] xlwings Lite runs "
            f"from, with no path, such as {LITE_ORIGIN}"
        )
    return origin


@main.command()
@click.option("--path", "config_path", default=None, help="Config file (default: yours).")
@click.option(
    "--lite-origin",
    default=LITE_ORIGIN,
    callback=_web_origin,
    help=f"The web origin xlwings Lite runs from (default {LITE_ORIGIN}; yours when your team "
    "hosts the add-in): whether the service lets it call.",
)
def check(config_path: str | None, lite_origin: str) -> None:
    """Check the setup without spending anything: is the service reachable, does it take the
    key, which profile and prices will be used, and does it let xlwings Lite call it. Exit
    code 0 only when all is well (Lite's answer is said, not judged)."""
    from profnet_sheets.setup_check import check_setup

    try:
        report = check_setup(_load(config_path), lite_origin)
    except ProfnetError as error:
        raise click.ClickException(str(error)) from None
    for line in report.lines():
        click.echo(line)
    sys.exit(0 if report.ok else 1)


@main.group()
def cache() -> None:
    """Look at or empty the cache of answers."""


@cache.command("info")
def cache_info() -> None:
    """Where the cache is, how many answers it holds (and how many expired), its size."""
    with _client() as client:
        info = client.cache_info()
    size = info.pop("size")
    info["size"] = "n/a" if size is None else f"{size / 1e6:.1f} MB"
    for name, value in info.items():
        click.echo(f"{name}: {value}")


@cache.command("purge")
def cache_purge() -> None:
    """Remove the answers past their freshness (a cache also does it when opened, once a day)."""
    with _client() as client:
        removed = client.purge_cache()
    click.echo(f"Removed {counted(removed, 'expired answer')}.")


@cache.command("clear")
@click.option("--yes", is_flag=True, help="Do not ask.")
def cache_clear(yes: bool) -> None:
    """Forget every cached answer (the next lookups are paid again)."""
    settings = _load(None)
    if settings.cache in ("memory", "off"):
        click.echo(
            f"Nothing to clear: answers are not kept on disk (PROFNET_CACHE={settings.cache}).",
            err=True,
        )
        return
    team = settings.cache is not None and "://" in settings.cache  # a Redis: every machine's
    answers = (
        f"every cached answer of the team's Redis {masked(settings.cache or '')}, every machine's"
        if team
        else "every cached answer"
    )
    client = _cache_to_clear(None)  # a user's database named for it: refused before asking
    try:
        if not yes and not sys.stdin.isatty():
            raise click.ClickException(
                f"cache clear asks before forgetting {answers}, and there is no terminal "
                "to ask in: pass --yes to clear it (the next lookups will be paid again)"
            )
        if not yes:
            paid = "every machine's next lookups" if team else "the next lookups"
            answer = _answer(f"Forget {answers}? {paid.capitalize()} will be paid again")
            if not answer:
                click.echo("Nothing cleared.", err=True)
                _declined(answer)
        mended: Path | None = None
        while True:
            if not isinstance(client, Client):  # garbage where a cache file is: start anew
                _start_anew(*client)
                mended, client = client[0], _cache_to_clear(client[0])
                continue
            try:
                client.clear_cache()
                break
            except DamagedFile as damaged:  # its tables cannot be emptied: damaged inside
                client.close()
                client = _unreadable(damaged, mended)
    finally:
        if isinstance(client, Client):
            client.close()
    click.echo("Cache cleared.")


def _cache_to_clear(after: Path | None) -> Client | tuple[Path, tuple[int, int]]:
    """The client whose cache `cache clear` empties, or the cache file it cannot read (to be
    started anew) with its identity (device, inode: the file that failed, not one another run
    puts there meanwhile); `after`: the one just started anew (met again: not ours to)."""
    try:
        return Client()
    except DamagedFile as damaged:
        return _unreadable(damaged, after)


def _unreadable(damaged: DamagedFile, after: Path | None) -> tuple[Path, tuple[int, int]]:
    """The cache file `damaged` names, with its identity, to be started anew (`after`: the
    one just started anew, met again: raised)."""
    if damaged.path == after:
        raise damaged
    try:
        return damaged.path, wal.identity(damaged.path)
    except FileNotFoundError:
        raise damaged from None


def _cache_advice(place: str) -> str:
    """What to give `config --cache` instead of the place it refused."""
    path = disk_place(place)
    if path is not None and names_a_cache_file(path) and path.is_dir():
        return (
            "a name ending in .sqlite or .db names the cache file itself: give a file's name "
            "that is not taken, or a folder whose name does not end so"
        )
    if path is not None and names_a_cache_file(path) and path.exists():
        return (
            "give the name of a new file (ending in .sqlite or .db), or a folder; this file "
            "is left as it is"
        )
    return (
        "give a folder (or a file ending in .sqlite or .db) you can write to, memory, off, "
        "or a redis:// URL"
    )


def _start_anew(path: Path, seen: tuple[int, int]) -> None:
    """Rename the unreadable cache file `path` aside (`<name>.unreadable-<time>-<pid>`) and
    keep it: it may be the user's (notes named `*.db`, a database a newer SQLite made), or hold
    answers worth a look. One emptied to 0 bytes, nothing to keep, is removed. Nothing is done
    when the file there is no longer the one `seen` (another run started it anew meanwhile)."""
    try:
        now = path.stat()
    except FileNotFoundError:
        return
    if (now.st_dev, now.st_ino) != seen:
        return
    if now.st_size == 0:  # nothing to keep
        with contextlib.suppress(FileNotFoundError):
            wal.remove(path)
        click.echo(f"Removed the empty cache file {clipped(str(path))}.", err=True)
        return
    try:
        aside = wal.set_aside(path, seen)
    except OSError as error:
        raise click.ClickException(
            f"Cannot rename {clipped(str(path))}: {error.strerror}; move it aside yourself, "
            "then run this again."
        ) from None
    if aside is None:  # another run set it aside first, and said so
        return
    what = (
        "is not a SQLite file, so never a cache"
        if holds_other_data(aside)
        else "could not be read as a cache"
    )
    click.echo(
        f"{clipped(str(path))} {what}: kept, renamed to {clipped(str(aside))}. A new cache "
        "file is made in its place.",
        err=True,
    )


def _client(**settings: Any) -> Client:
    """A client of the configured service; `settings` given on the command line win (None:
    not given)."""
    try:
        return Client(**{name: value for name, value in settings.items() if value is not None})
    except ProfnetError as error:
        raise _failure(error) from None


def _paying_client(**settings: Any) -> Client:
    """The client of a command that pays (`_client`); on a team's Redis whose machines spend
    under different spending caps (this one's included), or that forgot spend the cap
    counts, `credits`' warnings said first."""
    client = _client(**settings)
    try:
        _team_warnings(client)
    except BaseException:
        client.close()
        raise
    return client


def _team_warnings(client: Client) -> None:
    """`credits`' warnings when the machines of a team's Redis spend under different caps,
    and when it had forgotten this machine's spend (a Redis restarted without persistence),
    counted there again first."""
    ledger = client.ledger
    if not isinstance(ledger, TeamLedger):
        return
    # A Redis that failed, or an entry not as this version writes it.
    failures: tuple[type[BaseException], ...] = (
        ProfnetError, ValueError, KeyError, TypeError, *ledger.failures,
    )  # fmt: skip
    own = client.settings.spending_cap
    try:
        caps = ledger.caps()
        period = "day" if own is None else own.period
        forgotten = ledger.retell()  # counted again for every machine's cap
    except failures:
        return  # the run says what the Redis did when it holds its first credit
    caps[client.settings.machine] = None if own is None else str(own)
    caps = dict(sorted(caps.items()))
    if len(set(caps.values())) > 1:
        _said(_caps_differ(caps))
    if forgotten:
        _said(_forgotten(forgotten, period))


class _Seconds(click.ParamType[float]):
    """A number of seconds, 0 or more (0: look once; inf: no end), not nan."""

    name = "seconds"

    def convert(
        self, value: Any, param: click.Parameter | None, ctx: click.Context | None
    ) -> float:
        try:
            seconds = float(value)
        except (TypeError, ValueError):
            seconds = math.nan
        if not seconds >= 0:  # nan too: a deadline never met, polled without a pause
            said = f"{shown(value)} is not a number of seconds, 0 or more, such as 600"
            self.fail(said, param, ctx)
        return seconds


_SECONDS = _Seconds()


def _search_command(kind: SearchKind) -> click.Command:
    """`search leads` / `search companies`, with one option per filter of the spec."""
    from profnet_sheets.searches.places import takes_places

    endpoint = search_endpoint(kind, "create")
    options: list[click.Parameter] = []
    for param in endpoint.params:
        flag = "--" + param.name.replace("_", "-")
        if takes_places(param):
            said = f"{param.description.removesuffix(' (numeric)')}, or place names"
            help_text = f"{said} (a name is looked up once: a paid geocode lookup, then cached)"
            help_text += " (repeatable, or separated by , ; or line breaks)"
            options.append(click.Option([flag], multiple=True, help=help_text))
        elif param.type == "array":
            apart = "; or line breaks" if _free_text(param) else ", ; or line breaks"
            help_text = f"{param.description} (repeatable, or separated by {apart})"
            options.append(click.Option([flag], multiple=True, help=help_text))
        elif param.type == "object":
            options.append(click.Option([flag], help=f"{param.description}, as MIN,MAX"))
        elif param.type == "integer":
            options.append(click.Option([flag], type=int, help=param.description))
        else:
            options.append(click.Option([flag], help=param.description))
    options += [
        click.Option(
            ["--request-id"],
            help="Re-attach to a search started before: the search is not paid again; its "
            "results not read yet are, per result (said, and asked in a terminal, first).",
        ),
        click.Option(
            ["--out", "out"],
            default=None,
            callback=_not_empty,
            help="Results file: .csv, .xlsx or .parquet (not for --dry-run).",
        ),
        click.Option(
            ["--dry-run"],
            is_flag=True,
            help="Say what the search can cost and stop: nothing is sent that costs credits "
            "(exit 3: a limit refuses it).",
        ),
        click.Option(
            ["--timeout"],
            type=_SECONDS,
            default=3600.0,
            show_default=True,
            help="Seconds to wait for the search.",
        ),
        click.Option(["--refresh"], is_flag=True, help="Pay for a new search even if reusable."),
        click.Option(
            ["--budget"],
            type=click.IntRange(min=0),
            default=None,
            help="Credits this search may spend: refused before it starts when starting it and "
            "its results may cost more; a re-attached one reads results until it is reached.",
        ),
        click.Option(["--yes"], is_flag=True, help="Do not ask before spending credits."),
    ]

    def run(**values: object) -> None:
        given_out, dry_run = values.pop("out"), bool(values.pop("dry_run"))
        out = str(given_out)
        request_id = values.pop("request_id")
        timeout = float(str(values.pop("timeout")))
        refresh = bool(values.pop("refresh"))
        yes = bool(values.pop("yes"))
        budget = values.pop("budget")
        filters = {
            name: _option_value(endpoint.param(name), value)
            for name, value in values.items()
            if value not in (None, ())
        }
        if request_id and filters:
            given = ", ".join("--" + name.replace("_", "-") for name in filters)
            click.echo(
                f"Error: --request-id re-attaches to a search already started, whose filters "
                f"are set: leave out {given} (or leave out --request-id to start a new search)",
                err=True,
            )
            sys.exit(2)  # a usage error, said in one line; nothing was sent
        if dry_run:
            _dry_run_search(kind, filters, request_id, budget, refresh)
        if given_out is None:
            raise click.UsageError("Missing option '--out' (only --dry-run goes without it).")
        from profnet_sheets.batch.io import BatchInputError, check_target, write_table
        from profnet_sheets.batch.workflow import EXIT_BUDGET
        from profnet_sheets.errors import BudgetExceeded
        from profnet_sheets.searches.workflow import Search

        try:
            check_target(out)  # before a search is paid for
        except BatchInputError as error:
            raise click.ClickException(str(error)) from None
        job: SearchJob | None = None
        unkept_before = 0  # answers paid and not kept before its results were read
        own = budget if isinstance(budget, int) else None  # --budget wins over PROFNET_BUDGET
        with _paying_client(budget=own) as client:
            search = Search(client, kind, budget=own, refresh=refresh)
            ask = _may_ask(yes, client)

            said_first: list[int] = []  # the most the first quote said
            approved = [0]  # credits said yes to before places were looked up (and paid)

            def quoted(cost: SearchCost) -> None:
                spent = search.spend  # places looked up by name, before: said too
                places = f" Spent before, looking up places by name: {spent.said()}." * bool(
                    spent.spent
                )
                click.echo(f"{kind} search: {cost.describe()}{places}", err=True)
                unasked = not yes and not ask and not client.settings.uses_sandbox
                if cost.forgotten and cost.credits and said_first and unasked:  # costs more
                    click.echo(
                        f"Nothing more sent: the search reused is no longer known to the "
                        f"service, and a new one costs up to {counted(cost.credits, 'credit')}, "
                        f"more than the {said_first[0]} said first; with no terminal to ask in, "
                        "run this again with --yes to start it anew.",
                        err=True,
                    )
                    sys.exit(EXIT_DECLINED)
                if cost.doubt_said() and unasked:  # it may be paid twice: a person says so
                    click.echo(
                        "Nothing sent: the same search may have been started and charged "
                        "already (said above); with no terminal to ask in, run this again with "
                        f"--yes to start it anew (`{command('credits')}` shows what is counted "
                        "as possibly spent).",
                        err=True,
                    )
                    sys.exit(EXIT_DECLINED)
                said_first.append(cost.credits)
                refused = cost.quote is not None and not cost.quote.within  # said next: no ask
                # A yes said before places were looked up covers the search it quoted.
                asked_for = spent.spent + cost.credits
                said_yes = asked_for <= approved[0]
                if cost.credits and ask and not refused and not said_yes:
                    before = f"this search: {spent.said()}, places looked up" if spent.spent else ""
                    _ask_to_spend(cost.credits, before=before)

            pace, read_all = client.pace, True
            try:
                if ask and not request_id:
                    approved[0] = _ask_before_places(search, filters)
                try:
                    named = filters
                    filters = finishing(pace, lambda: _places_by_name(search, named))
                except Finished as stopped:  # the place under way looked up, and cached
                    with contextlib.suppress(Exception, KeyboardInterrupt):
                        stopped.result()
                    stops = _stops()
                    click.echo(
                        f"Interrupted ({stops.name}) while places were looked up, before the "
                        f"search started (this search: {search.spend.said()}; the places "
                        "found are cached: free next time).",
                        err=True,
                    )
                    sys.exit(stops.exit_code)
                if request_id:
                    job = search.attach(str(request_id))
                else:
                    job = _start_search(search, filters, quoted, pace)
                again = "" if request_id else " (re-attach with --request-id)"
                click.echo(f"{kind} search {job.request_id}{again}", err=True)
                draw, close = status_bar(kind)
                try:
                    done = search.wait(timeout=timeout, on_status=draw)
                finally:
                    close()
                if request_id:  # its results not read yet are paid: said, and asked, first
                    unread = search.unread_cost(done)
                    click.echo(f"{kind} search: {unread.describe()}", err=True)
                    _refuse_unread_beyond_limits(unread)
                    if ask and unread.total_results is None:
                        _ask_to_spend(None, "Pay for its results not read yet?")
                    elif unread.credits and ask:
                        _ask_to_spend(unread.credits)
                unkept_before = search.run.unkept
                try:
                    frame = finishing(pace, lambda: search.read(until_budget=True))
                except Finished as stopped:  # the page under way read and kept; no more
                    frame = stopped.result()
                read_all = not search.stopped_reading
            except ProfnetError as error:
                so_far = search.spend.said()
                kept = f"this search: {so_far}" + (
                    ""
                    if job is None
                    else f"; re-attach with --request-id {job.request_id} (the search is free)"
                )
                _end_if_stopped(search.run, "1 search", kept)
                said = _as_options(str(error), endpoint)
                if request_id and isinstance(error, NotFound):  # another kind's, perhaps
                    other = "companies" if kind == "leads" else "leads"
                    again = command(f"search {other} --request-id {request_id} --out ...")
                    said += f" If it is a {other} search's id: `{again}`."
                if isinstance(error, SearchTimedOut) and job is not None:
                    again = command(f"search {kind} --request-id {job.request_id}")
                    said += (
                        f" Read its results once it is done with `{again} --out {out}` (the "
                        f"search is not paid again).{_room_kept(job)}"
                    )
                click.echo(f"Error: {said} (this search: {so_far})", err=True)
                sys.exit(EXIT_BUDGET if isinstance(error, BudgetExceeded) else 1)
            except KeyboardInterrupt as stopped:
                stops = _stops()
                if isinstance(stopped, Finished) and job is None:  # as the search started
                    with contextlib.suppress(Exception, KeyboardInterrupt):
                        job = stopped.result()
                if job is None:  # it was not started (nor paid, but maybe a lost creation)
                    click.echo(
                        f"Interrupted ({stops.name}) before the search started (this search: "
                        f"{search.spend.said()}).",
                        err=True,
                    )
                    sys.exit(stops.exit_code)
                click.echo(
                    f"Interrupted ({stops.name}): the search {job.request_id} goes on at the "
                    f"service (this search: {search.spend.said()}); get its "
                    f"results with `{command(f'search {kind} --request-id {job.request_id}')} "
                    f"--out {out}` once it is done (the search is not paid again; its "
                    f"results are, per result, as a new search's).{_room_kept(job)}",
                    err=True,
                )
                sys.exit(stops.exit_code)
            spend = search.spend
            free = endpoint.name in client.profile.free_on_plan
        try:
            path = write_table(frame, out)
        except (BatchInputError, OSError) as error:  # OSError: a disk full, a folder gone
            if isinstance(error, BatchInputError):
                failed = str(error)
            else:
                failed = f"{out}: {error.strerror or error}"
            unkept = search.run.unkept - unkept_before
            again = f"run again with --request-id {job.request_id} and another --out"
            if unkept:
                kept = (
                    f"{counted(unkept, 'paid page')} of its results could not be kept in the "
                    f"cache either, so reading them again pays them again: {again}"
                )
            elif search.run.cache_failed:
                kept = f"the cache failed too: {again}, free only if it comes back with its data"
            else:
                kept = f"the search's results are cached: {again}, free"
            raise click.ClickException(
                f"{failed} ({frame.height} {kind} read, not written; this search: "
                f"{spend.said()}; {kept})"
            ) from None
        nothing = "0 credits: re-attached" if request_id else "0 credits: reused"
        paid = f"this search: {spend.said()}" if spend.spent else nothing
        if free and not spend.spent:
            paid = f"0 credits: {endpoint.name} is free on your plan"
        click.echo(f"{frame.height} {kind} written to {path}; {paid}.", err=True)
        rest = (
            f"read the rest with `{command(f'search {kind} --request-id {job.request_id}')} "
            f"--out {out}` (the search and the results read are not paid again)"
        )
        if search.cut_by_credits is not None or search.cut_by_stop is not None:
            again = f"`{command(f'search {kind} --request-id {job.request_id}')} --out {out}`"
            unkept = search.run.unkept - unkept_before
            if unkept:  # paid, and not kept: a full disk, a Redis gone
                kept = (
                    f"those read are in {path}, but {counted(unkept, 'paid page')} of them could "
                    f"not be kept in the cache, so reading them again pays "
                    f"{'it' if unkept == 1 else 'them'} again; read the rest with {again} (the "
                    "search is not paid again)"
                )
            elif search.run.cache_failed:  # kept, in a cache that failed since
                kept = (
                    f"those read are in {path}; the cache failed, so reading them again is "
                    f"free only if it comes back with its data; read the rest with {again} "
                    "(the search is not paid again)"
                )
            else:
                kept = f"those read are in {path} and cached; {rest}"
            _end_if_stopped(search.run, "1 search", kept)
            fault = search.cut_by_stop  # a page the service failed, no stop of the run
            click.echo(
                f"Error: {_as_options(str(fault), endpoint)} The {frame.height} read are in "
                f"{path} (this search: {spend.said()}).",
                err=True,
            )
            sys.exit(1)
        if not read_all:
            stops = _stops()
            click.echo(
                f"Interrupted ({stops.name}) while its results were read: those read are in "
                f"{path} and cached; {rest}.{_room_kept(job)}",
                err=True,
            )
            sys.exit(stops.exit_code)
        if (cut := search.cut_by_budget) is not None:
            limit, raise_it = _cut_search_said(cut)
            click.echo(
                f"{limit} ({_as_typed(str(cut))}): the "
                f"results read are kept and cached, and the search is not paid again; "
                f"{raise_it}, then run again with --request-id {job.request_id} to read the "
                "rest (those read are free).",
                err=True,
            )
            sys.exit(EXIT_BUDGET)

    return click.Command(
        kind,
        params=options,
        callback=_stoppable(run),
        help=f"{_as_options(endpoint.summary, endpoint)} Writes every result to --out.",
    )


def _cut_search_said(cut: Exception) -> tuple[str, str]:
    """What cut a search's reading short (the budget, the machine's or the team's cap, a cap
    that cannot be kept) and what to do before reading the rest."""
    cap = cut if isinstance(cut, BudgetExceeded) and cut.limit == CAP_SETTING else None
    if cap is None:
        return "Budget reached", "raise --budget"
    if cap.unknown:
        return "Spending cap cannot be kept", (
            f"check the spend with the service, then delete {cap.unknown} (or remove the cap, "
            f"{CAP_SETTING})"
        )
    wait = " or wait for its next period" if cap.renews else ""
    if cap.team:
        return "Team spending cap reached", f"raise it on every machine ({CAP_SETTING}){wait}"
    return "Spending cap reached", f"raise the spending cap ({CAP_SETTING}){wait}"


def _refuse_unread_beyond_limits(unread: SearchCost) -> None:
    """End a re-attach, nothing sent, when no page of its results is read yet and a limit
    leaves less than them all: its first page may hold them all (a page's size is known once
    one is read), so that nothing could be read within the limit."""
    from profnet_sheets.batch.workflow import EXIT_BUDGET

    quote = unread.quote
    short = None if quote is None else quote.short
    if short is None or unread.results_read:
        return
    need = counted(unread.credits, "credit")
    if short.unknown:
        click.echo(_as_typed(f"Not read: {short.over_said()}; nothing was sent."), err=True)
        sys.exit(EXIT_BUDGET)
    click.echo(
        _as_typed(
            f"Not read: {short.name} ({short.setting}) leaves {short.left}{short.aside_said()}, "
            f"and its first page may cost up to {need} (a page's size is known once one is "
            f"read); nothing was sent. Raise it by {unread.credits - (short.left or 0)} or more "
            f"(so that it leaves {unread.credits}), then run this again."
        ),
        err=True,
    )
    sys.exit(EXIT_BUDGET)


def _room_kept(job: SearchJob) -> str:
    """What a search left to run says of its results' room under the spending cap."""
    if job.aside is None or job.client.settings.spending_cap is None:  # a budget's: this run's
        return ""
    minutes = round(ASIDE_LEASE / 60)
    return (
        f" Its results' room under the spending cap stays set aside for {minutes} minutes: "
        "read them by then and no other run takes it."
    )


class _Forgotten(Exception):  # noqa: N818 - a fact told back to the command, not a failure
    """The search to be reused is no longer known to the service: `cost`, a new one's."""

    def __init__(self, cost: SearchCost) -> None:
        super().__init__("the search reused is no longer known to the service")
        self.cost = cost


def _dry_run_search(
    kind: SearchKind, filters: dict[str, Any], request_id: object, budget: object, refresh: bool
) -> NoReturn:
    """`search ... --dry-run`: what the search can cost, said, and the exit code (3: a limit
    refuses it); nothing that costs credits is sent (a re-attached search's status is free)."""
    from profnet_sheets.batch.workflow import EXIT_BUDGET
    from profnet_sheets.searches.places import PlaceNotFoundError
    from profnet_sheets.searches.workflow import Search

    own = budget if isinstance(budget, int) else None
    with _paying_client(budget=own) as client:
        search = Search(client, kind, budget=own, refresh=refresh)
        try:
            if request_id:
                search.attach(str(request_id))
                status = search.wait(timeout=0.0)
                cost = search.unread_cost(status)
                said, quote = cost.describe(), cost.quote
            else:
                dry = search.dry_run(filters)
                said, quote = dry.describe(), dry.total
        except SearchTimedOut:
            click.echo(
                f"{kind} search {request_id}: not done yet; its results not read yet will "
                "be paid per result once it is (the search is not paid again).",
                err=True,
            )
            sys.exit(0)
        except ProfnetError as error:
            click.echo(f"Error: {_as_options(str(error), search.endpoint)}", err=True)
            sys.exit(1)
        except PlaceNotFoundError as error:  # known from an earlier lookup: no search starts
            option = f"--{error.param.replace('_', '-')}"
            click.echo(f"Error: {option}: {error} The search would not start.", err=True)
            sys.exit(1)
    click.echo(f"{kind} search: {said}", err=True)
    refused = None if quote is None else quote.refusal("This search")
    if refused is not None:
        click.echo(_as_typed(str(refused)), err=True)
        sys.exit(EXIT_BUDGET)
    sys.exit(0)


def _start_search(
    search: Search, filters: dict[str, Any], quoted: Callable[[SearchCost], None], pace: Pace
) -> SearchJob:
    """Its cost said (and asked, in a terminal) here, then the search started on a thread
    of its own (Ctrl-C lets its creation finish: its request id is then said); a reused one
    the service forgot is quoted and asked again here before a new one is paid."""

    def unless_forgotten(cost: SearchCost) -> None:
        if cost.forgotten:
            raise _Forgotten(cost)  # asked on this command's own thread, not the worker's

    quoted(search.quote(filters))
    try:
        return finishing(pace, lambda: search.start(filters, unless_forgotten))
    except _Forgotten as gone:
        quoted(gone.cost)
        return finishing(pace, lambda: search.start(filters, unless_forgotten))


def _as_options(text: str, endpoint: Endpoint) -> str:
    """`text` with the endpoint's parameter names as the options a user types:
    `sales_nav_url` -> `--sales-nav-url` (and the budget's: `--budget`)."""
    names = "|".join(sorted((re.escape(param.name) for param in endpoint.params), key=len)[::-1])
    pattern = re.compile(rf"(?<![\w-])({names})(?![\w-])")

    def renamed(words: str) -> str:
        return pattern.sub(lambda found: "--" + found.group(1).replace("_", "-"), words)

    typed, pieces, start = _as_typed(text), [], 0
    for quoted in _QUOTED.finditer(typed):  # a value quoted as given stays as it was given
        pieces += [renamed(typed[start : quoted.start()]), quoted.group()]
        start = quoted.end()
    return "".join([*pieces, renamed(typed[start:])])


# A value a message quotes (its repr): in single or double quotes, not an apostrophe.
_QUOTED = re.compile(r"(?<!\w)(?:'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\")(?!\w)")


def _ask_before_places(search: Search, filters: dict[str, Any]) -> int:
    """A search whose places are looked up by name first (paid) said and asked in a
    terminal before any is, places included; the credits said yes to (0: nothing asked)."""
    from profnet_sheets.searches.places import PlaceNotFoundError

    try:
        dry = search.dry_run(filters)
    except PlaceNotFoundError:
        return 0  # said by the lookup, which sends nothing for a place known not found
    if not dry.places_credits or not dry.total.within:
        return 0  # nothing paid before the search's own quote, or refused with nothing sent
    click.echo(f"{search.kind} search: {dry.describe()}", err=True)
    _ask_to_spend(dry.total.credits)
    return dry.total.credits


def _places_by_name(search: Search, filters: dict[str, Any]) -> dict[str, Any]:
    """Location filters given as place names (`--geo-codes Berlin`) as the geo ids the
    service takes (each name looked up once: 1 credit, cached), and the choice said."""
    from profnet_sheets.searches.places import PlaceNotFoundError

    def chosen(name: str, picked: list[tuple[str, str]]) -> None:
        shown = ", ".join(f"{label} = {geo_id}" for label, geo_id in picked)
        click.echo(f"{name}: {shown}", err=True)

    try:
        return search.places(filters, chosen)
    except PlaceNotFoundError as error:
        option = f"--{error.param.replace('_', '-')}"
        spent = f" (this search: {search.spend.said()}, places looked up; nothing started)"
        raise click.ClickException(f"{option}: {str(error).rstrip('.')}{spent}.") from None


_LIST_SEPARATORS = re.compile(r"[,;\r\n]")  # between the items of a list option
_TEXT_SEPARATORS = re.compile(r"[;\r\n]")  # between texts: a comma is theirs (`Acme, Inc.`)
_GEO_ID_SEPARATORS = re.compile(r"[,\s]+")  # between geo ids only: a place's name keeps its own


def _free_text(param: Param) -> bool:
    """A list option whose items are free text (names, keywords), as the library reads them."""
    return param.items == "string" and not param.enum


def _option_value(param: Param, value: object) -> object:
    """A command-line value as the client takes it (it normalises and checks the rest): a
    list option's items split as the library splits them, on semicolons and line breaks,
    and on commas unless they are free text (`Acme, Inc.` is one name); a place's on commas
    and blanks between geo ids (`605862502, 429572983`), never inside a name (`New York`,
    `Berlin, Berlin, Germany`: the service's own names hold commas)."""
    if isinstance(value, tuple):
        from profnet_sheets.searches.places import as_geo_id, takes_places

        places = takes_places(param)
        separators = _TEXT_SEPARATORS if _free_text(param) or places else _LIST_SEPARATORS
        items: list[str] = []
        for piece in (item for part in value for item in separators.split(str(part))):
            ids = [as_geo_id(it) for it in _GEO_ID_SEPARATORS.split(piece.strip())]
            if places and all(ids):
                items.extend(filter(None, ids))
            elif places and any(len(as_geo_id(it) or "") >= 7 for it in piece.split(",")):
                raise click.ClickException(  # `605862502, Berlin` (a postal code is shorter)
                    f"--{param.name.replace('_', '-')}: {shown(piece.strip())} holds geo ids "
                    "and a name: separate places with semicolons (605862502; Berlin); a "
                    "comma is part of a place's name (Berlin, Germany). Nothing was sent."
                )
            elif piece.strip():
                items.append(piece.strip())
        return items
    if param.type == "object":
        low, comma, high = str(value).partition(",")
        if not comma:
            raise click.ClickException(
                f"--{param.name.replace('_', '-')} takes a range as MIN,MAX (percent), such as "
                f"10,50; got {shown(value)}"
            )
        return (low.strip(), high.strip())
    return value


@main.group()
def search() -> None:
    """Run a lead or company search (asynchronous at the service) and save its results."""


search.add_command(_search_command("leads"))
search.add_command(_search_command("companies"))


@main.group()
def calc() -> None:
    """The PROFNET_* formulas in LibreOffice Calc: an add-in that runs this environment."""


_PROFILE = click.option(
    "--profile",
    type=click.Path(file_okay=False),
    default=None,
    help="The LibreOffice user profile folder to use (soffice -env:UserInstallation=file:///"
    "FOLDER), instead of yours.",
)
_SHARED = click.option("--shared", is_flag=True, help="For every user of this computer.")
_UNOPKG = click.option("--unopkg", default=None, help="LibreOffice's unopkg (default: found).")


@calc.command("build")
@click.option("--out", default="profnet-sheets.oxt", show_default=True, help="The .oxt to write.")
def calc_build(out: str) -> None:
    """Build the add-in (.oxt) for this Python environment, without installing it."""
    from profnet_sheets.calc.build import build

    try:
        written = build(Path(out))
    except ProfnetError as error:
        raise click.ClickException(str(error)) from None
    click.echo(f"Written to {written}.", err=True)


@calc.command("install")
@_PROFILE
@_SHARED
@_UNOPKG
def calc_install(profile: str | None, shared: bool, unopkg: str | None) -> None:
    """Build the add-in for this Python environment and install it with unopkg (close
    LibreOffice first). Run it again after moving or rebuilding the environment."""
    import tempfile

    from profnet_sheets.calc import install
    from profnet_sheets.calc.build import build

    with tempfile.TemporaryDirectory() as folder:
        try:
            tool = install.find_unopkg(unopkg)
            oxt = build(Path(folder) / "profnet-sheets.oxt")
            command = install.add_command(tool, oxt, Path(profile) if profile else None, shared)
            install.run(command, shared)
        except ProfnetError as error:
            raise click.ClickException(str(error)) from None
    click.echo(
        f"Installed for LibreOffice ({'every user' if shared else 'this user'}), running "
        f'{sys.executable}. Start Calc and type =PROFNET_COMPANY("stripe.com"; "industry").',
        err=True,
    )


@calc.command("remove")
@_PROFILE
@_SHARED
@_UNOPKG
def calc_remove(profile: str | None, shared: bool, unopkg: str | None) -> None:
    """Remove the add-in from LibreOffice (close LibreOffice first)."""
    from profnet_sheets.calc import install

    try:
        tool = install.find_unopkg(unopkg)
        command = install.remove_command(tool, Path(profile) if profile else None, shared)
        install.run(command, shared)
    except install.CalcNotInstalledError:
        where = "in that profile" if profile else "for every user" if shared else "for this user"
        click.echo(f"The PROFNET add-in is not installed {where}: nothing to remove.", err=True)
        return
    except install.CalcInstallError as error:
        raise click.ClickException(str(error)) from None
    click.echo("Removed from LibreOffice.", err=True)
