"""Faults: a 10,000-row enrichment against a failing service loses nothing and pays once per key.

The sandbox answers 10% of calls with 500 or 503, 5% with 429 and a Retry-After, cuts 2% of
connections mid-answer and makes 2% of answers slow. Every figure is printed (`pytest -s`) and
recorded in docs/reliability.md.

Why the credit equation is exact here: the sandbox decides an injected 500, 503 or 429 before
doing the work (and charges nothing for it), and cuts a dropped connection before the work too.
So a retried fault never costs a credit, and the credits charged must equal the unique keys
answered, exactly. A lost answer (the work done, the answer not received) is the one fault that
costs: `test_lost_answers_cost_no_more_than_the_ledger_flags_uncertain` bounds it.
"""

from __future__ import annotations

import random
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polars as pl
import pytest
import requests

from profnet_sheets import Client, ServiceError, TransportError
from profnet_sheets.batch import enrich
from profnet_sheets.sandbox import RunningSandbox, start_sandbox
from tests.integration.client.conftest import set_faults

pytestmark = pytest.mark.integration
KEY = "reliability-faults-key"
ROWS = 10_000
UNIQUE = 2_000
UNKNOWN = 20  # domains the service does not know: 404, an error on the row, no charge
CONCURRENCY = 16
FAULTS = {
    "fail_rate": 0.10,  # half 500, half 503
    "throttle_rate": 0.05,  # 429 with Retry-After
    "retry_after": 1,
    "drop_rate": 0.02,  # the connection is cut mid-answer
    "latency_ms": 2,
    "latency_jitter_ms": 8,
    "spike_rate": 0.02,
    "spike_ms": 400,  # slow, but well within the client's timeout: nothing is lost
}
SPIKE_SECONDS = 0.3  # an answer slower than this met a spike
# The client's patience, lowered so the run takes seconds: Retry-After (1 s) is honoured in full.
CLIENT_OPTIONS = {"retries": 4, "backoff": 0.05, "max_backoff": 0.5, "retry_after_cap": 1.0}


@pytest.fixture(scope="module")
def sandbox() -> Iterator[RunningSandbox]:
    with start_sandbox(api_keys=(KEY,), credits=10_000_000, seed=7) as running:
        yield running


@pytest.fixture
def fresh(sandbox: RunningSandbox) -> Iterator[RunningSandbox]:
    requests.post(f"{sandbox.base_url}/_sandbox/reset", timeout=5).raise_for_status()
    yield sandbox
    set_faults(sandbox, **{**dict.fromkeys(FAULTS, 0), "retry_after": 1})


@pytest.fixture
def make_client(fresh: RunningSandbox, tmp_path: Path) -> Iterator[Callable[..., Client]]:
    made: list[Client] = []

    def make(**options: Any) -> Client:
        client = Client(
            api_key=KEY,
            base_url=fresh.base_url,
            cache=str(tmp_path / "cache"),
            cache_dir=tmp_path / "cache",
            concurrency=CONCURRENCY,
            **{**CLIENT_OPTIONS, **options},
        )
        made.append(client)
        return client

    yield make
    for client in made:
        client.close()


# -- the input: messy, duplicated, with blanks, garbage and unknown companies ---------------------


@dataclass(frozen=True)
class Cell:
    """One input cell and what the row must end with."""

    value: str | None
    company: int | None = None  # acct{company}.io: the row must hold that company
    outcome: str = "data"  # data | not found | invalid | blank


def variants(domain: str) -> list[str]:
    """Ways people write one company's domain in a spreadsheet (all one lookup)."""
    return [
        domain,
        f"https://www.{domain}/about",
        domain.upper(),
        f"  {domain} ",
        f"http://{domain}/?utm_source=crm",
        f"jane.doe@{domain}",
        f"www.{domain}.",
    ]


GARBAGE = ["not a domain", "jane@gmail.com", "localhost", "192.168.0.1", "#VALUE!", "acme"]


def messy_cells(seed: int = 0) -> list[Cell]:
    """ROWS cells: every one of UNIQUE companies at least once in some spelling, then random
    repeats, UNKNOWN unknown domains, garbage and blanks, shuffled."""
    rng = random.Random(seed)
    cells = [Cell(rng.choice(variants(f"acct{i}.io")), i) for i in range(UNIQUE)]
    cells += [
        Cell(rng.choice(variants(f"gone{i % UNKNOWN}-sandbox-missing.io")), None, "not found")
        for i in range(100)
    ]
    cells += [Cell(rng.choice(GARBAGE), None, "invalid") for _ in range(100)]
    cells += [Cell(rng.choice([None, "", "n/a", "#N/A", "-"]), None, "blank") for _ in range(100)]
    while len(cells) < ROWS:
        company = rng.randrange(UNIQUE)
        cells.append(Cell(rng.choice(variants(f"acct{company}.io")), company))
    rng.shuffle(cells)
    return cells


