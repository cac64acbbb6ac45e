"""Validate and convert a call's parameters from the spec (page URLs on the profile's network
hosts), before anything is sent or paid."""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Mapping
from typing import Any, Final
from urllib.parse import urlencode

from profnet_sheets.client import cell_values, identifiers
from profnet_sheets.errors import InvalidParameter, NormalizationError
from profnet_sheets.redact import shown
from profnet_sheets.spec import ENDPOINTS, Endpoint, Param, ServiceProfile, endpoint
from profnet_sheets.spec.endpoints import (
    COMPANY_URL_PATTERN,
    HEADCOUNT_URL_PATTERN,
    NUMERIC_ID_PATTERN,
    PROFILE_URL_PATTERN,
)
from profnet_sheets.words import looks_like

_BY_PATTERN: dict[str, Callable[[Any, identifiers.Hosts], str]] = {
    COMPANY_URL_PATTERN: identifiers.company_url,
    PROFILE_URL_PATTERN: identifiers.profile_url,
    HEADCOUNT_URL_PATTERN: identifiers.school_or_company_url,
}


# Keys normalised by what they are, not by their pattern: one cache key for one thing.
def _place(value: Any, hosts: identifiers.Hosts) -> str:
    return cell_values.place_name(value)


_KEYS: dict[str, dict[str, Callable[[Any, identifiers.Hosts], str]]] = {
    "get-job-details": {"job_id": identifiers.job_id},
    "find-geocode-by-location": {"location": _place},
    "google-schools": {
        "school_name": lambda value, hosts: cell_values.school_name(value),
        "location": _place,
    },
    "google-full-profiles": {
        "name": lambda value, hosts: cell_values.person_name(value),
        "location": _place,
    },
}
_VERBATIM = frozenset({"sales_nav_url", "pagination_token", "request_id"})  # sent as given
_ID_LISTS: dict[str, Callable[[Any, str], list[Any]]] = {
    "string": cell_values.string_list,
    "id": cell_values.id_list,
    "integer": cell_values.int_list,
}


def _convert(endpoint: Endpoint, param: Param, value: Any, hosts: identifiers.Hosts) -> Any:
    """The value as the service wants it, or None when it is blank (not given); page URLs on
    the network's `hosts`."""
    name = param.name
    if param.type == "array":
        if param.items == "headcount_code":
            codes = cell_values.headcount_codes(value) if value is not None else []
            return codes or None
        if param.items == "school":
            items: list[Any] = identifiers.school_ids(value, name, hosts)
        elif name in cell_values.GEO_ID_PARAMETERS and param.items == "string":
            items = cell_values.id_list(value, name)  # geo ids, sent as the text of digits
        else:
            items = _ID_LISTS[param.items or "string"](value, name)
        # Filters are sets: one order, no repeats, so that equal searches share one cache key.
        return sorted(set(items), key=lambda item: (str(item).casefold(), str(item))) or None
    if param.type == "object":
        return _growth(name, value)
    if param.type == "flag":
        return None if _blank(value, name) else cell_values.flag(value, name)
    if param.type == "integer":
        if _blank(value, name):
            return None
        low = int(param.minimum) if param.minimum is not None else 0
        high = int(param.maximum) if param.maximum is not None else 10**9
        return cell_values.limit(value, name, low, high)
    if name in identifiers.COMPANY_IDENTIFIERS and _names_a_company(endpoint):
        return None if _blank(value, name) else identifiers.company_value(name, value, hosts)
    if name == "urn":
        return None if _blank(value, name) else identifiers.post_urn(value, hosts)
    if name == "sales_nav_url":
        return (
            None
            if _blank(value, name)
            else identifiers.search_url(
                value, name, hosts, "company" if endpoint.name == "search-companies" else "people"
            )
        )
    if name in _KEYS.get(endpoint.name, {}):
        return None if _blank(value, name) else _KEYS[endpoint.name][name](value, hosts)
    if param.pattern in _BY_PATTERN:
        return None if _blank(value, name) else _BY_PATTERN[param.pattern](value, hosts)
    if param.pattern == NUMERIC_ID_PATTERN:
        return None if _blank(value, name) else cell_values.numeric_id(value, name)
    if name in _VERBATIM:
        return cell_values.text(value, name)
    text = cell_values.free_text(value, name)
    if text is not None:
        text = " ".join(text.split())
    if text is not None and param.enum is not None:
        matches = [allowed for allowed in param.enum if allowed.lower() == text.lower()]
        if not matches:
            raise InvalidParameter(
                f"{endpoint.name}: {name} must be one of {', '.join(param.enum)}; "
                f"got {shown(text)}.",
                parameter=name,
                value=value,
                endpoint=endpoint.name,
            )
        return matches[0]
    return text


