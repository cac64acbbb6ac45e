"""The command line as a user runs it: `profnet-sheets sandbox` and `profnet-sheets demo`."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
import requests

from tests.integration.conftest import run_cli

pytestmark = pytest.mark.integration

CLI = [sys.executable, "-m", "profnet_sheets"]
ISSUE_FLAGS = (
    "--host",
    "--port",
    "--api-key",
    "--credits",
    "--seed",
    "--latency-ms",
    "--job-seconds",
    "--fail-rate",
    "--rate-limit",
    "--db",
)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def run(*args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*CLI, *args], capture_output=True, text=True, timeout=timeout, check=False
    )


@contextmanager
def sandbox_process(*args: str) -> Iterator[str]:
    port = free_port()
    process = subprocess.Popen(
        [*CLI, "sandbox", "--port", str(port), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                if requests.get(f"{base}/_sandbox/health", timeout=1).ok:
                    break
            except requests.ConnectionError:
                pass
            assert process.poll() is None, process.stderr.read() if process.stderr else ""
            assert time.monotonic() < deadline, "the sandbox did not come up"
            time.sleep(0.1)
        yield base
    finally:
        interrupt(process)


def interrupt(process: subprocess.Popen[str]) -> None:
    """Ctrl-C, as a user stops the sandbox; killed if it does not end."""
    process.send_signal(signal.SIGINT)
    try:
        process.wait(timeout=15)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def test_every_command_has_help() -> None:
    for command in (
        (),
        ("sandbox",),
        ("demo",),
        ("config",),
        ("enrich",),
        ("lookup",),
        ("search",),
        ("search", "leads"),
        ("search", "companies"),
        ("credits",),
        ("cache",),
        ("cache", "info"),
        ("cache", "clear"),
    ):
        result = run(*command, "--help")
        assert result.returncode == 0, result.stderr
        assert "Usage:" in result.stdout


def test_sandbox_help_lists_every_option_the_issue_names() -> None:
    help_text = run("sandbox", "--help").stdout
    for flag in ISSUE_FLAGS:
        assert flag in help_text, flag


def test_sandbox_serves_keys_credits_and_seed_and_keeps_state_in_its_db(tmp_path: Path) -> None:
    db = tmp_path / "sandbox.db"
    args = ("--api-key", "k1", "--api-key", "k2", "--credits", "60", "--seed", "3")
    with sandbox_process(*args, "--db", str(db)) as base:
        headers = {"X-SERVICE-API-KEY": "k2"}
        company = requests.get(
            f"{base}/get-company-details", params={"domain": "acme.io"}, headers=headers, timeout=5
        )
        assert company.status_code == 200
        created = requests.post(
            f"{base}/search-leads", json={"title_keywords": ["CTO"]}, headers=headers, timeout=5
        )
        assert created.status_code == 200
        request_id = created.json()["request_id"]
        too_dear = requests.post(
            f"{base}/search-companies", json={"keywords": "ai"}, headers=headers, timeout=5
        )
        assert too_dear.status_code == 402
        assert too_dear.json()["message"] == "insufficient_credits"
        other = requests.get(
            f"{base}/_sandbox/usage", headers={"X-SERVICE-API-KEY": "k1"}, timeout=5
        )
        assert other.json()["balance"] == 60
        unknown = requests.get(
            f"{base}/get-company-details",
            params={"domain": "a.io"},
            headers={"X-SERVICE-API-KEY": "nope"},
            timeout=5,
        )
        assert unknown.status_code == 401
    with sandbox_process(*args, "--db", str(db)) as base:
        headers = {"X-SERVICE-API-KEY": "k2"}
        usage = requests.get(f"{base}/_sandbox/usage", headers=headers, timeout=5).json()
        assert usage["balance"] == 60 - 1 - 50
        status = requests.get(
            f"{base}/get-lead-search-status",
            params={"request_id": request_id},
            headers=headers,
            timeout=5,
        )
        assert status.status_code == 200, "jobs persist in the --db file across restarts"
        again = requests.get(
            f"{base}/get-company-details", params={"domain": "acme.io"}, headers=headers, timeout=5
        )
        assert again.json() == company.json(), "the same seed gives the same world"


def test_sandbox_on_port_0_prints_the_port_it_listens_on() -> None:
    process = subprocess.Popen([*CLI, "sandbox", "--port", "0"], stderr=subprocess.PIPE, text=True)
    try:
        assert process.stderr is not None
        line = process.stderr.readline()
        match = re.search(r"http://127\.0\.0\.1:(\d+) ", line)
        assert match, line
        assert int(match.group(1)) > 0, line
        health = requests.get(f"http://127.0.0.1:{match.group(1)}/_sandbox/health", timeout=10)
        assert health.json() == {"status": "ok"}
    finally:
        interrupt(process)


def test_sandbox_on_a_busy_port_says_so_in_one_line() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = run("sandbox", "--port", str(port))
    assert result.returncode == 1
    assert result.stderr.splitlines() == [
        f"Error: port {port} on 127.0.0.1 is already in use (another sandbox or program): "
        "stop what uses it, or choose another port with --port (0: any free one)"
    ]


def test_sandbox_on_a_host_not_of_this_machine_says_so_in_one_line() -> None:
    result = run("sandbox", "--host", "192.0.2.1", "--port", "0")
    assert result.returncode == 1
    assert result.stderr.splitlines() == [
        "Error: 192.0.2.1 is not an address of this machine, so 192.0.2.1:0 cannot be listened "
        "on: choose another --port (0: any free one) or --host"
    ]


@pytest.mark.parametrize(
    ("option", "value"),
    [
        ("--fail-rate", "2"),
        ("--hostile-rate", "-0.5"),
        ("--latency-ms", "inf"),
        ("--latency-jitter-ms", "nan"),
        ("--credits", "-5"),
        ("--rate-limit", "0"),
        ("--api-key", " "),
    ],
)
def test_sandbox_refuses_options_that_cannot_be_meant(option: str, value: str) -> None:
    """The ranges of the control endpoints (docs/sandbox.md) hold for the options too."""
    result = run("sandbox", option, value)
    assert result.returncode == 2
    assert f"Invalid value for {option}:" in result.stderr
    assert " from " in result.stderr or " to " in result.stderr


def clean_env(tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PROFNET_")}
    env["PROFNET_CACHE_DIR"] = str(tmp_path / "cache")
    env["PROFNET_CONFIG"] = str(tmp_path / "config.toml")
    return env


def test_demo_runs_on_the_embedded_sandbox(tmp_path: Path) -> None:
    env = clean_env(tmp_path)
    out = tmp_path / "demo.xlsx"
    for spent in ("credits spent", "0 credits spent"):
        result = subprocess.run(
            [*CLI, "demo", "--out", str(out)],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
            env=env,
        )
        assert result.returncode == 0, result.stderr
        assert "synthetic" in result.stderr.lower()
        assert "30 rows" in result.stderr
        assert spent in result.stderr
    assert out.exists()


def test_config_keeps_settings_in_a_private_file_and_never_shows_the_key(tmp_path: Path) -> None:
    env = clean_env(tmp_path)
    result = subprocess.run(
        [*CLI, "config", "--api-key", "very-secret", "--base-url", "https://api.example.com"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env=env,
    )
    assert result.returncode == 0, result.stderr
    assert "very-secret" not in result.stdout + result.stderr
    assert "https://api.example.com" in result.stdout
    config = tmp_path / "config.toml"
    assert config.stat().st_mode & 0o777 == 0o600
    assert "very-secret" in config.read_text()
    bad = subprocess.run(
        [*CLI, "config", "--base-url", "ftp://nope"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env=env,
    )
    assert bad.returncode == 1
    assert "PROFNET_BASE_URL" in bad.stderr
    assert "Traceback" not in bad.stderr


def test_config_shows_settings_in_words_not_python_reprs(tmp_path: Path) -> None:
    env = clean_env(tmp_path)
    env.pop("PROFNET_API_KEY", None)

    def shown(*args: str) -> str:
        done = run_cli(env, "config", *args)
        assert done.returncode == 0, done.stderr
        return done.stdout

    nothing = shown()
    assert "api_key:  not set (the embedded sandbox is used)" in nothing
    assert "None" not in nothing
    saved = shown("--api-key", "very-secret", "--base-url", "https://api.example.com")
    assert "api_key:  set (fingerprint " in saved
    assert "ApiKey(" not in saved
    assert "very-secret" not in saved
    assert "base_url: https://api.example.com" in saved
    saved = shown("--budget", "300", "--spending-cap", " 500 / Day")
    assert "budget:   300" in saved
    assert "spending cap: 500/day" in saved
    assert 'spending_cap = "500/day"' in Path(env["PROFNET_CONFIG"]).read_text(), "as it is read"
    for line in (nothing + saved).splitlines():
        assert not re.search(r"\b(None|[A-Z]\w+\(\w+=)", line), line  # no Python repr


def test_config_says_when_the_environment_wins_over_what_it_saved(tmp_path: Path) -> None:
    """A new user's review: `config --spending-cap 50/day` said "Saved", then showed the
    100000/day of PROFNET_SPENDING_CAP with no word of where it came from."""
    env = clean_env(tmp_path) | {"PROFNET_SPENDING_CAP": "100000/day", "PROFNET_BUDGET": " "}
    zero = run_cli(env | {"PROFNET_BUDGET": "100"}, "config", "--budget", "0")
    assert "Note: PROFNET_BUDGET is set here and wins" in zero.stderr, "a budget of 0 too"
    done = run_cli(env, "config", "--spending-cap", "50/day", "--budget", "5")
    assert done.returncode == 0, done.stderr
    assert (
        "Note: PROFNET_SPENDING_CAP is set here and wins over the config file: unset it for "
        "the file's spending_cap to be used."
    ) in done.stderr
    assert "PROFNET_BUDGET" not in done.stderr, "set to blanks: not set"
    lines = done.stdout.splitlines()
    assert "spending cap: 100000/day (from PROFNET_SPENDING_CAP, which wins over the file)" in lines
    assert "budget:   5" in lines


def test_config_refuses_a_cache_place_nobody_can_write_and_names_the_file_for_one_kept(
    tmp_path: Path,
) -> None:
    """A new user's review: `config --cache /dev/null/x` was saved without a word, and every
    command then said to set PROFNET_CACHE_DIR, with nothing of the config file."""
    env = clean_env(tmp_path)
    refused = run_cli(env, "config", "--cache", "/dev/null/x")
    assert refused.returncode == 1
    assert "--cache /dev/null/x: /dev/null is not a folder" in refused.stderr
    assert "nothing was saved" in refused.stderr
    config = Path(env["PROFNET_CONFIG"])
    config.write_text('cache = "/dev/null/x"\n')  # written by hand, or before this check
    failed = run_cli(env, "lookup", "company", "stripe.com")
    assert failed.returncode != 0
    said = " ".join(failed.stderr.split())
    assert "Cannot keep the cache at /dev/null/x" in said
    assert "config --unset cache" in said, said


def test_a_cache_place_that_is_a_file_of_another_kind_is_refused_as_what_it_is(
    tmp_path: Path,
) -> None:
    """A review of decision 541: `config --cache notes.txt` (a file that exists) was saved, and
    every command then said `Cannot keep the cache at notes.txt: File exists`: a place whose
    name does not end in .sqlite is a folder for the cache."""
    env = clean_env(tmp_path)
    plain = tmp_path / "notes.txt"
    plain.write_text("mine")
    folder = tmp_path / "answers.sqlite"
    folder.mkdir()
    for place, why in [
        (plain, f"{plain} is a file, not a folder (a cache file's name ends in .sqlite or .db)"),
        (folder, f"{folder} is a folder, not a SQLite file"),
    ]:
        refused = run_cli(env, "config", "--cache", str(place))
        assert refused.returncode == 1
        said = " ".join(refused.stderr.split())
        assert f"--cache {place}: {why}" in said, said
        assert not Path(env["PROFNET_CONFIG"]).exists(), "nothing was saved"
        failed = run_cli({**env, "PROFNET_CACHE": str(place)}, "lookup", "company", "stripe.com")
        assert failed.returncode == 1
        said = " ".join(failed.stderr.split())
        assert f"Cannot keep the cache at {place}: {why}." in said, said
    assert plain.read_text() == "mine"


def test_a_cache_file_named_in_capitals_a_dangling_link_and_a_cache_dir_named_db(
    tmp_path: Path,
) -> None:
    """A review of decision 546: `Team.DB` was taken for a folder (the rule was
    case-sensitive), a link to nowhere was saved, and PROFNET_CACHE_DIR=`x.db` (a folder for
    the cache, the ledger and the pace) was taken for the answers' file."""
    env = clean_env(tmp_path)
    capitals = tmp_path / "Team.DB"
    capitals.mkdir()
    dangling = tmp_path / "gone"
    dangling.symlink_to(tmp_path / "nowhere" / "x")
    for place, why in [
        (capitals, f"{capitals} is a folder, not a SQLite file"),
        (dangling, f"{dangling} is a link to {tmp_path / 'nowhere' / 'x'}, which does not exist"),
    ]:
        refused = run_cli(env, "config", "--cache", str(place))
        assert refused.returncode == 1
        said = " ".join(refused.stderr.split())
        assert f"--cache {place}: {why}" in said, said
        assert not Path(env["PROFNET_CONFIG"]).exists(), "nothing was saved"
    folder = tmp_path / "team.db"
    looked = run_cli({**env, "PROFNET_CACHE_DIR": str(folder)}, "lookup", "company", "acme.io")
    assert looked.returncode == 0, looked.stderr
    assert folder.is_dir()
    assert list(folder.glob("*-answers.sqlite")), "the answers' file made in it"


