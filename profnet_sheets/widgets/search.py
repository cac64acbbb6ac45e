"""LeadSearchForm and CompanySearchForm: filters from the spec, cost, search, table, export."""

from __future__ import annotations

import html
from typing import Any, ClassVar

import polars as pl

from profnet_sheets.batch import kind_named
from profnet_sheets.client.client import Client
from profnet_sheets.client.jobs import SearchJob
from profnet_sheets.errors import ProfnetError
from profnet_sheets.searches.workflow import Search
from profnet_sheets.spec import endpoint, search_endpoint
from profnet_sheets.spec.endpoints import SearchKind
from profnet_sheets.widgets.base import Form, frame_html, run_enrichment
from profnet_sheets.widgets.controls import FieldControl, classed, make_control
from profnet_sheets.widgets.cost import search_cost_text
from profnet_sheets.widgets.export import ExportPanel
from profnet_sheets.widgets.fields import (
    MODES,
    FieldSpec,
    Mode,
    alternative_field,
    search_fields,
    search_params,
    shared_fields,
)
from profnet_sheets.widgets.follow import Follow
from profnet_sheets.widgets.places import PlacePicker
from profnet_sheets.widgets.progress import Bar
from profnet_sheets.widgets.runner import Feedback, Runner, error_message
from profnet_sheets.widgets.tables import message
from profnet_sheets.words import counted


