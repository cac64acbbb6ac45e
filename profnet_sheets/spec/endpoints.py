"""The 20 operations of the service: method, path, price, parameters, response and statuses."""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from profnet_sheets.spec import resources as r
from profnet_sheets.spec.schema import STRING, ArrayOf, Field, ObjectOf, Shape, obj

ParamType = Literal["string", "integer", "number", "flag", "array", "object"]
ItemType = Literal["string", "integer", "id", "school", "headcount_code"]
Location = Literal["query", "body"]
PriceKind = Literal["fixed", "per_item", "free"]
SearchKind = Literal["leads", "companies"]
SearchRole = Literal["create", "status", "results"]

FLAG_VALUES = ("true", "false")
# Accepted URL forms (docs/decisions.md #33, #35): scheme, www. or a country subdomain optional.
# Patterns are written so that Python and ECMA-262 (JSON Schema) read them alike: no \s, whose
# meaning differs between the two, and no $, which Python also matches before a final newline.
SPACE_CHARS = " \t\n\r\f\v"  # what "blank" means, for the sandbox and the schema alike
_SPACE = r"[ \t\n\r\f\v]"
_SLUG = r"[^/?# \t\n\r\f\v]+"
NON_BLANK_PATTERN = r"[^ \t\n\r\f\v]"
# The network's host on the sandbox, and the default of a service profile (whose
# `network_hosts` name the real network's): page URL patterns are written for it, and
# `page_pattern` rewrites them for other hosts.
NETWORK_HOST = "profnet.com"
_HOST = re.escape(NETWORK_HOST)
_URL_HEAD = rf"^{_SPACE}*(https?://)?([a-z]{{2,3}}\.|www\.)?{_HOST}/"
PROFILE_URL_PATTERN = _URL_HEAD + rf"in/{_SLUG}"
COMPANY_URL_PATTERN = _URL_HEAD + rf"(company|showcase)/{_SLUG}"
HEADCOUNT_URL_PATTERN = _URL_HEAD + rf"(company|showcase|school)/{_SLUG}"
NUMERIC_ID_PATTERN = rf"^{_SPACE}*[0-9]+{_SPACE}*(?![\s\S])"
BLANK_PATTERN = rf"^{_SPACE}*(?![\s\S])"
URL_PARTS_PATTERN = _URL_HEAD + rf"(?P<kind>company|showcase|school|in)/(?P<slug>{_SLUG})"
DATE_POSTED = ("past-24h", "past-week", "past-month")


@functools.lru_cache(maxsize=64)
def _page_pattern(pattern: str, hosts: tuple[str, ...]) -> str:
    if hosts == (NETWORK_HOST,):
        return pattern
    alternatives = "|".join(host.replace(".", r"\.") for host in hosts)
    return pattern.replace(_HOST, alternatives if len(hosts) == 1 else f"(?:{alternatives})")


def page_pattern(pattern: str, hosts: Sequence[str]) -> str:
    """A page URL pattern (`PROFILE_URL_PATTERN`, ...) for pages on `hosts` (lowercase host
    names, as a service profile checks them) instead of NETWORK_HOST; others unchanged."""
    return _page_pattern(pattern, tuple(hosts))


# What an integer parameter or array item may be at most: a 64-bit integer (decisions.md #93).
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1


@dataclass(frozen=True)
class Param:
    """One request parameter: where it goes, its type and the rules it must satisfy."""

    name: str
    type: ParamType = "string"
    required: bool = False
    description: str = ""
    items: ItemType | None = None  # element type of an array
    shape: ObjectOf | None = None  # members of an object
    enum: tuple[str, ...] | None = None
    minimum: float | None = None
    maximum: float | None = None
    default: Any = None
    aliases: tuple[str, ...] = ()  # other names the service accepts (docs/decisions.md)
    pattern: str | None = None  # a regular expression the value must match (decisions.md #33)
    # A flag whose true adds this field to the answer at the same price (a call is then sent
    # with it on whatever was asked: one answer serves every later ask, decisions.md #596).
    adds: str | None = None


@dataclass(frozen=True)
class AtLeastOne:
    """At least one of `names` must be given; otherwise 400 naming `parameter` (or none)."""

    names: tuple[str, ...]
    parameter: str | None


