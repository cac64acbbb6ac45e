"""Plain-HTTP helpers for the contract suite (no client code of the project is used)."""

from __future__ import annotations

import math
import re
import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Protocol
from urllib.parse import urlparse

import requests

from tests.integration.contract import shapes

KEY = "test-key"
HEADER = "X-SERVICE-API-KEY"
PAGE_SIZE = 25  # decisions.md #22
LIST_PAGE_SIZE = 10  # decisions.md #29, #30

# Section 4.0: method and price of the 20 endpoints. A price of None is "per item".
ENDPOINTS: dict[str, tuple[str, int | None]] = {
    "get-company-details": ("GET", 1),
    "search-posts": ("POST", 5),
    "search-jobs": ("POST", 10),
    "get-lead-results": ("GET", None),
    "get-job-details": ("GET", 1),
    "get-post-details": ("GET", 1),
    "get-company-posts": ("GET", 1),
    "google-full-profiles": ("POST", None),
    "find-geocode-by-location": ("GET", 1),
    "get-profile-details": ("GET", 1),
    "get-company-search-status": ("GET", 0),
    "get-lead-search-status": ("GET", 0),
    "get-profile-posts": ("GET", 1),
    "google-schools": ("POST", 1),
    "get-company-results": ("GET", None),
    "search-companies": ("POST", 25),
    "search-leads": ("POST", 50),
    "get-recommendations-received": ("GET", 1),
    "get-recommendations-given": ("GET", 1),
    "find-custom-headcount": ("POST", 1),
}

COMPANY_SIZES = (
    "1-10",
    "11-50",
    "51-200",
    "201-500",
    "501-1000",
    "1001-5000",
    "5001-10000",
    "10001+",
)
HEADCOUNT_CODES = dict(zip("ABCDEFGH", COMPANY_SIZES, strict=True))

# A fresh connection per request: with keep-alive, each request to the sandbox takes ~44 ms
# (a delayed-ACK stall); a new loopback connection takes ~2 ms.
_http = requests.api


class Sandbox(Protocol):
    @property
    def base_url(self) -> str: ...

    def usage(self, key: str | None = None) -> dict[str, Any]: ...


def api(
    sb: Sandbox, method: str, endpoint: str, /, *, key: str | None = KEY, **params: Any
) -> requests.Response:
    """Call ``endpoint``: GET sends ``params`` as the query string, POST as a JSON body."""
    headers = {} if key is None else {HEADER: key}
    url = f"{sb.base_url}/{endpoint}"
    if method == "GET":
        return _http.get(url, params=params, headers=headers, timeout=15)
    return _http.request(method, url, json=params, headers=headers, timeout=15)


def call(
    sb: Sandbox, endpoint: str, /, *, key: str | None = KEY, **params: Any
) -> requests.Response:
    """Like :func:`api`, with the method the spec gives the endpoint."""
    return api(sb, ENDPOINTS[endpoint][0], endpoint, key=key, **params)


def ok(resp: requests.Response) -> Any:
    assert resp.status_code == 200, (
        f"{resp.request.method} {resp.url}: {resp.status_code} {resp.text[:500]}"
    )
    return resp.json()


def get_ok(sb: Sandbox, endpoint: str, /, *, key: str = KEY, **params: Any) -> Any:
    return ok(call(sb, endpoint, key=key, **params))


# --- control endpoints -------------------------------------------------------------------


def usage(sb: Sandbox, key: str = KEY) -> dict[str, Any]:
    """What the sandbox counted for `key` (GET /_sandbox/usage; see
    test_the_usage_read_from_the_running_sandbox_is_what_its_control_endpoint_answers)."""
    return sb.usage(key)


def balance(sb: Sandbox, key: str = KEY) -> int:
    return int(usage(sb, key)["balance"])


def set_key(sb: Sandbox, key: str, credits: int) -> None:
    resp = _http.put(
        f"{sb.base_url}/_sandbox/keys", json={"key": key, "credits": credits}, timeout=15
    )
    assert resp.status_code == 200, resp.text


def new_key(sb: Sandbox, credits: int = 1_000_000) -> str:
    key = f"k-{uuid.uuid4().hex[:12]}"
    set_key(sb, key, credits)
    return key


def advance_clock(sb: Sandbox, seconds: float) -> None:
    resp = _http.post(f"{sb.base_url}/_sandbox/clock", json={"advance": seconds}, timeout=15)
    assert resp.status_code == 200, resp.text


def set_faults(sb: Sandbox, **faults: Any) -> dict[str, Any]:
    resp = _http.put(f"{sb.base_url}/_sandbox/faults", json=faults, timeout=15)
    assert resp.status_code == 200, resp.text
    body: dict[str, Any] = resp.json()
    return body


# --- searches ----------------------------------------------------------------------------

KIND_ENDPOINTS = {
    "leads": ("search-leads", "get-lead-search-status", "get-lead-results"),
    "companies": ("search-companies", "get-company-search-status", "get-company-results"),
}


