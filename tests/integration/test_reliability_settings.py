"""Settings that leak or crash (issue 14, items 9 and 10), through the real command line.

Item 9: no credential is ever shown (a Redis URL's password, a base URL's user info, query
tokens, the key), and the key can be given without typing it on the command line (`config
--api-key -` reads stdin; `config --api-key` asks for it in a terminal, not echoed: a pty).
Item 10: every setting that cannot work ends in one `Error:` line naming the value (masked,
cut to ~200 characters) and what to do, never a traceback: timeouts of 0, base URLs urllib3
refuses, a cache URL of another scheme, a config file that cannot be written, a Redis that is
unreachable or refuses the password (a real server with `requirepass`), a cache or ledger file
of garbage (real files) and an emptied ledger. Nothing is paid in any of these cases.
"""

from __future__ import annotations

import contextlib
import os
import random
import signal
import socket
import sqlite3
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from profnet_sheets.cache_file import SQLITE_HEADER
from profnet_sheets.cli import main
from profnet_sheets.sandbox import RunningSandbox, start_sandbox
from tests.conftest import redis_server
from tests.integration.conftest import CLI, cli_env, in_a_terminal, read_until, run_cli
from tests.integration.test_reliability_input import assert_clean

pytestmark = pytest.mark.integration

KEY = "pn-live-SECRET-4c1e9a7b20d3f615"
PASSWORD = "redis-SECRET-pw-83f1"  # what the password-protected Redis demands
SECRETS = (KEY, PASSWORD, "hunter2", "tok-SECRET", "pw-SECRET")
LONG = "x" * 100_000  # an input as long as the one the attack used


@pytest.fixture(scope="module")
def sandbox() -> Iterator[RunningSandbox]:
    with start_sandbox(api_keys=(KEY,), credits=1_000_000, job_seconds=0.0) as running:
        yield running


@pytest.fixture(scope="module")
def locked_redis() -> Iterator[str]:
    """A real Redis that demands PASSWORD: its URL, without the password."""
    with redis_server(password=PASSWORD) as url:
        yield url


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


class Cli:
    """`profnet-sheets` in this process (click's CliRunner) from `home`, with only the
    PROFNET_ variables given (config file and cache under `home`)."""

    def __init__(self, home: Path) -> None:
        self.home = home

    def __call__(self, *args: str, input: str | None = None, **variables: str) -> Result:
        env: dict[str, str | None] = {
            name: None for name in os.environ if name.startswith("PROFNET_")
        }
        env.update(
            PROFNET_CONFIG=str(self.home / "config.toml"),
            PROFNET_CACHE_DIR=str(self.home / "cache"),
            PROFNET_QUIET="1",
        )
        env.update({f"PROFNET_{name.upper()}": value for name, value in variables.items()})
        result = CliRunner().invoke(main, list(args), env=env, input=input)
        assert_safe(result.output)
        return result


