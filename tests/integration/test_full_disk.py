"""A cache on a disk that fills up mid-run: the paid answers reach the output, the buying
stops, and what a re-run pays is said as it is (a real full file system: a small tmpfs)."""

from __future__ import annotations

import contextlib
import re
import sqlite3
import subprocess
from collections.abc import Iterator
from pathlib import Path

import polars as pl
import pytest

from profnet_sheets import Client, StoppedBuying
from profnet_sheets.batch.workflow import EXIT_STOPPED, Enrichment
from profnet_sheets.sandbox import start_sandbox
from tests.integration.conftest import cli_env, run_cli
from tests.tools import missing_tool

pytestmark = pytest.mark.integration
KEY = "full-disk-key"
ROWS = 60


@pytest.fixture(params=["128k"])
def small_disk(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Path]:
    """A small tmpfs (128 KiB, or the size a test asks): room for a cache file's first few
    answers, then full. Mounting needs root: in CI (CI=true) a machine that cannot is a
    failure, elsewhere a skip."""
    where = tmp_path / "small-disk"
    where.mkdir()
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={request.param}", "tmpfs", str(where)],
        capture_output=True,
        text=True,
        check=False,
    )
    if mounted.returncode != 0:
        missing_tool(
            f"cannot mount a small tmpfs here ({mounted.stderr.strip() or 'not root'}):"
            " run the full-disk test as root"
        )
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], check=False)


def test_a_full_disk_stops_the_buying_and_says_what_a_rerun_pays(
    small_disk: Path, tmp_path: Path
) -> None:
    source, out = tmp_path / "in.csv", tmp_path / "out.csv"
    pl.DataFrame({"Site": [f"full{n}.io" for n in range(ROWS)]}).write_csv(source)
    answers = small_disk / "answers.sqlite"
    with start_sandbox(api_keys=(KEY,), credits=1_000_000, seed=3) as sandbox:
        env = cli_env(sandbox.base_url, KEY, tmp_path / "home")
        env["PROFNET_CACHE"] = str(answers)  # the answers on the small disk, the rest not
        args = ["enrich", str(source), "--column", "Site", "--kind", "company"]
        done = run_cli(env, *args, "--out", str(out), "--yes", "--concurrency", "1")
        paid = sandbox.charged(KEY)

    assert done.returncode == EXIT_STOPPED, done.stderr
    kept = sqlite3.connect(answers).execute("SELECT count(*) FROM responses").fetchone()[0]
    assert 0 < kept < paid < ROWS, "some answers kept, then the disk was full and buying stopped"
    assert paid == kept + 1, "one call at a time: the first answer not kept stops the buying"
    result = pl.read_csv(out)
    assert result.height == ROWS
    assert result.filter(pl.col("company_name").is_not_null()).height == paid, (
        "every paid answer is in the output, the one not kept too"
    )
    said = " ".join(done.stderr.split())
    assert "SQLite rolled it back" in said
    assert "could not be kept" in said
    assert "1 paid answer could not be kept in the cache, so running again pays it again" in said
    assert "will not be paid again" not in said
    assert "running again is free" not in said


@pytest.mark.parametrize("small_disk", ["512k"], indirect=True)
@pytest.mark.parametrize("suffix", [".csv", ".parquet", ".xlsx"])
def test_an_output_that_cannot_be_written_on_the_full_disk_says_what_a_rerun_pays(
    small_disk: Path, tmp_path: Path, suffix: str
) -> None:
    """The output on the disk the cache fills: checked with room to spare before the run,
    it cannot be written after it. The message names the output (a Parquet one's polars
    error was said as the input's, `cannot be read`), the rows not done and what a re-run
    pays, not that it is free (helper 92)."""
    source, out = tmp_path / "in.csv", small_disk / f"out{suffix}"
    pl.DataFrame({"Site": [f"full{n}.io" for n in range(200)]}).write_csv(source)
    with start_sandbox(api_keys=(KEY,), credits=1_000_000, seed=3) as sandbox:
        env = cli_env(sandbox.base_url, KEY, tmp_path / "home")
        env["PROFNET_CACHE"] = str(small_disk / "answers.sqlite")
        args = ["enrich", str(source), "--column", "Site", "--kind", "company"]
        done = run_cli(env, *args, "--out", str(out), "--yes", "--concurrency", "1")
        paid = sandbox.charged(KEY)

    assert done.returncode == 1, done.stderr
    said = " ".join(done.stderr.split())
    assert f"{out}: could not be written" in said
    assert "cannot be read" not in said
    assert "1 paid answer could not be kept in the cache, so running again pays it again" in said
    assert "is free" not in said
    not_done = re.search(
        r"(\d+) rows were not done: running again \(with another --out\) pays", said
    )
    assert not_done is not None, said
    assert int(not_done.group(1)) == 200 - paid


