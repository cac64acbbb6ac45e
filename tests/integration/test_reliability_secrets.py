"""Secrets (issue 7): a distinctive API key, used for real against a sandbox, is then looked for
everywhere it could end up: the SQLite cache and ledger files (WAL and lock files included),
Redis, log records at DEBUG, stderr, warnings, exception messages, reprs and tracebacks (with
their local variables), an executed notebook and the files it wrote, and every file the CLI and
the forms export. It is never found, in the clear or encoded (UTF-16, base64, hex).

Also: a redirect to another host never carries the key (the client does not follow redirects,
for GET or POST, whatever the status), and a key that cannot be sent is refused without being
shown. The 0600 config file is tests/unit/test_config.py, tests/integration/test_cli.py and
tests/unit/test_reliability_config.py.
"""

from __future__ import annotations

import base64
import json
import logging
import threading
import traceback
import zipfile
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar

import nbformat
import polars as pl
import pytest
import requests
from nbclient import NotebookClient

from profnet_sheets import Client, ProfnetError, ServiceError, Settings
from profnet_sheets.config import ApiKey
from profnet_sheets.errors import ConfigurationError
from profnet_sheets.sandbox import RunningSandbox, start_sandbox
from profnet_sheets.widgets import EnrichForm
from tests.integration.client.conftest import set_faults
from tests.integration.test_notebooks import FOLDER
from tests.integration.test_reliability_input import Cli

pytestmark = pytest.mark.integration

KEY = "pn-live-SECRET-7d1f93c2a4b6e805"  # what a real key looks like: distinctive, printable
WRONG_KEY = "pn-live-WRONG-0b8e41f7c3d29a66"  # a key the service refuses: as secret


def encodings(secret: str) -> dict[str, bytes]:
    """The ways a secret could be written into a file: in the clear, UTF-16, hex, base64."""
    raw = secret.encode()
    forms = {"utf-8": raw, "utf-16": secret.encode("utf-16-le"), "hex": raw.hex().encode()}
    for shift in range(3):  # base64 of the key at any alignment: the part only it decides
        encoded = base64.b64encode(b"\0" * shift + raw)
        forms[f"base64+{shift}"] = encoded[4 if shift else 0 : -4]
    return forms


SECRETS = {name: encodings(name) for name in (KEY, WRONG_KEY)}


def leaks(data: bytes | str) -> list[str]:
    """Which secret, in which form, `data` holds (an empty list: none)."""
    blob = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data
    found = [
        f"{secret[:12]}... as {form}"
        for secret, forms in SECRETS.items()
        for form, pattern in forms.items()
        if pattern in blob
    ]
    found += [
        f"{secret[:12]}... (any case)"
        for secret in SECRETS
        if secret.lower().encode() in blob.lower()
    ]
    return found


def file_contents(path: Path) -> bytes:
    """A file's bytes; for zips (XLSX), every member too; for Parquet, every value as JSON."""
    data = path.read_bytes()
    if zipfile.is_zipfile(path):
        with zipfile.ZipFile(path) as archive:
            data += b"".join(archive.read(name) for name in archive.namelist())
    if path.suffix == ".parquet":
        data += pl.read_parquet(path).write_ndjson().encode()
    return data


def assert_no_key_in_files(folder: Path) -> list[Path]:
    files = [path for path in folder.rglob("*") if path.is_file()]
    assert files, f"nothing was written under {folder}"
    for path in files:
        assert not leaks(file_contents(path)), (path, leaks(file_contents(path)))
    return files


def assert_no_key_in_error(error: BaseException, *, with_locals: bool = True) -> None:
    """Message, repr, arguments, details, and the traceback with every frame's local variables
    (as rich, Sentry or capture_locals show them), the chained exceptions included."""
    shown = [
        str(error),
        repr(error),
        repr(error.args),
        repr(getattr(error, "details", None)),
        "".join(traceback.format_exception(error)),
    ]
    if with_locals:
        exception = traceback.TracebackException.from_exception(error, capture_locals=True)
        shown.append("".join(exception.format()))
    for text in shown:
        assert not leaks(text), (type(error).__name__, leaks(text), text[-3000:])


