"""What each kind of enrichment looks up: its endpoint, the call for a row, the record it adds."""

from __future__ import annotations

import difflib
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from profnet_sheets.client import identifiers
from profnet_sheets.redact import shown
from profnet_sheets.spec import resources as r
from profnet_sheets.spec.schema import INTEGER, STRING, ArrayOf, Field, ObjectOf, obj

Row = Mapping[str, Any]  # the values of a row's key columns, by the parameter they feed


@dataclass(frozen=True)
class Kind:
    """One kind of enrichment."""

    name: str
    endpoint: str
    inputs: tuple[str, ...]  # parameters the key columns feed (the first is the main one)
    output: ObjectOf  # the fields it adds
    call: Callable[[Row, Mapping[str, Any]], dict[str, Any]]  # row, options -> parameters
    record: Callable[[Any], dict[str, Any] | None]  # payload -> fields (None: nothing found)
    options: tuple[str, ...] = ()
    description: str = ""

    @property
    def takes_words(self) -> bool:
        """Whether its columns hold names and words (a person's, a school's, a place's), where
        `Na`, `Nan`, `Nat` or `Nil` is a name, not a placeholder (`cell_values.NAME_WORDS`)."""
        return self.endpoint in WORD_ENDPOINTS


# The endpoints that take names and words, not keys: a person's, a school's, a place's.
WORD_ENDPOINTS: Final = frozenset(
    {"google-full-profiles", "google-schools", "find-geocode-by-location"}
)


def _same(payload: Any) -> dict[str, Any] | None:
    return payload if isinstance(payload, dict) else None


def _first(payload: Any) -> dict[str, Any] | None:
    return payload[0] if isinstance(payload, list) and payload else None


def _first_result(payload: Any) -> dict[str, Any] | None:
    return _first(payload.get("results") if isinstance(payload, dict) else None)


def _posts(payload: Any) -> dict[str, Any] | None:
    if not isinstance(payload, dict):  # an answer with no data: found nothing
        return None
    paging = payload.get("paging") or {}
    return {"posts": payload.get("posts") or [], "posts_total": paging.get("total")}


def _recommendations(payload: Any) -> dict[str, Any] | None:
    if not isinstance(payload, dict):
        return None
    return {"recommendations": payload.get("recommendations") or []}


def _headcount(payload: Any) -> dict[str, Any] | None:
    if not isinstance(payload, dict):
        return None
    filters = payload.get("filters")
    return {
        "headcount": payload.get("headcount"),
        "filters": json.dumps(filters, sort_keys=True) if filters is not None else None,
    }


def _company_call(row: Row, options: Mapping[str, Any]) -> dict[str, Any]:
    # Only which parameter: the value is normalised with the client's profile (its hosts).
    parameter, value = identifiers.company_parameter(row["company"])
    return {parameter: value}


def _one(parameter: str) -> Callable[[Row, Mapping[str, Any]], dict[str, Any]]:
    def call(row: Row, options: Mapping[str, Any]) -> dict[str, Any]:
        return {parameter: row[parameter], **options}

    return call


def _columns(row: Row, options: Mapping[str, Any]) -> dict[str, Any]:
    return {**{k: v for k, v in row.items() if v is not None}, **options}


_POSTS_OUT = obj(
    None, Field("posts", ArrayOf(r.POST_SUMMARY)), Field("posts_total", INTEGER, nullable=True)
)

KINDS: dict[str, Kind] = {
    kind.name: kind
    for kind in (
        Kind(
            "company",
            "get-company-details",
            ("company",),
            r.COMPANY,
            _company_call,
            _same,
            description="domains, company page URLs or company ids, recognised per value",
        ),
        Kind(
            "profile",
            "get-profile-details",
            ("profnet_url",),
            r.PROFILE_DETAIL,
            _one("profnet_url"),
            _same,
            options=("include_skills", "include_certifications"),
            description="profile URLs (skills and certifications on request)",
        ),
        Kind(
            "profile_posts",
            "get-profile-posts",
            ("profnet_url",),
            _POSTS_OUT,
            _one("profnet_url"),
            _posts,
            options=("type",),
            description="profile URLs -> their latest posts",
        ),
        Kind(
            "company_posts",
            "get-company-posts",
            ("profnet_url",),
            _POSTS_OUT,
            _one("profnet_url"),
            _posts,
            options=("type",),
            description="company page URLs -> their latest posts",
        ),
        Kind(
            "job",
            "get-job-details",
            ("job_id",),
            r.JOB_DETAIL,
            _one("job_id"),
            _same,
            description="job ids",
        ),
        Kind(
            "post",
            "get-post-details",
            ("urn",),
            r.POST_DETAIL,
            _one("urn"),
            _same,
            description="post urns (numeric ids, or the URN-style values post lists give)",
        ),
        Kind(
            "headcount",
            "find-custom-headcount",
            (
                "profnet_url",
                "where_they_live",
                "where_they_studied",
                "what_they_do",
                "what_they_are_skilled_at",
                "what_they_studied",
                "keywords",
                "include_subsidiaries",
            ),
            obj(None, Field("headcount", INTEGER, nullable=True), Field("filters", STRING)),
            _columns,
            _headcount,
            description="company or school URLs, plus optional filter columns",
        ),
        Kind(
            "geocode",
            "find-geocode-by-location",
            ("location",),
            r.GEOCODE_ITEM,
            _one("location"),
            _first,
            description="place names -> geo id, type and full name",
        ),
        Kind(
            "recommendations_received",
            "get-recommendations-received",
            ("profnet_url",),
            obj(None, Field("recommendations", ArrayOf(r.RECOMMENDATION_RECEIVED))),
            _one("profnet_url"),
            _recommendations,
            description="profile URLs -> the recommendations they received",
        ),
        Kind(
            "recommendations_given",
            "get-recommendations-given",
            ("profnet_url",),
            obj(None, Field("recommendations", ArrayOf(r.RECOMMENDATION_GIVEN))),
            _one("profnet_url"),
            _recommendations,
            description="profile URLs -> the recommendations they gave",
        ),
        Kind(
            "find_profile",
            "google-full-profiles",
            ("name", "company_name", "job_title", "location", "keywords"),
            r.PROFILE_SEARCH_RESULT,
            lambda row, options: {**_columns(row, options), "limit": 1},
            _first,
            description="name / company / title / location columns -> the best matching profile",
        ),
        Kind(
            "school",
            "google-schools",
            ("school_name", "location", "keyword"),
            r.SCHOOL_SEARCH_RESULT,
            _columns,
            _first_result,
            description="school names -> the best matching school page",
        ),
    )
}


def kind_named(name: str) -> Kind:
    """The kind called `name`, or a ValueError that lists them all."""
    wanted = name.strip().lower().replace("-", "_")
    try:
        return KINDS[wanted]
    except KeyError:
        close = difflib.get_close_matches(wanted, KINDS, n=1)
        hint = f"did you mean {close[0]}? " if close else ""
        raise ValueError(
            f"unknown kind {shown(name)}: {hint}use one of {', '.join(sorted(KINDS))}"
        ) from None
