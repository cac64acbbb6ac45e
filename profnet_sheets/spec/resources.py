"""Every resource of section 2 with its fields and JSON types, and the headcount codes."""

from __future__ import annotations

from profnet_sheets.spec.schema import (
    INTEGER,
    NUMBER,
    STRING,
    TIMESTAMP,
    URL,
    ArrayOf,
    Field,
    ObjectOf,
    obj,
    strings,
)

# Section 2 leaves nullability open ("not shown"). Every documented field is always present;
# these few may be null, as they are for sparse real-world records (docs/decisions.md).
COMPANY = obj(
    "Company",
    Field("company_name", STRING),
    Field("profnet_url", URL, description="Company page URL"),
    Field("industry", STRING),
    Field("company_size", STRING, description="Range label such as 51-200, or 10001+"),
    Field("headquarters", STRING),
    Field("founded", INTEGER, nullable=True, description="Year"),
    Field("website", URL, nullable=True),
    Field("description", STRING),
    Field("specialties", ArrayOf(STRING)),
)

COMPANY_SEARCH_ITEM = obj(
    "CompanySearchItem",
    *strings("company_name", "profnet_url", "industry", "company_size", "headquarters"),
    Field("website", URL, nullable=True),
)

LEAD_ITEM = obj(
    "LeadItem",
    *strings("name", "title", "company", "profnet_url", "location"),
    Field("profile_picture", URL, nullable=True),
)

_POST_COUNTS = (
    Field("reactions_count", INTEGER),
    Field("comments_count", INTEGER),
    Field("reposts_count", INTEGER),
)

SEARCH_POST_SUMMARY = obj(
    "SearchPostSummary",
    Field("urn", STRING, description="URN-style value ending in the post's numeric id"),
    *strings("author_name", "author_profnet_url", "author_headline", "text"),
    Field("posted_at", TIMESTAMP),
    *_POST_COUNTS,
)

POST_SUMMARY = obj(
    "PostSummary",
    Field("urn", STRING, description="URN-style value ending in the post's numeric id"),
    Field("text", STRING),
    Field("posted_at", TIMESTAMP),
    *_POST_COUNTS,
)

POST_AUTHOR = obj(
    "PostAuthor",
    *strings("name", "headline", "profnet_url"),
    Field("profile_picture", URL, nullable=True),
)

POST_MEDIA = obj("PostMedia", *strings("type", "url"))

POST_DETAIL = obj(
    "PostDetail",
    Field("urn", STRING, description="The numeric id alone"),
    Field("author", POST_AUTHOR),
    Field("text", STRING),
    Field("posted_at", TIMESTAMP),
    *_POST_COUNTS,
    Field("media", ArrayOf(POST_MEDIA)),
)

PAGING = obj("Paging", Field("start", INTEGER), Field("count", INTEGER), Field("total", INTEGER))

JOB_SUMMARY = obj(
    "JobSummary",
    *strings("job_id", "title", "company_name", "company_profnet_url", "location"),
    Field("posted_at", TIMESTAMP),
    Field("job_url", URL),
)

JOB_DETAIL = obj(
    "JobDetail",
    *strings(
        "job_id",
        "title",
        "company_name",
        "company_profnet_url",
        "location",
        "remote_type",
        "job_type",
        "experience_level",
    ),
    Field("posted_at", TIMESTAMP),
    Field("applicants_count", INTEGER),
    Field("description", STRING),
    Field("skills", ArrayOf(STRING)),
    Field("benefits", ArrayOf(STRING)),
    Field("salary_range", STRING, nullable=True),
    Field("apply_url", URL),
)

EXPERIENCE_ITEM = obj(
    "ExperienceItem",
    *strings(
        "title",
        "company",
        "company_url",
        "location",
        "start_date",
        "end_date",
        "description",
    ),
)
EDUCATION_ITEM = obj(
    "EducationItem", *strings("school", "degree", "field", "start_date", "end_date")
)
CERTIFICATION_ITEM = obj("CertificationItem", *strings("name", "issuer", "issue_date"))

PROFILE_DETAIL = obj(
    "ProfileDetail",
    *strings("full_name", "headline", "location"),
    Field("profile_picture", URL, nullable=True),
    Field("about", STRING, nullable=True),
    Field("experience", ArrayOf(EXPERIENCE_ITEM)),
    Field("education", ArrayOf(EDUCATION_ITEM)),
    Field("skills", ArrayOf(STRING), required=False, description="Present when requested"),
    Field(
        "certifications",
        ArrayOf(CERTIFICATION_ITEM),
        required=False,
        description="Present when requested",
    ),
)

SHORT_EXPERIENCE_ITEM = obj(
    "ShortExperienceItem", *strings("title", "company", "start_date", "end_date")
)