@pytest.fixture(scope="module")
def sandbox() -> Iterator[RunningSandbox]:
    with start_sandbox(api_keys=(KEY,), credits=10**9, job_seconds=0.0, seed=13) as running:
        yield running


@pytest.fixture
def calm(sandbox: RunningSandbox) -> Iterator[RunningSandbox]:
    requests.post(f"{sandbox.base_url}/_sandbox/reset", timeout=5).raise_for_status()
    yield sandbox
    set_faults(sandbox, fail_rate=0, throttle_rate=0, drop_rate=0, geocode_timeout_rate=0)


MakeClient = Callable[..., Client]


@pytest.fixture
def make_client(calm: RunningSandbox, tmp_path: Path) -> Iterator[MakeClient]:
    made: list[Client] = []

    def make(key: str = KEY, **options: Any) -> Client:
        options.setdefault("cache", str(tmp_path / "cache"))
        options.setdefault("cache_dir", tmp_path / "cache")
        client = Client(
            api_key=key, base_url=calm.base_url, backoff=0.01, max_backoff=0.02, **options
        )
        made.append(client)
        return client

    yield make
    for client in made:
        client.close()


def use_every_kind_of_call(client: Client) -> list[ProfnetError]:
    """Answers, cache hits, a 404, a POST, a search job with its pages, a failing lookup."""
    errors: list[ProfnetError] = []
    client.get_company_details(domain="stripe.com")
    client.get_company_details(domain="https://www.stripe.com/about")  # a cache hit
    client.search_posts(keyword="secrets")
    job = client.search_leads(title_keywords=["CTO"], limit=5)
    job.wait()
    job.results()
    client.find_geocode_by_location(location="Berlin")
    for failing in (
        lambda: client.get_company_details(domain="gone-sandbox-missing.io"),  # 404, cached
        lambda: client.find_geocode_by_location(location="sandbox-timeout"),  # 500, retried
        lambda: client.get_company_details(domain="not a domain"),  # refused before sending
    ):
        try:
            failing()
        except ProfnetError as error:
            errors.append(error)
    assert len(errors) == 3
    return errors


# -- stored: SQLite cache, ledger, Redis -----------------------------------------------------


def test_no_file_of_the_cache_holds_the_key(make_client: MakeClient, tmp_path: Path) -> None:
    """Extends test_cache.py's check to every kind of call and to every file (WAL, locks)."""
    client = make_client()
    use_every_kind_of_call(client)
    with pytest.raises(ProfnetError):  # a refused key, on the same files
        make_client(WRONG_KEY, retries=0).get_company_details(domain="acme.io")
    files = assert_no_key_in_files(tmp_path / "cache")  # before closing: the WAL is still there
    names = " ".join(path.name for path in files)
    assert "answers.sqlite" in names
    assert "ledger" in names
    assert client.ledger.total() > 0, "the ledger did record the spend"
    client.close()
    assert_no_key_in_files(tmp_path / "cache")


def redis_values(connection: Any, name: bytes) -> bytes:
    """Everything a Redis key holds, whatever its type (read as is: DUMP may compress it)."""
    kind = connection.type(name).decode()
    if kind == "string":
        return bytes(connection.get(name) or b"")
    if kind == "hash":
        return b"".join(k + v for k, v in connection.hgetall(name).items())
    if kind == "list":
        return b"".join(connection.lrange(name, 0, -1))
    if kind == "set":
        return b"".join(connection.smembers(name))
    if kind == "zset":
        return b"".join(connection.zrange(name, 0, -1))
    raise AssertionError(f"a Redis {kind} this test cannot read: {name!r}")


def test_redis_holds_no_byte_of_the_key(make_client: MakeClient, redis_url: str) -> None:
    """Every key name and every value, whatever its type, claims included."""
    import redis

    client = make_client(cache=redis_url)
    use_every_kind_of_call(client)
    connection = redis.Redis.from_url(redis_url)
    names = list(connection.scan_iter(count=1000))
    assert names, "the answers are in Redis"
    for name in names:
        assert not leaks(name), name
        assert not leaks(redis_values(connection, name)), name