def test_a_lookup_on_a_full_disk_says_the_answer_not_kept_is_paid_again(
    small_disk: Path, tmp_path: Path
) -> None:
    """`lookup` said `the 7 done are cached: not paid again` when the cache had lost one (a
    team's review, with Redis killed): the re-run paid it again."""
    values = [f"lk{n}.io" for n in range(ROWS)]
    answers = small_disk / "answers.sqlite"
    with start_sandbox(api_keys=(KEY,), credits=1_000_000, seed=3) as sandbox:
        env = cli_env(sandbox.base_url, KEY, tmp_path / "home")
        env["PROFNET_CACHE"] = str(answers)
        env["PROFNET_CONCURRENCY"] = "1"
        done = run_cli(env, "lookup", "company", *values, "--yes")
    assert done.returncode == EXIT_STOPPED, done.stderr
    said = " ".join(done.stderr.split())
    assert "1 paid answer could not be kept in the cache: running again pays it again" in said
    assert "cached: not paid again" not in said


def test_a_search_whose_pages_cannot_be_kept_writes_those_read_and_says_so(
    small_disk: Path, tmp_path: Path
) -> None:
    """A new user's review (a Redis killed while a search's results were read): the pages
    paid were in the process's hands, nothing was written, and the re-attach paid a page
    twice unsaid. Now the reading ends at the stop, what was read is written, and what was
    paid and not kept is said as a re-read pays it (decision 491)."""
    out = tmp_path / "leads.csv"
    with start_sandbox(api_keys=(KEY,), credits=1_000_000, seed=3, job_seconds=0) as sandbox:
        env = cli_env(sandbox.base_url, KEY, tmp_path / "home")
        env["PROFNET_CACHE"] = str(small_disk / "answers.sqlite")
        args = ["search", "leads", "--title-keywords", "Engineer", "--limit", "500", "--yes"]
        done = run_cli(env, *args, "--out", str(out))
        paid = sandbox.charged(KEY)
    said = " ".join(done.stderr.split())
    assert done.returncode == EXIT_STOPPED, said
    assert "Traceback" not in said
    read = pl.read_csv(out).height
    assert 0 < read < 500
    assert paid == 50 + read, "every result paid is in the output"
    assert f"those read are in {out}, but" in said
    assert "could not be kept in the cache, so reading them again pays" in said


def test_a_searchs_results_that_cannot_be_written_say_what_was_paid_and_how_to_get_them(
    small_disk: Path, tmp_path: Path
) -> None:
    """A new user's review: a search's output on a disk too full for it (the check before
    paying passed) ended in a traceback, its 550 credits unsaid. Now one line says what was
    read and paid, and that a re-attach to another --out is free (the cache is elsewhere)."""
    (small_disk / "filler").write_bytes(b"\0" * (56 * 1024))  # room to check, not to write
    out = small_disk / "leads.csv"
    with start_sandbox(api_keys=(KEY,), credits=1_000_000, seed=3, job_seconds=0) as sandbox:
        env = cli_env(sandbox.base_url, KEY, tmp_path / "home")
        args = ["search", "leads", "--title-keywords", "Engineer", "--limit", "500", "--yes"]
        done = run_cli(env, *args, "--out", str(out))
        paid = sandbox.charged(KEY)
    said = " ".join(done.stderr.split())
    assert done.returncode == 1, said
    assert "Traceback" not in said
    assert f"{out}: No space left on device" in said, said
    assert "(500 leads read, not written; " in said
    assert f"this search: {paid} credits" in said
    assert "the search's results are cached: run again with --request-id" in said
    assert "and another --out, free" in said


