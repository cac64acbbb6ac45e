"""The OpenAPI 3.1 document of the service, generated from the endpoint, resource and error data."""

from __future__ import annotations

from typing import Any

from profnet_sheets.spec.endpoints import (
    BLANK_PATTERN,
    ENDPOINTS,
    INT64_MAX,
    INT64_MIN,
    NON_BLANK_PATTERN,
    Endpoint,
    Param,
    page_pattern,
)
from profnet_sheets.spec.errors import BY_STATUS, statuses
from profnet_sheets.spec.profile import DEFAULT_PROFILE, ServiceProfile
from profnet_sheets.spec.resources import RESOURCES
from profnet_sheets.spec.schema import ArrayOf, ObjectOf, Scalar, Shape

Schema = dict[str, Any]


def shape_schema(shape: Shape, *, nullable: bool = False) -> Schema:
    """JSON Schema of a shape; named objects become references to components."""
    schema: Schema
    if isinstance(shape, Scalar):
        schema = {"type": [shape.kind, "null"] if nullable else shape.kind}
        if shape.format:
            schema["format"] = shape.format
        return schema
    if isinstance(shape, ArrayOf):
        schema = {"type": "array", "items": shape_schema(shape.items)}
    elif shape.name is not None:
        schema = {"$ref": f"#/components/schemas/{shape.name}"}
    else:
        schema = object_schema(shape)
    return {"anyOf": [schema, {"type": "null"}]} if nullable else schema


def object_schema(shape: ObjectOf) -> Schema:
    """The full JSON Schema of an object shape."""
    schema: Schema = {
        "type": "object",
        "properties": {
            field.name: {
                **shape_schema(field.shape, nullable=field.nullable),
                **({"description": field.description} if field.description else {}),
            }
            for field in shape.fields
        },
        "additionalProperties": shape.open,
    }
    required = [field.name for field in shape.fields if field.required]
    if required:
        schema["required"] = required
    return schema


_INT64: Schema = {"format": "int64", "minimum": INT64_MIN, "maximum": INT64_MAX}
_ITEM_SCHEMAS: dict[str, Schema] = {
    "string": {"type": "string"},
    "integer": {"type": "integer", **_INT64},
    "id": {"type": ["string", "integer"], **_INT64},  # the bounds hold for integers only
    "school": {"type": ["string", "integer"], **_INT64},
}


def param_schema(param: Param, hosts: tuple[str, ...] = DEFAULT_PROFILE.network_hosts) -> Schema:
    """JSON Schema of one request parameter's value (page URLs on `hosts`)."""
    schema: Schema
    if param.pattern:
        # An optional parameter may be blank, which means "not given" (docs/decisions.md #26).
        own = page_pattern(param.pattern, hosts)
        pattern = own if param.required else f"{BLANK_PATTERN}|{own}"
        return {"type": "string", "pattern": pattern, "description": param.description}
    if param.type == "array":
        item = param.items or "string"
        items = (
            {"type": "string", "enum": list(param.enum or ())}
            if item == "headcount_code"
            else _ITEM_SCHEMAS[item]
        )
        schema = {"type": "array", "items": items}
    elif param.type == "object":
        assert param.shape is not None
        schema = object_schema(param.shape)
    elif param.type == "flag":
        schema = {"type": "string", "enum": list(param.enum or ("true", "false"))}
    elif param.type in ("integer", "number"):
        schema = {"type": param.type, **(_INT64 if param.type == "integer" else {})}
        if param.minimum is not None:
            schema["minimum"] = param.minimum
        if param.maximum is not None:
            schema["maximum"] = param.maximum
    else:
        schema = {"type": "string"}
        if param.enum:
            schema["enum"] = list(param.enum)
        elif param.required:
            schema["pattern"] = NON_BLANK_PATTERN
    if param.default is not None:
        schema["default"] = param.default
    if param.description:
        schema["description"] = param.description
    return schema


def _given(param: Param) -> Schema:
    """A schema that holds when `param` is present and not empty (so it counts as given)."""
    value: Schema = {"not": {"type": "null"}}
    if param.type == "array":
        value = {"type": "array", "minItems": 1}
    elif param.type == "string" and not param.enum:
        value = {"type": "string", "pattern": NON_BLANK_PATTERN}
    return {"required": [param.name], "properties": {param.name: value}}