def profnet_url(company: int) -> str:
    return f"https://www.profnet.com/company/acct{company}-io/"


# -- what the client saw on the wire ---------------------------------------------------------------


@dataclass
class Wire:
    """Every attempt the client made, by outcome, and every wait before a retry."""

    outcomes: Counter[str] = field(default_factory=Counter)
    slow: int = 0
    waits: list[float] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def attempts(self) -> int:
        return sum(self.outcomes.values())


def watch(client: Client) -> Wire:
    """Count the client's attempts and retries (the real calls still happen, unchanged)."""
    transport = client._shared.transport
    wire = Wire()
    send, sleep = transport._request, transport.sleep

    def attempt(*args: Any, **kwargs: Any) -> requests.Response:
        started = time.perf_counter()
        try:
            response = send(*args, **kwargs)
        except requests.RequestException as error:
            with wire.lock:
                wire.outcomes[type(error).__name__] += 1
            raise
        with wire.lock:
            wire.outcomes[str(response.status_code)] += 1
            wire.slow += time.perf_counter() - started > SPIKE_SECONDS
        return response

    def wait(seconds: float) -> None:
        with wire.lock:
            wire.waits.append(seconds)
        sleep(seconds)

    transport._request = attempt  # type: ignore[method-assign]
    transport.sleep = wait
    return wire


# -- the tests -------------------------------------------------------------------------------------


def test_ten_thousand_rows_through_faults_lose_nothing_and_pay_once_per_key(
    make_client: Callable[..., Client], fresh: RunningSandbox
) -> None:
    """Proves: the run finishes; row count, order and the input column are unchanged; every
    row holds its own company's data or an error (a blank cell neither); rows of one key agree;
    the server charged exactly one credit per unique key answered (faults cost nothing, nothing
    was fetched twice); the ledger's sure spend equals the server's charge."""
    cells = messy_cells()
    frame = pl.DataFrame(
        {"row": range(ROWS), "site": [cell.value for cell in cells]},
        schema={"row": pl.Int64, "site": pl.String},
    )
    client = make_client()
    wire = watch(client)
    set_faults(fresh, **FAULTS)
    started = time.perf_counter()
    out = enrich(frame, "site", "company", client=client, concurrency=CONCURRENCY, progress=False)
    elapsed = time.perf_counter() - started

    assert out.height == ROWS, "no row lost or added"
    assert out["row"].to_list() == list(range(ROWS)), "rows in their input order"
    assert out["site"].to_list() == frame["site"].to_list(), "the input column unchanged"
    urls, errors = out["company_profnet_url"].to_list(), out["company_error"].to_list()
    answered: set[int] = set()
    failed: dict[int, str] = {}
    for cell, url, error in zip(cells, urls, errors, strict=True):
        if cell.outcome == "blank":
            assert (url, error) == (None, None), "a blank cell has nothing to look up"
        elif cell.outcome == "not found":
            assert (url, error) == (None, "not found"), cell
        elif cell.outcome == "invalid":
            assert url is None, cell
            assert error.startswith("invalid input:"), (cell, error)
        elif url is not None:
            assert cell.company is not None
            assert url == profnet_url(cell.company), "each row holds its own company"
            assert error is None
            answered.add(cell.company)
        else:  # still failing after every retry: said on the row, never silently empty
            assert cell.company is not None
            assert error is not None, cell
            assert error.startswith("service error:"), error
            failed[cell.company] = error
    assert not answered & failed.keys(), "every row of one key has the same outcome"
    assert len(answered) + len(failed) == UNIQUE

    server = fresh.usage(KEY)
    lookups = server["calls"]["get-company-details"]
    status = wire.outcomes
    drops = wire.attempts - lookups["calls"]  # cut before the server's work: it never saw them
    retries = len(wire.waits)
    figures = {
        "rows": ROWS,
        "unique keys": UNIQUE + UNKNOWN,
        "answered": len(answered),
        "failed after retries": len(failed),
        "not found (404)": status["404"],
        "attempts": wire.attempts,
        "500": status["500"],
        "503": status["503"],
        "429": status["429"],
        "dropped": drops,
        "slow (spikes)": wire.slow,
        "retries": retries,
        "retry waits s": round(sum(wire.waits), 1),
        "server calls": lookups["calls"],
        "server errors": lookups["errors"],
        "credits charged": server["credits_charged"],
        "ledger sure": client.ledger.total(),
        "ledger uncertain": client.ledger.total(uncertain=True),
        "seconds": round(elapsed, 1),
    }
    print("\nfaults run:", figures)

    assert min(status["500"], status["503"], status["429"], drops, wire.slow) > 0, "faults hit"
    assert drops == sum(n for name, n in status.items() if not name.isdigit()), "cut mid-answer"
    assert lookups["errors"] == status["500"] + status["503"] + status["429"] + status["404"]
    assert status["404"] == UNKNOWN, "an unknown domain is asked once, its 404 kept"
    assert retries == wire.attempts - (UNIQUE + UNKNOWN), "every extra attempt was a retry"
    assert server["credits_charged"] == len(answered), "one credit per unique key answered"
    assert lookups["credits"] == lookups["calls"] - lookups["errors"], "no call paid twice"
    assert client.ledger.total() == server["credits_charged"], "the ledger agrees with the server"
    # A dropped answer and a 500 may each have been done by a real service: both are flagged
    # (this sandbox charges neither, so the sure total above is exact).
    assert client.ledger.total(uncertain=True) == drops + status["500"], "maybe-charged flagged"


