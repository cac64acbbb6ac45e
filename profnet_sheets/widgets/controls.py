"""One ipywidgets control per kind of field (text, lines, ids, choices, flag, range, number)."""

from __future__ import annotations

import html
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from profnet_sheets.widgets.fields import FieldSpec
from profnet_sheets.widgets.values import (
    choice_values,
    dropdown_value,
    number_value,
    range_bounds,
    text_value,
)

LABEL_WIDTH = "15em"
FIELD_WIDTH = "28em"


def classed(widget: Any, *names: str) -> Any:
    """`widget` with CSS classes (what the browser test and custom styles find it by)."""
    for name in names:
        widget.add_class(name)
    return widget


@dataclass
class FieldControl:
    """A field's widget row, how to read and set its value, and the widgets to watch."""

    spec: FieldSpec
    widget: Any
    get: Callable[[], Any]
    set: Callable[[Any], None]
    watched: tuple[Any, ...]
    trait: str = "value"  # the trait of the watched widgets that holds the field's value

    def observe(self, callback: Callable[[], None]) -> None:
        """Call `callback` whenever the field's value changes."""
        for widget in self.watched:
            widget.observe(lambda _change: callback(), names=self.trait)


def row(spec: FieldSpec, control: Any) -> Any:
    """A labelled row (the label's tooltip is the spec's description), classed by field name."""
    import ipywidgets as w

    label = w.HTML(
        f'<span title="{html.escape(spec.help)}">{html.escape(spec.label)}</span>',
        layout=w.Layout(width=LABEL_WIDTH),
    )
    box = w.HBox([label, control])
    box.add_class(f"profnet-field-{spec.name}")
    return box


def _text(spec: FieldSpec, placeholder: str, area: bool = False) -> FieldControl:
    import ipywidgets as w

    kind = w.Textarea if area else w.Text
    widget = kind(placeholder=placeholder, layout=w.Layout(width=FIELD_WIDTH))
    if area:
        widget.rows = 2

    def set_(value: Any) -> None:
        widget.value = text_value(value, "\n" if area else ", ")

    return FieldControl(spec, row(spec, widget), lambda: widget.value, set_, (widget,))


def _choices(spec: FieldSpec) -> FieldControl:
    import ipywidgets as w

    boxes = {
        value: w.Checkbox(description=label, indent=False, layout=w.Layout(width="auto"))
        for label, value in spec.choices
    }
    for value, box in boxes.items():
        box.add_class(f"profnet-choice-{value}")

    def set_(values: Any) -> None:
        chosen = set(choice_values(spec, values))
        for value, box in boxes.items():
            box.value = value in chosen

    control = w.HBox(list(boxes.values()), layout=w.Layout(flex_flow="row wrap"))
    return FieldControl(
        spec,
        row(spec, control),
        lambda: [value for value, box in boxes.items() if box.value],
        set_,
        tuple(boxes.values()),
    )


def _dropdown(spec: FieldSpec) -> FieldControl:
    import ipywidgets as w

    widget = w.Dropdown(options=list(spec.choices), value="", layout=w.Layout(width="12em"))
    return FieldControl(
        spec,
        row(spec, widget),
        lambda: widget.value,
        lambda value: setattr(widget, "value", dropdown_value(spec, value)),
        (widget,),
    )


def _range(spec: FieldSpec) -> FieldControl:
    import ipywidgets as w

    low = w.Text(placeholder="min", layout=w.Layout(width="8em"))
    high = w.Text(placeholder="max", layout=w.Layout(width="8em"))

    def set_(value: Any) -> None:
        low.value, high.value = range_bounds(spec, value)

    return FieldControl(
        spec,
        row(spec, w.HBox([low, w.Label("to"), high])),
        lambda: (low.value, high.value),
        set_,
        (low, high),
    )


def _number(spec: FieldSpec) -> FieldControl:
    import ipywidgets as w

    widget = w.BoundedIntText(
        value=spec.default if spec.default is not None else spec.minimum or 0,
        min=spec.minimum if spec.minimum is not None else 0,
        max=spec.maximum if spec.maximum is not None else 10**9,
        layout=w.Layout(width="8em"),
    )
    return FieldControl(
        spec,
        row(spec, widget),
        lambda: widget.value,
        lambda value: setattr(widget, "value", number_value(spec, value)),
        (widget,),
    )


def make_control(spec: FieldSpec) -> FieldControl:
    """The control of a field (places need a client: see `places.PlacePicker`)."""
    if spec.control == "lines":
        return _text(spec, "one per line", area=True)
    if spec.control == "ids":
        return _text(spec, "ids, separated by commas")
    if spec.control == "choices":
        return _choices(spec)
    if spec.control in ("flag", "enum"):
        return _dropdown(spec)
    if spec.control == "range":
        return _range(spec)
    if spec.control == "number":
        return _number(spec)
    if spec.control == "places":
        raise ValueError(f"{spec.name}: places are picked with places.PlacePicker")
    return _text(spec, "https://…" if spec.name.endswith("url") else "")
