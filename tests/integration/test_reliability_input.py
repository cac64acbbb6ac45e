"""Bad input (issue 7) through the command line, in process (click's CliRunner) against a sandbox.

- Generated option values for `enrich`, `lookup`, `search leads|companies` and `config` end in
  exit code 0 or one clear `Error:` line: never a traceback, and a failed command was charged
  nothing and left the config file as it was.
- Messy CSV files through `enrich` to CSV, XLSX and Parquet (odd encodings, byte-order marks, an
  empty file, a header only, 1 MB cells, formulas, NUL bytes, mixed line ends): every input row
  is kept exactly (strings escaped for spreadsheets, as decisions #48 says), bad keys are marked
  in `company_error`, or the command fails naming the file and what to do, having paid nothing.

The normalisers and formulas are fuzzed by tests/unit (see test_reliability_normalizers.py);
schemathesis keeps fuzzing the sandbox in tests/integration/test_schemathesis.py.
"""

from __future__ import annotations

import codecs
import csv
import traceback
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import openpyxl
import polars as pl
import pytest
from click.testing import CliRunner, Result
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from profnet_sheets.batch.kinds import KINDS
from profnet_sheets.cli import main
from profnet_sheets.sandbox import RunningSandbox, start_sandbox
from tests.integration.conftest import cli_env
from tests.unit.test_batch_io import ooxml_unescape