def test_lost_answers_cost_no_more_than_the_ledger_flags_uncertain(
    make_client: Callable[..., Client], fresh: RunningSandbox
) -> None:
    """Proves the bound when the service did the work but the answer never came (a timeout):
    a one-credit lookup is retried, so the server may charge more than the unique keys, but
    never more than the ledger's sure spend plus what it flags as uncertain."""
    unique = 300
    frame = pl.DataFrame({"site": [f"slow{i % unique}.io" for i in range(3 * unique)]})
    client = make_client(timeout=0.2)
    set_faults(fresh, latency_ms=2, spike_rate=0.05, spike_ms=500)
    out = enrich(frame, "site", "company", client=client, concurrency=CONCURRENCY, progress=False)
    answered = out.filter(pl.col("company_error").is_null())["site"].n_unique()
    charged = fresh.charged(KEY)
    sure, uncertain = client.ledger.total(), client.ledger.total(uncertain=True)
    print(f"\nlost answers: {answered} answered, {charged} charged, {sure} sure + {uncertain} ?")

    assert out.height == 3 * unique
    assert sure == answered, "the ledger's sure spend is one per key answered"
    assert charged > answered, "timed-out lookups were done (and charged) by the service"
    assert charged <= sure + uncertain, "every extra credit is flagged uncertain in the ledger"


# -- what may have been charged is counted, attempt by attempt ------------------------------------


def test_every_lost_attempt_of_a_lookup_that_never_answers_is_counted(
    make_client: Callable[..., Client], fresh: RunningSandbox
) -> None:
    """Three attempts that each time out were each done (and charged) by the service: the
    ledger must flag three uncertain credits and the budget settle on three, not one."""
    set_faults(fresh, latency_ms=300)
    client = make_client(timeout=0.1, retries=2)
    with pytest.raises(TransportError):
        client.get_company_details(domain="never-answers.io")
    time.sleep(0.4)  # every abandoned attempt has reached the sandbox (it charges on arrival)
    assert fresh.charged(KEY) == 3
    assert client.ledger.total(uncertain=True) == 3
    assert client.budget.spent == 3


def test_a_dear_call_ended_by_a_500_is_counted_as_maybe_charged(
    make_client: Callable[..., Client], fresh: RunningSandbox
) -> None:
    """After a 500 a search is not repeated because the service may have done (and charged)
    it, as its error says; by the same rule the ledger must flag its price as uncertain and the
    budget settle on it."""
    set_faults(fresh, fail_rate=1.0)  # 500 or 503; 503s are retried until a 500 ends it
    client = make_client(retries=12, budget=1_000)
    with pytest.raises(ServiceError, match="may have done, and charged") as caught:
        client.search_leads(keywords="maybe charged", limit=5)
    assert caught.value.status == 500
    assert client.ledger.total(uncertain=True) == 50
    assert client.budget.spent == 50


def test_retries_that_may_be_charged_stay_within_the_budget(
    make_client: Callable[..., Client], fresh: RunningSandbox
) -> None:
    """A one-credit lookup is retried after a 500 (it may have been done): each such retry
    must fit in the budget first, so that the budget is never passed, even by one call."""
    set_faults(fresh, fail_rate=1.0)  # every attempt fails with a 500 or a 503
    client = make_client(retries=8, budget=3)
    with pytest.raises((ServiceError, TransportError)):
        client.get_company_details(domain="always-failing.io")
    assert client.budget.spent <= 3
    assert client.budget.reserved == 0
