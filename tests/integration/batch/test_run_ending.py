"""How a run that met the end of the account's credits and then a Cancel (or Ctrl-C) ends:
out of credits, said first, since running again needs a top-up (decision 539)."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from profnet_sheets import Client
from profnet_sheets.batch.workflow import Enrichment
from profnet_sheets.sandbox import start_sandbox

pytestmark = pytest.mark.integration
KEY = "ending-key"


def test_a_cancel_after_the_credits_ran_out_ends_as_out_of_credits(tmp_path: Path) -> None:
    """A new user's review: a form cancelled after the account ran out said `Cancelled: ...
    enrich again to finish, the done ones are free` with no error: the account was empty."""
    frame = pl.DataFrame({"site": [f"empty{n}.io" for n in range(12)]})
    with start_sandbox(api_keys=(KEY,), credits=3, seed=3) as sandbox:
        client = Client(api_key=KEY, base_url=sandbox.base_url, cache=str(tmp_path), concurrency=1)
        with client:

            def cancel_once_out(done: int, total: int) -> None:
                if client.out_of_credits:
                    raise KeyboardInterrupt  # what a form's Cancel does

            _, outcome = Enrichment(client, frame, "site", "company").run(progress=cancel_once_out)
        assert sandbox.charged(KEY) == 3
    assert outcome.ending == "credits"
    advice = outcome.advice() or ""
    assert "credits" in advice.lower(), advice
    assert "free" not in advice or "top up" in advice.lower(), advice
