"""Every PROFNET_* formula as a plain function over cell values: it never raises (errors are text).

udfs.py only declares these to Excel. Arguments arrive as Excel hands them over: numbers as
floats, empty cells as None, ranges as lists (of rows); results are one value or rows that spill.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from typing import Any, ParamSpec

from profnet_sheets.batch.kinds import KINDS
from profnet_sheets.client import cell_values
from profnet_sheets.errors import ArgumentError, NotFound
from profnet_sheets.excel import cells, session
from profnet_sheets.excel.cells import Result
from profnet_sheets.excel.lookups import Lookup, choose_fields, item_rows, lookup
from profnet_sheets.excel.messages import message_for
from profnet_sheets.spec import endpoint, items_in
from profnet_sheets.spec import resources as r
from profnet_sheets.spec.endpoints import SearchKind
from profnet_sheets.spec.schema import ObjectOf
from profnet_sheets.words import canonical_name

P = ParamSpec("P")

COMPANY = Lookup("PROFNET_COMPANY", KINDS["company"])
PROFILE = Lookup("PROFNET_PROFILE", KINDS["profile"])
JOB = Lookup("PROFNET_JOB", KINDS["job"])
POST = Lookup("PROFNET_POST", KINDS["post"])
GEOCODE = Lookup("PROFNET_GEOCODE", KINDS["geocode"])
HEADCOUNT = Lookup("PROFNET_HEADCOUNT", KINDS["headcount"])
COMPANY_POSTS = Lookup("PROFNET_COMPANY_POSTS", KINDS["company_posts"], "posts", "company_url")
PROFILE_POSTS = Lookup("PROFNET_PROFILE_POSTS", KINDS["profile_posts"], "posts", "profile_url")
RECOMMENDATIONS = {
    given: Lookup("PROFNET_RECOMMENDATIONS", KINDS[name], "recommendations", "url")
    for given, name in ((False, "recommendations_received"), (True, "recommendations_given"))
}
FIND_PROFILES = Lookup("PROFNET_FIND_PROFILES", KINDS["find_profile"])
SCHOOLS = Lookup("PROFNET_SCHOOLS", KINDS["school"])
RESULTS: dict[SearchKind, tuple[str, ObjectOf]] = {
    "leads": ("PROFNET_LEADS", r.LEAD_ITEM),
    "companies": ("PROFNET_COMPANIES", r.COMPANY_SEARCH_ITEM),
}
PREFIX = "PROFNET_"
FORMULAS: dict[str, Callable[..., Result]] = {}  # PROFNET_COMPANY -> company(), as declared below
MAX_SCHOOLS = 100  # google-schools has no limit of its own: this many of one page at most


def formula(function: Callable[P, Result]) -> Callable[P, Result]:
    """`function` made safe for a cell: any error becomes its `#PROFNET! ...` text."""

    @functools.wraps(function)
    def guarded(*args: P.args, **kwargs: P.kwargs) -> Result:
        try:
            return function(*args, **kwargs)
        except (Exception, KeyboardInterrupt) as error:
            return message_for(error)

    FORMULAS[PREFIX + function.__name__.upper()] = guarded
    return guarded


def named(name: str) -> Callable[..., Result]:
    """The logic of a formula by the name users type (`PROFNET_COMPANY` -> `company`): what
    Excel's xlwings wrappers and the LibreOffice Calc add-in both call."""
    try:
        return FORMULAS[name]
    except KeyError:
        raise ArgumentError(f"there is no formula {name}") from None


def _by_key(
    spec: Lookup,
    inputs: Mapping[str, Any],
    fields: Any,
    header: Any,
    options: Mapping[str, Any] | None = None,
    default: list[str] | None = None,
) -> Result:
    chosen = choose_fields(spec.shape, fields, spec.function, default)
    header_on = cells.flag(header, "header")
    return lookup(session.current(), spec, inputs, chosen, header_on, options)


def _one_value(value: Any, name: str, function: str) -> str | None:
    grid = cells.grid(value)
    if not grid.single:
        raise ArgumentError(f"{function}: {name} takes one value, not {len(grid.cells)} cells")
    return cells.lookup_key(grid.cells[0], name, words=True)  # 0 (`=A1` of nothing), N/A


@formula
def company(id_url_or_domain: Any, fields: Any = None, header: Any = None) -> Result:
    """A company by id, page URL or domain: one field, a row, or a table for a range."""
    return _by_key(COMPANY, {"company": id_url_or_domain}, fields, header)


@formula
def profile(
    url: Any, fields: Any = None, skills: Any = None, certifications: Any = None, header: Any = None
) -> Result:
    """A profile; skills and certifications when switched on (or named in fields)."""
    switched = {
        "skills": cells.flag(skills, "skills"),
        "certifications": cells.flag(certifications, "certifications"),
    }
    shown = [name for name in PROFILE.shape.field_names if switched.get(name, True)]
    chosen = choose_fields(PROFILE.shape, fields, PROFILE.function, shown)
    options = {f"include_{name}": name in chosen for name in switched}
    header_on = cells.flag(header, "header")
    return lookup(session.current(), PROFILE, {"profnet_url": url}, chosen, header_on, options)


