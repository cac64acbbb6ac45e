"""SetupCheck: the free setup check (`uv run profnet-sheets check`) behind a button."""

from __future__ import annotations

import html

from profnet_sheets.client.client import Client
from profnet_sheets.config import Settings
from profnet_sheets.setup_check import CheckReport, check_setup
from profnet_sheets.widgets.base import Form
from profnet_sheets.widgets.controls import classed
from profnet_sheets.widgets.runner import Feedback, Runner


class SetupCheck(Form):
    """Press Check connection: is the service reachable, does it take the key, which profile
    and prices are used. It spends nothing (a search's status is free)."""

    def __init__(self, client: Client | None = None, *, settings: Settings | None = None) -> None:
        import ipywidgets as w

        self.settings = settings or (client.settings if client is not None else Settings.load())
        self.report: CheckReport | None = None
        self.feedback = Feedback()
        self.button = classed(
            w.Button(description="Check connection", button_style="primary", icon="plug"),
            "profnet-check",
        )
        self.result = classed(w.HTML(), "profnet-check-report")
        self.runner = Runner(self.feedback, [self.button])
        self.button.on_click(lambda _: self.check())
        self.widget = classed(
            w.VBox(
                [
                    w.HTML("<h3>Setup check (free)</h3>"),
                    self.button,
                    self.feedback.status_widget,
                    self.feedback.error_widget,
                    self.result,
                ]
            ),
            "profnet-form",
            "profnet-check-form",
        )

    def check(self, *, wait: bool = False) -> bool:
        """Check the setup in the background; `wait`: until the report is shown."""
        return self.start(self._check, wait=wait)

    def _check(self) -> None:
        self.feedback.status("Checking…")
        report = check_setup(self.settings)
        self.report = report
        self.result.value = f"<pre>{html.escape(chr(10).join(report.lines()))}</pre>"
        if report.ok:
            self.feedback.status("Ready: the service answers and takes the key.", "success")
        else:
            self.feedback.status("")
            self.feedback.error(f"Not ready: {report.problem}")
