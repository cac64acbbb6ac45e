"""The PROFNET_* formulas declared to Excel (classic xlwings UDFs); the logic is in formulas.py.

In a workbook's xlwings.conf sheet: `UDF Modules` = `profnet_sheets.excel.udfs`, then
xlwings tab > Import Functions. Network formulas run in xlwings' threading mode (Excel stays
responsive; cells show #N/A waiting... meanwhile) and are not called while the function
wizard is open (no paid call for a half-typed formula).
"""

# ruff: noqa: N802 - the functions are named as users type them in Excel

from __future__ import annotations

import inspect
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
# formula -> argument -> its help, as declared below: xlwings' decorators keep nothing outside
# Windows, and the LibreOffice Calc add-in (profnet_sheets.calc) shows the same help.
ARGUMENT_HELP: dict[str, dict[str, str]] = {}


def _spec(name: str, parameter: str) -> str:
    """Help for an argument, from the spec."""
    return f"Optional. {endpoint(name).param(parameter).description}."


def _untyped(function: F) -> F:
    """Annotations off before xlwings reads them: it would take them for converters."""
    function.__annotations__ = {}
    return function


def _arg(name: str, doc: str, **options: Any) -> Callable[[F], F]:
    """An argument with its help. Every argument takes cell values, so every one receives an
    Excel error as its text (`#N/A`): without err_to_str xlwings hands it over as None, an
    empty cell, and the formula would answer blank instead of saying what is wrong."""
    declare: Callable[[F], F] = xw.arg(name, doc=doc, err_to_str=True, **options)

    def recorded(function: F) -> F:
        ARGUMENT_HELP.setdefault(function.__name__, {})[name] = doc
        return declare(function)

    return recorded


def _from_spec(endpoint_name: str) -> Callable[[F], F]:
    """Help from the spec for every argument named as a parameter of the endpoint (an `_arg`
    above this decorator gives an argument other help)."""

    def declare(function: F) -> F:
        known = endpoint(endpoint_name).param_names
        for name in inspect.signature(function).parameters:
            if name in known:
                function = _arg(name, _spec(endpoint_name, name))(function)
        return function

    return declare


def _table(function: F) -> F:
    """The `fields` and `header` arguments, with their help."""
    return _arg("fields", FIELDS)(_arg("header", HEADER)(function))


@network
@_table
@_arg("id_url_or_domain", "A company id, page URL or domain (any form)." + RANGE, ndim=2)
@_untyped
def PROFNET_COMPANY(id_url_or_domain: Any, fields: Any = None, header: Any = None) -> Any:
    """Company details by id, page URL or domain: one field, a row, or a table for a range.
    1 credit per new company; recalculating is free."""
    return formulas.company(id_url_or_domain, fields, header)


@network
@_table
@_arg("url", "A profile URL." + RANGE, ndim=2)
@_arg("skills", "Optional. TRUE adds the skills.")
@_arg("certifications", "Optional. TRUE adds the certifications.")
@_untyped
def PROFNET_PROFILE(
    url: Any, fields: Any = None, skills: Any = None, certifications: Any = None, header: Any = None
) -> Any:
    """A profile by URL: one field, a row, or a table for a range. 1 credit per new profile;
    recalculating is free."""
    return formulas.profile(url, fields, skills, certifications, header)


@network
@_arg("url", "A company or school page URL." + RANGE, ndim=2)
@_arg("include_subsidiaries", "Optional. TRUE counts subsidiaries too.")
@_from_spec("find-custom-headcount")
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
@_arg("job_id", "A job posting id." + RANGE, ndim=2)
@_untyped
def PROFNET_JOB(job_id: Any, fields: Any = None, header: Any = None) -> Any:
    """A job posting by id: one field, a row, or a table for a range. 1 credit per new job."""
    return formulas.job(job_id, fields, header)


@network
@_table
@_arg("urn", "A post id, or the URN-style value post lists give." + RANGE, ndim=2)
@_untyped
def PROFNET_POST(urn: Any, fields: Any = None, header: Any = None) -> Any:
    """A post by id or URN: one field, a row, or a table for a range. 1 credit per new post."""
    return formulas.post(urn, fields, header)