def create_search(sb: Sandbox, kind: str, /, *, key: str = KEY, **payload: Any) -> str:
    body = ok(call(sb, KIND_ENDPOINTS[kind][0], key=key, **payload))
    request_id: str = body["request_id"]
    return request_id


def wait_done(
    sb: Sandbox, kind: str, request_id: str, /, *, key: str = KEY, step: float = 1.0
) -> dict[str, Any]:
    """Poll the status until completed/failed, moving the sandbox clock instead of sleeping."""
    status_endpoint = KIND_ENDPOINTS[kind][1]
    for _ in range(200):
        body: dict[str, Any] = get_ok(sb, status_endpoint, key=key, request_id=request_id)
        if body["status"] in ("completed", "failed"):
            return body
        advance_clock(sb, step)
    raise AssertionError(f"search {request_id} never finished")


def read_all_pages(
    sb: Sandbox, kind: str, request_id: str, /, *, key: str = KEY
) -> list[dict[str, Any]]:
    results_endpoint = KIND_ENDPOINTS[kind][2]
    first = get_ok(sb, results_endpoint, key=key, request_id=request_id, page=1)
    items: list[dict[str, Any]] = list(first["results"])
    for page in range(2, first["total_pages"] + 1):
        items += get_ok(sb, results_endpoint, key=key, request_id=request_id, page=page)["results"]
    return items


def pages_for(total: int) -> int:
    return math.ceil(total / PAGE_SIZE)


# --- error bodies ------------------------------------------------------------------------

NO_PARAMETER = object()


def assert_error(
    resp: requests.Response, status: int, message: str, parameter: object = None
) -> dict[str, Any]:
    """Check an error status and body (section 7). ``parameter=NO_PARAMETER``: must be absent."""
    assert resp.status_code == status, (
        f"{resp.request.method} {resp.url}: expected {status}, got {resp.status_code} "
        f"{resp.text[:400]}"
    )
    body = resp.json()
    assert isinstance(body, dict), body
    assert body.get("message") == message, body
    if status == 400:
        if parameter is NO_PARAMETER:
            shapes.assert_shape(body, shapes.ERROR_400_NO_PARAMETER)
        else:
            shapes.assert_shape(body, shapes.ERROR_400)
            if parameter is not None:
                assert body["parameter"] == parameter, body
    elif status == 401:
        shapes.assert_shape(body, shapes.ERROR_401)
        assert "key" in body["details"].lower(), "§5: details state an invalid or missing key"
    elif status == 404:
        shapes.assert_shape(body, shapes.ERROR_404)
    elif status == 500:
        shapes.assert_shape(body, shapes.ERROR_500)
    elif status == 402:
        shapes.assert_shape(body, shapes.ERROR_402)
    if "details" in body:
        assert isinstance(body["details"], str)
        assert body["details"].strip(), body
    return dict(body)


# --- value checks (section 2: timestamps and URLs) ----------------------------------------

TIMESTAMP_FIELDS = {"posted_at"}
URL_FIELDS = {
    "profnet_url",
    "website",
    "profile_picture",
    "author_profnet_url",
    "company_profnet_url",
    "job_url",
    "apply_url",
    "company_url",
    "recommender_profnet_url",
    "recommendee_profnet_url",
    "url",
}


TIMESTAMP_RE = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$")  # decisions #31


def parse_timestamp(value: str) -> datetime:
    assert TIMESTAMP_RE.match(value), f"{value!r} is not like 2026-11-03T14:22:05Z (decisions #31)"
    parsed = datetime.fromisoformat(value)
    assert parsed.tzinfo is not None, f"{value!r} has no time zone"
    assert parsed.utcoffset() == timedelta(0), f"{value!r} is not UTC"
    return parsed


def assert_url(value: str) -> None:
    parts = urlparse(value)
    assert parts.scheme in ("http", "https"), f"{value!r}: no http(s) scheme"
    assert parts.netloc, f"{value!r}: no host"
    assert " " not in value, f"{value!r}: contains a space"


def check_values(value: object, path: str = "$") -> list[str]:
    """Walk a response; every timestamp field must be ISO 8601 UTC, every URL field a URL."""
    problems: list[str] = []
    if isinstance(value, dict):
        for name, sub in value.items():
            where = f"{path}.{name}"
            if isinstance(sub, str) and name in TIMESTAMP_FIELDS:
                try:
                    parse_timestamp(sub)
                except (AssertionError, ValueError) as exc:
                    problems.append(f"{where}: {exc}")
            elif isinstance(sub, str) and name in URL_FIELDS:
                try:
                    assert_url(sub)
                except AssertionError as exc:
                    problems.append(f"{where}: {exc}")
            else:
                problems += check_values(sub, where)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            problems += check_values(item, f"{path}[{index}]")
    return problems


# --- URLs and ids ------------------------------------------------------------------------

