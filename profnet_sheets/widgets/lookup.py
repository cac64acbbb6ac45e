"""LookupForm: one value of one kind (a domain, a profile URL, a place...) looked up."""

from __future__ import annotations

from typing import Any

from profnet_sheets.batch import KINDS, kind_named
from profnet_sheets.client.client import Client
from profnet_sheets.client.spend import PlannedCall
from profnet_sheets.errors import ProfnetError
from profnet_sheets.widgets.base import Form
from profnet_sheets.widgets.controls import classed
from profnet_sheets.widgets.cost import lookup_cost_text
from profnet_sheets.widgets.runner import Feedback, Runner, error_message
from profnet_sheets.widgets.spend import for_one_action
from profnet_sheets.widgets.tables import answer_html, message
from profnet_sheets.words import spend_said


def lookup_params(client: Client, kind_name: str, value: str) -> tuple[str, dict[str, Any]]:
    """The endpoint and the parameters that look `value` up as `kind_name` (checked as the
    client's service reads them)."""
    kind = kind_named(kind_name)
    if not value.strip():
        raise ValueError(f"Type a value to look up ({kind.description}).")
    return kind.endpoint, client.prepare(kind.endpoint, kind.call({kind.inputs[0]: value}, {}))


class LookupForm(Form):
    """Look one value up: choose the kind, type the value, see the cost, press Look up."""

    def __init__(self, client: Client | None = None) -> None:
        import ipywidgets as w

        self.client = client or Client()
        self.answer: Any = None
        self.feedback = Feedback()
        self.kind = w.Dropdown(
            options=[(f"{name}: {kind.description}", name) for name, kind in KINDS.items()],
            value="company",
            description="Kind",
            layout=w.Layout(width="40em"),
        )
        self.value = classed(
            w.Text(description="Value", layout=w.Layout(width="40em")), "profnet-lookup-value"
        )
        self.cost = classed(w.HTML(), "profnet-cost")
        self.button = classed(
            w.Button(description="Look up", button_style="primary"), "profnet-lookup"
        )
        self.result = classed(w.HTML(), "profnet-results")
        self.runner = Runner(self.feedback, [self.button])
        self.button.on_click(lambda _: self.lookup())
        for widget in (self.kind, self.value):
            widget.observe(lambda _: self.update_cost(), names="value")
        self.widget = classed(
            w.VBox(
                [
                    w.HTML("<h3>Look up</h3>"),
                    self.kind,
                    self.value,
                    self.cost,
                    self.button,
                    self.feedback.status_widget,
                    self.feedback.error_widget,
                    self.result,
                ]
            ),
            "profnet-form",
            "profnet-lookup-form",
        )
        self.update_cost()

    def update_cost(self) -> None:
        """Refresh the cost line (asks the cache only)."""
        try:
            name, params = lookup_params(self.client, self.kind.value, self.value.value)
            text = lookup_cost_text(self.client.estimate([PlannedCall(name, params)]))
        except (ProfnetError, ValueError) as error:
            text = error_message(error)
        self.cost.value = message(text)

    def lookup(self, *, wait: bool = False) -> bool:
        """Look the value up in the background; `wait`: until the answer is shown."""
        return self.start(self._lookup, wait=wait)

    def _lookup(self) -> None:
        name, params = lookup_params(self.client, self.kind.value, self.value.value)
        client, spend = for_one_action(self.client)
        self.feedback.status("Looking up…")
        self.answer = client.call(name, params)
        self.result.value = answer_html(self.answer)
        self.feedback.status(
            f"{name}: spent {spend_said(spend.spent, spend.uncertain)}.", "success"
        )
        self.update_cost()