# -- shown: logs, stderr, warnings, errors, reprs --------------------------------------------

LOGGERS = ("", "profnet_sheets", "requests", "urllib3", "requests_cache", "http.client")


def test_no_log_line_at_debug_holds_the_key(
    make_client: MakeClient,
    calm: RunningSandbox,
    caplog: pytest.LogCaptureFixture,
    capfd: pytest.CaptureFixture[str],
    recwarn: pytest.WarningsRecorder,
) -> None:
    """Answers, errors, retries after 5xx and 429, dropped connections: every record at DEBUG
    (message, arguments and exception text), stderr and warnings."""
    for name in LOGGERS:
        caplog.set_level(logging.DEBUG, logger=name)
    client = make_client(retries=2)
    use_every_kind_of_call(client)
    for faults in ({"fail_rate": 1.0}, {"throttle_rate": 1.0}, {"drop_rate": 1.0}):
        set_faults(calm, **faults)
        with pytest.raises(ProfnetError):
            client.get_profile_details(profnet_url=f"profnet.com/in/{next(iter(faults))}")
        set_faults(calm, fail_rate=0, throttle_rate=0, drop_rate=0)
    with pytest.raises(ProfnetError):
        make_client(WRONG_KEY).get_company_details(domain="acme.io")
    assert any(record.levelno == logging.DEBUG for record in caplog.records), "DEBUG was on"
    assert any("urllib3" in record.name for record in caplog.records), "urllib3 logged"
    for record in caplog.records:
        text = f"{record.name} {record.getMessage()} {record.args!r} {record.exc_text or ''}"
        assert not leaks(text), (record.name, text)
    captured = capfd.readouterr()
    assert not leaks(captured.out + captured.err)
    assert not leaks(" ".join(str(warning.message) for warning in recwarn))


def test_no_error_shows_the_key_not_even_in_a_traceback_with_locals(
    make_client: MakeClient, calm: RunningSandbox, tmp_path: Path
) -> None:
    """Every kind of failure a call can end in."""
    client = make_client(retries=1)
    errors: list[BaseException] = list(use_every_kind_of_call(client))
    for faults in ({"fail_rate": 1.0}, {"throttle_rate": 1.0}, {"drop_rate": 1.0}):
        set_faults(calm, **faults)
        with pytest.raises(ProfnetError) as caught:
            client.get_profile_details(profnet_url=f"profnet.com/in/{next(iter(faults))}")
        errors.append(caught.value)
        set_faults(calm, fail_rate=0, throttle_rate=0, drop_rate=0)
    attempts: list[Callable[[], object]] = [
        lambda: make_client(WRONG_KEY).get_company_details(domain="acme.io"),  # 401
        lambda: client.with_budget(10).search_leads(title_keywords=["CTO"]),  # over budget
        lambda: client.with_options(offline=True).get_company_details(domain="new.io"),
        lambda: client.attach_search("leads", "no-such-request").status(),
        lambda: Client(
            api_key=KEY, base_url="http://127.0.0.1:9", cache="memory", retries=1, backoff=0.01
        ).get_company_details(domain="acme.io"),  # nothing listens there
    ]
    for attempt in attempts:
        with pytest.raises(ProfnetError) as caught:
            attempt()
        errors.append(caught.value)
    names = {type(error).__name__ for error in errors}
    assert {"Unauthorized", "NotFound", "InvalidParameter", "BudgetExceeded"} <= names, names
    assert {"TransportError", "ServiceError", "RateLimited", "OfflineMiss"} <= names, names
    for error in errors:
        assert_no_key_in_error(error)


def test_a_settings_error_does_not_show_the_key_it_was_loaded_with(tmp_path: Path) -> None:
    """A typo in another setting, the key in the environment: the traceback's locals (the
    environment, the values read) do not hold the key in the clear."""
    environ = {"PROFNET_API_KEY": KEY, "PROFNET_BUDGET": "lots"}
    with pytest.raises(ConfigurationError) as caught:
        Settings.load(config_path=tmp_path / "none.toml", environ=environ)
    del environ
    assert_no_key_in_error(caught.value)


