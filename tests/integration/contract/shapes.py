"""Expected response shapes, transcribed by hand from spec section 2 and decisions.md #1.

A shape is one of:
- ``str`` / ``int``: a JSON string / a JSON integer (never a boolean);
- ``ANY_OBJECT``: any JSON object;
- ``Opt(shape)``: the shape, or ``null`` (decisions.md #1 lists the nullable fields);
- ``[shape]``: a JSON array whose items all have ``shape``;
- ``{"field": shape, ...}``: a JSON object with exactly these fields.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Opt:
    inner: Any


ANY_OBJECT = "<object>"

Shape = Any

# --- section 2, resource by resource -------------------------------------------------------

COMPANY: dict[str, Shape] = {
    "company_name": str,
    "profnet_url": str,
    "industry": str,
    "company_size": str,
    "headquarters": str,
    "founded": Opt(int),
    "website": Opt(str),
    "description": str,
    "specialties": [str],
}

COMPANY_SEARCH_ITEM: dict[str, Shape] = {
    "company_name": str,
    "profnet_url": str,
    "industry": str,
    "company_size": str,
    "headquarters": str,
    "website": Opt(str),
}

LEAD_ITEM: dict[str, Shape] = {
    "name": str,
    "title": str,
    "company": str,
    "profnet_url": str,
    "location": str,
    "profile_picture": Opt(str),
}

SEARCH_POST: dict[str, Shape] = {
    "urn": str,
    "author_name": str,
    "author_profnet_url": str,
    "author_headline": str,
    "text": str,
    "posted_at": str,
    "reactions_count": int,
    "comments_count": int,
    "reposts_count": int,
}

ENTITY_POST: dict[str, Shape] = {
    "urn": str,
    "text": str,
    "posted_at": str,
    "reactions_count": int,
    "comments_count": int,
    "reposts_count": int,
}

POST_DETAIL: dict[str, Shape] = {
    "urn": str,
    "author": {
        "name": str,
        "headline": str,
        "profnet_url": str,
        "profile_picture": Opt(str),
    },
    "text": str,
    "posted_at": str,
    "reactions_count": int,
    "comments_count": int,
    "reposts_count": int,
    "media": [{"type": str, "url": str}],
}

PAGING: dict[str, Shape] = {"start": int, "count": int, "total": int}

JOB_SUMMARY: dict[str, Shape] = {
    "job_id": str,
    "title": str,
    "company_name": str,
    "company_profnet_url": str,
    "location": str,
    "posted_at": str,
    "job_url": str,
}

JOB_DETAIL: dict[str, Shape] = {
    "job_id": str,
    "title": str,
    "company_name": str,
    "company_profnet_url": str,
    "location": str,
    "remote_type": str,
    "job_type": str,
    "experience_level": str,
    "posted_at": str,
    "applicants_count": int,
    "description": str,
    "skills": [str],
    "benefits": [str],
    "salary_range": Opt(str),
    "apply_url": str,
}

EXPERIENCE_ITEM: dict[str, Shape] = {
    "title": str,
    "company": str,
    "company_url": str,
    "location": str,
    "start_date": str,
    "end_date": str,
    "description": str,
}

EDUCATION_ITEM: dict[str, Shape] = {
    "school": str,
    "degree": str,
    "field": str,
    "start_date": str,
    "end_date": str,
}

CERTIFICATION_ITEM: dict[str, Shape] = {"name": str, "issuer": str, "issue_date": str}

PROFILE_DETAIL: dict[str, Shape] = {
    "full_name": str,
    "headline": str,
    "location": str,
    "profile_picture": Opt(str),
    "about": Opt(str),
    "experience": [EXPERIENCE_ITEM],
    "education": [EDUCATION_ITEM],
}
PROFILE_DETAIL_WITH_SKILLS: dict[str, Shape] = {**PROFILE_DETAIL, "skills": [str]}
PROFILE_DETAIL_WITH_CERTS: dict[str, Shape] = {
    **PROFILE_DETAIL,
    "certifications": [CERTIFICATION_ITEM],
}
PROFILE_DETAIL_WITH_BOTH: dict[str, Shape] = {
    **PROFILE_DETAIL,
    "skills": [str],
    "certifications": [CERTIFICATION_ITEM],
}

PROFILE_SEARCH_RESULT: dict[str, Shape] = {
    "full_name": str,
    "profnet_url": str,
    "headline": str,
    "location": str,
    "profile_picture": Opt(str),
    "experience": [{"title": str, "company": str, "start_date": str, "end_date": str}],
}

SCHOOL_RESULT: dict[str, Shape] = {"school_name": str, "profnet_url": str, "description": str}

GEOCODE_ITEM: dict[str, Shape] = {"geo_id": str, "name": str, "type": str}

RECOMMENDATION_RECEIVED: dict[str, Shape] = {
    "recommender_name": str,
    "recommender_title": str,
    "recommender_profnet_url": str,
    "relationship": str,
    "text": str,
}

RECOMMENDATION_GIVEN: dict[str, Shape] = {
    "recommendee_name": str,
    "recommendee_title": str,
    "recommendee_profnet_url": str,
    "relationship": str,
    "text": str,
}

SEARCH_CREATED: dict[str, Shape] = {
    "message": str,
    "request_id": str,
    "status": str,
    "search_type": str,
}

SEARCH_STATUS: dict[str, Shape] = {
    "status": str,
    "request_id": str,
    "progress": int,
    "total_results": int,
}


def paged(item: dict[str, Shape]) -> dict[str, Shape]:
    """The top-level paged results envelope of get-lead-results / get-company-results."""
    return {
        "request_id": str,
        "page": int,
        "total_pages": int,
        "total_results": int,
        "results": [item],
    }


HEADCOUNT: dict[str, Shape] = {"profnet_url": str, "filters": ANY_OBJECT, "headcount": int}

# --- full response envelopes, per endpoint (section 4) -----------------------------------

ENVELOPES: dict[str, Shape] = {
    "get-company-details": {"data": COMPANY},
    "search-posts": {"data": {"posts": [SEARCH_POST], "paging": PAGING}},
    "search-jobs": {"data": {"jobs": [JOB_SUMMARY], "paging": PAGING}},
    "get-lead-results": paged(LEAD_ITEM),
    "get-job-details": {"data": JOB_DETAIL},
    "get-post-details": {"data": POST_DETAIL},
    "get-company-posts": {"data": {"posts": [ENTITY_POST], "paging": PAGING}},
    "google-full-profiles": {"data": [PROFILE_SEARCH_RESULT]},
    "find-geocode-by-location": {"data": {"message": str, "data": [GEOCODE_ITEM]}},
    "get-profile-details": {"data": PROFILE_DETAIL},
    "get-company-search-status": SEARCH_STATUS,
    "get-lead-search-status": SEARCH_STATUS,
    "get-profile-posts": {"data": {"posts": [ENTITY_POST], "paging": PAGING}},
    "google-schools": {"data": {"results": [SCHOOL_RESULT]}},
    "get-company-results": paged(COMPANY_SEARCH_ITEM),
    "search-companies": SEARCH_CREATED,
    "search-leads": SEARCH_CREATED,
    "get-recommendations-received": {"data": {"recommendations": [RECOMMENDATION_RECEIVED]}},
    "get-recommendations-given": {"data": {"recommendations": [RECOMMENDATION_GIVEN]}},
    "find-custom-headcount": {"data": HEADCOUNT},
}

# --- error bodies (section 7, and decisions #15 / #19) ------------------------------------

ERROR_400: dict[str, Shape] = {"message": str, "parameter": str, "details": str}
ERROR_400_NO_PARAMETER: dict[str, Shape] = {"message": str, "details": str}
ERROR_401: dict[str, Shape] = {"message": str, "details": str}
ERROR_404: dict[str, Shape] = {"message": str, "details": str}
ERROR_500: dict[str, Shape] = {"message": str, "error": str}
ERROR_402: dict[str, Shape] = {"message": str, "details": str, "required": int, "balance": int}


def _type_name(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object" if isinstance(value, dict) else type(value).__name__


def check(value: object, shape: Shape, path: str = "$") -> list[str]:
    """Every way ``value`` differs from ``shape``, as readable strings (empty when it fits)."""
    if isinstance(shape, Opt):
        return [] if value is None else check(value, shape.inner, path)
    if shape is str:
        return [] if isinstance(value, str) else [f"{path}: string expected, {_type_name(value)}"]
    if shape is int:
        ok = isinstance(value, int) and not isinstance(value, bool)
        return [] if ok else [f"{path}: integer expected, {_type_name(value)}"]
    if shape == ANY_OBJECT:
        return [] if isinstance(value, dict) else [f"{path}: object expected, {_type_name(value)}"]
    if isinstance(shape, list):
        if not isinstance(value, list):
            return [f"{path}: array expected, {_type_name(value)}"]
        problems: list[str] = []
        for index, item in enumerate(value):
            problems += check(item, shape[0], f"{path}[{index}]")
        return problems
    if isinstance(shape, dict):
        if not isinstance(value, dict):
            return [f"{path}: object expected, {_type_name(value)}"]
        problems = [f"{path}.{name}: missing" for name in shape if name not in value]
        problems += [f"{path}.{name}: not in the spec" for name in value if name not in shape]
        for name, sub in shape.items():
            if name in value:
                problems += check(value[name], sub, f"{path}.{name}")
        return problems
    raise TypeError(f"bad shape {shape!r}")


def assert_shape(value: object, shape: Shape) -> None:
    problems = check(value, shape)
    assert not problems, "response does not match the spec:\n" + "\n".join(problems[:30])