@formula
def headcount(
    url: Any,
    where_they_live: Any = None,
    where_they_studied: Any = None,
    what_they_do: Any = None,
    what_they_are_skilled_at: Any = None,
    what_they_studied: Any = None,
    keywords: Any = None,
    include_subsidiaries: Any = None,
) -> Result:
    """How many people of a company or school match the filters (the same for every URL)."""
    filters = {name: value for name, value in locals().items() if name != "url"}
    return lookup(session.current(), HEADCOUNT, {"profnet_url": url}, ["headcount"], False, filters)


@formula
def job(job_id: Any, fields: Any = None, header: Any = None) -> Result:
    """A job posting by id."""
    return _by_key(JOB, {"job_id": job_id}, fields, header)


@formula
def post(urn: Any, fields: Any = None, header: Any = None) -> Result:
    """A post by its id or URN."""
    return _by_key(POST, {"urn": urn}, fields, header)


@formula
def company_posts(
    company_url: Any, type: Any = None, fields: Any = None, header: Any = None
) -> Result:
    """A company page's latest posts (or reposts), one row each."""
    return _by_key(COMPANY_POSTS, {"profnet_url": company_url}, fields, header, {"type": type})


@formula
def profile_posts(
    profile_url: Any, type: Any = None, fields: Any = None, header: Any = None
) -> Result:
    """A profile's latest posts (or comments, reactions), one row each."""
    return _by_key(PROFILE_POSTS, {"profnet_url": profile_url}, fields, header, {"type": type})


@formula
def recommendations(url: Any, given: Any = None, fields: Any = None, header: Any = None) -> Result:
    """Recommendations a profile received (or gave), one row each."""
    spec = RECOMMENDATIONS[bool(cells.flag(given, "given"))]
    return _by_key(spec, {"profnet_url": url}, fields, header)


def _place_of_type(wanted: str) -> Callable[[Any], dict[str, Any] | None]:
    def record(places: Any) -> dict[str, Any] | None:
        found = (
            [place for place in places if isinstance(place, dict)]
            if isinstance(places, list)
            else []
        )
        for place in found:
            if canonical_name(str(place.get("type", ""))) == wanted:
                return place
        if not found:
            return None
        types = ", ".join(dict.fromkeys(str(place.get("type", "")) for place in found))
        raise ArgumentError(  # the name matched: say the types it has (the answer is cached)
            f"no place of type {wanted.upper()} among the {len(found)} matches of this name (their "
            f"types: {types}): give one of those, or leave the type empty for the best match"
        )

    return record


@formula
def geocode(location: Any, type: Any = None, fields: Any = None, header: Any = None) -> Result:
    """The geo id of a place (the best match, or the first of a type such as CITY)."""
    wanted = cells.key(type, "type")
    spec = (
        GEOCODE if wanted is None else GEOCODE.with_record(_place_of_type(canonical_name(wanted)))
    )
    return _by_key(spec, {"location": location}, fields, header, default=["geo_id"])


def _count(limit: Any, most: int) -> int:
    limit = cells.clean(limit)
    return 1 if cells.blank(limit) else cell_values.limit(limit, "limit", 1, most)


def _best_or_several(
    spec: Lookup,
    inputs: Mapping[str, Any],
    count: int,
    fields: Any,
    header: Any,
    several: Callable[[dict[str, Any]], list[Any]],
) -> Result:
    """The best match per row (ranges, or one search with limit 1), or `count` matches of one
    search, one row each."""
    if count == 1:
        return _by_key(spec, inputs, fields, header)
    params = {name: _one_value(value, name, spec.function) for name, value in inputs.items()}
    chosen = choose_fields(spec.shape, fields, spec.function)
    return item_rows(several(params)[:count], chosen, bool(cells.flag(header, "header")))


@formula
def find_profiles(
    name: Any,
    company_name: Any = None,
    job_title: Any = None,
    location: Any = None,
    keywords: Any = None,
    limit: Any = None,
    fields: Any = None,
    header: Any = None,
) -> Result:
    """Profiles found by name, company, title, location, keywords: the best match per row,
    or up to `limit` (1-5) for one search."""
    inputs = {
        "name": name,
        "company_name": company_name,
        "job_title": job_title,
        "location": location,
        "keywords": keywords,
    }
    most = int(endpoint("google-full-profiles").param("limit").maximum or 1)
    count = _count(limit, most)
    client = session.current().client
    return _best_or_several(
        FIND_PROFILES,
        inputs,
        count,
        fields,
        header,
        lambda params: client.google_full_profiles(**params, limit=count),
    )


@formula
def schools(
    school_name: Any,
    location: Any = None,
    keyword: Any = None,
    limit: Any = None,
    fields: Any = None,
    header: Any = None,
) -> Result:
    """School pages found by name, location, keyword: the best match per row, or up to
    `limit` for one search."""
    inputs = {"school_name": school_name, "location": location, "keyword": keyword}
    client = session.current().client
    return _best_or_several(
        SCHOOLS,
        inputs,
        _count(limit, MAX_SCHOOLS),
        fields,
        header,
        lambda params: list(client.google_schools(**params).get("results") or []),
    )


