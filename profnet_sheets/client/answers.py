"""What a 200 body means: understood or not, and its lists as lists (nulls read as empty).

The spec shows one shape per answer and leaves some parts "not shown". Reading is tolerant
where a service may differ without being wrong: extra fields are ignored, a null list is an
empty one, a paged envelope without `total_pages` / `total_results` is still a page, a status
without `progress` / `total_results` is still a status. What cannot be read is said by name
(`missing`), never guessed: a creation without `request_id` names no job to wait on.
"""

from __future__ import annotations

from typing import Any

from profnet_sheets.spec import Endpoint
from profnet_sheets.spec.endpoints import is_answer
from profnet_sheets.spec.schema import ArrayOf, ObjectOf, Shape

_JOB_STATES = frozenset({"processing", "failed"})  # the spec's job states but the last


def missing(endpoint: Endpoint, body: Any) -> str | None:
    """What a 200 body lacks to be this endpoint's answer (a field's name, or what it is
    instead), or None when it is understood."""
    if not isinstance(body, dict):
        return "a JSON object" if body is not None else "a JSON body"
    role = endpoint.search_role
    if role == "create":
        request_id = body.get("request_id")
        if isinstance(request_id, bool) or not isinstance(request_id, str | int):
            return "request_id"
        return None if str(request_id).strip() else "request_id"
    if role == "status":
        return None if isinstance(body.get("status"), str) else "status"
    if role == "results":
        return (
            None
            if isinstance(body.get("results"), list | None) and "results" in body
            else "results"
        )
    if is_answer(endpoint, body):
        return None
    shape = endpoint.response
    if isinstance(shape, ObjectOf):
        return next((f.name for f in shape.fields if f.required and f.name not in body), "data")
    return "data"


def understood(endpoint: Endpoint, body: Any) -> bool:
    """Whether a 200 body is this endpoint's answer (see `missing`)."""
    return missing(endpoint, body) is None


def unfinished(endpoint: Endpoint, body: Any) -> bool:
    """A results page answered before its search completed: a 200 carrying the search's state
    (`processing`, or `failed`) that a service may send instead of a 409. Any other `status`
    (a marketplace's "success") says nothing about the search."""
    return (
        endpoint.search_role == "results"
        and isinstance(body, dict)
        and body.get("status") in _JOB_STATES
    )


def conformed(endpoint: Endpoint, body: Any) -> Any:
    """`body` with every null where the spec has a list made an empty list (at any depth);
    anything else as it came: extra fields kept, missing ones left missing."""
    return _conform(endpoint.response, body)


def _conform(shape: Shape | None, value: Any) -> Any:
    if isinstance(shape, ArrayOf):
        if value is None:
            return []
        if isinstance(value, list) and isinstance(shape.items, ObjectOf):
            return [_conform(shape.items, item) for item in value]
        return value
    if isinstance(shape, ObjectOf) and isinstance(value, dict):
        fixed = dict(value)
        for field in shape.fields:
            if field.name in fixed:
                fixed[field.name] = _conform(field.shape, fixed[field.name])
        return fixed
    return value


def payload(endpoint: Endpoint, body: Any) -> Any:
    """The answer inside a conformed body (`data`, `data.data`, or the body itself); a null
    on the way is an empty list where the spec has a list, otherwise None."""
    node = body
    for name in endpoint.payload_at:
        node = node.get(name) if isinstance(node, dict) else None
        if node is None:
            return [] if isinstance(_payload_shape(endpoint), ArrayOf) else None
    return node


def _payload_shape(endpoint: Endpoint) -> Shape | None:
    shape: Shape | None = endpoint.response
    for name in endpoint.payload_at:
        if not isinstance(shape, ObjectOf) or name not in shape.field_names:
            return None
        shape = shape.field(name).shape
    return shape


def whole_number(value: Any) -> int | None:
    """A count the service gave (`total_results`, `total_pages`, `progress`), or None when it
    is missing, null or not a whole number: never read as 0."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and value.strip().isdigit():
        return int(value.strip())
    return None