@pytest.mark.parametrize("small_disk", ["2m"], indirect=True)
def test_a_later_run_buys_nothing_while_the_disk_is_full_and_buys_again_once_freed(
    small_disk: Path, tmp_path: Path
) -> None:
    """One client kept for hours (Excel, a notebook): a later run is no longer stopped for
    good by a cache that failed, but it buys only once a probe entry as large as an answer is
    kept and read back, on a disk with room (decision 520): a disk still full, or freed by a
    few KiB only (a review: each such run bought answers it could not keep), pays nothing; a
    disk with room buys again."""
    big, small = small_disk / "big-filler", small_disk / "small-filler"
    big.write_bytes(b"\0" * (1_700 * 1024))
    small.write_bytes(b"\0" * (16 * 1024))
    rows = pl.DataFrame({"Site": [f"later{n}.io" for n in range(ROWS * 4)]})
    with start_sandbox(api_keys=(KEY,), credits=1_000_000, seed=3) as sandbox:
        client = Client(
            api_key=KEY,
            base_url=sandbox.base_url,
            cache=str(small_disk / "answers.sqlite"),
            cache_dir=tmp_path / "home",
            concurrency=4,
        )
        with client:
            _, first = Enrichment(client, rows, "Site", "company").run()
            assert first.ending == "stopped"
            paid, unkept = sandbox.charged(KEY), client.unkept
            assert 0 < unkept <= 4
            _, still = Enrichment(client, rows, "Site", "company").run()
            assert still.ending == "stopped"
            small.unlink()  # a few KiB free: not room for a run's answers
            _, little = Enrichment(client, rows, "Site", "company").run()
            assert little.ending == "stopped"
            assert (sandbox.charged(KEY), client.unkept) == (paid, unkept), "nothing paid"
            assert "still has too little room" in str(client.new_run().stopped), "said as it is now"
            big.unlink()
            _, freed = Enrichment(client, rows, "Site", "company").run()
            assert sandbox.charged(KEY) > paid + 1, "room again: buying again"
            assert freed.done > 0
            assert client.unkept - unkept <= 4, "until the disk is full again, at most"


def _buy(client: Client, domains: list[str]) -> None:
    for domain in domains:
        client.get_company_details(domain=domain)


def _fill(disk: Path) -> Path:
    """Fill `disk` to its last block; the filler, to free it with."""
    filler = disk / "filler"
    with filler.open("wb", buffering=0) as out, contextlib.suppress(OSError):
        while True:
            out.write(b"\0" * 4096)
    return filler


@pytest.mark.parametrize("small_disk", ["1m"], indirect=True)
def test_a_ledger_that_cannot_count_the_spend_stops_the_buying_with_no_cap_set(
    small_disk: Path,
) -> None:
    """A review: the answers in memory, the ledger on a disk that filled up and no spending
    cap: 40 calls paid with nothing in the ledger and only log lines said (its hold and its
    settle failing were logged and the calls went on). Spend the ledger cannot count is not
    made: the buying stops, with the disk's own error said (decision 531)."""
    with start_sandbox(api_keys=(KEY,), credits=1_000_000, seed=3) as sandbox:
        client = Client(
            api_key=KEY, base_url=sandbox.base_url, cache="memory", cache_dir=small_disk
        )
        with client:
            for n in range(5):
                client.get_company_details(domain=f"counted{n}.io")
            filler = _fill(small_disk)
            with pytest.raises(StoppedBuying, match="disk is full") as stopped:
                _buy(client, [f"uncounted{n}.io" for n in range(40)])
            paid = sandbox.charged(KEY)
            assert paid <= 6, "the call whose settle failed at most, then nothing"
            assert "the ledger could not" in str(stopped.value)
            filler.unlink()
            assert (
                client.spent()
                + client.spent(uncertain=True)
                + client.ledger.in_flight(client.service)
                >= paid
            ), "what the ledger could not write is held, never nothing"