def _names_a_company(endpoint: Endpoint) -> bool:
    """The endpoint takes one of the company identifiers (get-company-details)."""
    rule = endpoint.at_least_one
    return rule is not None and rule.names == identifiers.COMPANY_IDENTIFIERS


def _blank(value: Any, name: str) -> bool:
    """None, NaN, or blank text: not given. (Numbers and booleans are values, never blank.)"""
    if isinstance(value, bool | int) or (isinstance(value, float) and not math.isnan(value)):
        return False
    return cell_values.text(value, name) is None


def _growth(name: str, value: Any) -> dict[str, float] | None:
    if value is None:
        return None
    if isinstance(value, Mapping):
        bounds = dict(value)
    elif isinstance(value, list | tuple) and len(value) == 2:
        bounds = {"min": value[0], "max": value[1]}
    else:
        raise NormalizationError(
            f"{name} must be a range such as {{'min': 10, 'max': 50}} or (10, 50); "
            f"got {shown(value)}.",
            parameter=name,
            value=value,
        )
    try:
        low, high = float(bounds["min"]), float(bounds["max"])
    except (KeyError, TypeError, ValueError):
        got = ", ".join(f"{end} {shown(bounds[end])}" for end in ("min", "max") if end in bounds)
        raise NormalizationError(
            f"{name} needs numbers for min and max, such as 10 and 50; got {got or 'neither'}.",
            parameter=name,
            value=value,
        ) from None
    if not (math.isfinite(low) and math.isfinite(high)):  # JSON has no inf or NaN to send
        raise NormalizationError(
            f"{name} needs finite numbers for min and max, such as 10 and 50; got min "
            f"{shown(bounds['min'])}, max {shown(bounds['max'])} (leave the filter out for no "
            "bound).",
            parameter=name,
            value=value,
        )
    if low > high:
        raise NormalizationError(
            f"{name}: min ({low:g}) is above max ({high:g}); swap them.",
            parameter=name,
            value=value,
        )
    return {"min": low, "max": high}


def parameter_value(
    endpoint: Endpoint, param: Param, value: Any, *, profile: ServiceProfile
) -> Any:
    """One parameter's value as it is sent (None: blank, not sent); InvalidParameter naming
    it and the value when the spec refuses it. A value given for every row of a batch (an
    option) is checked once with it, before anything is paid."""
    try:
        return _convert(endpoint, param, value, profile.network_hosts)
    except NormalizationError as error:
        raise InvalidParameter(
            f"{endpoint.name}: {error}", parameter=param.name, value=value, endpoint=endpoint.name
        ) from None


# The flags of an endpoint that only add fields to its answer, at the same price.
_ADDING: dict[str, tuple[str, ...]] = {
    ep.name: adding
    for ep in ENDPOINTS
    if (adding := tuple(param.name for param in ep.params if param.adds))
}


def widest(endpoint: Endpoint, payload: dict[str, Any]) -> dict[str, Any] | None:
    """The call that answers `payload`'s and more at the same price (every flag that only
    adds fields switched on: a profile's skills and certifications), or None when it is
    `payload`'s own."""
    adding = _ADDING.get(endpoint.name)
    if adding is None or all(payload.get(name) == "true" for name in adding):
        return None
    return {**payload, **dict.fromkeys(adding, "true")}


def served_by(endpoint: Endpoint, payload: dict[str, Any]) -> list[dict[str, Any]]:
    """The calls short of `widest` whose answers serve `payload`'s too: itself first, then
    each with more of its adding flags switched on (what an earlier version kept for the
    same profile asked with skills, or with certifications)."""
    adding = _ADDING.get(endpoint.name)
    if adding is None:
        return [payload]
    wide = widest(endpoint, payload)
    choices = [
        ("true",) if payload.get(name) == "true" else (payload.get(name), "true") for name in adding
    ]
    rest = {key: value for key, value in payload.items() if key not in adding}
    spelled = [payload]
    for values in itertools.product(*choices):
        call = {
            **rest,
            **{name: value for name, value in zip(adding, values, strict=True) if value},
        }
        if call != wide and call not in spelled:
            spelled.append(call)
    return spelled


