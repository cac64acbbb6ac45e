"""Export buttons: CSV or XLSX written through batch.io (the service's text escaped), plus a
browser download."""

from __future__ import annotations

import html
from collections.abc import Callable, Collection
from pathlib import Path
from typing import Any

import polars as pl

from profnet_sheets.batch.io import write_table
from profnet_sheets.widgets.runner import Feedback
from profnet_sheets.widgets.tables import download_link, export_path

FORMATS = (("CSV", ".csv"), ("XLSX", ".xlsx"))


class ExportPanel:
    """`Export to [name] [CSV] [XLSX]`: writes the table to that path (the strings the service
    returned escaped against formula injection; the columns `kept` names, the user's own, as
    they came) and offers the written file as a download."""

    def __init__(
        self,
        default_name: str,
        source: Callable[[], pl.DataFrame | None],
        feedback: Feedback,
        kept: Callable[[], Collection[str]] = lambda: (),
        loaded_from: Callable[[], Path | None] = lambda: None,
    ) -> None:
        import ipywidgets as w

        self.source = source
        self.kept = kept
        self.loaded_from = loaded_from  # the file the table was read from: never written over
        self.name = w.Text(value=default_name, layout=w.Layout(width="20em"))
        self.buttons: dict[str, Any] = {}
        for label, suffix in FORMATS:
            button = w.Button(description=label, icon="download", disabled=True)
            button.add_class(f"profnet-export-{label.lower()}")
            button.on_click(lambda _, suffix=suffix: feedback.attempt(lambda: self.export(suffix)))
            self.buttons[suffix] = button
        self.link = w.HTML()
        self.last_path: Path | None = None
        self.widget: Any = w.VBox(
            [w.HBox([w.Label("Export to"), self.name, *self.buttons.values()]), self.link]
        )
        self.widget.add_class("profnet-export")

    def enable(self, ready: bool) -> None:
        for button in self.buttons.values():
            button.disabled = not ready

    def forget(self) -> None:
        """Drop the last download link: the table changed, so export it again."""
        self.link.value = ""

    def export(self, suffix: str) -> Path:
        """Write the table to the name typed, with `suffix` (.csv or .xlsx); the path written."""
        frame = self.source()
        if frame is None:
            raise ValueError("Nothing to export yet.")
        target = export_path(self.name.value, suffix)
        loaded = self.loaded_from()
        if loaded is not None and target.resolve() == loaded.resolve():
            raise ValueError(
                f"{target.name} is the file the table was loaded from (its other sheets and "
                f"formatting would be lost): export under another name, such as "
                f"{target.stem}-enriched."
            )
        path = write_table(frame, target, kept=self.kept()).resolve()
        self.last_path = path
        self.link.value = (
            f"Saved {frame.height:,} rows to <code>{html.escape(str(path))}</code> · "
            + download_link(path.read_bytes(), path.name)
        )
        return path
