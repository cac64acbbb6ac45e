"""Parse and validate one request's parameters against the spec, as the service would."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, TypeGuard

from profnet_sheets.spec import errors
from profnet_sheets.spec.endpoints import (
    INT64_MAX,
    INT64_MIN,
    NETWORK_HOST,
    SPACE_CHARS,
    Endpoint,
    Param,
    page_pattern,
)


class ApiError(Exception):
    """An error answer of the service: its status, JSON body and extra headers."""

    def __init__(self, status: int, body: dict[str, Any], headers: dict[str, str] | None = None):
        super().__init__(status, body)
        self.status = status
        self.body = body
        self.headers = headers or {}


@dataclass(frozen=True)
class Unreadable:
    """A request body that holds no JSON object: why, for the 400 `payload` it is answered."""

    details: str


JSON_MEDIA_TYPE = "application/json"  # what POST bodies are sent as (spec, conventions)
MAX_DEPTH = 32  # arrays and objects within each other a body may hold (the spec's need 2)
_TOO_DEEP = f"The body nests arrays or objects deeper than {MAX_DEPTH} levels."
_SURROGATE = re.compile(r"[\ud800-\udfff]")


def read_json(body: bytes, content_type: str | None) -> dict[str, Any] | Unreadable:
    """The JSON object a request body holds, or why it holds none.

    A body must come as `application/json` (docs/decisions.md #92). Never raises: whatever
    JSON text can hold that the work after it cannot (nesting too deep, a lone surrogate) is
    refused here, for every endpoint and control alike.
    """
    if body and not is_json(content_type):
        sent = f"not {shown(content_type)}" if content_type else "none was sent"
        return Unreadable(f"Send the payload with Content-Type: {JSON_MEDIA_TYPE}; {sent}.")
    try:
        value = json.loads(body or b"null")
    except RecursionError:  # deeper than the decoder goes
        return Unreadable(_TOO_DEEP)
    except (ValueError, UnicodeDecodeError):
        return Unreadable("The body is not valid JSON.")
    if not isinstance(value, dict):
        return Unreadable("The body must be a JSON object.")
    flaw = _flaw(value)
    return value if flaw is None else Unreadable(flaw)


def is_json(content_type: str | None) -> bool:
    """Whether a Content-Type header names JSON (any case; parameters such as charset aside)."""
    media_type = (content_type or "").partition(";")[0].strip(SPACE_CHARS)
    return media_type.lower() == JSON_MEDIA_TYPE


def _flaw(value: Any) -> str | None:
    """Why a decoded body is unusable, or None: arrays and objects nested deeper than
    MAX_DEPTH, or a string holding a lone surrogate (JSON can escape one, "\\ud800"; no UTF-8
    text can). Walks the value without recursion."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, str) and _SURROGATE.search(item):
            return "The body holds a lone surrogate (such as \\ud800), which is no character."
        if isinstance(item, dict | list):
            if depth > MAX_DEPTH:
                return _TOO_DEEP
            children = [*item, *item.values()] if isinstance(item, dict) else item
            stack.extend((child, depth + 1) for child in children)
    return None


def finite_number(value: Any) -> TypeGuard[int | float]:
    """A JSON number a float holds: not a boolean, NaN, an infinity or an integer beyond it."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    try:
        return math.isfinite(value)
    except OverflowError:  # an integer literal of over 308 digits
        return False


def shown(value: Any, width: int = 80) -> str:
    """`value` as an error's details quote it: its repr, cut short."""
    text = repr(value)
    return text if len(text) <= width else text[: width - 3] + "..."


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


_INTEGER_TEXT = re.compile(r"(-?)0*([0-9]+)(\.0*)?")
_INT64_DIGITS = len(str(INT64_MAX))


def _whole_number(value: Any, from_query: bool) -> int | None:
    """`value` as an integer (5.0 is one in JSON Schema; "5" is one in a query), else None.

    Query text of more digits than any 64-bit integer reads as just beyond that range, so that
    it is refused as out of range (not converted: int() refuses over 4300 digits)."""
    if from_query and isinstance(value, str):
        match = _INTEGER_TEXT.fullmatch(value.strip(SPACE_CHARS))
        if match is None:
            return None
        sign, digits = match.group(1), match.group(2)
        if len(digits) > _INT64_DIGITS:
            return INT64_MIN - 1 if sign else INT64_MAX + 1
        return int(sign + digits)
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return None


def numeric_id(text: str) -> str | None:
    """`text` as the numeric id it writes, as integer parameters read it (`5.0` is 5):
    `1035`, ` 1035.0 ` -> `1035`; None when it is not a whole number of 0 or more."""
    match = _INTEGER_TEXT.fullmatch(text.strip(SPACE_CHARS))
    return None if match is None or match.group(1) else match.group(2)


def _integer(param: Param, value: Any, from_query: bool) -> int:
    number = _whole_number(value, from_query)
    if number is None:
        raise invalid(param.name, f"{param.name} must be an integer, got {shown(value)}.")
    low = INT64_MIN if param.minimum is None else max(INT64_MIN, int(param.minimum))
    high = INT64_MAX if param.maximum is None else min(INT64_MAX, int(param.maximum))
    if number < low:
        raise invalid(param.name, f"{param.name} must be at least {low}, got {shown(value)}.")
    if number > high:
        raise invalid(param.name, f"{param.name} must be at most {high}, got {shown(value)}.")
    return number


def _string(param: Param, value: Any, host: str) -> str:
    if not isinstance(value, str):
        raise invalid(param.name, f"{param.name} must be a string, got {shown(value)}.")
    if param.enum is not None and value not in param.enum:
        allowed = ", ".join(param.enum)
        raise invalid(param.name, f"{param.name} must be one of {allowed}; got {shown(value)}.")
    if param.pattern is not None and not re.match(page_pattern(param.pattern, (host,)), value):
        raise invalid(param.name, f"{param.name} is not of the expected form: {shown(value)}.")
    return value.strip(SPACE_CHARS)


_ITEMS_EXPECTED = {
    "string": "strings",
    "integer": "64-bit integers (numeric ids)",
    "id": "ids (strings or 64-bit integers)",
    "school": "school ids (strings or 64-bit integers)",
    "headcount_code": "headcount codes A to H",
}


def _array(param: Param, value: Any) -> list[Any]:
    if not isinstance(value, list):
        raise invalid(param.name, f"{param.name} must be a JSON array, got {shown(value)}.")
    return [_item(param, item) for item in value]


def _item(param: Param, item: Any) -> Any:
    """One array item as kept; integers as for integer parameters (5.0 is one, 64 bits)."""
    kind = param.items or "string"
    if isinstance(item, str) and (
        kind in ("string", "id", "school")
        or (kind == "headcount_code" and item in (param.enum or ()))
    ):
        return item
    if kind in ("integer", "id", "school"):
        number = _whole_number(item, from_query=False)
        if number is not None and INT64_MIN <= number <= INT64_MAX:
            return number
    expected = _ITEMS_EXPECTED[kind]
    raise invalid(param.name, f"{param.name} must hold {expected}; got {shown(item)}.")


def _range(param: Param, value: Any) -> dict[str, float]:
    """An object of numbers with exactly the shape's fields (a range: min and max)."""
    names = param.shape.field_names if param.shape else ("min", "max")
    if not isinstance(value, dict) or set(value) != set(names):
        wanted = " and ".join(names)
        raise invalid(
            param.name, f"{param.name} must be an object with {wanted}, got {shown(value)}."
        )
    bounds: dict[str, float] = {}
    for key, bound in value.items():
        if not finite_number(bound):
            raise invalid(
                param.name, f"{param.name}.{key} must be a finite number, got {shown(bound)}."
            )
        bounds[key] = float(bound)
    return bounds


def _value(param: Param, value: Any, from_query: bool, host: str) -> Any:
    if param.type == "integer":
        return _integer(param, value, from_query)
    if param.type == "array":
        return _array(param, value)
    if param.type == "object":
        return _range(param, value)
    return _string(param, value, host)


def parse(
    endpoint: Endpoint,
    raw: Mapping[str, Any] | Unreadable,
    *,
    from_query: bool,
    host: str = NETWORK_HOST,
) -> Params:
    """The validated parameters of a request (blank ones left out, defaults filled in); page
    URLs must be on the network's `host`.

    Raises ApiError 400 `invalid_parameter` naming the parameter, as section 7 describes.
    """
    if isinstance(raw, Unreadable):
        raise invalid("payload", raw.details)
    raw = dict(raw)
    for param in endpoint.params:
        for alias in param.aliases:
            alias_param = Param(**{**param.__dict__, "name": alias})
            if not _not_given(alias_param, raw.get(alias)):
                alias_value = _value(alias_param, raw[alias], from_query, host)
                if _not_given(param, raw.get(param.name)):
                    raw[param.name] = alias_value
    given: dict[str, Any] = {}
    for param in endpoint.params:
        value = raw.get(param.name)
        if _not_given(param, value):
            if param.required:
                raise invalid(param.name, f"{param.name} is required.")
            continue
        given[param.name] = _value(param, value, from_query, host)
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