def prepare(
    endpoint: Endpoint, params: Mapping[str, Any], *, profile: ServiceProfile
) -> dict[str, Any]:
    """The parameters to send: normalised, blanks dropped, every rule of the spec checked;
    page URLs read on the `profile`'s network hosts (canonical on the host they name).

    Raises InvalidParameter naming the parameter and the value, so that no paid call is made
    with input the service would refuse (or, worse, accept and charge for a useless answer).
    """
    known = {param.name: param for param in endpoint.params}
    unknown = sorted(set(params) - set(known))
    if unknown:
        raise InvalidParameter(
            f"{endpoint.name} has no parameter {', '.join(unknown)}; it takes {', '.join(known)}.",
            parameter=unknown[0],
            value=params[unknown[0]],
            endpoint=endpoint.name,
        )
    payload: dict[str, Any] = {}
    for name, value in params.items():
        converted = parameter_value(endpoint, known[name], value, profile=profile)
        if converted is not None:
            payload[name] = converted
    if _names_a_company(endpoint):  # the most specific identifier wins; only it is sent
        for extra in [name for name in identifiers.COMPANY_IDENTIFIERS if name in payload][1:]:
            del payload[extra]
    for param in endpoint.params:
        if param.required and param.name not in payload:
            raise InvalidParameter(
                f"{endpoint.name} needs {param.name} ({param.description}).",
                parameter=param.name,
                endpoint=endpoint.name,
            )
    rule = endpoint.at_least_one
    if rule and not any(name in payload for name in rule.names):
        raise InvalidParameter(
            f"{endpoint.name} needs at least one of {', '.join(rule.names)}.",
            parameter=rule.parameter or ", ".join(rule.names),
            endpoint=endpoint.name,
        )
    if endpoint.alternative:
        filters = [name for name in endpoint.filter_names if name in payload]
        if endpoint.alternative in payload and filters:
            raise InvalidParameter(
                f"{endpoint.name}: give either {endpoint.alternative} or filters "
                f"({', '.join(filters)}), not both.",
                parameter=endpoint.alternative,
                endpoint=endpoint.name,
            )
        if endpoint.alternative not in payload and not filters:
            raise InvalidParameter(
                f"{endpoint.name} needs at least one filter, or a {endpoint.alternative}: "
                f"a search with neither would cost "
                f"{profile.prices.price(endpoint).credits} credits for everything.",
                parameter="payload",
                endpoint=endpoint.name,
            )
    for param in endpoint.params:  # defaults spelled out: with or without them, one cache key
        if param.default is not None and param.name not in payload:
            payload[param.name] = param.default
    if endpoint.method == "GET":
        _refuse_a_long_query(endpoint, payload)
    return payload


# What a query may hold, encoded: servers and gateways cap a request's first line at 4 to 8 KB
# (and answer a longer one with a 414 or 400 page), while no value of a query is meant that long.
MAX_QUERY_BYTES: Final = 4096


def _refuse_a_long_query(endpoint: Endpoint, payload: Mapping[str, Any]) -> None:
    """InvalidParameter naming the longest value when the query would be too long to send."""
    if len(str(payload)) * 12 <= MAX_QUERY_BYTES:  # a character is 12 bytes at most, encoded
        return
    sizes = {name: len(urlencode({name: value}, doseq=True)) for name, value in payload.items()}
    if sum(sizes.values()) + len(sizes) <= MAX_QUERY_BYTES:
        return
    name = max(sizes, key=sizes.__getitem__)
    value = payload[name]
    shown_value = cell_values.shown_in_cell(value)
    raise InvalidParameter(
        f"{endpoint.name}: {name} is {len(str(value)):,} characters long ({shown_value}): "
        f"too long to send in a URL (its query may hold {MAX_QUERY_BYTES:,} bytes once "
        "encoded), and no such value is meant that long: give a shorter one",
        parameter=name,
        value=value,
        endpoint=endpoint.name,
    )


def named_endpoint(name: str) -> Endpoint:
    """The endpoint called `name`, or InvalidParameter naming it and the one it looks like
    (`get_company_details`: did you mean get-company-details?)."""
    try:
        return endpoint(name)
    except KeyError:
        pass
    names = [ep.name for ep in ENDPOINTS]
    spelt = str(name).strip().lower().replace("_", "-").replace(" ", "-").lstrip("/")
    like = spelt if spelt in names else looks_like(spelt, names)
    hint = f"did you mean {like}? " if like else ""
    raise InvalidParameter(
        f"no endpoint named {shown(name)}: {hint}give an endpoint's name as the spec writes "
        "it, such as get-company-details",
        parameter="endpoint",
        value=name,
    )
