"""How a run that met the end of the account's credits and then a Cancel (or Ctrl-C) ends:
out of credits, said first, since running again needs a top-up (decision 539)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import polars as pl
import pytest

from profnet_sheets import Client
from profnet_sheets.batch import workflow
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


def test_a_ctrl_c_while_the_file_is_written_after_the_credits_ran_out_ends_as_out_of_credits(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A review of decision 539: a Ctrl-C while the output was written made a run that had
    run out of credits `interrupted` (its advice: run again to finish). The write goes on;
    the ending stays what ended the run."""
    source = tmp_path / "sites.csv"
    source.write_text("site\n" + "".join(f"written{n}.io\n" for n in range(6)))
    stopped: list[str] = []
    for name in ("write_table", "sink_table"):  # a table in memory, or streamed
        real = getattr(workflow, name)

        def ctrl_c_once(*args: Any, _real: Any = real, **kwargs: Any) -> Path:
            if not stopped:
                stopped.append("Ctrl-C")
                raise KeyboardInterrupt
            return _real(*args, **kwargs)

        monkeypatch.setattr(workflow, name, ctrl_c_once)
    with start_sandbox(api_keys=(KEY,), credits=2, seed=3) as sandbox:
        client = Client(api_key=KEY, base_url=sandbox.base_url, cache=str(tmp_path), concurrency=1)
        with client:
            done = workflow.enrich_file(client, source, tmp_path / "out.csv", "company")
        assert sandbox.charged(KEY) == 2
    assert stopped, "the Ctrl-C came while writing"
    assert done is not None
    assert done.outcome.ending == "credits"
    assert done.outcome.exit_code == workflow.EXIT_NO_CREDITS
    assert (tmp_path / "out.csv").read_text().count("\n") == 7, "every row written"