def test_a_cache_folder_that_is_a_file_or_a_link_to_nothing_is_said_as_what_it_is(
    tmp_path: Path,
) -> None:
    """A review of decision 555: PROFNET_CACHE_DIR naming a file, or a link to nothing, said
    `File exists`; PROFNET_CACHE naming a folder `Dir.Sqlite` was told to set
    PROFNET_CACHE_DIR, a setting it had not used."""
    env = clean_env(tmp_path)
    plain = tmp_path / "afile"
    plain.write_text("mine")
    dangling = tmp_path / "gone"
    dangling.symlink_to(tmp_path / "nowhere" / "x")
    folder = tmp_path / "Dir.Sqlite"
    folder.mkdir()
    link = f"{dangling} is a link to {tmp_path / 'nowhere' / 'x'}, which does not exist"
    folder_fix = "Set PROFNET_CACHE_DIR (or PROFNET_CACHE) to a folder you can write to."
    for variable, place, why, fix in [
        ("PROFNET_CACHE_DIR", plain, f"{plain} is a file, not a folder", folder_fix),
        ("PROFNET_CACHE_DIR", dangling, link, folder_fix),
        (
            "PROFNET_CACHE",
            folder,
            f"{folder} is a folder, not a SQLite file",
            "Set PROFNET_CACHE to a folder or a file ending in .sqlite or .db that you can "
            "write to.",
        ),
    ]:
        failed = run_cli({**env, variable: str(place)}, "lookup", "company", "stripe.com")
        assert failed.returncode == 1
        said = " ".join(failed.stderr.split())
        assert f"Cannot keep the cache at {place}: {why}. {fix}" in said, said
    assert plain.read_text() == "mine"