@network
@_table
@_arg("company_url", "A company page URL, or a range of them.", ndim=2)
@_from_spec("get-company-posts")
@_untyped
def PROFNET_COMPANY_POSTS(
    company_url: Any, type: Any = None, fields: Any = None, header: Any = None
) -> Any:
    """A company page's latest posts, one row each (after the URL for a range of URLs).
    1 credit per new page of posts."""
    return formulas.company_posts(company_url, type, fields, header)


@network
@_table
@_arg("profile_url", "A profile URL, or a range of them.", ndim=2)
@_from_spec("get-profile-posts")
@_untyped
def PROFNET_PROFILE_POSTS(
    profile_url: Any, type: Any = None, fields: Any = None, header: Any = None
) -> Any:
    """A profile's latest posts, comments or reactions, one row each (after the URL for a
    range of URLs). 1 credit per new page of posts."""
    return formulas.profile_posts(profile_url, type, fields, header)


@network
@_table
@_arg("keyword", "The search keyword.")
@_from_spec("search-posts")
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
@_arg("keyword", "The search keyword (may be empty if another filter is given).")
@_arg("geo_id", "Optional. A place's geo id, e.g. from PROFNET_GEOCODE.")
@_from_spec("search-jobs")
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
@_arg("location", "A place name, e.g. Berlin." + RANGE, ndim=2)
@_arg("type", "Optional. The first place of this type: CITY, METRO_AREA, COUNTRY...")
@_untyped
def PROFNET_GEOCODE(location: Any, type: Any = None, fields: Any = None, header: Any = None) -> Any:
    """The geo id of a place (for search filters); fields name, type on request. 1 credit per
    new place; recalculating is free."""
    return formulas.geocode(location, type, fields, header)


@network
@_table
@_arg("name", "A person's name, or a range of names (one search per row).", ndim=2)
@_arg("company_name", "Optional. Company name (or a range, per row).", ndim=2)
@_arg("job_title", "Optional. Job title (or a range, per row).", ndim=2)
@_arg("location", "Optional. Location (or a range, per row).", ndim=2)
@_arg("keywords", "Optional. Keywords (or a range, per row).", ndim=2)
@_arg("limit", "Optional. Profiles for one search, 1 to 5 (default 1: the best match).")
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
@_arg("school_name", "A school name, or a range of names (one search per row).", ndim=2)
@_arg("location", "Optional. Location filter (or a range, per row).", ndim=2)
@_arg("keyword", "Optional. Keywords (or a range, per row).", ndim=2)
@_arg("limit", "Optional. Schools for one search (default 1: the best match).")
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
@_arg("url", "A profile URL, or a range of them.", ndim=2)
@_arg("given", "Optional. TRUE for the recommendations the person gave.")
@_untyped
def PROFNET_RECOMMENDATIONS(
    url: Any, given: Any = None, fields: Any = None, header: Any = None
) -> Any:
    """Recommendations a profile received (or gave), one row each. 1 credit per new profile."""
    return formulas.recommendations(url, given, fields, header)


@network
@_table
@_arg("request_id", "The request_id of a lead search (the Lead search macro shows it).")
@_untyped
def PROFNET_LEADS(request_id: Any, fields: Any = None, header: Any = None) -> Any:
    """The leads of a completed lead search, one row each. 1 credit per lead, once."""
    return formulas.leads(request_id, fields, header)


@network
@_table
@_arg("request_id", "The request_id of a company search (its macro shows it).")
@_untyped
def PROFNET_COMPANIES(request_id: Any, fields: Any = None, header: Any = None) -> Any:
    """The companies of a completed company search, one row each. 1 credit each, once."""
    return formulas.companies(request_id, fields, header)


@xw.func(volatile=True)
@_arg("header", HEADER)
@_untyped
def PROFNET_CREDITS(header: Any = None) -> Any:
    """Credits this Excel session has spent, what its budget (PROFNET_EXCEL_BUDGET) leaves, and
    where the data comes from: SANDBOX (synthetic) when no API key is set."""
    return formulas.credits(header)