# Keys pasted with what cannot go in a header, built on the fly: no frame of the test holds one.
PASTED: dict[str, Callable[[], str]] = {
    "line break": lambda: KEY[:8] + "\n" + KEY[8:],
    "typographic quote": lambda: KEY + "\u2019",
    "NUL": lambda: KEY[:8] + "\0" + KEY[8:],
    "opening quote": lambda: "\u201c" + KEY,
    "tab": lambda: KEY + "\t" + KEY,
}


@pytest.mark.parametrize("case", sorted(PASTED))
def test_a_key_that_cannot_be_sent_is_refused_without_showing_it(case: str) -> None:
    """Sent as it was, http.client refused it in an error that quoted it in full."""
    with pytest.raises(ConfigurationError, match="copy it again") as caught:
        ApiKey(PASTED[case]())
    assert_no_key_in_error(caught.value)
    with pytest.raises(ConfigurationError, match="copy it again") as caught:
        Client(api_key=PASTED[case](), base_url="http://127.0.0.1:9", cache="memory")
    assert_no_key_in_error(caught.value, with_locals=False)  # see the next test


@pytest.mark.parametrize("where", ["environment", "config file", "beside a broken file"])
def test_a_key_refused_where_it_was_read_shows_in_no_traceback_local(
    tmp_path: Path, where: str
) -> None:
    """A pasted key in PROFNET_API_KEY or in the config file, or a good key in the environment
    while the config file cannot be read: no frame's locals hold the key in the clear."""
    config = tmp_path / "config.toml"
    if where == "config file":
        config.write_text(f'[profnet]\napi_key = "{PASTED["typographic quote"]()}"\n')
    elif where == "beside a broken file":
        config.write_text("api_key = = broken")
    variable = PASTED["typographic quote"] if where == "environment" else lambda: KEY
    with pytest.raises(ConfigurationError) as caught:
        Settings.load(config_path=config, environ={"PROFNET_API_KEY": variable()})
    assert_no_key_in_error(caught.value)


def test_a_client_that_cannot_be_made_shows_no_key_in_a_traceback_with_locals() -> None:
    with pytest.raises(ConfigurationError) as caught:
        Client(api_key=KEY, base_url="ftp://not-http", cache="memory")
    assert_no_key_in_error(caught.value)


def test_reprs_show_a_fingerprint_never_the_key(make_client: MakeClient) -> None:
    client = make_client()
    job = client.search_leads(title_keywords=["CTO"], limit=2)
    settings = client.settings
    shown = [
        repr(client),
        str(client),
        repr(client.with_options(refresh=True)),
        repr(client.with_budget(5)),
        repr(settings),
        str(settings),
        repr(settings.api_key),
        repr(job),
        repr(job.status()),
        repr(client.budget),
        repr(client.cache_info()),
        json.dumps(client.cache_info(), default=str),
    ]
    for text in shown:
        assert not leaks(text), text
    assert settings.api_key is not None
    assert settings.api_key.fingerprint in repr(client), "keys can still be told apart"


# -- written: a notebook, exports ------------------------------------------------------------