def _search(
    function: str,
    name: str,
    at: tuple[str, ...],
    shape: ObjectOf,
    arguments: Mapping[str, Any],
    fields: Any,
    header: Any,
) -> Result:
    chosen = choose_fields(shape, fields, function)
    params = {key: _one_value(value, key, function) for key, value in arguments.items()}
    payload = session.current().client.call(name, params)
    return item_rows(items_in(payload, at), chosen, cells.flag(header, "header"))


@formula
def search_posts(
    keyword: Any,
    sort_by: Any = None,
    date_posted: Any = None,
    start: Any = None,
    fields: Any = None,
    header: Any = None,
) -> Result:
    """Posts matching a keyword (5 credits a search), one row each."""
    arguments = {"keyword": keyword, "sort_by": sort_by, "date_posted": date_posted, "start": start}
    return _search(
        "PROFNET_SEARCH_POSTS",
        "search-posts",
        ("posts",),
        r.SEARCH_POST_SUMMARY,
        arguments,
        fields,
        header,
    )


@formula
def search_jobs(
    keyword: Any,
    geo_id: Any = None,
    date_posted: Any = None,
    experience_level: Any = None,
    job_type: Any = None,
    remote: Any = None,
    company_id: Any = None,
    industry_id: Any = None,
    start: Any = None,
    fields: Any = None,
    header: Any = None,
) -> Result:
    """Job postings matching filters (10 credits a search), one row each."""
    arguments = {key: value for key, value in locals().items() if key not in ("fields", "header")}
    return _search(
        "PROFNET_SEARCH_JOBS", "search-jobs", ("jobs",), r.JOB_SUMMARY, arguments, fields, header
    )


def _results(kind: SearchKind, request_id: Any, fields: Any, header: Any) -> Result:
    function, shape = RESULTS[kind]
    chosen = choose_fields(shape, fields, function)
    wanted = _one_value(request_id, "request_id", function)
    if wanted is None:
        raise ArgumentError(
            f"{function} needs the request_id of a search (the search macros write it beside "
            "the filters)"
        )
    try:
        return _read_results(kind, wanted, chosen, header)
    except NotFound:
        other, known = (
            ("leads", "PROFNET_LEADS")
            if kind == "companies"
            else (
                "companies",
                "PROFNET_COMPANIES",
            )
        )
        raise ArgumentError(
            f"the service knows no {kind} search {wanted} (nothing spent): if it is a {other} "
            f"search's request_id, use {known}; else run the search again"
        ) from None


def _read_results(kind: SearchKind, wanted: str, chosen: list[str], header: Any) -> Result:
    """The results of the search `wanted`, read once it is completed."""
    current = session.current()
    job = current.client.attach_search(kind, wanted)
    if current.client.settings.offline and wanted not in current.completed:
        # A status is never cached: offline, the pages read before are the answer (or an
        # offline error for a search never read).
        return item_rows(job.results(), chosen, cells.flag(header, "header"))
    status = current.completed.get(wanted) or job.status()  # free; a completed one stays so
    if status.failed:
        raise ArgumentError(f"the search {wanted} failed at the service: run it again")
    if not status.completed:
        raise ArgumentError(
            f"the search is still {status.status} ({status.progress}%): recalculate in a minute"
        )
    current.completed[wanted] = job.last = status
    return item_rows(job.results(), chosen, cells.flag(header, "header"))


@formula
def leads(request_id: Any, fields: Any = None, header: Any = None) -> Result:
    """The leads of a completed lead search, one row each (1 credit per lead, once)."""
    return _results("leads", request_id, fields, header)


@formula
def companies(request_id: Any, fields: Any = None, header: Any = None) -> Result:
    """The companies of a completed company search, one row each (1 credit each, once)."""
    return _results("companies", request_id, fields, header)


@formula
def credits(header: Any = None) -> Result:
    """Credits this Excel session has spent for sure, what its budget leaves (what may have
    been charged counted), and where the data comes from (the SANDBOX's synthetic data when no
    API key is set); with a spending cap, what it leaves: `spending cap: N left`, or `team
    cap: N left` for a team's (on a Redis cache); last, what may have been charged, when any
    (`+45 possibly spent ...`)."""
    client = session.current().client
    spent, maybe = client.budget.spent, client.budget.uncertain
    values: list[cells.CellValue] = [
        spent - maybe,  # for sure; what may have been charged is said apart
        "no limit" if client.budget.left is None else client.budget.left,
        session.data_source(client),
    ]
    top: list[cells.CellValue] = ["credits spent", "budget left", "data"]
    quote = client.quote(0)
    if quote.cap_left is not None:  # where a sheet set up for a cap reads it, always
        mine = quote.team_cap_left is None
        values.append(f"{'spending' if mine else 'team'} cap: {quote.cap_left} left")
        top.append("spending cap" if mine else "team cap")
    if maybe:
        values.append(f"+{maybe} possibly spent (answers lost after they went out)")
        top.append("possibly spent")
    return [top, values] if cells.flag(header, "header") else [values]
