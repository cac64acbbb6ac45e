"""The PROFNET_* formulas declared to Excel (classic xlwings UDFs); the logic is in formulas.py.

In a workbook's xlwings.conf sheet: `UDF Modules` = `profnet_sheets.excel.udfs`, then
xlwings tab > Import Functions. Network formulas run in xlwings' threading mode (Excel stays
responsive; cells show #N/A waiting... meanwhile) and are not called while the function
wizard is open (no paid call for a half-typed formula).
"""

# ruff: noqa: N802 - the functions are named as users type them in Excel

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import xlwings as xw

from profnet_sheets.excel import formulas
from profnet_sheets.spec import endpoint

F = TypeVar("F", bound=Callable[..., Any])

FIELDS = (
    'Optional. Field names, e.g. "company_name, industry", or a range holding them; empty for '
    "all. One field gives values in the keys' shape; several give one row per key."
)
HEADER = "Optional. TRUE adds a first row with the field names."
RANGE = " A range of them gives one table (each distinct one fetched once, together)."
network = xw.func(async_mode="threading", call_in_wizard=False)


def _spec(name: str, parameter: str) -> str:
    """Help for an argument, from the spec."""
    return f"Optional. {endpoint(name).param(parameter).description}."


def _untyped(function: F) -> F:
    """Annotations off before xlwings reads them: it would take them for converters."""
    function.__annotations__ = {}
    return function


def _table(function: F) -> F:
    """The `fields` and `header` arguments, with their help."""
    return xw.arg("fields", doc=FIELDS)(xw.arg("header", doc=HEADER)(function))


@network
@_table
@xw.arg("id_url_or_domain", ndim=2, doc="A company id, page URL or domain (any form)." + RANGE)
@_untyped
def PROFNET_COMPANY(id_url_or_domain: Any, fields: Any = None, header: Any = None) -> Any:
    """Company details by id, page URL or domain: one field, a row, or a table for a range.
    1 credit per new company; recalculating is free."""
    return formulas.company(id_url_or_domain, fields, header)


@network
@_table
@xw.arg("url", ndim=2, doc="A profile URL." + RANGE)
@xw.arg("skills", doc="Optional. TRUE adds the skills.")
@xw.arg("certifications", doc="Optional. TRUE adds the certifications.")
@_untyped
def PROFNET_PROFILE(
    url: Any, fields: Any = None, skills: Any = None, certifications: Any = None, header: Any = None
) -> Any:
    """A profile by URL: one field, a row, or a table for a range. 1 credit per new profile;
    recalculating is free."""
    return formulas.profile(url, fields, skills, certifications, header)


@network
@xw.arg("url", ndim=2, doc="A company or school page URL." + RANGE)
@xw.arg("where_they_live", doc=_spec("find-custom-headcount", "where_they_live"))
@xw.arg("where_they_studied", doc=_spec("find-custom-headcount", "where_they_studied"))
@xw.arg("what_they_do", doc=_spec("find-custom-headcount", "what_they_do"))
@xw.arg("what_they_are_skilled_at", doc=_spec("find-custom-headcount", "what_they_are_skilled_at"))
@xw.arg("what_they_studied", doc=_spec("find-custom-headcount", "what_they_studied"))
@xw.arg("keywords", doc=_spec("find-custom-headcount", "keywords"))
@xw.arg("include_subsidiaries", doc="Optional. TRUE counts subsidiaries too.")
@_untyped
def PROFNET_HEADCOUNT(
    url: Any,
    where_they_live: Any = None,
    where_they_studied: Any = None,
    what_they_do: Any = None,
    what_they_are_skilled_at: Any = None,
    what_they_studied: Any = None,
    keywords: Any = None,
    include_subsidiaries: Any = None,
) -> Any:
    """How many people of a company or school match the filters (ids, or ranges of ids): an
    integer per URL. 1 credit per new count; recalculating is free."""
    return formulas.headcount(
        url,
        where_they_live,
        where_they_studied,
        what_they_do,
        what_they_are_skilled_at,
        what_they_studied,
        keywords,
        include_subsidiaries,
    )


@network
@_table
@xw.arg("job_id", ndim=2, doc="A job posting id." + RANGE)
@_untyped
def PROFNET_JOB(job_id: Any, fields: Any = None, header: Any = None) -> Any:
    """A job posting by id: one field, a row, or a table for a range. 1 credit per new job."""
    return formulas.job(job_id, fields, header)


@network
@_table
@xw.arg("urn", ndim=2, doc="A post id, or the URN-style value post lists give." + RANGE)
@_untyped
def PROFNET_POST(urn: Any, fields: Any = None, header: Any = None) -> Any:
    """A post by id or URN: one field, a row, or a table for a range. 1 credit per new post."""
    return formulas.post(urn, fields, header)


@network
@_table
@xw.arg("company_url", ndim=2, doc="A company page URL, or a range of them.")
@xw.arg("type", doc=_spec("get-company-posts", "type"))
@_untyped
def PROFNET_COMPANY_POSTS(
    company_url: Any, type: Any = None, fields: Any = None, header: Any = None
) -> Any:
    """A company page's latest posts, one row each (after the URL for a range of URLs).
    1 credit per new page of posts."""
    return formulas.company_posts(company_url, type, fields, header)


@network
@_table
@xw.arg("profile_url", ndim=2, doc="A profile URL, or a range of them.")
@xw.arg("type", doc=_spec("get-profile-posts", "type"))
@_untyped
def PROFNET_PROFILE_POSTS(
    profile_url: Any, type: Any = None, fields: Any = None, header: Any = None
) -> Any:
    """A profile's latest posts, comments or reactions, one row each (after the URL for a
    range of URLs). 1 credit per new page of posts."""
    return formulas.profile_posts(profile_url, type, fields, header)


