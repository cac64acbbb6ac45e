"""The notebooks run top to bottom on the embedded sandbox, and are committed without outputs."""

from __future__ import annotations

import json
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

pytestmark = pytest.mark.integration

FOLDER = Path(__file__).resolve().parents[2] / "notebooks"
NOTEBOOKS = (
    "01_quickstart.ipynb",
    "02_batch_enrichment.ipynb",
    "03_lead_search.ipynb",
    "04_company_search.ipynb",
)
# Something each notebook must show when it ran as a user runs it.
SHOWS = {
    "01_quickstart.ipynb": " ms, 0 credits",
    "02_batch_enrichment.ipynb": "0 credits",
    "03_lead_search.ipynb": "request id",
    "04_company_search.ipynb": "companies from search",
}

# Notebooks whose last cell shows what was spent.
SPEND_SHOWN = ("03_lead_search.ipynb",)


def test_the_four_notebooks_are_there_and_no_other() -> None:
    assert sorted(path.name for path in FOLDER.glob("*.ipynb")) == list(NOTEBOOKS)


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_committed_without_outputs(name: str) -> None:
    notebook = nbformat.read(FOLDER / name, as_version=4)
    nbformat.validate(notebook)
    for cell in notebook.cells:
        if cell.cell_type == "code":
            assert cell.outputs == [], f"{name}: a cell has outputs; clear them before committing"
            assert cell.execution_count is None, f"{name}: clear the execution counts"
    assert "widgets" not in notebook.metadata, f"{name}: saved widget state; clear it"


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_runs_top_to_bottom_on_the_embedded_sandbox(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A cache and an embedded sandbox of its own (tests/conftest.py cleared every PROFNET_*
    # setting, so the kernel, which inherits this environment, uses the embedded sandbox).
    monkeypatch.setenv("PROFNET_CACHE_DIR", str(tmp_path / "cache"))
    notebook = nbformat.read(FOLDER / name, as_version=4)
    NotebookClient(
        notebook,
        timeout=120,  # per cell; a search on the embedded sandbox takes seconds
        kernel_name="python3",
        resources={"metadata": {"path": str(tmp_path)}},  # files it writes go there
    ).execute()
    shown = json.dumps([cell.get("outputs", []) for cell in notebook.cells])
    assert '"output_type": "error"' not in shown
    assert SHOWS[name] in shown, f"{name} did not show {SHOWS[name]!r}"
    assert "%/s" not in shown, f"{name}: a progress bar shows a rate of percents per second"
    assert "Spend(" not in shown, f"{name}: the spend shown as Python reprs"
    if name in SPEND_SHOWN:  # its last cell: what was spent, as a table
        last = notebook.cells[-1].outputs[-1]["data"]
        assert "<table>" in last["text/html"]
        assert "search-leads" in last["text/plain"]
        assert "credits" in last["text/plain"]


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_says_it_runs_on_the_sandbox_with_synthetic_data(name: str) -> None:
    notebook = nbformat.read(FOLDER / name, as_version=4)
    said = " ".join(cell.source for cell in notebook.cells if cell.cell_type == "markdown")
    assert "embedded sandbox" in said, name
    assert "synthetic data" in said, name


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_on_the_real_service_no_notebook_spends_when_it_loads(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Voila runs every cell when a page loads: on a service that is not the embedded sandbox
    (here a sandbox playing the real one), running the notebook top to bottom costs nothing."""
    from profnet_sheets.sandbox import start_sandbox

    with start_sandbox(api_keys=("real-key",), job_seconds=0.0) as service:
        monkeypatch.setenv("PROFNET_CACHE_DIR", str(tmp_path / "cache"))
        monkeypatch.setenv("PROFNET_API_KEY", "real-key")
        monkeypatch.setenv("PROFNET_BASE_URL", service.base_url)
        notebook = nbformat.read(FOLDER / name, as_version=4)
        NotebookClient(
            notebook,
            timeout=120,
            kernel_name="python3",
            resources={"metadata": {"path": str(tmp_path)}},
        ).execute()
        usage = service.usage("real-key")
    shown = json.dumps([cell.get("outputs", []) for cell in notebook.cells])
    assert '"output_type": "error"' not in shown
    if name in ("03_lead_search.ipynb", "04_company_search.ipynb"):
        assert usage["credits_charged"] == 0, f"{name} spent on load: {usage['calls']}"
