"""The enrich form against a service that cannot be reached: one message, not a row error each."""

from __future__ import annotations

import socket
from pathlib import Path

import polars as pl
import pytest

from profnet_sheets import Client
from profnet_sheets.widgets import EnrichForm

pytestmark = pytest.mark.integration


def test_an_unreachable_service_is_one_message(tmp_path: Path) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{sock.getsockname()[1]}"
    source = tmp_path / "accounts.csv"
    pl.DataFrame({"website": [f"co{i}.io" for i in range(300)]}).write_csv(source)
    with Client(
        api_key="k", base_url=url, cache=str(tmp_path), cache_dir=tmp_path, backoff=0.01
    ) as client:
        form = EnrichForm(client=client)
        form.path.value = str(source)
        form.load_button.click()
        form.column.value = "website"
        form.run_button.click()
        form.join(60)
    assert form.feedback.error_text == (
        f"Service unreachable: the service at {url} could not be reached (no connection "
        "attempt got through): 300 rows not done. Check the network and the base URL "
        "with `uv run profnet-sheets check`, then run again; nothing was lost. Spent 0 credits."
    )
    assert form.bar.style == "danger"
