"""What `fill()` takes for each kind of control, as the value the control holds (pure).

A plain string or number is one value, never a sequence of characters: `"Berlin"` is one
place, `"B-D"` the headcount codes B, C and D, `True` or `"yes"` the hiring flag's "yes".
"""

from __future__ import annotations

import re
from typing import Any

from profnet_sheets.client import cell_values
from profnet_sheets.errors import NormalizationError
from profnet_sheets.redact import shown
from profnet_sheets.widgets.fields import FieldSpec

_SCALARS = (str, bytes, int, float)


def items_of(value: Any) -> list[Any]:
    """The items a field was given: none for None, one for a scalar (a string is one value),
    the items of a list, tuple or set."""
    if value is None:
        return []
    if isinstance(value, _SCALARS) or not isinstance(value, list | tuple | set | frozenset):
        return [value]
    return list(value)


def text_value(value: Any, separator: str) -> str:
    """A text control's value: lists joined with `separator` (a newline, or `, ` for ids)."""
    if value is None:
        return ""
    if isinstance(value, list | tuple | set | frozenset):
        return separator.join(str(item) for item in value)
    return str(value)


def choice_values(spec: FieldSpec, value: Any) -> list[str]:
    """The ticked choices: headcount codes read as the client reads them (`"B-D"`, `"b; c"`,
    `"51-200"`); other choices one value each, which must be among the field's choices."""
    if spec.items == "headcount_code":
        return cell_values.headcount_codes(value if value is not None else [])
    return _among(spec, [str(item).strip() for item in items_of(value)])


def dropdown_value(spec: FieldSpec, value: Any) -> str:
    """A dropdown's value: for a flag, booleans and yes/no, true/false, 1/0 (blank or "any":
    either); for an enum, one of its values (blank: the default)."""
    if value is None or (isinstance(value, str) and value.strip().lower() in ("", "any")):
        return ""
    if spec.control == "flag":
        try:
            return cell_values.flag(value, spec.name)
        except NormalizationError as error:
            raise ValueError(f"{spec.label}: {error}") from None
    return _among(spec, [str(value).strip()])[0]


def _among(spec: FieldSpec, chosen: list[str]) -> list[str]:
    """`chosen`, when every one is a value the field offers; else a ValueError saying which."""
    allowed = [choice for _, choice in spec.choices if choice]
    unknown = [item for item in chosen if item not in allowed]
    if unknown:
        raise ValueError(
            f"{spec.label}: {', '.join(map(repr, unknown))} is not a choice; "
            f"choose among {', '.join(allowed)}."
        )
    return chosen


def range_bounds(spec: FieldSpec, value: Any) -> tuple[str, str]:
    """A range's two bounds as text, from (min, max), {"min": ..., "max": ...} or None."""
    if value is None:
        return ("", "")
    if isinstance(value, dict):
        value = (value.get("min"), value.get("max"))
    if not isinstance(value, list | tuple) or len(value) != 2:
        raise ValueError(
            f"{spec.label}: give the range as (min, max) or {{'min': ..., 'max': ...}}, "
            f"not {shown(value)}."
        )
    low, high = ("" if bound is None else str(bound) for bound in value)
    return (low, high)


def number_value(spec: FieldSpec, value: Any) -> int:
    """A number control's value: a whole number (an int, a float without a fraction, or its
    digits as text) within the field's bounds; else a ValueError saying the field and why
    (never clamped in silence: a limit of 99,999 is not quietly 2,500)."""
    low = spec.minimum if spec.minimum is not None else 0
    high = spec.maximum if spec.maximum is not None else 10**9
    number: Any = value.strip() if isinstance(value, str) else value
    if isinstance(number, str) and re.fullmatch(r"[+-]?[0-9]+", number):
        number = int(number)
    if isinstance(number, float) and number.is_integer():
        number = int(number)
    if isinstance(number, bool) or not isinstance(number, int) or not low <= number <= high:
        raise ValueError(
            f"{spec.label}: {shown(value)} is not a whole number from {low:,} to {high:,}."
        )
    return number