def run(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    """`profnet-sheets ARGS` in a process of its own; what it said holds nothing unsafe."""
    result = run_cli(env, *args)
    assert_safe(result.stdout + result.stderr)
    return result


def assert_safe(output: str) -> None:
    """No traceback, and no secret of this module, in what the user sees."""
    assert "Traceback" not in output, output
    for secret in SECRETS:
        assert secret not in output, f"{secret} shown: {output}"


def refused(result: Result, *said: str) -> str:
    """The run ended in one `Error:` line (the last), saying each of `said`; the line."""
    assert_clean(result, fuzzed=False)
    assert result.exit_code == 1, result.output
    line = next(line for line in result.stderr.splitlines() if line.startswith("Error:"))
    for words in said:
        assert words in line, f"{words!r} not in {line!r}"
    return line


@pytest.fixture
def cli(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Cli:
    monkeypatch.chdir(tmp_path)  # a cache setting taken for a relative folder would land here
    return Cli(tmp_path)


# -- item 9: secrets ------------------------------------------------------------------------


def test_config_shows_a_redis_url_without_its_password(cli: Cli) -> None:
    result = cli("config", cache="redis://:hunter2@redis.corp:6379/8")
    assert result.exit_code == 0, result.output
    assert "cache:    redis://:***@redis.corp:6379/8" in result.output


def test_a_base_url_with_user_info_is_refused_with_its_password_masked(
    cli: Cli, sandbox: RunningSandbox
) -> None:
    """Issue 22 (decisions #186): never sent, so refused wherever it is read, in one line."""
    base_url = f"https://user:hunter2@127.0.0.1:{closed_port()}"
    settings = {"base_url": base_url, "api_key": KEY, "retries": "0"}
    for command in (["lookup", "company", "stripe.com"], ["config"], ["cache", "info"]):
        error = refused(cli(*command, **settings), "user name or password", "never sent")
        assert "https://user:***@127.0.0.1:" in error
    saved = cli("config", "--base-url", base_url.replace("https", "http"))
    assert "'http://user:***@127.0.0.1:" in refused(saved, "user name or password")
    assert not (cli.home / "config.toml").exists(), "nothing saved"


def test_query_tokens_in_a_base_url_are_masked_in_its_refusal(cli: Cli) -> None:
    error = refused(
        cli("credits", base_url="https://api.example.com/v1?api_key=tok-SECRET&x=1"),
        "'https://api.example.com/v1?api_key=***&x=1'",
        "?query",
        "PROFNET_BASE_URL",
    )
    assert "tok-SECRET" not in error


def test_the_key_is_read_from_stdin(tmp_path: Path, sandbox: RunningSandbox) -> None:
    env = cli_env(sandbox.base_url, "", tmp_path)
    del env["PROFNET_API_KEY"]
    saved = subprocess.run(
        [*CLI, "config", "--api-key", "-"],
        input=KEY + "\n",
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )
    assert saved.returncode == 0, saved.stderr
    assert_safe(saved.stdout + saved.stderr)  # nor the key read
    assert f'api_key = "{KEY}"' in (tmp_path / "config.toml").read_text()  # no line end
    before = sandbox.charged(KEY)
    looked_up = run(env, "lookup", "company", "stripe.com")
    assert looked_up.returncode == 0, looked_up.stderr
    assert sandbox.charged(KEY) == before + 1  # the key read from stdin is the one used


def test_the_key_is_asked_for_in_a_terminal_without_being_echoed(tmp_path: Path) -> None:
    env = cli_env("https://api.example.com", "", tmp_path)
    del env["PROFNET_API_KEY"], env["PROFNET_BASE_URL"]
    process, controller = in_a_terminal(env, "config", "--api-key")
    seen = read_until(controller, "API key:")
    os.write(controller, (KEY + "\n").encode())
    seen += read_until(controller, "budget:")
    process.wait(timeout=30)
    os.close(controller)
    assert process.returncode == 0, seen
    assert "Saved to" in seen
    assert_safe(seen)  # the terminal did not echo what was typed
    assert f'api_key = "{KEY}"' in (tmp_path / "config.toml").read_text()


def test_api_key_alone_without_a_terminal_says_how_to_give_it(cli: Cli) -> None:
    refused(cli("config", "--api-key"), "--api-key -")
    assert not (cli.home / "config.toml").exists()


# -- item 10: one line, never a traceback ---------------------------------------------------


@pytest.mark.parametrize(
    ("setting", "value", "said"),
    [
        ("timeout", "0", ["Setting timeout = '0'", "more than 0", "PROFNET_TIMEOUT"]),
        ("connect_timeout", "inf", ["'inf'", "from 0 to 10,000,000", "PROFNET_CONNECT_TIMEOUT"]),
        ("backoff", "1e300", ["from 0 to 10,000,000", "PROFNET_BACKOFF"]),
        ("rate_limit", "1e-300", ["0 (no limit) or at least", "PROFNET_RATE_LIMIT"]),
        ("base_url", "http://[::1", ["'http://[::1'", "PROFNET_BASE_URL"]),
        ("base_url", "https://...", ["'...' is not a host name", "PROFNET_BASE_URL"]),
        ("base_url", "https://a..b/v1", ["'a..b' is not a host name"]),
        ("base_url", "https://exa mple.com", ["'https://exa mple.com'", "PROFNET_BASE_URL"]),
        ("base_url", "https://u:pw-SECRET@host:99999", ["'https://u:***@host:99999'", "user"]),
        ("base_url", "ftp://pw-SECRET@files", ["'ftp://***@files'", "http:// or https://"]),
        ("cache", "ftp://what", ["'ftp://what'", "ftp:// is not a place", "redis://"]),
        ("cache", "redis://:pw-SECRET@h:6379/db", ["'redis://:***@h:6379/db'", "must be digits"]),
        ("cache", "unix://", ["unix:///path/to/redis.sock"]),
    ],
)
@pytest.mark.parametrize("command", [["credits"], ["config"], ["lookup", "company", "a.com"]])
def test_a_setting_that_cannot_work_is_one_line_naming_it(
    cli: Cli, setting: str, value: str, said: list[str], command: list[str]
) -> None:
    refused(cli(*command, **{setting: value, "api_key": KEY}), *said, "Fix it in")
    assert not any(cli.home.glob("ftp*")), "no folder made of a URL"


@pytest.mark.parametrize("command", [["credits"], ["lookup", "company", "a.com"]])
def test_a_cache_folder_that_cannot_be_made_is_one_line(
    cli: Cli, tmp_path: Path, command: list[str]
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    for service in ({}, {"base_url": "https://api.example.com", "api_key": KEY}):
        refused(
            cli(*command, cache_dir=str(blocker / "cache"), **service),
            f"Cannot keep the cache at {blocker / 'cache'}",
            "PROFNET_CACHE_DIR",
        )


def test_a_config_file_that_cannot_be_written_is_one_line(cli: Cli, tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    places = [str(blocker / "config.toml")]
    if Path("/proc").is_dir():
        places.append("/proc/x.toml")
    for place in places:
        refused(
            cli("config", "--budget", "5", "--path", place),
            f"Cannot write the config file {place}",
            "--path",
            "nothing was saved",
        )


def test_an_unreachable_redis_is_refused_before_anything_is_paid(
    cli: Cli, sandbox: RunningSandbox
) -> None:
    before = sandbox.charged(KEY)
    for url, named in [
        ("redis://:pw-SECRET@nohost.invalid:6379/0", "redis://:***@nohost.invalid:6379/0"),
        (f"redis://127.0.0.1:{closed_port()}/0", "Connection refused"),
    ]:
        result = cli(
            "lookup", "company", "stripe.com", cache=url, base_url=sandbox.base_url, api_key=KEY
        )
        refused(result, "Cannot use the Redis cache", named, "PROFNET_CACHE")
    assert sandbox.charged(KEY) == before


def test_a_redis_refusing_the_password_is_refused_before_anything_is_paid(
    cli: Cli, sandbox: RunningSandbox, locked_redis: str
) -> None:
    host = locked_redis.removeprefix("redis://")
    service = {"base_url": sandbox.base_url, "api_key": KEY}
    before = sandbox.charged(KEY)
    wrong = cli("lookup", "company", "stripe.com", cache=f"redis://:hunter2@{host}/0", **service)
    refused(wrong, f"redis://:***@{host}/0", "refused the password")
    missing = cli("lookup", "company", "stripe.com", cache=f"redis://{host}/0", **service)
    refused(missing, "asks for a password")
    assert sandbox.charged(KEY) == before
    right = cli("lookup", "company", "stripe.com", cache=f"redis://:{PASSWORD}@{host}/0", **service)
    assert right.exit_code == 0, right.output
    assert sandbox.charged(KEY) == before + 1
    info = cli("cache", "info", cache=f"redis://:{PASSWORD}@{host}/0", **service)
    assert f"cache: redis://:***@{host}/0" in info.output


def test_a_garbage_cache_file_says_what_to_do_and_cache_clear_starts_it_anew(
    cli: Cli, sandbox: RunningSandbox
) -> None:
    cache = cli.home / "answers.sqlite"
    garbage = os.urandom(8192)
    cache.write_bytes(garbage)
    service = {"cache": str(cache), "base_url": sandbox.base_url, "api_key": KEY}
    before = sandbox.charged(KEY)
    for command in (["lookup", "company", "stripe.com"], ["cache", "info"], ["credits"]):
        refused(cli(*command, **service), str(cache), "cannot be read", "cache clear")
    assert sandbox.charged(KEY) == before
    cleared = cli("cache", "clear", "--yes", **service)
    assert cleared.exit_code == 0, cleared.output
    said = " ".join(cleared.output.split())
    assert f"{cache} is not a SQLite file, so never a cache: kept, renamed to" in said
    (kept,) = cache.parent.glob("answers.sqlite.unreadable-*")  # perhaps the user's: not deleted
    assert kept.read_bytes() == garbage
    with sqlite3.connect(cache) as db:  # a SQLite file again, requests-cache's
        assert db.execute("SELECT count(*) FROM sqlite_master").fetchone()[0] > 0
    for _ in range(2):
        assert cli("lookup", "company", "stripe.com", **service).exit_code == 0
    assert sandbox.charged(KEY) == before + 1  # the new cache keeps answers


def test_garbage_in_the_default_cache_folder_is_cleared_too(tmp_path: Path) -> None:
    """The embedded sandbox's own state and its answers, beside the ledger: both garbage."""
    env = cli_env("", "", tmp_path)
    del env["PROFNET_API_KEY"], env["PROFNET_BASE_URL"]
    assert run(env, "lookup", "company", "stripe.com").returncode == 0
    folder = tmp_path / "cache"
    damaged = [folder / "sandbox-state.sqlite", folder / "sandbox-answers.sqlite"]
    for path in damaged:
        for companion in folder.glob(f"{path.name}-*"):
            companion.unlink()
        path.write_bytes(SQLITE_HEADER + b"not a database" * 100)  # a cache's, damaged
    info = run(env, "cache", "info")
    assert info.returncode == 1
    assert "cannot be read" in info.stderr
    assert "cache clear" in info.stderr
    cleared = run(env, "cache", "clear", "--yes")
    assert cleared.returncode == 0, cleared.stderr
    said = " ".join(cleared.stderr.split())
    for path in damaged:
        assert f"{path} could not be read as a cache: kept, renamed to" in said, said
        assert len(list(folder.glob(f"{path.name}.unreadable-*"))) == 1, "set aside, not deleted"
    assert run(env, "lookup", "company", "stripe.com").returncode == 0


def emptied_after_a_lookup(env: dict[str, str], folder: Path, pattern: str) -> Path:
    """One paid lookup, then the SQLite file of `folder` matching `pattern` emptied to 0 bytes
    (its -wal and -shm gone, as after the last process closed it)."""
    assert run(env, "lookup", "company", "stripe.com").returncode == 0
    (path,) = folder.glob(pattern)
    for companion in folder.glob(f"{path.name}-*"):
        companion.unlink()
    path.write_bytes(b"")
    return path


def test_an_emptied_answers_file_is_said_as_a_damaged_one_and_not_paid_again(
    tmp_path: Path, sandbox: RunningSandbox
) -> None:
    """SQLite takes a file of 0 bytes for a new database: the answers it held would be paid
    again without a word. A file the cache makes is never seen at 0 bytes (made aside, then
    linked in), so one that is was emptied: refused as a damaged one, `cache clear` starts it."""
    env = cli_env(sandbox.base_url, KEY, tmp_path)
    answers = emptied_after_a_lookup(env, tmp_path / "cache", "*-answers.sqlite")
    before = sandbox.charged(KEY)
    again = run(env, "lookup", "company", "stripe.com")
    assert again.returncode == 1
    said = " ".join(again.stderr.split())
    assert f"The cache file {answers} cannot be read (it is empty: 0 bytes)" in said
    assert "cache clear" in said
    assert sandbox.charged(KEY) == before, "nothing paid again without a word"
    cleared = run(env, "cache", "clear", "--yes")
    assert cleared.returncode == 0, cleared.stderr
    assert f"Removed the empty cache file {answers}" in cleared.stderr
    assert run(env, "lookup", "company", "stripe.com").returncode == 0
    assert answers.stat().st_size > 0


def test_a_garbage_ledger_is_set_aside_and_said_once(
    tmp_path: Path, sandbox: RunningSandbox
) -> None:
    env = cli_env(sandbox.base_url, KEY, tmp_path)
    assert run(env, "lookup", "company", "stripe.com").returncode == 0
    (ledger,) = (tmp_path / "cache").glob("*-ledger.sqlite")
    garbage = os.urandom(8192)
    ledger.write_bytes(garbage)
    first = run(env, "credits")
    assert first.returncode == 0, first.stderr
    assert f"the ledger {ledger} could not be read" in first.stderr
    (aside,) = ledger.parent.glob(f"{ledger.name}.unreadable-*")
    assert aside.name in first.stderr
    assert aside.read_bytes() == garbage  # kept for a look
    assert "No credits spent yet" in first.stdout
    second = run(env, "credits")
    assert second.returncode == 0, second.stderr
    assert "ledger" not in second.stderr, "said once"


def test_an_emptied_ledger_is_said_once(tmp_path: Path, sandbox: RunningSandbox) -> None:
    env = cli_env(sandbox.base_url, KEY, tmp_path)
    ledger = emptied_after_a_lookup(env, tmp_path / "cache", "*-ledger.sqlite")
    first = run(env, "credits")
    assert first.returncode == 0, first.stderr
    assert f"the ledger {ledger} was empty" in first.stderr
    assert "counts from now" in first.stderr
    second = run(env, "credits")
    assert second.returncode == 0, second.stderr
    assert "ledger" not in second.stderr, "said once"


def test_a_new_ledger_says_nothing(tmp_path: Path, sandbox: RunningSandbox) -> None:
    env = cli_env(sandbox.base_url, KEY, tmp_path)
    first = run(env, "credits")
    assert first.returncode == 0, first.stderr
    assert "ledger" not in first.stderr


@pytest.mark.parametrize(
    ("command", "settings"),
    [
        (["lookup", "company", LONG], {}),
        (["lookup", "profile", "https://" + LONG], {}),
        (["config", "--cache", "/tmp/" + LONG], {}),
        (["config", "--base-url", "https://" + LONG], {}),
        (["credits"], {"cache": "/tmp/" + LONG}),
        (["credits"], {"base_url": f"https://u:pw-SECRET@{LONG}.com"}),
        (["credits"], {"expiry": '{"' + LONG + '": 1}'}),
        (["credits"], {"budget": LONG}),
        (["enrich", "in.csv", "--column", LONG, "--kind", "company", "--out", "o.csv"], {}),
    ],
)
def test_a_long_input_is_cut_in_the_message(
    cli: Cli, command: list[str], settings: dict[str, str]
) -> None:
    (cli.home / "in.csv").write_text("Site\nstripe.com\n")
    line = refused(cli(*command, **settings))
    assert len(line) < 1000, f"{len(line)} characters"
    assert "x" * 200 not in line


def test_cache_clear_on_a_teams_redis_says_it_is_every_machines(cli: Cli, redis_url: str) -> None:
    """A team's review: `cache clear` on Redis asked only "Forget every cached answer?":
    every machine on the Redis pays its next lookups again, which the question now says."""
    asked = cli("cache", "clear", cache=f"redis://:hunter2@{redis_url.split('://')[1]}")
    assert asked.exit_code == 1
    assert "forgetting every cached answer of the team's Redis redis://:***@" in asked.output
    assert "every machine's" in asked.output
    assert "hunter2" not in asked.output


def test_a_db_file_of_the_users_is_never_taken_nor_deleted_and_a_relative_cache_is_kept_whole(
    tmp_path: Path, sandbox: RunningSandbox
) -> None:
    """A review of decision 555: `config --cache mynotes.db` (the user's text file) was saved,
    and `cache clear --yes` then deleted it; `config --cache rel.db` was saved as typed, so two
    folders kept two caches and paid the same answer twice."""
    env = cli_env(sandbox.base_url, KEY, tmp_path)
    notes = tmp_path / "mynotes.db"
    notes.write_text("call the bank on monday\n")
    refused = run_cli(env, "config", "--cache", str(notes))
    assert refused.returncode == 1
    said = " ".join(refused.stderr.split())
    assert f"--cache {notes}: {notes} is a file that is not a SQLite database" in said, said
    assert not Path(env["PROFNET_CONFIG"]).exists(), "nothing was saved"
    shop = tmp_path / "shop.db"
    with sqlite3.connect(shop) as db:
        db.execute("CREATE TABLE notes (text)")
    theirs = run_cli(env, "config", "--cache", str(shop))
    assert theirs.returncode == 1
    assert "is a SQLite database of its own (table 'notes')" in theirs.stderr
    assert "give the name of a new file" in theirs.stderr
    assert not Path(env["PROFNET_CONFIG"]).exists(), "nothing was saved"
    cleared = run_cli({**env, "PROFNET_CACHE": str(notes)}, "cache", "clear", "--yes")
    assert cleared.returncode == 0, cleared.stderr
    (kept,) = tmp_path.glob("mynotes.db.unreadable-*")
    assert kept.read_text() == "call the bank on monday\n", "renamed aside, never deleted"
    first, second = tmp_path / "one", tmp_path / "two"
    first.mkdir()
    second.mkdir()
    saved = run_cli(env, "config", "--cache", "rel.db", cwd=first)
    assert saved.returncode == 0, saved.stderr
    assert f'cache = "{first / "rel.db"}"' in Path(env["PROFNET_CONFIG"]).read_text()
    before = sandbox.charged(KEY)
    for folder in (first, second):
        looked = run_cli(env, "lookup", "company", "stripe.com", cwd=folder)
        assert looked.returncode == 0, looked.stderr
    assert sandbox.charged(KEY) == before + 1, "one cache from any folder: paid once"
    assert not (second / "rel.db").exists()


def test_cache_clear_answered_no_or_stopped_at_its_question_clears_nothing(
    tmp_path: Path, sandbox: RunningSandbox
) -> None:
    """Its question, asked as every question is: a no or a Ctrl-C keeps the cache, and says so
    (click's `Aborted!` said nothing of it); a SIGTERM or SIGHUP there did not say it (-15)."""
    env = cli_env(sandbox.base_url, KEY, tmp_path)
    assert run_cli(env, "lookup", "company", "stripe.com").returncode == 0
    stops = [(signal.SIGINT, 130), (signal.SIGTERM, 143), (signal.SIGHUP, 129)]
    for answer, code in [(b"n\n", 1), *stops]:
        process, controller = in_a_terminal(env, "cache", "clear")
        seen = read_until(controller, "[y/N]: ")
        if isinstance(answer, int):
            process.send_signal(answer)
        else:
            os.write(controller, answer)
        seen += read_until(controller, "Nothing cleared.", timeout=20)
        assert process.wait(timeout=20) == code, seen
        os.close(controller)
        assert "Aborted" not in seen
    before = sandbox.charged(KEY)
    assert run_cli(env, "lookup", "company", "stripe.com").returncode == 0
    assert sandbox.charged(KEY) == before, "still cached"


def test_a_users_database_named_by_profnet_cache_is_never_written_nor_cleared(
    tmp_path: Path, sandbox: RunningSandbox
) -> None:
    """A review of decision 561: `PROFNET_CACHE=shop.db` (the user's database, whose table is
    named `responses` as a cache's is) was used as the cache: requests-cache added a column
    and its tables, and `cache clear --yes` emptied the user's `responses`."""
    shop = tmp_path / "shop.db"
    with contextlib.closing(sqlite3.connect(shop)) as db, db:
        db.execute("CREATE TABLE responses (id INTEGER, customer TEXT)")
        db.execute("INSERT INTO responses VALUES (1, 'Acme')")
    before = shop.read_bytes()
    env = {**cli_env(sandbox.base_url, KEY, tmp_path), "PROFNET_CACHE": str(shop)}
    charged = sandbox.charged(KEY)
    for command in (("lookup", "company", "acme.com"), ("cache", "clear", "--yes")):
        refused = run_cli(env, *command)
        assert refused.returncode == 1, refused.stderr
        said = " ".join(refused.stderr.split())
        assert f"{shop} is a SQLite database of its own (table 'responses' of other" in said
        assert "nothing was written in it, and it is kept as it is" in said, said
        assert "Set PROFNET_CACHE to another place (a new file ending in .sqlite" in said, said
        assert_safe(refused.stderr)
    checked = run_cli(env, "check")  # it said `OK: ready` while every command refused
    assert checked.returncode == 1, checked.stdout
    assert f"NOT READY: the cache cannot be kept at {shop}" in checked.stdout
    assert shop.read_bytes() == before, "not a byte of the user's database changed"
    assert sorted(path.name for path in tmp_path.glob("shop.db*")) == ["shop.db"]
    assert sandbox.charged(KEY) == charged


def test_config_cache_tells_a_db_named_folder_from_a_taken_file(cli: Cli, tmp_path: Path) -> None:
    """A review of decision 559: `config --cache folder.db` (a folder) was told to give "a
    folder (or a file ending in .sqlite or .db)", which it is; a taken file was not told to
    give a new one."""
    folder = tmp_path / "answers.db"
    folder.mkdir()
    said = " ".join(cli("config", "--cache", str(folder)).output.split())
    assert "a name ending in .sqlite or .db names the cache file itself" in said, said
    notes = tmp_path / "notes.db"
    notes.write_text("monday\n")
    said = " ".join(cli("config", "--cache", str(notes)).output.split())
    assert "give the name of a new file (ending in .sqlite or .db), or a folder" in said, said


def test_a_users_database_named_as_an_earlier_versions_cache_is_left_alone(
    tmp_path: Path,
) -> None:
    """A review of decision 562: a file beside the cache named as an earlier version's cache
    (`sandbox-http.sqlite`) was read into the cache and deleted, whatever it held."""
    env = cli_env("", "", tmp_path)
    del env["PROFNET_API_KEY"], env["PROFNET_BASE_URL"]
    mine = tmp_path / "sandbox-http.sqlite"
    with contextlib.closing(sqlite3.connect(mine)) as db, db:
        db.execute("CREATE TABLE notes (text)")
        db.execute("INSERT INTO notes VALUES ('precious')")
    notes = tmp_path / "notes" / "sandbox-http.sqlite"  # not SQLite: was renamed aside
    notes.parent.mkdir()
    notes.write_text("call the bank\n")
    for theirs in (mine, notes):
        before = theirs.read_bytes()
        cache = theirs.parent / "mycache.db"
        shown = run({**env, "PROFNET_CACHE": str(cache)}, "cache", "info")
        assert shown.returncode == 0, shown.stderr
        assert "earlier version" not in shown.stderr
        assert theirs.read_bytes() == before
        assert not list(theirs.parent.glob("*.unreadable-*"))


def test_a_database_whose_tables_cannot_be_read_is_refused_and_kept(
    cli: Cli, tmp_path: Path
) -> None:
    """A review of decision 562: a database this SQLite cannot read (a newer one's, or
    damaged) was taken for one without tables: `config --cache` saved it, and `cache clear`
    deleted it."""
    unread = tmp_path / "newer.db"
    content = SQLITE_HEADER + b"\xff" * 4000
    unread.write_bytes(content)
    said = " ".join(cli("config", "--cache", str(unread)).output.split())
    assert f"{unread} cannot be read as a SQLite database" in said, said
    assert not (tmp_path / "config.toml").exists(), "nothing was saved"
    cleared = cli("cache", "clear", "--yes", cache=str(unread))
    assert cleared.exit_code == 0, cleared.output
    (kept,) = tmp_path.glob("newer.db.unreadable-*")
    assert kept.read_bytes() == content, "set aside, never deleted"


def test_cache_clear_sets_aside_only_the_file_that_failed(tmp_path: Path) -> None:
    """A review of decision 565: two `cache clear` runs on one unreadable file, within a
    second, renamed the new cache the first had made onto the kept copy (same name), and
    the user's file was gone; a rename that found no file still said "renamed"."""
    from profnet_sheets.cli import _start_anew

    path = tmp_path / "c.db"
    path.write_bytes(b"the user's")
    seen = path.stat()
    path.rename(tmp_path / "moved")  # another run set it aside...
    path.write_bytes(SQLITE_HEADER)  # ...and made a new cache there
    _start_anew(path, (seen.st_dev, seen.st_ino))
    assert path.read_bytes() == SQLITE_HEADER, "the new one is left as it is"
    assert not list(tmp_path.glob("*.unreadable-*"))
    now = path.stat()
    _start_anew(path, (now.st_dev, now.st_ino))
    _start_anew(path, (now.st_dev, now.st_ino))  # the second run: gone already, nothing said
    (kept,) = tmp_path.glob("c.db.unreadable-*")
    assert kept.read_bytes() == SQLITE_HEADER


def enriched_once(
    home: Path, sandbox: RunningSandbox, prefix: str, rows: int
) -> tuple[dict[str, str], Path]:
    """The environment of runs under `home`, and a CSV of `rows` domains it enriched once."""
    env = cli_env(sandbox.base_url, KEY, home)
    table = home / "in.csv"
    table.write_text("domain\n" + "".join(f"{prefix}{n}.io\n" for n in range(rows)))
    out = str(home / "o1.csv")
    first = run_cli(env, "enrich", str(table), "--kind", "company", "--out", out, "--yes")
    assert first.returncode == 0, first.stderr
    return env, table


def damaged_inside(path: Path) -> None:
    """`path`, a SQLite file, damaged past its first pages (its header whole): SQLite opens
    it, and reading or writing those pages says `database disk image is malformed`."""
    assert path.stat().st_size > 24_576, "pages past the damage"
    for companion in path.parent.glob(f"{path.name}-*"):
        companion.unlink()
    with path.open("r+b") as file:
        file.seek(8192)
        file.write(random.Random(7).randbytes(16_384))


def test_a_cache_damaged_inside_stops_before_paying_and_cache_clear_keeps_it(
    tmp_path: Path, sandbox: RunningSandbox
) -> None:
    """A review: damaged pages of a cache file (its header whole) made enrich say every key
    cached, then hang for good (requests-cache retried its BEGIN on a connection left in a
    failed write), paying again at each run; `cache info` printed a traceback; `cache clear`
    had requests-cache delete the file and said `Cache cleared.`"""
    env, rows = enriched_once(tmp_path, sandbox, "inside", 60)
    (answers,) = (tmp_path / "cache").glob("*-answers.sqlite")
    damaged_inside(answers)
    charged = sandbox.charged(KEY)
    out = str(tmp_path / "o2.csv")
    again = run_cli(
        env, "enrich", str(rows), "--kind", "company", "--out", out, "--yes", timeout=60
    )
    assert again.returncode == 5, again.stderr  # stopped buying, as the guide's table says
    said = " ".join(again.stderr.split())
    assert "database disk image is malformed" in said, said
    assert "cache clear` sets it aside, kept, and starts it anew" in said, said
    assert sandbox.charged(KEY) == charged, "nothing paid"
    shown = run(env, "cache", "info")
    assert shown.returncode == 1
    assert "cache clear" in shown.stderr
    damaged = answers.read_bytes()
    cleared = run(env, "cache", "clear", "--yes")
    assert cleared.returncode == 0, cleared.stderr
    assert "could not be read as a cache: kept, renamed to" in " ".join(cleared.stderr.split())
    (kept,) = answers.parent.glob(f"{answers.name}.unreadable-*[0-9]")
    assert kept.read_bytes() == damaged
    assert run_cli(env, "lookup", "company", "inside1.io").returncode == 0


def test_a_ledger_damaged_inside_is_set_aside_and_said(
    tmp_path: Path, sandbox: RunningSandbox
) -> None:
    """A review: every command said `Cannot keep the cache at ...: database disk image is
    malformed. Set PROFNET_CACHE_DIR ...`, advice that would start a ledger without a word."""
    env, _ = enriched_once(tmp_path, sandbox, "ledger", 400)
    (ledger,) = (tmp_path / "cache").glob("*-ledger.sqlite")
    damaged_inside(ledger)
    told = run(env, "credits")
    assert told.returncode == 0, told.stderr
    said = " ".join(told.stderr.split())
    assert "could not be read (database disk image is malformed); it is set aside" in said
    assert len(list(ledger.parent.glob(f"{ledger.name}.unreadable-*[0-9]"))) == 1


def test_a_ledger_damaged_where_its_open_does_not_read_is_set_aside_by_the_next_run(
    tmp_path: Path, sandbox: RunningSandbox
) -> None:
    """A review: a ledger damaged only in the pages a run writes its spend to opened fine,
    and every run then stopped with `the ledger could not ... (database disk image is
    malformed)`, for good, the file never set aside."""
    env, _ = enriched_once(tmp_path, sandbox, "tail", 400)
    (ledger,) = (tmp_path / "cache").glob("*-ledger.sqlite")
    for companion in ledger.parent.glob(f"{ledger.name}-*"):
        companion.unlink()
    size = ledger.stat().st_size
    with ledger.open("r+b") as file:  # its last pages: where the next spend goes
        file.seek(size - 8192)
        file.write(random.Random(11).randbytes(8192))
    more = tmp_path / "more.csv"
    more.write_text("domain\n" + "".join(f"tail-more{n}.io\n" for n in range(60)))
    charged = sandbox.charged(KEY)
    first = run_cli(
        env, "enrich", str(more), "--kind", "company", "--out", str(tmp_path / "o2.csv"), "--yes"
    )
    said = " ".join(first.stderr.split())
    assert first.returncode == 5, said
    assert "database disk image is malformed; it is damaged: the next run sets it aside" in said
    assert "Run again; the" in said, said  # those paid, kept: the total below says so
    again = run_cli(
        env, "enrich", str(more), "--kind", "company", "--out", str(tmp_path / "o3.csv"), "--yes"
    )
    said = " ".join(again.stderr.split())
    assert again.returncode == 0, said
    assert "could not be read (database disk image is malformed" in said, said
    (kept,) = ledger.parent.glob(f"{ledger.name}.unreadable-*[0-9]")
    assert kept.stat().st_size == size
    assert sandbox.charged(KEY) - charged == 60, "each key paid once in all"


def test_a_cache_found_damaged_by_a_save_is_refused_by_the_next_runs(
    tmp_path: Path, sandbox: RunningSandbox
) -> None:
    """A review of decision 570: pages only a save writes, damaged, made each run pay again
    for the answers it could not keep (reads worked, so nothing refused the file)."""
    from profnet_sheets.client.store import AnswerStore
    from profnet_sheets.config import Settings

    env = cli_env(sandbox.base_url, KEY, tmp_path)
    assert run_cli(env, "lookup", "company", "stripe.com").returncode == 0
    (answers,) = (tmp_path / "cache").glob("*-answers.sqlite")
    settings = Settings.load(cache=str(answers), cache_dir=tmp_path / "cache")
    store = AnswerStore(settings, "svc-test")
    try:
        malformed = sqlite3.DatabaseError("database disk image is malformed")
        failure = store._failure("write to", malformed)
    finally:
        store.close()
    assert "`uv run profnet-sheets cache clear` sets it aside" in str(failure)
    charged = sandbox.charged(KEY)
    refused = run(env, "lookup", "company", "acme.io")
    assert refused.returncode == 1
    said = " ".join(refused.stderr.split())
    assert f"{answers} cannot be read (database disk image is malformed)" in said, said
    assert sandbox.charged(KEY) == charged, "nothing paid again"
    assert run(env, "cache", "clear", "--yes").returncode == 0
    (mark,) = answers.parent.glob(f"{answers.name}.unreadable-*-damaged")
    assert "malformed" in mark.read_text()
    assert not Path(f"{answers}-damaged").exists(), "the mark is set aside with the file"
    assert run(env, "lookup", "company", "acme.io").returncode == 0


def test_cache_info_says_off_and_a_relative_folder_as_the_one_it_is(cli: Cli) -> None:
    """Helper 96: `PROFNET_CACHE=off` was shown as `memory`, and a relative folder as typed."""
    off = cli("cache", "info", cache="off")
    assert off.exit_code == 0, off.output
    assert "cache: off (no answer is looked up again)" in off.output
    relative = cli("cache", "info", cache="team-cache")
    assert relative.exit_code == 0, relative.output
    assert f"cache: {cli.home / 'team-cache' / 'sandbox-answers.sqlite'}" in relative.output