@dataclass(frozen=True)
class Price:
    """What a call costs: a fixed price, a price per returned item, or nothing."""

    kind: PriceKind
    credits: int = 0
    items_at: tuple[str, ...] = ()  # path to the charged array in the response body

    def charge(self, body: Any) -> int:
        """Credits due for a successful response `body`."""
        if self.kind == "fixed":
            return self.credits
        if self.kind == "free":
            return 0
        return self.credits * len(items_in(body, self.items_at))

    def upper_bound(self, max_items: int) -> int:
        """Most a call can cost when at most `max_items` items come back."""
        return self.credits * max_items if self.kind == "per_item" else self.credits


def items_in(body: Any, path: tuple[str, ...]) -> list[Any]:
    """The array found at `path` in a response body (empty when it is not there)."""
    node = body
    for key in path:
        if not isinstance(node, dict):
            return []
        node = node.get(key)
    return node if isinstance(node, list) else []


@dataclass(frozen=True)
class Endpoint:
    """One operation of the service, as section 4 describes it."""

    name: str
    method: Literal["GET", "POST"]
    summary: str
    price: Price
    params: tuple[Param, ...]
    response: Shape
    statuses: tuple[int, ...]  # documented in section 7
    at_least_one: AtLeastOne | None = None
    alternative: str | None = None  # a parameter that replaces all filters (sales_nav_url)
    shared_with_alternative: tuple[str, ...] = ()
    search: SearchKind | None = None
    search_role: SearchRole | None = None
    not_found: str | None = None  # what a 404 means here (spec section 7, or decisions.md #20)
    names_parameter: bool = True  # 400 bodies carry `parameter` (section 7: not on search-jobs)
    payload_at: tuple[str, ...] = ("data",)  # where the answer sits in the envelope

    @property
    def path(self) -> str:
        return "/" + self.name

    @property
    def python_name(self) -> str:
        return self.name.replace("-", "_")

    @property
    def location(self) -> Location:
        return "query" if self.method == "GET" else "body"

    def param(self, name: str) -> Param:
        for param in self.params:
            if param.name == name:
                return param
        raise KeyError(f"{self.name} has no parameter {name!r}")

    @property
    def param_names(self) -> tuple[str, ...]:
        return tuple(param.name for param in self.params)

    @property
    def filter_names(self) -> tuple[str, ...]:
        """For a search creation: the option-1 filters (everything but the alternative)."""
        skip = {self.alternative, *self.shared_with_alternative}
        return tuple(name for name in self.param_names if name not in skip)


def _data(shape: Shape) -> ObjectOf:
    return obj(None, Field("data", shape))


def _posts(item: ObjectOf) -> ObjectOf:
    return _data(obj(None, Field("posts", ArrayOf(item)), Field("paging", r.PAGING)))


START = Param("start", "integer", description="Starting offset", default=0, minimum=0)
PAGINATION_TOKEN = Param("pagination_token", description="Token for pagination")
PROFILE_URL = Param(
    "profnet_url", required=True, description="Profile URL", pattern=PROFILE_URL_PATTERN
)
REQUEST_ID = Param("request_id", required=True, description="Identifier of the search job")
RESULTS_PAGE = Param("page", "integer", description="Page of results", default=1, minimum=1)
FIXED_1 = Price("fixed", 1)
FREE = Price("free")

_SEARCH_LEADS_FILTERS = (
    Param("title_keywords", "array", items="string", description="Job titles"),
    Param("current_company_names", "array", items="string", description="Current company names"),
    Param("current_company_ids", "array", items="id", description="Current company ids"),
    Param("past_company_names", "array", items="string", description="Past company names"),
    Param("past_company_ids", "array", items="id", description="Past company ids"),
    Param("geo_codes", "array", items="integer", description="Location geo ids (numeric)"),
    Param("industry_codes", "array", items="id", description="Industry codes"),
    Param("school_ids", "array", items="school", description="School ids"),
    Param("keywords", description="General keywords"),
)