def test_config_says_its_file_unsets_a_setting_and_refuses_the_docs_placeholder(
    tmp_path: Path,
) -> None:
    """A new user's review: `config --api-key ...` pasted from the docs saved the key `...`
    (then every call failed), nothing could take a setting out, and the file was not named."""
    env = clean_env(tmp_path)
    env.pop("PROFNET_API_KEY", None)
    config = tmp_path / "config.toml"
    placeholder = run_cli(env, "config", "--api-key", "...")
    assert placeholder.returncode == 1
    assert "the documentation's placeholder '...'" in placeholder.stderr
    assert not config.exists()
    for piped in ("", "\n", "  \n"):  # helper 96: said to be the docs' placeholder ''
        empty = subprocess.run(
            [*CLI, "config", "--api-key", "-"],
            input=piped,
            capture_output=True,
            text=True,
            env=env,
            timeout=120,
            check=False,
        )
        assert empty.returncode == 1
        assert "No API key was given (the key read was empty)" in empty.stderr
        assert not config.exists()
    config.write_text('[profnet]\napi_key = "..."\n', encoding="utf-8")  # saved before
    replaced = run_cli(env, "config", "--api-key", "k-0")
    assert replaced.returncode == 0, replaced.stderr
    assert '"k-0"' in config.read_text()
    saved = run_cli(env, "config", "--api-key", "k-1", "--base-url", "https://api.example.com")
    assert saved.returncode == 0, saved.stderr
    assert f"config file: {config}" in saved.stdout
    back = run_cli(env, "config", "--unset", "api_key", "--unset", "base_url")
    assert back.returncode == 0, back.stderr
    assert "api_key:  not set (the embedded sandbox is used)" in back.stdout
    assert "k-1" not in config.read_text()
    both = run_cli(env, "config", "--unset", "budget", "--budget", "3")
    assert both.returncode == 2
    assert "both given and unset" in both.stderr