@network
@_table
@xw.arg("keyword", doc="The search keyword.")
@xw.arg("sort_by", doc=_spec("search-posts", "sort_by"))
@xw.arg("date_posted", doc=_spec("search-posts", "date_posted"))
@xw.arg("start", doc=_spec("search-posts", "start"))
@_untyped
def PROFNET_SEARCH_POSTS(
    keyword: Any,
    sort_by: Any = None,
    date_posted: Any = None,
    start: Any = None,
    fields: Any = None,
    header: Any = None,
) -> Any:
    """Posts matching a keyword, one row each. 5 credits per new search."""
    return formulas.search_posts(keyword, sort_by, date_posted, start, fields, header)


@network
@_table
@xw.arg("keyword", doc="The search keyword (may be empty if another filter is given).")
@xw.arg("geo_id", doc="Optional. A place's geo id, e.g. from PROFNET_GEOCODE.")
@xw.arg("date_posted", doc=_spec("search-jobs", "date_posted"))
@xw.arg("experience_level", doc=_spec("search-jobs", "experience_level"))
@xw.arg("job_type", doc=_spec("search-jobs", "job_type"))
@xw.arg("remote", doc=_spec("search-jobs", "remote"))
@xw.arg("company_id", doc=_spec("search-jobs", "company_id"))
@xw.arg("industry_id", doc=_spec("search-jobs", "industry_id"))
@xw.arg("start", doc=_spec("search-jobs", "start"))
@_untyped
def PROFNET_SEARCH_JOBS(
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
) -> Any:
    """Job postings matching filters, one row each. 10 credits per new search."""
    return formulas.search_jobs(
        keyword,
        geo_id,
        date_posted,
        experience_level,
        job_type,
        remote,
        company_id,
        industry_id,
        start,
        fields,
        header,
    )


@network
@_table
@xw.arg("location", ndim=2, doc="A place name, e.g. Berlin." + RANGE)
@xw.arg("type", doc="Optional. The first place of this type: CITY, METRO_AREA, COUNTRY...")
@_untyped
def PROFNET_GEOCODE(location: Any, type: Any = None, fields: Any = None, header: Any = None) -> Any:
    """The geo id of a place (for search filters); fields name, type on request. 1 credit per
    new place; recalculating is free."""
    return formulas.geocode(location, type, fields, header)


@network
@_table
@xw.arg("name", ndim=2, doc="A person's name, or a range of names (one search per row).")
@xw.arg("company_name", ndim=2, doc="Optional. Company name (or a range, per row).")
@xw.arg("job_title", ndim=2, doc="Optional. Job title (or a range, per row).")
@xw.arg("location", ndim=2, doc="Optional. Location (or a range, per row).")
@xw.arg("keywords", ndim=2, doc="Optional. Keywords (or a range, per row).")
@xw.arg("limit", doc="Optional. Profiles for one search, 1 to 5 (default 1: the best match).")
@_untyped
def PROFNET_FIND_PROFILES(
    name: Any,
    company_name: Any = None,
    job_title: Any = None,
    location: Any = None,
    keywords: Any = None,
    limit: Any = None,
    fields: Any = None,
    header: Any = None,
) -> Any:
    """Profiles found by name, company, title, location: the best match per row, or up to
    limit for one search. 1 credit per profile found, once."""
    return formulas.find_profiles(
        name, company_name, job_title, location, keywords, limit, fields, header
    )


@network
@_table
@xw.arg("school_name", ndim=2, doc="A school name, or a range of names (one search per row).")
@xw.arg("location", ndim=2, doc="Optional. Location filter (or a range, per row).")
@xw.arg("keyword", ndim=2, doc="Optional. Keywords (or a range, per row).")
@xw.arg("limit", doc="Optional. Schools for one search (default 1: the best match).")
@_untyped
def PROFNET_SCHOOLS(
    school_name: Any,
    location: Any = None,
    keyword: Any = None,
    limit: Any = None,
    fields: Any = None,
    header: Any = None,
) -> Any:
    """School pages found by name and location: the best match per row, or up to limit for
    one search. 1 credit per new search."""
    return formulas.schools(school_name, location, keyword, limit, fields, header)


@network
@_table
@xw.arg("url", ndim=2, doc="A profile URL, or a range of them.")
@xw.arg("given", doc="Optional. TRUE for the recommendations the person gave.")
@_untyped
def PROFNET_RECOMMENDATIONS(
    url: Any, given: Any = None, fields: Any = None, header: Any = None
) -> Any:
    """Recommendations a profile received (or gave), one row each. 1 credit per new profile."""
    return formulas.recommendations(url, given, fields, header)


@network
@_table
@xw.arg("request_id", doc="The request_id of a lead search (the Lead search macro shows it).")
@_untyped
def PROFNET_LEADS(request_id: Any, fields: Any = None, header: Any = None) -> Any:
    """The leads of a completed lead search, one row each. 1 credit per lead, once."""
    return formulas.leads(request_id, fields, header)


@network
@_table
@xw.arg("request_id", doc="The request_id of a company search (its macro shows it).")
@_untyped
def PROFNET_COMPANIES(request_id: Any, fields: Any = None, header: Any = None) -> Any:
    """The companies of a completed company search, one row each. 1 credit each, once."""
    return formulas.companies(request_id, fields, header)


@xw.func(volatile=True)
@xw.arg("header", doc=HEADER)
@_untyped
def PROFNET_CREDITS(header: Any = None) -> Any:
    """Credits this Excel session has spent, and what its budget (PROFNET_EXCEL_BUDGET) leaves."""
    return formulas.credits(header)