_SEARCH_COMPANIES_FILTERS = (
    Param("industry_codes", "array", items="id", description="Industry ids to include"),
    Param("industry_codes_exclude", "array", items="id", description="Industry ids to exclude"),
    Param(
        "company_headcounts",
        "array",
        items="headcount_code",
        enum=tuple(r.HEADCOUNT_CODES),
        description=f"Headcount codes {r.headcount_codes_told()}",
    ),
    Param(
        "company_headcount_growth",
        "object",
        shape=r.GROWTH_RANGE,
        description="{min, max}: a growth percentage range",
    ),
    Param(
        "headquarters_location",
        "array",
        items="integer",
        description="Location ids to include (numeric)",
    ),
    Param(
        "headquarters_location_exclude",
        "array",
        items="integer",
        description="Location ids to exclude (numeric)",
    ),
    Param("hiring_on_profnet", "flag", enum=FLAG_VALUES, description="true or false"),
    Param("recent_activities", "array", items="string", description="Activity type filters"),
    Param("keywords", description="Search keywords"),
)

SALES_NAV_URL = Param(
    "sales_nav_url", description="A sales-prospecting search URL, instead of every filter"
)


def _search_limit(maximum: int) -> Param:
    return Param(
        "limit",
        "integer",
        description=f"Maximum results, 1 to {maximum}",
        default=100,
        minimum=1,
        maximum=maximum,
    )