pytestmark = pytest.mark.integration
KEY = "reliability-input-key"
FUZZ = settings(
    max_examples=75,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


@pytest.fixture(scope="module")
def sandbox() -> Iterator[RunningSandbox]:
    with start_sandbox(api_keys=(KEY,), credits=10**9, job_seconds=0.0, seed=3) as running:
        yield running


@dataclass
class Cli:
    """`profnet-sheets` run in this process, against the sandbox, from a folder of its own."""

    sandbox: RunningSandbox
    home: Path
    key: str = KEY

    def __call__(self, *args: str) -> Result:
        env = cli_env(self.sandbox.base_url, self.key, self.home)
        return CliRunner().invoke(main, list(args), env=env, catch_exceptions=True)

    def charged(self) -> int:
        return self.sandbox.charged(self.key)

    def charged_but_places(self) -> int:
        """What was charged for anything but place names looked up (a search takes them by
        name: each is a paid lookup the user asked for, kept for 90 days)."""
        places = self.sandbox.charged(self.key, "find-geocode-by-location")
        return self.charged() - places


@pytest.fixture
def cli(sandbox: RunningSandbox, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Cli:
    monkeypatch.chdir(tmp_path)  # relative paths the fuzz makes up land here
    return Cli(sandbox, tmp_path)


def assert_clean(result: Result, *, fuzzed: bool = True) -> None:
    """Exit 0, or a usage error / one `Error:` line as the last thing said: no traceback."""
    if fuzzed:
        event(f"exit code {result.exit_code}")
    if result.exit_code == 0:
        return
    if not isinstance(result.exception, SystemExit):
        assert result.exc_info is not None
        shown = "".join(traceback.format_exception(*result.exc_info))
        raise AssertionError(f"a traceback instead of a message:\n{shown}")
    assert result.exit_code in (1, 2), result.output
    assert "Traceback" not in result.output
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    errors = [line for line in lines if line.startswith("Error:")]
    assert len(errors) == 1, result.stderr
    assert lines[-1] == errors[0], f"the error is the last word: {result.stderr!r}"
    assert len(errors[0]) > len("Error: ") + 10, "it says something"


# -- generated arguments --------------------------------------------------------------------

# File names as people type them: no folders, no home (~), no control characters (a name with
# a line break in it would be echoed over two lines).
NAME = st.text(
    alphabet=st.characters(blacklist_characters="/\\~", blacklist_categories=["Cs", "Cc"]),
    min_size=1,
    max_size=12,
)
ANY_TEXT = st.one_of(st.text(max_size=30), st.sampled_from(["", " ", "-1", "0", "=1+1", "\n"]))


def mostly(good: list[str], other: st.SearchStrategy[str] = ANY_TEXT) -> st.SearchStrategy[str]:
    """One of `good` three times in four, else `other`: enough valid runs to reach the logic
    behind the options (and the money), enough nonsense to try every refusal."""
    return st.one_of(*[st.sampled_from(good)] * 3, other)


GOOD_OUT = st.builds(
    lambda name, suffix: name + suffix, NAME, st.sampled_from([".csv", ".xlsx", ".parquet", ".tsv"])
)
BAD_OUT = st.one_of(
    st.builds(lambda name, suffix: name + suffix, NAME, st.sampled_from([".xlsm", ".doc", ""])),
    st.sampled_from(["missing/out.csv", "folder", "folder.csv"]),
)
NUMBER = mostly(
    [str(number) for number in (-5, -1, 0, 1, 2, 3, 8, 100, 2500, 3000, 10**12)],
    st.one_of(ANY_TEXT, st.sampled_from(["1e3", "2.5", "nan", "inf", "-inf"])),
)
Strategy = st.SearchStrategy[Any]


def one_broken(
    data: st.DataObject, choices: dict[str, tuple[Strategy, Strategy]]
) -> dict[str, Any]:
    """Arguments drawn from their (good, bad) strategies: good everywhere but at most one place,
    chosen at random. Each refusal is met on its own, and one run in len(choices) + 1 is valid
    throughout and reaches the work (and the money) behind the options."""
    broken = data.draw(st.sampled_from([None, *choices]), label="broken")
    event(f"broken: {broken}")
    return {
        name: data.draw(bad if name == broken else good, label=name)
        for name, (good, bad) in choices.items()
    }


def accounts(folder: Path) -> None:
    """The files the fuzz picks its input from."""
    (folder / "folder").mkdir(exist_ok=True)
    (folder / "folder.csv").mkdir(exist_ok=True)
    (folder / "accounts.csv").write_text("Name,Site\nStripe,stripe.com\nBad,not a domain\nB,\n")
    (folder / "empty.csv").write_bytes(b"")
    pl.DataFrame({"Site": ["acme.io", None]}).write_excel(folder / "book.xlsx")


def flat(options: list[tuple[str, ...]]) -> list[str]:
    return [part for option in options for part in option]


ENRICH: dict[str, tuple[Strategy, Strategy]] = {
    "source": (
        st.sampled_from(["accounts.csv", "book.xlsx"]),
        st.sampled_from(["empty.csv", "missing.csv", "folder"]),
    ),
    "column": (st.just("Site"), st.one_of(st.sampled_from(["Name", "site"]), ANY_TEXT)),
    "kind": (st.sampled_from(sorted(KINDS)), ANY_TEXT),
    "out": (GOOD_OUT, BAD_OUT),
    "options": (
        st.lists(
            st.one_of(
                st.tuples(st.just("--budget"), st.integers(0, 100).map(str)),
                st.tuples(st.just("--concurrency"), st.integers(1, 16).map(str)),
                st.tuples(st.just("--sheet"), st.sampled_from(["0", "Sheet1"])),
                st.tuples(st.just("--dry-run")),
            ),
            max_size=3,
        ),
        st.lists(
            st.one_of(
                st.tuples(st.just("--fields"), mostly(["company_name,industry", "founded"])),
                st.tuples(st.just("--budget"), NUMBER),
                st.tuples(st.just("--concurrency"), NUMBER),
                st.tuples(st.just("--sheet"), mostly(["1", "-1", "Sheet9"], NAME)),
            ),
            min_size=1,
            max_size=3,
        ),
    ),
}


@FUZZ
@given(data=st.data())
def test_enrich_options_give_an_answer_or_one_clear_error(cli: Cli, data: st.DataObject) -> None:
    accounts(cli.home)
    arguments = one_broken(data, ENRICH)
    before = cli.charged()
    result = cli(
        "enrich",
        arguments["source"],
        *("--column", arguments["column"], "--kind", arguments["kind"]),
        *("--out", arguments["out"], "--yes", *flat(arguments["options"])),
    )
    assert_clean(result)
    if result.exit_code != 0:
        assert cli.charged() == before, "a refused command pays nothing"


VALUES = ["stripe.com", "Berlin", "https://www.profnet.com/in/anna-b/", "7123456789"]
LOOKUP: dict[str, tuple[Strategy, Strategy]] = {
    "kind": (st.sampled_from(sorted(KINDS)), ANY_TEXT),
    "values": (
        st.lists(st.sampled_from(VALUES), min_size=1, max_size=3),
        st.lists(mostly(VALUES), min_size=1, max_size=3).filter(lambda got: set(got) - set(VALUES)),
    ),
    "flags": (st.lists(st.sampled_from(["--skills", "--certifications"]), max_size=2),) * 2,
}


@FUZZ
@given(data=st.data())
def test_lookup_arguments_give_an_answer_or_one_clear_error(cli: Cli, data: st.DataObject) -> None:
    arguments = one_broken(data, LOOKUP)
    before = cli.charged()
    # values may start with "-": they come after "--"
    result = cli("lookup", *arguments["flags"], "--", arguments["kind"], *arguments["values"])
    assert_clean(result)
    # A value the service answered "not found" for was sent, and may be charged (a geocode
    # that finds no place is: the spec prices the call): not a refusal.
    if result.exit_code != 0 and ": not found" not in result.stderr:
        assert cli.charged() == before, "nothing is paid when any value is refused"


SEARCH_OPTIONS: dict[str, dict[str, list[str]]] = {
    "leads": {
        "--title-keywords": ["CTO", "Head of Data"],
        "--geo-codes": ["103644278", "90009706,103644278"],
        "--keywords": ["data", "sandbox-fail", "sandbox-empty"],
        "--limit": ["5", "30"],
        "--school-ids": ["stanford-university", "1792"],
    },
    "companies": {
        "--company-headcounts": ["B,C", "B-D", "51-200"],
        "--company-headcount-growth": ["0,50", "-10, 20"],
        "--keywords": ["data"],
        "--limit": ["5", "30"],
        "--hiring-on-profnet": ["true", "yes"],
    },
}


def filters(kind: str, *, good: bool) -> Strategy:
    """Filter options of a search: values that work, or anything."""
    names = st.sampled_from(sorted(SEARCH_OPTIONS[kind]))
    value = (
        (lambda name: st.sampled_from(SEARCH_OPTIONS[kind][name]))
        if good
        else (lambda name: st.one_of(NUMBER, ANY_TEXT))
    )
    pairs = names.flatmap(lambda name: st.tuples(st.just(name), value(name)))
    return st.lists(pairs, min_size=1 if good else 0, max_size=3)


@FUZZ
@given(kind=st.sampled_from(sorted(SEARCH_OPTIONS)), data=st.data())
def test_search_options_give_results_or_one_clear_error(
    cli: Cli, kind: str, data: st.DataObject
) -> None:
    accounts(cli.home)
    arguments = one_broken(
        data,
        {
            "filters": (filters(kind, good=True), filters(kind, good=False)),
            "out": (GOOD_OUT, BAD_OUT),
            "timeout": (
                st.sampled_from(["30", "600"]),
                st.one_of(st.sampled_from(["0", "-1", "nan", "inf"]), ANY_TEXT),
            ),
        },
    )
    before = cli.charged_but_places()
    options = [*flat(arguments["filters"]), "--out", arguments["out"]]
    result = cli("search", kind, *options, "--timeout", arguments["timeout"])
    assert_clean(result)
    if result.exit_code != 0 and f"{kind} search " not in result.stderr:
        assert cli.charged_but_places() == before, "refused before a search started"


@FUZZ
@given(
    options=st.lists(
        st.tuples(
            st.sampled_from(["--api-key", "--base-url", "--cache", "--budget"]),
            mostly(["https://api.example.com", "memory", "7", "k-123", "redis://:pw@h:6379/0"]),
        ),
        max_size=3,
    )
)
def test_config_values_are_saved_or_refused_leaving_the_file_as_it_was(
    cli: Cli, options: list[tuple[str, str]]
) -> None:
    config = cli.home / "config.toml"
    before = config.read_bytes() if config.exists() else None
    result = cli("config", *flat(options))
    assert_clean(result)
    if result.exit_code != 0:
        assert (config.read_bytes() if config.exists() else None) == before
    if config.exists():
        assert config.stat().st_mode & 0o777 == 0o600
        again = cli("config")
        assert again.exit_code == 0, f"what was saved can be read back: {again.stderr}"


# -- messy CSV files through enrich ---------------------------------------------------------

ROWS: list[tuple[str, str | None]] = [
    ("Müller GmbH", "stripe.com"),
    ("Café €", "https://www.acme.io/about"),
    ("Blank", None),
    ("Bad", "not a domain"),
]


def lines(rows: list[tuple[str, str | None]]) -> list[str]:
    """CSV lines of a header and `rows` (quoted when needed)."""
    out: list[str] = []
    for row in [("Name", "Site"), *rows]:
        out.append(",".join(_quoted(value or "") for value in row))
    return out


def _quoted(value: str) -> str:
    if any(ch in value for ch in ',"\r\n'):
        return '"' + value.replace('"', '""') + '"'
    return value


def text(rows: list[tuple[str, str | None]], end: str = "\n") -> str:
    return end.join(lines(rows)) + end


@dataclass(frozen=True)
class Messy:
    """A CSV file as users have them, and the rows it holds (None: the command must refuse it,
    with these words)."""

    data: bytes
    rows: list[tuple[str, str | None]] | None
    refusal: str = ""


HUGE = "x" * 1_000_000
FORMULAS = [
    ('=HYPERLINK("http://evil","x")', "stripe.com"),
    ("+1+1", "=1+1"),
    ("-2+3", "@SUM(A1)"),
    ("@SUM(A1)", "acme.io"),
    ("\t=1", "\r=1"),
]
MIXED = [("A", "stripe.com"), ("B", "acme.io"), ("C", "x.io"), ("D", "y.io")]
LATE = [(f"n{i}", f"firm{i % 7}.io") for i in range(5_000)] + [("Café", "cafe.io")]


def same(rows: list[tuple[str, str | None]], end: str = "\n") -> Messy:
    """A UTF-8 file of `rows` that must come back as they are."""
    return Messy(text(rows, end).encode(), rows)


HUGE_ROWS = [(HUGE, "stripe.com"), ("b", "acme.io")]
NUL_ROWS = [("A\0B", "stripe.com"), ("C", "acme\0.io")]
CONTROL = [("Ctrl\x81", "stripe.com")]  # a byte cp1252 leaves undefined: latin-1
MIXED_ENDS = ("\r\n".join(lines(MIXED)[:2]) + "\r" + "\n".join(lines(MIXED)[2:]) + "\r\n").encode()

MESSY: dict[str, Messy] = {
    "cp1252": Messy(text(ROWS, "\r\n").encode("cp1252"), ROWS),
    "cp1252-semicolons": Messy(text(ROWS).replace(",", ";").encode("cp1252"), ROWS),
    "latin-1": Messy(text(CONTROL).encode("latin-1"), CONTROL),
    "utf-16-le-bom": Messy(codecs.BOM_UTF16_LE + text(ROWS).encode("utf-16-le"), ROWS),
    "utf-16-be-bom": Messy(codecs.BOM_UTF16_BE + text(ROWS).encode("utf-16-be"), ROWS),
    "utf-8-bom": Messy(codecs.BOM_UTF8 + text(ROWS).encode(), ROWS),
    "empty": Messy(b"", None, "the file is empty"),
    "header-only": Messy(b"Name,Site\r\n", []),
    "huge-cell": same(HUGE_ROWS),
    "huge-key": same([("a", HUGE + ".com")]),
    "formulas": same(FORMULAS),
    "nul-bytes": same(NUL_ROWS),
    "mixed-newlines": Messy(MIXED_ENDS, MIXED),
    "cp1252-past-64k": Messy(text(LATE).encode("cp1252"), LATE),
    "no-such-column": Messy(b"Name,Website\nA,a.io\n", None, "no column 'Site'"),
}


def read_back(path: Path) -> list[list[Any]]:
    """The written table as rows of cells, the header first, as a spreadsheet would see it."""
    if path.suffix == ".csv":
        csv.field_size_limit(16 * len(HUGE))  # a 1 MB cell is beyond the default 128 kB
        with path.open(encoding="utf-8-sig", newline="") as handle:
            header = handle.readline()
            handle.seek(0)
            delimiter = ";" if header.count(";") > header.count(",") else ","  # the input's
            return [list(row) for row in csv.reader(handle, delimiter=delimiter)]
    if path.suffix == ".xlsx":
        sheet = openpyxl.load_workbook(path).active
        assert sheet is not None
        return [
            [ooxml_unescape(v) if isinstance(v, str) else v for v in row]
            for row in sheet.iter_rows(values_only=True)
        ]
    frame = pl.read_parquet(path)
    return [frame.columns, *[list(row) for row in frame.iter_rows()]]


def kept(value: str | None, suffix: str) -> str | None:
    """How an input cell must come back: as it was (issue 22: the user's own cells are never
    escaped, in CSV neither; XLSX writes text as text, with Excel's invisible quote prefix)."""
    if suffix != ".csv":
        return value
    return "" if value is None else value


@pytest.mark.parametrize("suffix", [".csv", ".xlsx", ".parquet"])
@pytest.mark.parametrize("case", sorted(MESSY))
def test_a_messy_csv_is_enriched_row_for_row_or_refused_naming_it(
    cli: Cli, case: str, suffix: str
) -> None:
    messy = MESSY[case]
    source = cli.home / f"{case}.csv"
    source.write_bytes(messy.data)
    out = cli.home / f"out{suffix}"
    before = cli.charged()
    result = cli("enrich", str(source), "--column", "Site", "--kind", "company", "--out", str(out))
    assert_clean(result, fuzzed=False)
    too_big = suffix == ".xlsx" and case in ("huge-cell", "huge-key")  # Excel: 32,767 a cell
    if messy.rows is None or too_big:
        assert result.exit_code == 1
        named, says = (out.name, "write CSV or Parquet") if too_big else (case, messy.refusal)
        assert named in result.stderr, "the file at fault is named"
        assert says in result.stderr, "and what to do"
        assert not out.exists(), "nothing half written"
        assert cli.charged() == before, "refused before anything was paid"
        return
    assert result.exit_code == 0, result.stderr
    header, *rows = read_back(out)
    assert header[:2] == ["Name", "Site"]
    assert header[-1] == "company_error"
    assert len(rows) == len(messy.rows), "every row, none merged, none lost"
    for row, (name, site) in zip(rows, messy.rows, strict=True):
        assert row[:2] == [kept(name, suffix), kept(site, suffix)], "kept exactly"
        named, error = row[2], row[-1]
        if site is None:
            assert not named, "a blank key: no lookup"
            assert not error, "a blank key: no error"
        elif error:
            assert str(error).startswith("invalid input"), error
        else:
            assert named, "a good key has its company"


def test_a_paid_enrichment_is_never_lost_to_its_output(cli: Cli) -> None:
    """An output that cannot be written is known before the lookups are paid."""
    source = cli.home / "a.csv"
    source.write_text(text(ROWS))
    before = cli.charged()
    for out, says in (
        ("nowhere/out.csv", "does not exist"),
        ("out.numbers", "unsupported file kind"),
        ("out.xlsm", "cannot write .xlsm"),
    ):
        result = cli("enrich", str(source), "--column", "Site", "--kind", "company", "--out", out)
        assert_clean(result, fuzzed=False)
        assert result.exit_code == 1
        assert says in result.stderr
    for kind in ("leads", "companies"):
        result = cli("search", kind, "--keywords", "data", "--out", "x.doc")
        assert_clean(result, fuzzed=False)
        assert "unsupported file kind" in result.stderr
    assert cli.charged() == before