def _optional(schema: Schema) -> Schema:
    """An optional body field also takes null, which means "not given" (docs/decisions.md #26)."""
    return {"anyOf": [schema, {"type": "null"}]}


def body_schema(
    endpoint: Endpoint, hosts: tuple[str, ...] = DEFAULT_PROFILE.network_hosts
) -> Schema:
    """The JSON body schema of a POST endpoint, with its at-least-one and either-or rules."""
    params = [*endpoint.params]
    for param in endpoint.params:
        params.extend(Param(**{**param.__dict__, "name": alias}) for alias in param.aliases)
    schema: Schema = {
        "type": "object",
        "properties": {
            param.name: (
                param_schema(param, hosts)
                if param.required
                else _optional(param_schema(param, hosts))
            )
            for param in params
        },
    }
    required = [param.name for param in params if param.required]
    if required:
        schema["required"] = required
    by_name = {param.name: param for param in params}
    if endpoint.at_least_one:
        names = [*endpoint.at_least_one.names]
        names += [alias for name in names for alias in by_name[name].aliases]
        schema["anyOf"] = [_given(by_name[name]) for name in names]
    if endpoint.alternative:
        filters = [_given(by_name[name]) for name in endpoint.filter_names]
        alternative = _given(by_name[endpoint.alternative])
        schema["oneOf"] = [
            {"allOf": [alternative], "not": {"anyOf": filters}},
            {"anyOf": filters, "not": alternative},
        ]
    return schema


def _error_response(status: int) -> Schema:
    error = BY_STATUS[status]
    description = error.message + ("" if error.documented else " (decided: docs/decisions.md)")
    return {
        "description": description,
        "content": {
            "application/json": {"schema": {"$ref": f"#/components/schemas/{error.shape.name}"}}
        },
    }


def operation(endpoint: Endpoint, profile: ServiceProfile = DEFAULT_PROFILE) -> Schema:
    """The OpenAPI operation object of one endpoint, priced and checked as `profile` says."""
    price = profile.prices.price(endpoint)
    cost = {
        "fixed": f"{price.credits} credits",
        "free": "free",
        "per_item": f"{price.credits} credit{'s' if price.credits != 1 else ''} per item returned",
    }
    op: Schema = {
        "operationId": endpoint.python_name,
        "summary": endpoint.summary,
        "description": f"Cost: {cost[price.kind]}.",
        "x-credits": {"kind": price.kind, "credits": price.credits},
        "responses": {
            "200": {
                "description": "Success",
                "content": {"application/json": {"schema": shape_schema(endpoint.response)}},
            },
            **{
                str(status): _error_response(status)
                for status in statuses(endpoint)
                if status != 200
            },
        },
    }
    if endpoint.method == "GET":
        op["parameters"] = [
            {
                "name": param.name,
                "in": "query",
                "required": param.required,
                "schema": param_schema(param, profile.network_hosts),
                **({"description": param.description} if param.description else {}),
            }
            for param in endpoint.params
        ]
    else:
        op["requestBody"] = {
            "required": True,
            "content": {
                "application/json": {"schema": body_schema(endpoint, profile.network_hosts)}
            },
        }
    return op


def openapi_document(
    server_url: str | None = None, profile: ServiceProfile = DEFAULT_PROFILE
) -> Schema:
    """The whole OpenAPI 3.1 document (control endpoints of the sandbox are not in it), of the
    service `profile` describes: its key header, its network's hosts, its prices."""
    schemas: Schema = {shape.name: object_schema(shape) for shape in RESOURCES if shape.name}
    for error in BY_STATUS.values():
        assert error.shape.name is not None
        schemas[error.shape.name] = object_schema(error.shape)
    document: Schema = {
        "openapi": "3.1.0",
        "info": {
            "title": "Professional-network data service",
            "version": "1",
            "description": "Generated from profnet_sheets.spec; see docs/decisions.md for choices.",
        },
        "paths": {
            endpoint.path: {endpoint.method.lower(): operation(endpoint, profile)}
            for endpoint in ENDPOINTS
        },
        "components": {
            "schemas": schemas,
            "securitySchemes": {
                "apiKey": {"type": "apiKey", "in": "header", "name": profile.key_header}
            },
        },
        "security": [{"apiKey": []}],
    }
    if server_url:
        document["servers"] = [{"url": server_url}]
    return document
