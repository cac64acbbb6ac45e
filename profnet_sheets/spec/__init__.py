"""The service contract as plain data: endpoints, prices, resources, error bodies, OpenAPI, and
the service profile (what a service names or prices otherwise)."""

from typing import TYPE_CHECKING, Any

from profnet_sheets.spec.endpoints import (
    BY_NAME,
    ENDPOINTS,
    HEADCOUNT_URL_MARKERS,
    AtLeastOne,
    Endpoint,
    Param,
    Price,
    endpoint,
    items_in,
    search_endpoint,
)
from profnet_sheets.spec.profile import (
    API_KEY_HEADER,
    DEFAULT_PROFILE,
    PriceTable,
    ServiceProfile,
)
from profnet_sheets.spec.resources import HEADCOUNT_CODES, company_size_label, headcount_code_for

if TYPE_CHECKING:
    from profnet_sheets.spec.openapi import openapi_document


def __getattr__(name: str) -> Any:
    """`openapi_document` imported when asked for: a formula never needs it."""
    if name == "openapi_document":
        from profnet_sheets.spec.openapi import openapi_document

        return openapi_document
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "API_KEY_HEADER",
    "BY_NAME",
    "DEFAULT_PROFILE",
    "ENDPOINTS",
    "HEADCOUNT_CODES",
    "HEADCOUNT_URL_MARKERS",
    "AtLeastOne",
    "Endpoint",
    "Param",
    "Price",
    "PriceTable",
    "ServiceProfile",
    "company_size_label",
    "endpoint",
    "headcount_code_for",
    "items_in",
    "openapi_document",
    "search_endpoint",
]