ENDPOINTS: tuple[Endpoint, ...] = (
    Endpoint(
        "get-company-details",
        "GET",
        "Company details by numeric id, company page URL or domain.",
        FIXED_1,
        (
            Param(
                "company_id",
                description="Numeric company id in the network",
                pattern=NUMERIC_ID_PATTERN,
            ),
            Param("profnet_url", description="Company page URL", pattern=COMPANY_URL_PATTERN),
            Param("domain", description="Company domain, with or without protocol, www. or path"),
        ),
        _data(r.COMPANY),
        (200, 400, 401),
        at_least_one=AtLeastOne(
            ("company_id", "profnet_url", "domain"), "company_id, profnet_url, or domain"
        ),
        not_found="no company for that domain (decided: docs/decisions.md #20)",
    ),
    Endpoint(
        "search-posts",
        "POST",
        "Posts matching a keyword.",
        Price("fixed", 5),
        (
            Param("keyword", required=True, description="Search keyword"),
            Param(
                "sort_by",
                enum=("date", "relevance"),
                default="relevance",
                description="date or relevance",
            ),
            Param("date_posted", enum=DATE_POSTED, description="past-24h, past-week or past-month"),
            START,
        ),
        _posts(r.SEARCH_POST_SUMMARY),
        (200, 400, 401),
    ),
    Endpoint(
        "search-jobs",
        "POST",
        "Job postings matching filters (at least one search field).",
        Price("fixed", 10),
        (
            Param("keyword", description="Search keyword"),
            Param(
                "geo_id",
                description="Location id (from find-geocode-by-location)",
                aliases=("geo_code",),
                pattern=NUMERIC_ID_PATTERN,
            ),
            Param("date_posted", enum=DATE_POSTED, description="past-24h, past-week or past-month"),
            Param("experience_level", description="Experience level filter"),
            Param(
                "job_type",
                enum=("full-time", "part-time", "contract", "internship"),
                description="full-time, part-time, contract or internship",
            ),
            Param(
                "remote",
                enum=("on-site", "remote", "hybrid"),
                description="on-site, remote or hybrid",
            ),
            Param("company_id", description="Company id filter", pattern=NUMERIC_ID_PATTERN),
            Param("industry_id", description="Industry id filter"),
            START,
        ),
        _data(obj(None, Field("jobs", ArrayOf(r.JOB_SUMMARY)), Field("paging", r.PAGING))),
        (200, 400, 401),
        at_least_one=AtLeastOne(
            (
                "keyword",
                "geo_id",
                "date_posted",
                "experience_level",
                "job_type",
                "remote",
                "company_id",
                "industry_id",
            ),
            None,
        ),
        names_parameter=False,
    ),
    Endpoint(
        "get-lead-results",
        "GET",
        "One page of the results of a completed lead search.",
        Price("per_item", 1, ("results",)),
        (REQUEST_ID, RESULTS_PAGE),
        r.LEAD_RESULTS,
        (200, 400, 404),
        search="leads",
        search_role="results",
        payload_at=(),
        not_found="search request not found",
    ),
    Endpoint(
        "get-job-details",
        "GET",
        "A job posting by id.",
        FIXED_1,
        (Param("job_id", required=True, description="Job posting id"),),
        _data(r.JOB_DETAIL),
        (200, 400, 401, 404),
        not_found="job not found or no longer active",
    ),
    Endpoint(
        "get-post-details",
        "GET",
        "A post by its numeric id.",
        FIXED_1,
        (
            Param(
                "urn",
                required=True,
                description="The numeric id of the post",
                pattern=NUMERIC_ID_PATTERN,
            ),
        ),
        _data(r.POST_DETAIL),
        (200, 400, 401, 404),
        not_found="post not found",
    ),
    Endpoint(
        "get-company-posts",
        "GET",
        "Posts or reposts of a company page.",
        FIXED_1,
        (
            Param(
                "profnet_url",
                required=True,
                description="Company page URL",
                pattern=COMPANY_URL_PATTERN,
            ),
            Param(
                "type", enum=("posts", "reposts"), default="posts", description="posts or reposts"
            ),
            START,
            PAGINATION_TOKEN,
        ),
        _posts(r.POST_SUMMARY),
        (200, 400, 401),
    ),
    Endpoint(
        "google-full-profiles",
        "POST",
        "Profiles found through a web search engine, with enriched data.",
        Price("per_item", 1, ("data",)),
        (
            Param("name", description="Person name"),
            Param("company_name", description="Company name"),
            Param("job_title", description="Job title"),
            Param("location", description="Location"),
            Param("keywords", description="Additional keywords"),
            Param(
                "limit",
                "integer",
                default=3,
                minimum=1,
                maximum=5,
                description="Maximum profiles returned, 1 to 5",
            ),
        ),
        _data(ArrayOf(r.PROFILE_SEARCH_RESULT)),
        (200, 400),
        at_least_one=AtLeastOne(
            ("name", "company_name", "job_title", "location", "keywords"), "payload"
        ),
    ),
    Endpoint(
        "find-geocode-by-location",
        "GET",
        "Geo ids for a place name (used as location filters elsewhere).",
        FIXED_1,
        (Param("location", required=True, description="A place name"),),
        _data(obj(None, Field("message", STRING), Field("data", ArrayOf(r.GEOCODE_ITEM)))),
        (200, 400, 401, 500),
        payload_at=("data", "data"),
    ),
    Endpoint(
        "get-profile-details",
        "GET",
        "A profile by URL, with skills and certifications on request.",
        FIXED_1,
        (
            PROFILE_URL,
            Param(
                "include_skills",
                "flag",
                enum=FLAG_VALUES,
                default="false",
                description="true or false; adds skills",
                adds="skills",
            ),
            Param(
                "include_certifications",
                "flag",
                enum=FLAG_VALUES,
                default="false",
                description="true or false; adds certifications",
                adds="certifications",
            ),
        ),
        _data(r.PROFILE_DETAIL),
        (200, 400, 401),
    ),
    Endpoint(
        "get-company-search-status",
        "GET",
        "Status and progress of a company search (free).",
        FREE,
        (REQUEST_ID,),
        r.SEARCH_STATUS,
        (200, 400, 401, 404),
        search="companies",
        search_role="status",
        payload_at=(),
        not_found="search request not found",
    ),
    Endpoint(
        "get-lead-search-status",
        "GET",
        "Status and progress of a lead search (free).",
        FREE,
        (REQUEST_ID,),
        r.SEARCH_STATUS,
        (200, 400, 401, 404),
        search="leads",
        search_role="status",
        payload_at=(),
        not_found="search request not found",
    ),
    Endpoint(
        "get-profile-posts",
        "GET",
        "Posts, comments or reactions of a profile.",
        FIXED_1,
        (
            PROFILE_URL,
            Param(
                "type",
                enum=("posts", "comments", "reactions"),
                default="posts",
                description="posts, comments or reactions",
            ),
            START,
            PAGINATION_TOKEN,
        ),
        _posts(r.POST_SUMMARY),
        (200, 400),
    ),
    Endpoint(
        "google-schools",
        "POST",
        "School pages found through a web search engine.",
        FIXED_1,
        (
            Param("school_name", description="School name"),
            Param("location", description="Location filter"),
            Param("keyword", description="Additional keywords"),
            Param("page", "integer", default=1, minimum=1, description="Page number"),
        ),
        _data(obj(None, Field("results", ArrayOf(r.SCHOOL_SEARCH_RESULT)))),
        (200, 400),
        at_least_one=AtLeastOne(("school_name", "location", "keyword"), "payload"),
    ),
    Endpoint(
        "get-company-results",
        "GET",
        "One page of the results of a completed company search.",
        Price("per_item", 1, ("results",)),
        (REQUEST_ID, RESULTS_PAGE),
        r.COMPANY_RESULTS,
        (200,),
        search="companies",
        search_role="results",
        payload_at=(),
        not_found="search request not found",
    ),
    Endpoint(
        "search-companies",
        "POST",
        "Start an asynchronous company search (filters, or a sales_nav_url).",
        Price("fixed", 25),
        (*_SEARCH_COMPANIES_FILTERS, SALES_NAV_URL, _search_limit(1000)),
        r.SEARCH_CREATED,
        (200,),
        alternative="sales_nav_url",
        shared_with_alternative=("limit",),
        search="companies",
        search_role="create",
        payload_at=(),
    ),
    Endpoint(
        "search-leads",
        "POST",
        "Start an asynchronous lead search (filters, or a sales_nav_url).",
        Price("fixed", 50),
        (*_SEARCH_LEADS_FILTERS, SALES_NAV_URL, _search_limit(2500)),
        r.SEARCH_CREATED,
        (200,),
        alternative="sales_nav_url",
        shared_with_alternative=("limit",),
        search="leads",
        search_role="create",
        payload_at=(),
    ),
    Endpoint(
        "get-recommendations-received",
        "GET",
        "Recommendations a profile has received.",
        FIXED_1,
        (PROFILE_URL,),
        _data(obj(None, Field("recommendations", ArrayOf(r.RECOMMENDATION_RECEIVED)))),
        (200, 400),
    ),
    Endpoint(
        "get-recommendations-given",
        "GET",
        "Recommendations a profile has given.",
        FIXED_1,
        (PROFILE_URL,),
        _data(obj(None, Field("recommendations", ArrayOf(r.RECOMMENDATION_GIVEN)))),
        (200, 400),
    ),
    Endpoint(
        "find-custom-headcount",
        "POST",
        "How many people of a company or school match filters.",
        FIXED_1,
        (
            Param(
                "profnet_url",
                required=True,
                description="Company or school URL: contains /company/, /showcase/ or /school/",
                pattern=HEADCOUNT_URL_PATTERN,
            ),
            Param("where_they_live", "array", items="string", description="Geographic region ids"),
            Param("where_they_studied", "array", items="school", description="School ids"),
            Param("what_they_do", "array", items="string", description="Function ids"),
            Param("what_they_are_skilled_at", "array", items="string", description="Skill ids"),
            Param("what_they_studied", "array", items="string", description="Field-of-study ids"),
            Param("keywords", description="Search keywords"),
            Param(
                "include_subsidiaries",
                "flag",
                enum=FLAG_VALUES,
                default="false",
                description="true or false",
            ),
        ),
        _data(r.HEADCOUNT_RESULT),
        (200,),
    ),
)

