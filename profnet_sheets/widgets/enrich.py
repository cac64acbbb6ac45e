"""EnrichForm: a file (path or upload) or a DataFrame, a column, a kind; cost; run; download."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import polars as pl

from profnet_sheets.batch import KINDS, kind_named
from profnet_sheets.batch.columns import choose_column as likely_column
from profnet_sheets.batch.columns import key_candidates
from profnet_sheets.batch.frames import as_polars, like_input
from profnet_sheets.batch.io import CSV_SUFFIXES, PARQUET_SUFFIXES, XLSX_SUFFIXES, read_table
from profnet_sheets.batch.workflow import Enrichment
from profnet_sheets.client.client import Client
from profnet_sheets.errors import ProfnetError
from profnet_sheets.spec import endpoint
from profnet_sheets.widgets.base import Form, frame_html, run_enrichment
from profnet_sheets.widgets.controls import FieldControl, classed, make_control
from profnet_sheets.widgets.cost import team_cap_text
from profnet_sheets.widgets.export import ExportPanel
from profnet_sheets.widgets.fields import field_for, param_value
from profnet_sheets.widgets.progress import Bar
from profnet_sheets.widgets.runner import Feedback, Runner, error_message
from profnet_sheets.widgets.tables import message
from profnet_sheets.words import counted

SUFFIXES = sorted(CSV_SUFFIXES | XLSX_SUFFIXES | PARQUET_SUFFIXES)
PREVIEW = ("row (a preview of the input)", "rows (a preview of the input)")


__all__ = ["EnrichForm", "key_candidates", "likely_column"]


class EnrichForm(Form):
    """Enrich a table: load it from a path, an upload or a DataFrame; pick the column and the
    kind; preview the cost; run with progress (Cancel keeps what is done); export."""

    def __init__(self, frame: Any = None, client: Client | None = None) -> None:
        import ipywidgets as w

        self.client = client or Client()
        self.source: pl.DataFrame | None = None
        self.source_path: Path | None = None  # the file it was read from, if read from one
        self.enriched: pl.DataFrame | None = None  # the last run's table, as shown and exported
        self.given: Any = None  # the DataFrame given (`use`), to hand the result back alike
        self.feedback = Feedback()
        self.path = w.Text(
            placeholder="a .csv, .xlsx or .parquet file", layout=w.Layout(width="24em")
        )
        self.load_button = w.Button(description="Load")
        self.upload = w.FileUpload(accept=",".join(SUFFIXES), multiple=False)
        self.loaded = w.HTML()
        self.column = w.Dropdown(options=[], description="Column")
        self.kind = w.Dropdown(
            options=[(f"{name}: {kind.description}", name) for name, kind in KINDS.items()],
            value="company",
            description="Kind",
            layout=w.Layout(width="40em"),
        )
        self.options_box = w.VBox()
        self.options: dict[str, FieldControl] = {}
        self.cost = classed(w.HTML(), "profnet-cost")
        self.preview_button = w.Button(description="Preview cost")
        self.run_button = classed(
            w.Button(description="Enrich", button_style="primary"), "profnet-enrich"
        )
        self.cancel_button = w.Button(description="Cancel", icon="stop")
        self.bar = Bar("enrich")
        self.table = classed(w.HTML(), "profnet-results")
        self.export = ExportPanel(
            "enriched",
            lambda: self.enriched,
            self.feedback,
            kept=lambda: self.source.columns if self.source is not None else (),
            loaded_from=lambda: self.source_path,
        )
        self.runner = Runner(
            self.feedback,
            [self.run_button, self.preview_button, self.load_button],
            self.cancel_button,
            on_idle=self._idle,
        )
        self.load_button.on_click(lambda _: self.feedback.attempt(self.load_path))
        self.upload.observe(lambda _: self.feedback.attempt(self._uploaded), names="value")
        self.kind.observe(lambda _: self._kind_changed(), names="value")
        self.column.observe(lambda _: self._clear_cost(), names="value")
        self.preview_button.on_click(lambda _: self.feedback.attempt(self.preview))
        self.run_button.on_click(lambda _: self.run())
        self.widget = classed(
            w.VBox(
                [
                    w.HTML("<h3>Enrich a table</h3>"),
                    w.HBox([w.Label("File"), self.path, self.load_button, self.upload]),
                    self.loaded,
                    self.column,
                    self.kind,
                    self.options_box,
                    w.HBox([self.preview_button, self.run_button, self.cancel_button]),
                    self.cost,
                    self.bar.widget,
                    self.feedback.status_widget,
                    self.feedback.error_widget,
                    self.table,
                    self.export.widget,
                ]
            ),
            "profnet-form",
            "profnet-enrich-form",
        )
        self._kind_changed()
        if frame is not None:
            self.use(frame, "the DataFrame given")

    # -- the table ------------------------------------------------------------------------------

    def use(self, frame: Any, name: str = "the DataFrame") -> None:
        """Enrich this table (a polars or pandas DataFrame)."""
        data = as_polars(frame)
        source = data.collect() if isinstance(data, pl.LazyFrame) else data
        self.source, self.enriched, self.source_path = source, None, None
        self.given = frame
        self.loaded.value = message(
            f"{name}: {counted(source.height, 'row')}, {counted(source.width, 'column')}."
        )
        self.column.options = list(source.columns)
        self.column.value = likely_column(source, self.kind.value, self.client.profile)
        self.table.value = frame_html(source.head(20), PREVIEW)
        self.export.enable(False)
        self._clear_cost()

    def load_path(self) -> None:
        """Read the file named in the path field."""
        path = Path(self.path.value.strip()).expanduser()
        self.use(read_table(path), path.name)
        self.source_path = path

    @property
    def result(self) -> Any:
        """The enriched table (None before a run), as the table was given: a pandas
        DataFrame for a pandas one (its index and dtypes kept, the new columns beside), else
        polars."""
        if self.enriched is None or self.source is None:
            return self.enriched
        added = [name for name in self.enriched.columns if name not in self.source.columns]
        return like_input(self.given, self.enriched, added)

    def _uploaded(self) -> None:
        files = self.upload.value
        if not files:
            return
        upload = files[0]
        name = Path(str(upload["name"])).name
        with tempfile.TemporaryDirectory(prefix="profnet-upload-") as folder:
            path = Path(folder) / name
            path.write_bytes(bytes(upload["content"]))
            self.use(read_table(path), name)

    # -- kind, options, cost --------------------------------------------------------------------

    def _kind_changed(self) -> None:
        if self.source is not None:
            self.column.value = likely_column(self.source, self.kind.value, self.client.profile)
        kind = kind_named(self.kind.value)
        ep = endpoint(kind.endpoint)
        self.options = {name: make_control(field_for(ep.param(name))) for name in kind.options}
        self.options_box.children = [control.widget for control in self.options.values()]
        self._clear_cost()

    def option_values(self) -> dict[str, Any]:
        values = {name: param_value(c.spec, c.get()) for name, c in self.options.items()}
        return {name: value for name, value in values.items() if value is not None}

    def _idle(self) -> None:
        self.export.enable(self.enriched is not None)
        self._enable_paid()

    def _enable_paid(self) -> None:
        """Preview and Enrich only once a table is loaded and its key column chosen."""
        ready = self.source is not None and bool(self.column.value) and not self.runner.running
        self.preview_button.disabled = self.run_button.disabled = not ready

    def _clear_cost(self) -> None:
        """The cost line for the column and kind now chosen: the preview at once (it asks the
        cache only: nothing is paid), so the choice and its price are seen before any Enrich.
        No column chosen (none is guessed: no header names the kind's keys): it asks for one."""
        self._enable_paid()
        if self.source is None:
            self.cost.value = message("Load a table to see what enriching it will cost.")
            return
        if not self.column.value:
            kind = kind_named(self.kind.value)
            self.cost.value = message(
                f"Choose a column: no header names {kind.name} keys ({kind.description}) and "
                "no column holds them for certain. Nothing is sent until you choose one."
            )
            return
        try:
            self.preview()
        except (ProfnetError, ValueError) as error:  # said here; an error once Enrich is pressed
            self.cost.value = message(f"Not ready to enrich: {error_message(error)}")

    def _ready(self) -> pl.DataFrame:
        if self.source is None:
            raise ValueError("Load a table first: a file path, an upload, or EnrichForm(frame).")
        if not self.column.value:
            raise ValueError("Choose the column that holds the keys.")
        return self.source

    def preview(self) -> None:
        """Show what enriching will cost, and the first keys as asked (asks the cache; nothing
        is paid)."""
        job = Enrichment(
            self.client,
            self._ready(),
            self.column.value,
            self.kind.value,
            options=self.option_values(),
        )
        keys = f"{job.plan.kind.name} keys from {self.column.value!r}"
        self.cost.value = message(f"{keys}: {job.preview()}.{team_cap_text(job.quote)}")

    # -- the run --------------------------------------------------------------------------------

    def run(self, *, wait: bool = False) -> bool:
        """Enrich in the background (what the Enrich button does); `wait`: until it ends."""
        return self.start(self._run, wait=wait)

    def _run(self) -> None:
        source = self._ready()
        try:
            self.enriched = run_enrichment(
                self.client,
                source,
                self.column.value,
                self.kind.value,
                runner=self.runner,
                bar=self.bar,
                feedback=self.feedback,
                options=self.option_values(),
            )
        finally:  # what is cached now, and what the limits leave, are not what they were
            self._clear_cost()
        self.table.value = frame_html(self.enriched, ("row", "rows"))
