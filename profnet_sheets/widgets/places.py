"""Locations picked by place name: find-geocode-by-location, then the geo ids chosen."""

from __future__ import annotations

from typing import Any

from profnet_sheets.client.client import Client
from profnet_sheets.redact import shown
from profnet_sheets.searches.places import place_label
from profnet_sheets.searches.places import places as found_places
from profnet_sheets.spec import endpoint
from profnet_sheets.widgets.controls import FIELD_WIDTH, FieldControl, row
from profnet_sheets.widgets.fields import FieldSpec
from profnet_sheets.widgets.runner import Feedback, Runner
from profnet_sheets.widgets.values import items_of

GEOCODE = "find-geocode-by-location"


class PlacePicker:
    """Type a place name, Find (a paid lookup, cached), pick a match, Add; the value is the
    list of geo ids added, in the order added."""

    def __init__(self, spec: FieldSpec, client: Client, feedback: Feedback) -> None:
        import ipywidgets as w

        price = client.prices.price(endpoint(GEOCODE)).credits
        self.client = client
        self.query = w.Text(placeholder="a place name, e.g. Berlin", layout=w.Layout(width="16em"))
        self.find = w.Button(
            description="Find", tooltip=f"{GEOCODE}: {price} credit (free when cached)"
        )
        self.matches = w.Dropdown(options=[], layout=w.Layout(width=FIELD_WIDTH))
        self.add = w.Button(description="Add", disabled=True)
        self.chosen = w.SelectMultiple(options=[], rows=3, layout=w.Layout(width=FIELD_WIDTH))
        self.remove = w.Button(description="Remove")
        self.runner = Runner(feedback, [self.find])
        self.find.on_click(lambda _: self.runner.start(self._find))
        self.add.on_click(lambda _: self.add_selected())
        self.remove.on_click(lambda _: self._remove())
        box = w.VBox(
            [
                w.HBox([self.query, self.find]),
                w.HBox([self.matches, self.add]),
                w.HBox([self.chosen, self.remove]),
            ]
        )
        self.control = FieldControl(
            spec, row(spec, box), self.value, self.set, (self.chosen,), trait="options"
        )

    def _find(self) -> None:
        name = self.query.value.strip()
        if not name:
            raise ValueError("Type a place name first, then press Find.")
        found = self.client.find_geocode_by_location(location=name)
        self.matches.options = [(place_label(item), str(item["geo_id"])) for item in found]
        self.matches.index = 0 if found else None  # the best match, ready to Add
        self.add.disabled = not found
        if not found:
            raise ValueError(f"No place called {shown(name)} was found: try another spelling.")

    def add_selected(self) -> None:
        """Add the match shown in the list of matches."""
        value = self.matches.value
        if value is None or value in self.value():
            return
        label = next(text for text, geo_id in self.matches.options if geo_id == value)
        self.chosen.options = [*self.chosen.options, (label, value)]

    def _remove(self) -> None:
        dropped = set(self.chosen.value)
        self.chosen.options = [item for item in self.chosen.options if item[1] not in dropped]

    def value(self) -> list[str]:
        return [geo_id for _, geo_id in self.chosen.options]

    def set(self, places: Any) -> None:
        """Set the chosen places: one or a list of geo ids, (label, geo id) pairs, or place
        names (each looked up once, its first match taken). A string is one place."""
        self.chosen.options = found_places(self.client, items_of(places))