HEADCOUNT_URL_MARKERS = ("/company/", "/showcase/", "/school/")

BY_NAME: dict[str, Endpoint] = {endpoint.name: endpoint for endpoint in ENDPOINTS}
BY_PATH: dict[str, Endpoint] = {endpoint.path: endpoint for endpoint in ENDPOINTS}


def endpoint(name: str) -> Endpoint:
    """The endpoint called `name` (its path without the slash), or a KeyError naming it."""
    try:
        return BY_NAME[name.lstrip("/")]
    except KeyError:
        raise KeyError(f"no endpoint named {name!r}") from None


def search_endpoint(search: SearchKind, role: SearchRole) -> Endpoint:
    """The creation, status or results endpoint of the lead or company search."""
    for candidate in ENDPOINTS:
        if candidate.search == search and candidate.search_role == role:
            return candidate
    raise KeyError((search, role))


def payload_of(endpoint_: Endpoint, body: Any) -> Any:
    """The answer inside a response body (`data`, `data.data`, or the body itself)."""
    node = body
    for key in endpoint_.payload_at:
        if not isinstance(node, dict) or key not in node:
            raise KeyError(f"{endpoint_.name}: no {'.'.join(endpoint_.payload_at)} in the answer")
        node = node[key]
    return node


def is_answer(endpoint_: Endpoint, body: Any) -> bool:
    """Whether a 200 body is this endpoint's answer (its required top-level fields are there),
    and not an error text some services send with a 200."""
    shape = endpoint_.response
    if not isinstance(body, dict) or not isinstance(shape, ObjectOf):
        return False
    return all(field.name in body for field in shape.fields if field.required)