PROFILE_SEARCH_RESULT = obj(
    "ProfileSearchResult",
    *strings("full_name", "profnet_url", "headline", "location"),
    Field("profile_picture", URL, nullable=True),
    Field("experience", ArrayOf(SHORT_EXPERIENCE_ITEM)),
)

SCHOOL_SEARCH_RESULT = obj(
    "SchoolSearchResult", *strings("school_name", "profnet_url", "description")
)

GEOCODE_ITEM = obj("GeocodeItem", *strings("geo_id", "name", "type"))
GEOCODE_TYPES_OBSERVED = ("CITY", "METRO_AREA", "ADMIN_DIVISION")

RECOMMENDATION_RECEIVED = obj(
    "RecommendationReceived",
    *strings(
        "recommender_name",
        "recommender_title",
        "recommender_profnet_url",
        "relationship",
        "text",
    ),
)
RECOMMENDATION_GIVEN = obj(
    "RecommendationGiven",
    *strings(
        "recommendee_name",
        "recommendee_title",
        "recommendee_profnet_url",
        "relationship",
        "text",
    ),
)

SEARCH_STATES = ("processing", "completed", "failed")
SEARCH_TYPE_STANDARD = "standard"

SEARCH_CREATED = obj(
    "SearchCreated",
    Field("message", STRING),
    Field("request_id", STRING),
    Field("status", STRING),
    Field("search_type", STRING),
)

SEARCH_STATUS = obj(
    "SearchStatus",
    Field("status", STRING),
    Field("request_id", STRING),
    Field("progress", INTEGER),
    Field("total_results", INTEGER),
)


def paged_results(name: str, item: ObjectOf) -> ObjectOf:
    """The top-level envelope of get-lead-results and get-company-results."""
    return obj(
        name,
        Field("request_id", STRING),
        Field("page", INTEGER),
        Field("total_pages", INTEGER),
        Field("total_results", INTEGER),
        Field("results", ArrayOf(item)),
    )


LEAD_RESULTS = paged_results("LeadResults", LEAD_ITEM)
COMPANY_RESULTS = paged_results("CompanyResults", COMPANY_SEARCH_ITEM)

HEADCOUNT_RESULT = obj(
    "HeadcountResult",
    Field("profnet_url", STRING, description="The URL that was sent"),
    Field("filters", obj(None, open=True), description="Echo of the filters that were sent"),
    Field("headcount", INTEGER),
)

GROWTH_RANGE = obj(None, Field("min", NUMBER), Field("max", NUMBER))

# Section 2, "Headcount code": code -> (lowest, highest) employees; None = no upper bound.
HEADCOUNT_CODES: dict[str, tuple[int, int | None]] = {
    "A": (1, 10),
    "B": (11, 50),
    "C": (51, 200),
    "D": (201, 500),
    "E": (501, 1000),
    "F": (1001, 5000),
    "G": (5001, 10000),
    "H": (10001, None),
}


def company_size_label(code: str) -> str:
    """The `company_size` label of a headcount code: `51-200`, or `10001+` for the open range."""
    low, high = HEADCOUNT_CODES[code]
    return f"{low}+" if high is None else f"{low}-{high}"


def headcount_codes_told() -> str:
    """The headcount codes as help and errors list them, with their ranges:
    `A to H (A 1-10, B 11-50, ..., H 10001+)`."""
    codes = list(HEADCOUNT_CODES)
    ranges = ", ".join(f"{code} {company_size_label(code)}" for code in codes)
    return f"{codes[0]} to {codes[-1]} ({ranges})"


def headcount_code_for(employees: int) -> str:
    """The headcount code whose range holds a number of employees (at least 1)."""
    for code, (low, high) in HEADCOUNT_CODES.items():
        if employees >= low and (high is None or employees <= high):
            return code
    raise ValueError(f"employees must be at least 1, got {employees}")


RESOURCES: tuple[ObjectOf, ...] = (
    COMPANY,
    COMPANY_SEARCH_ITEM,
    LEAD_ITEM,
    SEARCH_POST_SUMMARY,
    POST_SUMMARY,
    POST_AUTHOR,
    POST_MEDIA,
    POST_DETAIL,
    PAGING,
    JOB_SUMMARY,
    JOB_DETAIL,
    EXPERIENCE_ITEM,
    EDUCATION_ITEM,
    CERTIFICATION_ITEM,
    PROFILE_DETAIL,
    SHORT_EXPERIENCE_ITEM,
    PROFILE_SEARCH_RESULT,
    SCHOOL_SEARCH_RESULT,
    GEOCODE_ITEM,
    RECOMMENDATION_RECEIVED,
    RECOMMENDATION_GIVEN,
    SEARCH_CREATED,
    SEARCH_STATUS,
    LEAD_RESULTS,
    COMPANY_RESULTS,
    HEADCOUNT_RESULT,
)
