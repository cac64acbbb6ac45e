"""Parse and validate one request's parameters against the spec, as the service would."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from profnet_sheets.spec import errors
from profnet_sheets.spec.endpoints import SPACE_CHARS, Endpoint, Param


class ApiError(Exception):
    """An error answer of the service: its status, JSON body and extra headers."""

    def __init__(self, status: int, body: dict[str, Any], headers: dict[str, str] | None = None):
        super().__init__(status, body)
        self.status = status
        self.body = body
        self.headers = headers or {}


class Params(dict[str, Any]):
    """Validated parameters with defaults filled in; `sent` names those the caller gave."""

    sent: frozenset[str] = frozenset()


def invalid(parameter: str | None, details: str) -> ApiError:
    return ApiError(400, errors.invalid_parameter(parameter, details))


def _not_given(param: Param, value: Any) -> bool:
    """null and [] are "not given"; so is a blank string, except where it must be an enum value
    or a number (there a blank is an invalid value): docs/decisions.md #26."""
    if value is None or (value == [] and param.type == "array"):
        return True
    blank = isinstance(value, str) and not value.strip(SPACE_CHARS)
    return blank and param.type == "string" and param.enum is None


_INTEGER_TEXT = re.compile(r"-?[0-9]+(\.0*)?")


def _integer(param: Param, value: Any, from_query: bool) -> int:
    if from_query and isinstance(value, str) and _INTEGER_TEXT.fullmatch(value.strip(SPACE_CHARS)):
        number = int(float(value.strip(SPACE_CHARS)))
    elif isinstance(value, int) and not isinstance(value, bool):
        number = value
    elif isinstance(value, float) and value.is_integer():  # 5.0 is an integer in JSON Schema
        number = int(value)
    else:
        raise invalid(param.name, f"{param.name} must be an integer, got {value!r}.")
    if param.minimum is not None and number < param.minimum:
        raise invalid(param.name, f"{param.name} must be at least {param.minimum:g}, got {number}.")
    if param.maximum is not None and number > param.maximum:
        raise invalid(param.name, f"{param.name} must be at most {param.maximum:g}, got {number}.")
    return number


def _string(param: Param, value: Any) -> str:
    if not isinstance(value, str):
        raise invalid(param.name, f"{param.name} must be a string, got {value!r}.")
    if param.enum is not None and value not in param.enum:
        allowed = ", ".join(param.enum)
        raise invalid(param.name, f"{param.name} must be one of {allowed}; got {value!r}.")
    if param.pattern is not None and not re.match(param.pattern, value):
        raise invalid(param.name, f"{param.name} is not of the expected form: {value!r}.")
    return value.strip(SPACE_CHARS)


def _array(param: Param, value: Any) -> list[Any]:
    if not isinstance(value, list):
        raise invalid(param.name, f"{param.name} must be a JSON array, got {value!r}.")
    for item in value:
        ok = {
            "string": isinstance(item, str),
            "integer": isinstance(item, int) and not isinstance(item, bool),
            "id": isinstance(item, str | int) and not isinstance(item, bool),
            "school": isinstance(item, str | int) and not isinstance(item, bool),
            "headcount_code": isinstance(item, str) and item in (param.enum or ()),
        }[param.items or "string"]
        if not ok:
            expected = {
                "string": "strings",
                "integer": "integers (numeric ids)",
                "id": "ids (strings or integers)",
                "school": "school ids (strings or integers)",
                "headcount_code": "headcount codes A to H",
            }[param.items or "string"]
            raise invalid(param.name, f"{param.name} must hold {expected}; got {item!r}.")
    return value


def _range(param: Param, value: Any) -> dict[str, float]:
    """An object of numbers with exactly the shape's fields (a range: min and max)."""
    names = param.shape.field_names if param.shape else ("min", "max")
    if not isinstance(value, dict) or set(value) != set(names):
        wanted = " and ".join(names)
        raise invalid(param.name, f"{param.name} must be an object with {wanted}, got {value!r}.")
    bounds: dict[str, float] = {}
    for key, bound in value.items():
        if not isinstance(bound, int | float) or isinstance(bound, bool):
            raise invalid(param.name, f"{param.name}.{key} must be a number, got {bound!r}.")
        bounds[key] = float(bound)
    return bounds


def _value(param: Param, value: Any, from_query: bool) -> Any:
    if param.type == "integer":
        return _integer(param, value, from_query)
    if param.type == "array":
        return _array(param, value)
    if param.type == "object":
        return _range(param, value)
    return _string(param, value)


def parse(endpoint: Endpoint, raw: Mapping[str, Any] | None, *, from_query: bool) -> Params:
    """The validated parameters of a request (blank ones left out, defaults filled in).

    Raises ApiError 400 `invalid_parameter` naming the parameter, as section 7 describes.
    """
    if raw is None:
        raise invalid("payload", "The body must be a JSON object.")
    raw = dict(raw)
    for param in endpoint.params:
        for alias in param.aliases:
            alias_param = Param(**{**param.__dict__, "name": alias})
            if not _not_given(alias_param, raw.get(alias)):
                alias_value = _value(alias_param, raw[alias], from_query)
                if _not_given(param, raw.get(param.name)):
                    raw[param.name] = alias_value
    given: dict[str, Any] = {}
    for param in endpoint.params:
        value = raw.get(param.name)
        if _not_given(param, value):
            if param.required:
                raise invalid(param.name, f"{param.name} is required.")
            continue
        given[param.name] = _value(param, value, from_query)
    rule = endpoint.at_least_one
    if rule and not any(name in given for name in rule.names):
        names = ", ".join(rule.names)
        raise invalid(rule.parameter, f"At least one of {names} is required.")
    if endpoint.alternative:
        has_filter = any(name in given for name in endpoint.filter_names)
        if endpoint.alternative in given and has_filter:
            raise invalid(
                endpoint.alternative,
                f"Give either {endpoint.alternative} or filters, not both.",
            )
        if endpoint.alternative not in given and not has_filter:
            raise invalid("payload", f"Give at least one filter, or a {endpoint.alternative}.")
    params = Params(given)
    params.sent = frozenset(given)
    for param in endpoint.params:
        if param.default is not None and param.name not in params:
            params[param.name] = param.default
    return params