@pytest.mark.parametrize("name", ["01_quickstart.ipynb", "02_batch_enrichment.ipynb"])
def test_an_executed_notebook_and_its_files_hold_no_key(
    name: str, calm: RunningSandbox, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The key configured as users do (PROFNET_API_KEY), the notebook run top to bottom."""
    monkeypatch.setenv("PROFNET_API_KEY", KEY)
    monkeypatch.setenv("PROFNET_BASE_URL", calm.base_url)
    monkeypatch.setenv("PROFNET_CACHE_DIR", str(tmp_path / "cache"))
    notebook = nbformat.read(FOLDER / name, as_version=4)
    NotebookClient(
        notebook,
        timeout=120,
        kernel_name="python3",
        resources={"metadata": {"path": str(tmp_path)}},
    ).execute()
    executed = nbformat.writes(notebook)
    assert '"output_type": "error"' not in executed
    assert "ApiKey(fingerprint=" in executed or name != "01_quickstart.ipynb", "the client shown"
    assert not leaks(executed)
    files = assert_no_key_in_files(tmp_path)
    if name == "02_batch_enrichment.ipynb":
        assert any(path.name == "accounts-enriched.xlsx" for path in files)


def test_exported_files_and_cli_output_hold_no_key(
    calm: RunningSandbox, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, make_client: MakeClient
) -> None:
    """CLI enrich to CSV, XLSX and Parquet, a search export, the forms' CSV and XLSX."""
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "out"
    out.mkdir()
    source = tmp_path / "accounts.csv"
    source.write_text("Site\nstripe.com\nacme.io\nnot a domain\n")
    cli = Cli(calm, tmp_path, KEY)
    said = []
    for suffix in (".csv", ".xlsx", ".parquet"):
        result = cli(
            "enrich",
            str(source),
            "--column",
            "Site",
            "--kind",
            "company",
            "--out",
            str(out / f"e{suffix}"),
        )
        assert result.exit_code == 0, result.output
        said.append(result.output)
    result = cli(
        "search", "leads", "--title-keywords", "CTO", "--limit", "5", "--out", str(out / "s.xlsx")
    )
    assert result.exit_code == 0, result.output
    for command in (
        ["credits"],
        ["cache", "info"],
        ["config"],
        ["lookup", "company", "stripe.com"],
    ):
        said.append(cli(*command).output)
    form = EnrichForm(pl.read_csv(source), client=make_client())
    form.column.value = "Site"
    form.run(wait=True)
    assert form.result is not None, form.feedback.error_text
    form.export.name.value = str(out / "form")
    for suffix in (".csv", ".xlsx"):
        form.export.export(suffix)
    assert not leaks("".join(said))
    written = assert_no_key_in_files(out)
    assert {path.suffix for path in written} == {".csv", ".xlsx", ".parquet"}


# -- sent: redirects -------------------------------------------------------------------------


class Recorder(BaseHTTPRequestHandler):
    """Records the headers of each request; answers with `status` and a Location, or JSON."""

    seen: ClassVar[list[dict[str, str]]]
    status: ClassVar[int] = 200
    location: ClassVar[str] = ""

    def do_GET(self) -> None:
        self._answer()

    def do_POST(self) -> None:
        self._answer()

    def _answer(self) -> None:
        type(self).seen.append(dict(self.headers))
        length = int(self.headers.get("Content-Length") or 0)
        self.rfile.read(length)
        if type(self).location:
            self.send_response(type(self).status)
            self.send_header("Location", type(self).location + self.path)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        body = b'{"data": {}}'
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


def serve(handler: type[Recorder]) -> ThreadingHTTPServer:
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True).start()
    return server


@pytest.mark.parametrize("status", [301, 302, 303, 307, 308])
@pytest.mark.parametrize("host", ["localhost", "127.0.0.1"])
def test_a_redirect_to_another_host_never_carries_the_key(status: int, host: str) -> None:
    """test_key_safety.py shows a GET 302; here every redirect status, for GET and POST (307
    and 308 would resend a POST with its body), to another host name and to another port."""

    class Elsewhere(Recorder):
        seen: ClassVar[list[dict[str, str]]] = []

    class Service(Recorder):
        seen: ClassVar[list[dict[str, str]]] = []

    other = serve(Elsewhere)
    Service.status = status
    Service.location = f"http://{host}:{other.server_address[1]}"
    service = serve(Service)
    client = Client(
        api_key=KEY, base_url=f"http://127.0.0.1:{service.server_address[1]}", cache="memory"
    )
    try:
        for call in (
            lambda: client.get_company_details(domain="acme.io"),
            lambda: client.search_posts(keyword="python"),
            lambda: client.find_custom_headcount(profnet_url="profnet.com/company/acme"),
        ):
            with pytest.raises(ServiceError, match="not followed") as caught:
                call()
            assert Service.location in str(caught.value), "the message names where it pointed"
            assert_no_key_in_error(caught.value)
    finally:
        client.close()
        for server in (service, other):
            server.shutdown()
    assert len(Service.seen) == 3, "each call reached the service once, not retried"
    assert all(headers.get("X-SERVICE-API-KEY") == KEY for headers in Service.seen)
    assert Elsewhere.seen == [], "nothing at all reached the other host"