class SearchForm(Form):
    """A search form: every filter of the spec (or a sales-navigator URL), a live cost line,
    the search in the background with progress, the results as a table, export, enrichment,
    and re-attachment to an earlier search by its request id."""

    kind: ClassVar[SearchKind]
    title: ClassVar[str]
    noun: ClassVar[str]  # what the results are, in the plural ("leads")
    noun_one: ClassVar[str]  # one of them ("lead")
    enrich_kind: ClassVar[str]  # what "Enrich" looks up for each result's profnet_url
    css_class: ClassVar[str]

    def __init__(self, client: Client | None = None, *, timeout: float = 3600.0) -> None:
        import ipywidgets as w

        self.client = client or Client()
        self.timeout = timeout
        self.job: SearchJob | None = None
        self.frame: pl.DataFrame | None = None  # the search's results
        self.enriched: pl.DataFrame | None = None  # the results with the enrichment's fields
        self.feedback = Feedback()
        self.controls: dict[str, FieldControl] = {}
        self.pickers: dict[str, PlacePicker] = {}  # the location fields
        filters = [self._control(spec).widget for spec in search_fields(self.kind)]
        url = self._control(alternative_field(self.kind)).widget
        shared = [self._control(spec).widget for spec in shared_fields(self.kind)]
        self.mode = classed(w.ToggleButtons(options=list(MODES), value="filters"), "profnet-mode")
        self.filters_box = w.VBox(filters)
        self.url_box = w.VBox([url], layout=w.Layout(display="none"))
        self.cost = classed(w.HTML(), "profnet-cost")
        self.cost_text = ""
        self.doubt_shown = False  # the cost line says the same search was left in doubt
        self.search_button = classed(
            w.Button(description="Search", button_style="primary", icon="search"), "profnet-search"
        )
        self.cancel_button = classed(w.Button(description="Cancel", icon="stop"), "profnet-cancel")
        self.request_id = classed(
            w.Text(placeholder="request id of an earlier search"), "profnet-request-id"
        )
        self.attach_button = classed(
            w.Button(description="Attach", tooltip="Follow an earlier search"), "profnet-attach"
        )
        kind = kind_named(self.enrich_kind)
        price = self.client.prices.price(endpoint(kind.endpoint)).credits
        self.enrich_button = classed(
            w.Button(
                description=f"Enrich: {kind.name} details",
                tooltip=f"{kind.endpoint} for each result: {price} credit each (cached ones free)",
                disabled=True,
                layout=w.Layout(width="auto"),
            ),
            "profnet-enrich",
        )
        self.bar = Bar("search", "profnet-search-progress")
        self.enrich_bar = Bar(f"enrich {kind.name}", "profnet-enrich-progress")
        self.table = classed(w.HTML(), "profnet-results")
        self.export = ExportPanel(f"{self.noun}-results", self.table_frame, self.feedback)
        self.runner = Runner(
            self.feedback,
            [self.search_button, self.attach_button, self.enrich_button],
            self.cancel_button,
            on_idle=self._idle,
        )
        self.search_button.on_click(lambda _: self.search())
        self.attach_button.on_click(lambda _: self.attach())
        self.enrich_button.on_click(lambda _: self.enrich())
        self.mode.observe(lambda _: self._mode_changed(), names="value")
        for control in self.controls.values():
            control.observe(self.update_cost)
        create = search_endpoint(self.kind, "create")
        self.widget = classed(
            w.VBox(
                [
                    w.HTML(
                        f"<h3>{html.escape(self.title)}</h3>"
                        + message(f"{create.summary} Hover over a label for its meaning.")
                    ),
                    self.mode,
                    self.filters_box,
                    self.url_box,
                    *shared,
                    self.cost,
                    w.HBox([self.search_button, self.cancel_button]),
                    w.HBox([w.Label("Re-attach"), self.request_id, self.attach_button]),
                    self.bar.widget,
                    self.feedback.status_widget,
                    self.feedback.error_widget,
                    self.table,
                    self.export.widget,
                    w.HBox([self.enrich_button]),
                    self.enrich_bar.widget,
                ]
            ),
            "profnet-form",
            self.css_class,
        )
        self.update_cost()

    def _control(self, spec: FieldSpec) -> FieldControl:
        if spec.control == "places":
            picker = PlacePicker(spec, self.client, self.feedback)
            self.pickers[spec.name] = picker
            control = picker.control
        else:
            control = make_control(spec)
        self.controls[spec.name] = control
        return control

    # -- values and cost ----------------------------------------------------------------------

    def values(self) -> dict[str, Any]:
        """Every field's value as the form holds it."""
        return {name: control.get() for name, control in self.controls.items()}

    def params(self) -> dict[str, Any]:
        """The search's parameters from the form (raises ValueError for a half-filled range)."""
        mode: Mode = self.mode.value
        return search_params(self.kind, mode, self.values())

    def fill(self, **values: Any) -> None:
        """Set fields by parameter name (places by geo id or by name); a `sales_nav_url`
        switches to the URL mode, filters to the filters mode."""
        unknown = sorted(set(values) - set(self.controls))
        if unknown:
            raise TypeError(f"no field {', '.join(unknown)}; fields: {', '.join(self.controls)}")
        url = alternative_field(self.kind).name
        shared = {spec.name for spec in shared_fields(self.kind)}
        for name, value in values.items():
            self.controls[name].set(value)
        if url in values:
            self.mode.value = "url"
        elif set(values) - shared:
            self.mode.value = "filters"
        self.update_cost()

    def update_cost(self) -> None:
        """Refresh the cost line (asks the cache only; nothing is sent)."""
        try:
            quote = Search(self.client, self.kind).quote(self.params())
            text = search_cost_text(quote)
        except (ProfnetError, ValueError) as error:
            text = f"Not ready to search: {error_message(error)}"
            self.doubt_shown = False
        else:  # the filters are usable now: an error about earlier ones no longer applies
            self.doubt_shown = bool(quote.doubt_said())  # Search then starts it all the same
            if self.feedback.error_text and not self.runner.running:
                self.feedback.error("")
        self.cost_text = text
        self.cost.value = message(text)

    def _mode_changed(self) -> None:
        url = self.mode.value == "url"
        self.url_box.layout.display = "" if url else "none"
        self.filters_box.layout.display = "none" if url else ""
        self.update_cost()

    def _idle(self) -> None:
        self.enrich_button.disabled = self.frame is None
        self.export.enable(self.frame is not None)

    # -- actions --------------------------------------------------------------------------------

    def search(self, *, wait: bool = False) -> bool:
        """Start the search in the background (what the Search button does); `wait`: until it
        ends. False (and a message in the form) when a search or enrichment is already running."""
        return self.start(self._search, wait=wait)

    def attach(self, request_id: str | None = None, *, wait: bool = False) -> bool:
        """Follow a search started earlier (here, elsewhere or before a restart) by its
        request id: its status is free, pages already read are free."""
        return self.start(lambda: self._attach(request_id), wait=wait)

    def enrich(self, *, wait: bool = False) -> bool:
        """Enrich the results (profile or company details) in the background."""
        return self.start(self._enrich, wait=wait)

    @property
    def nouns(self) -> tuple[str, str]:
        return (self.noun_one, self.noun)

    def table_frame(self) -> pl.DataFrame | None:
        """What the table shows and Export writes: the enriched results, else the results."""
        return self.enriched if self.enriched is not None else self.frame

    # -- the work (in the runner's thread) --------------------------------------------------------

    def _search(self) -> None:
        params = self.params()
        search = Search(self.client, self.kind)  # its own spend, within the client's limits
        self.feedback.status("Starting the search…")
        try:
            search.start(params, doubt_said=self.doubt_shown)
        except Exception:
            if search.spend.spent:  # its creation may have been charged, its answer lost
                self.feedback.status(f"Spent {search.spend.said()}.", final=True)
            self.update_cost()  # a start left in doubt: the line says so before a retry
            raise
        self._follow(search)

    def _attach(self, given: str | None) -> None:
        if given is not None:  # set here, once started: a refused attach leaves the field be
            self.request_id.value = given
        request_id = self.request_id.value.strip()
        if not request_id:
            raise ValueError("Paste the request id of an earlier search, then press Attach.")
        search = Search(self.client, self.kind)
        search.attach(request_id)
        self._follow(search)

    def _follow(self, search: Search) -> None:
        self.job = search.job
        self.request_id.value = search.request_id
        follow = Follow(self.runner, self.bar, self.feedback, self.nouns, self.timeout)
        try:
            frame = follow.results(search)
        finally:
            self.update_cost()
        if frame is None:
            return
        self.frame, self.enriched = frame, None
        self.export.forget()  # a link to the table before would download the wrong one
        self.table.value = frame_html(frame, self.nouns)
        self.feedback.status(
            f"{counted(frame.height, *self.nouns)} from search {search.request_id}. "
            f"Spent {search.spend.said()}.",
            "success",
        )

    def _enrich(self) -> None:
        frame = self.frame
        if frame is None:
            raise ValueError("Search first: there is nothing to enrich yet.")
        self.export.forget()  # a link to the results before enrichment would download them
        self.enriched = run_enrichment(
            self.client,
            frame,
            "profnet_url",
            self.enrich_kind,
            runner=self.runner,
            bar=self.enrich_bar,
            feedback=self.feedback,
        )
        self.table.value = frame_html(self.enriched, self.nouns)


class LeadSearchForm(SearchForm):
    """A form for lead searches (search-leads); "Enrich" adds each lead's profile details."""

    kind = "leads"
    title = "Lead search"
    noun = "leads"
    noun_one = "lead"
    enrich_kind = "profile"
    css_class = "profnet-lead-search"


class CompanySearchForm(SearchForm):
    """A form for company searches (search-companies); "Enrich" adds company details."""

    kind = "companies"
    title = "Company search"
    noun = "companies"
    noun_one = "company"
    enrich_kind = "company"
    css_class = "profnet-company-search"