COMPANY_URL_RE = re.compile(r"^https://www\.profnet\.com/(company|showcase)/[^/]+/$")
PROFILE_URL_RE = re.compile(r"^https://www\.profnet\.com/in/[^/]+/$")
SCHOOL_URL_RE = re.compile(r"^https://www\.profnet\.com/school/[^/]+/$")


def trailing_number(urn: str) -> str:
    match = re.search(r"(\d+)$", urn)
    assert match, f"{urn!r} does not end in a numeric id"
    return match.group(1)


def size_bounds(label: str) -> tuple[int, int | None]:
    """``"51-200"`` -> (51, 200); ``"10001+"`` -> (10001, None)."""
    if label.endswith("+"):
        return int(label[:-1]), None
    low, high = label.split("-")
    return int(low), int(high)


# --- the shared world -------------------------------------------------------------------

COMPANY_URL = "https://www.profnet.com/company/acme-widgets/"
COMPANY_DOMAIN = "acme-widgets.com"
PROFILE_URL = "https://www.profnet.com/in/jane-doe-4711/"
SCHOOL_URL = "https://www.profnet.com/school/northfield-university/"


@dataclass(frozen=True)
class World:
    """Things the shared sandbox has shown us, needed as parameters of other calls."""

    company_url: str
    profile_url: str
    school_url: str
    lead_request_id: str
    company_request_id: str
    job_id: str
    post_id: str
    geo_id: str
    geo_name: str


def valid_params(world: World, endpoint: str) -> dict[str, Any]:
    """A minimal valid request for each of the 20 endpoints."""
    table: dict[str, dict[str, Any]] = {
        "get-company-details": {"domain": COMPANY_DOMAIN},
        "search-posts": {"keyword": "python"},
        "search-jobs": {"keyword": "engineer"},
        "get-lead-results": {"request_id": world.lead_request_id},
        "get-job-details": {"job_id": world.job_id},
        "get-post-details": {"urn": world.post_id},
        "get-company-posts": {"profnet_url": world.company_url},
        "google-full-profiles": {"job_title": "Data Engineer", "limit": 2},
        "find-geocode-by-location": {"location": "Berlin"},
        "get-profile-details": {"profnet_url": world.profile_url},
        "get-company-search-status": {"request_id": world.company_request_id},
        "get-lead-search-status": {"request_id": world.lead_request_id},
        "get-profile-posts": {"profnet_url": world.profile_url},
        "google-schools": {"school_name": "Northfield"},
        "get-company-results": {"request_id": world.company_request_id},
        "search-companies": {"company_headcounts": ["C", "D"], "limit": 5},
        "search-leads": {"title_keywords": ["Engineer"], "limit": 5},
        "get-recommendations-received": {"profnet_url": world.profile_url},
        "get-recommendations-given": {"profnet_url": world.profile_url},
        "find-custom-headcount": {"profnet_url": world.company_url},
    }
    return dict(table[endpoint])


# Section 4 / 7: the `parameter` of the 400 answered when a request carries no parameters at
# all. NO_PARAMETER: the body has no `parameter` field (search-jobs). The two searches and
# get-company-results follow decisions #14 and #18.
MISSING_PARAMETER: dict[str, object] = {
    "get-company-details": "company_id, profnet_url, or domain",
    "search-posts": "keyword",
    "search-jobs": NO_PARAMETER,
    "get-lead-results": "request_id",
    "get-job-details": "job_id",
    "get-post-details": "urn",
    "get-company-posts": "profnet_url",
    "google-full-profiles": "payload",
    "find-geocode-by-location": "location",
    "get-profile-details": "profnet_url",
    "get-company-search-status": "request_id",
    "get-lead-search-status": "request_id",
    "get-profile-posts": "profnet_url",
    "google-schools": "payload",
    "get-company-results": "request_id",
    "search-companies": "payload",
    "search-leads": "payload",
    "get-recommendations-received": "profnet_url",
    "get-recommendations-given": "profnet_url",
    "find-custom-headcount": "profnet_url",
}

GET_ENDPOINTS = sorted(name for name, (method, _) in ENDPOINTS.items() if method == "GET")
POST_ENDPOINTS = sorted(name for name, (method, _) in ENDPOINTS.items() if method == "POST")


def raw(
    sb: Sandbox,
    method: str,
    endpoint: str,
    /,
    *,
    key: str | None = KEY,
    params: dict[str, Any] | None = None,
    data: str | bytes | None = None,
    json_body: Any = None,
    content_type: str | None = None,
) -> requests.Response:
    """A request exactly as given (for wrong methods, malformed bodies and the like)."""
    headers = {} if key is None else {HEADER: key}
    if content_type is not None:
        headers["Content-Type"] = content_type
    kwargs: dict[str, Any] = {"params": params, "headers": headers, "timeout": 15}
    if data is not None:
        kwargs["data"] = data
    elif json_body is not None:
        kwargs["json"] = json_body
    return _http.request(method, f"{sb.base_url}/{endpoint}", **kwargs)
