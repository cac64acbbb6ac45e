"""The fields of the forms, derived from the spec's parameters; widget values -> parameters."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from profnet_sheets.searches.places import takes_places
from profnet_sheets.spec import Param, company_size_label, search_endpoint
from profnet_sheets.spec.endpoints import FLAG_VALUES, SearchKind

Control = Literal["lines", "ids", "places", "choices", "flag", "enum", "range", "text", "number"]
Mode = Literal["filters", "url"]
MODES: tuple[tuple[str, Mode], ...] = (("Filters", "filters"), ("Sales Navigator URL", "url"))
_FLAG_LABELS = dict(zip(FLAG_VALUES, ("yes", "no"), strict=True))
_HINTS: dict[Control, str] = {
    "lines": "one per line",
    "ids": "ids, separated by commas",
    "places": "type a place name, Find, then Add",
    "range": "both bounds, or neither",
}


@dataclass(frozen=True)
class FieldSpec:
    """One field of a form: the parameter it fills and the control that edits it."""

    name: str
    label: str
    control: Control
    help: str
    choices: tuple[tuple[str, str], ...] = ()  # (label, value) of enums and flags
    minimum: int | None = None
    maximum: int | None = None
    default: Any = None
    items: str | None = None  # the spec's item type of a list (headcount_code, id...)


def label_of(name: str) -> str:
    """`headquarters_location_exclude` -> `Headquarters location (exclude)`."""
    words = name.split("_")
    if len(words) > 1 and words[-1] == "exclude":
        return label_of("_".join(words[:-1])) + " (exclude)"
    return " ".join(words).capitalize()


def _control(param: Param) -> Control:
    if param.type == "array":
        if param.enum:
            return "choices"
        if takes_places(param):
            return "places"
        return "ids" if param.items in ("id", "school") else "lines"
    if param.type == "object":
        return "range"
    if param.type == "flag":
        return "flag"
    if param.type == "integer":
        return "number"
    return "enum" if param.enum else "text"


def _choices(param: Param, control: Control) -> tuple[tuple[str, str], ...]:
    if control == "flag":
        return (("any", ""), *((_FLAG_LABELS.get(v, v), v) for v in param.enum or FLAG_VALUES))
    if control == "enum":
        default = f"default ({param.default})" if param.default is not None else "any"
        return ((default, ""), *((value, value) for value in param.enum or ()))
    if param.items == "headcount_code":
        return tuple((f"{code}: {company_size_label(code)}", code) for code in param.enum or ())
    return tuple((value, value) for value in param.enum or ())


def field_for(param: Param) -> FieldSpec:
    """The form field of a parameter of the spec."""
    control = _control(param)
    hint = _HINTS.get(control)
    label = label_of(param.name)
    if control == "places" and param.name.startswith("geo"):  # the wire's word, not a user's
        label = "Places"
    return FieldSpec(
        name=param.name,
        label=label,
        control=control,
        help=param.description + (f" ({hint})" if hint else ""),
        choices=_choices(param, control),
        minimum=None if param.minimum is None else int(param.minimum),
        maximum=None if param.maximum is None else int(param.maximum),
        default=param.default,
        items=param.items,
    )


def search_fields(kind: SearchKind) -> tuple[FieldSpec, ...]:
    """The filters of a search (option 1 of section 4.14), in the spec's order."""
    create = search_endpoint(kind, "create")
    return tuple(field_for(create.param(name)) for name in create.filter_names)


def alternative_field(kind: SearchKind) -> FieldSpec:
    """The field that replaces every filter (the sales-navigator URL, option 2)."""
    create = search_endpoint(kind, "create")
    return field_for(create.param(str(create.alternative)))


def shared_fields(kind: SearchKind) -> tuple[FieldSpec, ...]:
    """The fields both options take (the limit)."""
    create = search_endpoint(kind, "create")
    return tuple(field_for(create.param(name)) for name in create.shared_with_alternative)


def param_value(field: FieldSpec, value: Any) -> Any:
    """A control's value as the client takes it (it normalises and checks the rest); None when
    the field is left blank."""
    if field.control == "range":
        low, high = (str(bound).strip() for bound in value)
        if not low and not high:
            return None
        if not low or not high:
            raise ValueError(f"{field.label}: give both bounds (min and max), or leave both empty.")
        return (low, high)
    if isinstance(value, str):
        return value.strip() or None
    if isinstance(value, list | tuple):
        return list(value) or None
    return value


def search_params(kind: SearchKind, mode: Mode, values: Mapping[str, Any]) -> dict[str, Any]:
    """The parameters of a search from the form's values: the filters, or the URL alone
    (the spec takes one or the other), and the fields both take."""
    if mode == "url":
        fields: tuple[FieldSpec, ...] = (alternative_field(kind),)
    else:
        fields = search_fields(kind)
    params: dict[str, Any] = {}
    for field in (*fields, *shared_fields(kind)):
        converted = param_value(field, values.get(field.name))
        if converted is not None:
            params[field.name] = converted
    return params