def test_every_command_is_documented_in_the_guide() -> None:
    import click

    from profnet_sheets.cli import main

    guide = (Path(__file__).resolve().parents[2] / "docs" / "guide.md").read_text()

    def names(group: click.Group, prefix: str) -> list[str]:
        found = []
        for name, command in group.commands.items():
            found.append(f"{prefix}{name}")
            if isinstance(command, click.Group):
                found += names(command, f"{prefix}{name} ")
        return found

    for command in names(main, ""):
        first = command.split()[0]
        assert f"profnet-sheets {first}" in guide, command
        assert command.split()[-1] in guide, command


@pytest.mark.parametrize("cache", ["off", "memory"])
def test_cache_clear_with_no_cache_on_disk_says_there_is_nothing_to_clear(
    tmp_path: Path, cache: str
) -> None:
    env = {**clean_env(tmp_path), "PROFNET_CACHE": cache}
    done = run_cli(env, "cache", "clear", "--yes")
    assert done.returncode == 0, done.stderr
    assert f"Nothing to clear: answers are not kept on disk (PROFNET_CACHE={cache})." in (
        done.stderr
    )
    assert "Cache cleared." not in done.stdout


def test_the_librarys_warnings_are_said_on_a_line_of_their_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A warning of the library during a run (another process fetching the same call, a
    misspelt setting) was written onto the progress bar's line by logging's last resort."""
    import logging

    from click.testing import CliRunner

    from profnet_sheets import cli

    said: list[str] = []
    monkeypatch.setattr(cli, "_said", said.append)
    library, stops = (
        logging.getLogger("profnet_sheets"),
        logging.getLogger("profnet_sheets.stopped"),
    )
    monkeypatch.setattr(library, "handlers", [])  # as in a new process; put back after
    monkeypatch.setattr(stops, "handlers", [])
    monkeypatch.setattr(stops, "propagate", True)
    result = CliRunner().invoke(cli.main, ["config", "--path", str(tmp_path / "c.toml")])
    assert result.exit_code == 0, result.output
    logging.getLogger("profnet_sheets.client.claims").warning("waiting for another process")
    stops.warning("a stop: said by its command")
    assert said == ["waiting for another process"]
