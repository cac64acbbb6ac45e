"""What each of the 20 endpoints answers, computed from the world and the store (no HTTP)."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from datetime import timedelta
from functools import lru_cache
from typing import Any
from urllib.parse import unquote

from profnet_sheets.sandbox import data
from profnet_sheets.sandbox.params import ApiError, invalid, numeric_id
from profnet_sheets.sandbox.params import Params as ParsedParams
from profnet_sheets.sandbox.store import Job, Store
from profnet_sheets.sandbox.world import (
    HOSTNAME,
    WORLD_NOW,
    Company,
    Person,
    World,
    domain_to_slug,
    registrable_domain,
    slugify,
    stable_hash,
    timestamp,
)
from profnet_sheets.spec import errors
from profnet_sheets.spec.endpoints import (
    HEADCOUNT_URL_MARKERS,
    URL_PARTS_PATTERN,
    endpoint,
    page_pattern,
)

RESULTS_PAGE_SIZE = 25
LEAD_NARROWING = ("geo_codes", "industry_codes", "school_ids")
FEED_PAGE_SIZE = 10
SCHOOLS_PAGE_SIZE = 10
EMPTY_TRIGGER = "sandbox-empty"
FAIL_TRIGGER = "sandbox-fail"
TIMEOUT_TRIGGER = "sandbox-timeout"
URN_PREFIX = "urn:profnet:activity:"
_WINDOW_DAYS = {"past-24h": 1.0, "past-week": 7.0, "past-month": 30.0}

Params = dict[str, Any]
Operation = Callable[[Params, str], dict[str, Any]]


@lru_cache(maxsize=8)
def _url_parts(host: str) -> re.Pattern[str]:
    return re.compile(page_pattern(URL_PARTS_PATTERN, (host,)))


def parse_url(
    url: str, kinds: tuple[str, ...], host: str, parameter: str = "profnet_url"
) -> tuple[str, str]:
    """(kind, slug) of a page URL on the network's `host` of one of `kinds`; 400 naming
    `parameter` otherwise."""
    match = _url_parts(host).match(url)
    if not match or match["kind"] not in kinds:
        wanted = " or ".join(f"/{kind}/" for kind in kinds)
        raise invalid(parameter, f"{parameter} must be a {host} {wanted} URL, got {url!r}.")
    return match["kind"], unquote(match["slug"]).lower()


def normalize_domain(domain: str) -> str:
    """Section 4.1 rule 1: drop the protocol, the www. prefix and any path (and port, case)."""
    value = domain.strip().lower()
    value = re.sub(r"^[a-z][a-z0-9+.-]*://", "", value)
    value = re.split(r"[/?#]", value, maxsplit=1)[0].split(":")[0].rstrip(".")
    return value.removeprefix("www.")


def canonical(params: Params) -> str:
    return json.dumps(params, sort_keys=True, separators=(",", ":"))


def _keywords_have(params: Params, trigger: str) -> bool:
    return any(trigger in str(params.get(name, "")).lower() for name in ("keywords", "keyword"))


class Operations:
    """One method per endpoint; each takes validated parameters and the caller's key."""

    def __init__(self, world: World, store: Store) -> None:
        self.world = world
        self.store = store
        self._matching_companies = lru_cache(maxsize=256)(self._match_companies)
        self._jobs = lru_cache(maxsize=256)(self._job_population)
        self._feed_order = lru_cache(maxsize=1024)(self._order_feed)
        self._ages = lru_cache(maxsize=1024)(self._list_ages)
        self._matching_leads = lru_cache(maxsize=64)(self._match_leads)

    def handler(self, endpoint_name: str) -> Operation:
        operation: Operation = getattr(self, endpoint_name.replace("-", "_"))
        return operation

    # -- companies ------------------------------------------------------------------------------

    @property
    def _catalog_by_domain(self) -> dict[str, str]:
        return self._domains()

    @lru_cache(maxsize=1)  # noqa: B019 - one Operations per server, lives as long as it
    def _domains(self) -> dict[str, str]:
        found: dict[str, str] = {}
        for slug in self.world.catalog:
            website = self.world.company(slug).website
            domain = (
                normalize_domain(website) if website else slugify(slug).replace("-", "") + ".com"
            )
            found.setdefault(domain, slug)
        return found

    def company_by_id(self, company_id: str) -> Company:
        """The company with a numeric id (`1035` or `1035.0`, the same): one already shown,
        or one known only by its id."""
        company_id = numeric_id(company_id) or company_id.strip()
        slug = self.world.catalog_ids.get(company_id) or self.store.recall("company_id", company_id)
        return self.world.company(str(slug or company_id))

    def company_by_slug(self, slug: str) -> Company:
        """The company of a page URL's slug: a numeric one (`/company/1035.0/`) is its id."""
        return self.company_by_id(slug) if numeric_id(slug) else self.world.company(slug)

    def _shown(self, company: Company) -> Company:
        if company.company_id not in self.world.catalog_ids:
            self.store.remember("company_id", [(company.company_id, company.slug)])
        return company

    def get_company_details(self, params: Params, key: str) -> dict[str, Any]:
        if "company_id" in params:
            company_id = params["company_id"].strip()
            if (numeric_id(company_id) or company_id).strip("0") == "":  # ids start at 1
                raise ApiError(404, errors.not_found("No company found for company_id '0'."))
            company = self.company_by_id(company_id)
        elif "profnet_url" in params:
            _, slug = parse_url(params["profnet_url"], ("company", "showcase"), self.world.host)
            company = self.company_by_slug(slug)
        else:
            domain = normalize_domain(params["domain"])
            missing = domain.endswith(".invalid") or "sandbox-missing" in domain  # triggers
            if not HOSTNAME.match(domain) or missing:
                raise ApiError(404, errors.not_found(f"No company found for domain {domain!r}."))
            slug = self._catalog_by_domain.get(registrable_domain(domain)) or domain_to_slug(domain)
            company = self.world.company(slug)
        return {"data": self._shown(company).record()}

    # -- posts ----------------------------------------------------------------------------------

    def _list_ages(
        self, source: tuple[object, ...], total: int, span_days: float
    ) -> tuple[float, ...]:
        """Seconds before WORLD_NOW of each item of a list: index 0 is the newest."""
        rng = self.world.rng(*source, "ages")
        step = span_days * 86400 / max(total, 1)
        return tuple((index + rng.random()) * step for index in range(total))

    def _age(self, source: tuple[object, ...], index: int, total: int, span_days: float) -> float:
        return self._ages(source, total, span_days)[index]

    def _order_feed(
        self,
        source: tuple[object, ...],
        total: int,
        span_days: float,
        window: float,
        by_date: bool,
    ) -> tuple[int, ...]:
        """The indexes of a list's items within `window` seconds, newest or most relevant first."""
        ages = self._ages(source, total, span_days)
        order = [index for index in range(total) if ages[index] <= window]
        if not by_date:
            self.world.rng(*source, "relevance").shuffle(order)
        return tuple(order)

    def _feed(
        self,
        source: tuple[object, ...],
        total: int,
        span_days: float,
        params: Params,
        author: Person | Company | None,
        topic: str | None,
    ) -> tuple[list[dict[str, Any]], int]:
        """A page of one post list, narrowed by `date_posted` and ordered by `sort_by`.

        The list is the same whatever the filters (so a narrower filter gives a subset); posts
        are remembered by urn and their authors by profile slug. Returns (page, matching total).
        """
        window = _WINDOW_DAYS.get(params.get("date_posted", ""), math.inf) * 86400
        order = self._feed_order(
            source, total, span_days, window, params.get("sort_by", "date") == "date"
        )
        matching = len(order)
        start = params["start"]
        posts = []
        people: list[Person] = []
        for index in order[start : start + FEED_PAGE_SIZE]:
            rng = self.world.rng(*source, index)
            age = self._age(source, index, total, span_days)
            who = author or self.world.new_person(rng)
            author_record: dict[str, Any]
            if isinstance(who, Company):
                author_record = {
                    "name": who.name,
                    "headline": f"{who.industry.name} · {who.record()['company_size']} employees",
                    "profnet_url": who.profnet_url,
                    "profile_picture": f"{self.world.media}/logo/{who.slug}.png",
                }
            else:
                people.append(who)
                author_record = {
                    "name": who.name,
                    "headline": who.headline,
                    "profnet_url": who.profnet_url,
                    "profile_picture": who.picture,
                }
            post_id = str(
                7 * 10**18 + stable_hash(self.world.seed, "post", *source, index) % 10**18
            )
            mentioned = who if isinstance(who, Company) else self.world.catalog_company(rng)
            text = rng.choice(data.POST_TEMPLATES).format(
                topic=topic or rng.choice(data.SKILLS), company=mentioned.name
            )
            posts.append(
                {
                    "urn": post_id,
                    "author": author_record,
                    "text": text,
                    "posted_at": timestamp(WORLD_NOW - timedelta(seconds=age)),
                    "reactions_count": int(rng.paretovariate(1.2) * 10),
                    "comments_count": int(rng.paretovariate(1.5) * 2),
                    "reposts_count": int(rng.paretovariate(1.8)),
                    "media": [
                        {
                            "type": (kind := rng.choice(data.MEDIA_TYPES)),
                            "url": f"{self.world.media}/{kind}/{rng.getrandbits(40):010x}",
                        }
                        for _ in range(rng.choice((0, 0, 1, 1, 2)))
                    ],
                }
            )
        self.store.remember("post", [(str(post["urn"]), post) for post in posts])
        self._remember_people(people)
        return posts, matching

    @staticmethod
    def _summary(post: dict[str, Any], with_author: bool) -> dict[str, Any]:
        summary: dict[str, Any] = {"urn": URN_PREFIX + post["urn"]}
        if with_author:
            summary |= {
                "author_name": post["author"]["name"],
                "author_profnet_url": post["author"]["profnet_url"],
                "author_headline": post["author"]["headline"],
            }
        summary |= {
            key: post[key]
            for key in ("text", "posted_at", "reactions_count", "comments_count", "reposts_count")
        }
        return summary

    @staticmethod
    def _posts_body(posts: list[dict[str, Any]], start: int, total: int) -> dict[str, Any]:
        return {
            "data": {
                "posts": posts,
                "paging": {"start": start, "count": len(posts), "total": total},
            }
        }

    def search_posts(self, params: Params, key: str) -> dict[str, Any]:
        keyword = params["keyword"].strip()
        total = (
            0
            if EMPTY_TRIGGER in keyword.lower()
            else 20 + stable_hash(self.world.seed, keyword.lower()) % 400
        )
        posts, matching = self._feed(
            ("search-posts", keyword.lower()), total, 365.0, params, None, keyword
        )
        return self._posts_body([self._summary(p, True) for p in posts], params["start"], matching)

    def get_company_posts(self, params: Params, key: str) -> dict[str, Any]:
        _, slug = parse_url(params["profnet_url"], ("company", "showcase"), self.world.host)
        company = self.company_by_slug(slug)
        kind = params["type"]
        total = 3 + stable_hash(self.world.seed, numeric_id(slug) or slug, kind) % 80
        authored = company if kind == "posts" else None
        posts, matching = self._feed(
            ("company-posts", slug, kind), total, 730.0, params, authored, None
        )
        return self._posts_body([self._summary(p, False) for p in posts], params["start"], matching)

    def get_profile_posts(self, params: Params, key: str) -> dict[str, Any]:
        _, slug = parse_url(params["profnet_url"], ("in",), self.world.host)
        person = self._person(slug)
        kind = params["type"]
        total = stable_hash(self.world.seed, slug, kind) % (40 if kind == "posts" else 60)
        authored = person if kind == "posts" else None
        posts, matching = self._feed(
            ("profile-posts", slug, kind), total, 730.0, params, authored, None
        )
        return self._posts_body([self._summary(p, False) for p in posts], params["start"], matching)

    def get_post_details(self, params: Params, key: str) -> dict[str, Any]:
        urn = params["urn"].strip()
        if not urn.isdigit():
            raise invalid("urn", f"urn must be the numeric id of the post, got {urn!r}.")
        post = self.store.recall("post", urn)
        if post is None:
            raise ApiError(404, errors.not_found(f"Post {urn} not found."))
        return {"data": post}

    # -- jobs -----------------------------------------------------------------------------------

    @lru_cache(maxsize=1)  # noqa: B019
    def _catalog_by_industry(self) -> dict[str, tuple[str, ...]]:
        found: dict[str, list[str]] = {}
        for slug in self.world.catalog:
            found.setdefault(self.world.company(slug).industry.id, []).append(slug)
        return {industry: tuple(slugs) for industry, slugs in found.items()}

    def _job_population(self, selectors_json: str) -> tuple[dict[str, Any], ...]:
        """Every job a set of selectors (keyword, company, industry) finds, newest first."""
        world = self.world
        selectors: Params = json.loads(selectors_json)
        if _keywords_have(selectors, EMPTY_TRIGGER):
            return ()
        company = self.company_by_id(selectors["company_id"]) if "company_id" in selectors else None
        industry_slugs = self._catalog_by_industry().get(selectors.get("industry_id", ""), ())
        total = 10 + stable_hash(world.seed, selectors_json) % 300
        keyword = str(selectors.get("keyword", "")).strip()
        jobs = []
        for index in range(total):
            rng = world.rng("job", selectors_json, index)
            title = (
                rng.choice(("{}", "Senior {}", "{} II", "Lead {}")).format(keyword.title())
                if keyword
                else rng.choice(data.JOB_TITLES)
            )
            employer = company or (
                world.company(rng.choice(industry_slugs))
                if industry_slugs
                else world.catalog_company(rng)
            )
            city = employer.city if rng.random() < 0.5 else rng.choice(world.cities)
            job_id = str(
                4_000_000_000 + stable_hash(world.seed, "job", selectors_json, index) % 10**9
            )
            skills = rng.sample(data.SKILLS, k=rng.randint(3, 8))
            level = rng.choice(data.EXPERIENCE_LEVELS)
            low = rng.randrange(40, 200, 5) * 1000
            age = self._age(("job", selectors_json), index, total, 60.0)
            jobs.append(
                {
                    "job_id": job_id,
                    "title": title,
                    "company_name": employer.name,
                    "company_profnet_url": employer.profnet_url,
                    "location": city.name,
                    "remote_type": rng.choice(data.REMOTE_TYPES),
                    "job_type": rng.choice(data.JOB_TYPES),
                    "experience_level": level,
                    "posted_at": timestamp(WORLD_NOW - timedelta(seconds=age)),
                    "applicants_count": int(rng.paretovariate(1.3) * 8),
                    "description": rng.choice(data.JOB_DESCRIPTIONS).format(
                        title=title,
                        company=employer.name,
                        location=city.short_name,
                        skill=skills[0],
                        level=level.lower(),
                    ),
                    "skills": skills,
                    "benefits": rng.sample(data.BENEFITS, k=rng.randint(2, 6)),
                    "salary_range": None
                    if rng.random() < 0.5
                    else f"${low:,} - ${low + rng.randrange(10, 80, 5) * 1000:,}/yr",
                    "apply_url": f"{self.world.web}/jobs/view/{job_id}/apply/",
                    "_age": age,
                    "_city": city.key,
                }
            )
        return tuple(jobs)

    def search_jobs(self, params: Params, key: str) -> dict[str, Any]:
        """Selectors (keyword, company_id, industry_id) pick a population of jobs; geo_id,
        date_posted, experience_level, job_type and remote narrow it (a subset, never another
        set)."""
        world = self.world
        company_id = params.get("company_id", "").strip()
        if company_id and not company_id.isdigit():
            raise invalid("company_id", f"company_id must be a numeric id, got {company_id!r}.")
        selectors: Params = {
            name: params[name]
            for name in ("keyword", "company_id", "industry_id")
            if name in params
        }
        unknown_industry = "industry_id" in params and not self._catalog_by_industry().get(
            params["industry_id"]
        )
        population = () if unknown_industry else self._jobs(canonical(selectors))
        place = world.places_by_geo_id.get(params.get("geo_id", "").strip())
        level = params.get("experience_level", "").strip().lower()
        window = _WINDOW_DAYS.get(params.get("date_posted", ""), math.inf) * 86400
        matching = [
            job
            for job in population
            if (
                "geo_id" not in params
                or (place is not None and place.key in world.places[job["_city"]].ancestors)
            )
            and (not level or job["experience_level"].lower() == level)
            and params.get("job_type", job["job_type"]) == job["job_type"]
            and params.get("remote", job["remote_type"]) == job["remote_type"]
            and job["_age"] <= window
        ]
        start = params["start"]
        page = [
            {name: value for name, value in job.items() if not name.startswith("_")}
            for job in matching[start : start + FEED_PAGE_SIZE]
        ]
        self.store.remember("job", [(str(job["job_id"]), job) for job in page])
        summaries = [
            {
                **{
                    name: job[name]
                    for name in (
                        "job_id",
                        "title",
                        "company_name",
                        "company_profnet_url",
                        "location",
                        "posted_at",
                    )
                },
                "job_url": f"{self.world.web}/jobs/view/{job['job_id']}/",
            }
            for job in page
        ]
        return {
            "data": {
                "jobs": summaries,
                "paging": {"start": start, "count": len(page), "total": len(matching)},
            }
        }

    def get_job_details(self, params: Params, key: str) -> dict[str, Any]:
        job_id = params["job_id"].strip()
        job = self.store.recall("job", job_id)
        if job is None:
            raise ApiError(404, errors.not_found(f"Job {job_id} not found or no longer active."))
        return {"data": job}

    # -- people ---------------------------------------------------------------------------------

    def _person(self, slug: str) -> Person:
        return self.world.person(slug, self.store.recall("profile", slug))

    def _remember_people(self, people: list[Person]) -> None:
        self.store.remember("profile", [(person.slug, person.overrides()) for person in people])

    def get_profile_details(self, params: Params, key: str) -> dict[str, Any]:
        _, slug = parse_url(params["profnet_url"], ("in",), self.world.host)
        profile = self.world.profile(
            self._person(slug),
            skills=params["include_skills"] == "true",
            certifications=params["include_certifications"] == "true",
        )
        return {"data": profile}

    def google_full_profiles(self, params: Params, key: str) -> dict[str, Any]:
        world = self.world
        query = {k: v.strip() for k, v in params.items() if k != "limit"}
        if _keywords_have(params, EMPTY_TRIGGER):
            return {"data": []}
        rng = world.rng("full-profiles", canonical(query))
        count = (
            params["limit"] if "name" not in query else max(1, params["limit"] - rng.randint(0, 2))
        )
        company = world.company(slugify(query["company_name"])) if "company_name" in query else None
        places = world.geocode(query["location"]) if "location" in query else []
        people = [
            world.new_person(
                rng,
                title=query.get("job_title"),
                company=company,
                city_name=places[0].name if places else query.get("location"),
                full_name=query.get("name"),
            )
            for _ in range(count)
        ]
        self._remember_people(people)
        results = []
        for person in people:
            profile = world.profile(person, skills=False, certifications=False)
            results.append(
                {
                    "full_name": person.name,
                    "profnet_url": person.profnet_url,
                    "headline": person.headline,
                    "location": person.city_name,
                    "profile_picture": person.picture,
                    "experience": world.short_experience(profile),
                }
            )
        return {"data": results}

    def _recommendations(self, params: Params, given: bool) -> dict[str, Any]:
        _, slug = parse_url(params["profnet_url"], ("in",), self.world.host)
        person = self._person(slug)
        rng = self.world.rng("recommendations", slug, given)
        role = "recommendee" if given else "recommender"
        items = []
        others = [self.world.new_person(rng) for _ in range(rng.choice((0, 1, 2, 2, 3, 4, 6)))]
        self._remember_people(others)
        for other in others:
            items.append(
                {
                    f"{role}_name": other.name,
                    f"{role}_title": other.headline,
                    f"{role}_profnet_url": other.profnet_url,
                    "relationship": rng.choice(data.RELATIONSHIPS).format(
                        other=other.first, company=person.company.name
                    ),
                    "text": rng.choice(data.RECOMMENDATION_TEXTS).format(
                        first=(other if given else person).first,
                        skill=rng.choice(data.SKILLS),
                        company=person.company.name,
                    ),
                }
            )
        return {"data": {"recommendations": items}}

    def get_recommendations_received(self, params: Params, key: str) -> dict[str, Any]:
        return self._recommendations(params, given=False)

    def get_recommendations_given(self, params: Params, key: str) -> dict[str, Any]:
        return self._recommendations(params, given=True)

    # -- places, schools, headcount -------------------------------------------------------------

    def find_geocode_by_location(self, params: Params, key: str) -> dict[str, Any]:
        location = params["location"]
        if TIMEOUT_TRIGGER in location.lower():
            raise ApiError(500, errors.server_error(errors.GEOCODE_TIMEOUT))
        places = self.world.geocode(location)
        return {"data": {"message": "ok", "data": [place.item() for place in places]}}

    def google_schools(self, params: Params, key: str) -> dict[str, Any]:
        world = self.world
        name = params.get("school_name", "").strip().lower()
        location = params.get("location", "").strip().lower()
        keyword = params.get("keyword", "").strip().lower()
        items = []
        for school in data.SCHOOLS:
            place = world.places.get(school.place)
            item = world.school_item(school.name, school.place)
            if name and not all(word in school.name.lower() for word in name.split()):
                continue
            if location and (place is None or location not in place.name.lower()):
                continue
            if keyword and keyword not in (item["school_name"] + " " + item["description"]).lower():
                continue
            items.append(item)
        if not items and name and EMPTY_TRIGGER not in name:
            items.append(world.school_item(params["school_name"].strip().title(), None))
        start = (params["page"] - 1) * SCHOOLS_PAGE_SIZE
        return {"data": {"results": items[start : start + SCHOOLS_PAGE_SIZE]}}

    def find_custom_headcount(self, params: Params, key: str) -> dict[str, Any]:
        url = params["profnet_url"]
        if not any(marker in url.lower() for marker in HEADCOUNT_URL_MARKERS):
            raise invalid(
                "profnet_url",
                f"profnet_url must contain /company/, /showcase/ or /school/, got {url!r}.",
            )
        kind, slug = parse_url(url, ("company", "showcase", "school"), self.world.host)
        if kind == "school":
            base = self.world.school_alumni(slug)
        else:
            company = self.company_by_slug(slug)
            base = company.employees
        endpoint_spec = endpoint("find-custom-headcount")
        sent = params.sent if isinstance(params, ParsedParams) else frozenset(params)
        filters = {
            name: params[name]
            for name in endpoint_spec.param_names
            if name != "profnet_url" and name in sent
        }
        share = 1.0
        for name, value in filters.items():
            if name == "include_subsidiaries":
                share *= 1.25 if value == "true" else 1.0
            else:
                share *= (
                    0.02
                    + (stable_hash(self.world.seed, slug, name, canonical({"v": value})) % 1000)
                    / 2000
                )
        return {"data": {"profnet_url": url, "filters": filters, "headcount": int(base * share)}}

    # -- asynchronous searches ------------------------------------------------------------------

    def search_total(self, kind: str, params: Params) -> int:
        """How many results a search finds (before `limit`), deterministic from its filters."""
        if _keywords_have(params, EMPTY_TRIGGER):
            return 0
        filters = {k: v for k, v in params.items() if k != "limit"}
        if kind == "companies":
            return len(self._matching_companies(canonical(filters)))
        return len(self._matching_leads(canonical(filters)))

    def _match_companies(self, filters_json: str) -> tuple[str, ...]:
        world = self.world
        filters: Params = json.loads(filters_json)
        order = lambda slug: stable_hash(world.seed, filters_json, slug)  # noqa: E731
        if "sales_nav_url" in filters:
            picked = sorted(world.catalog, key=order)
            return tuple(picked[: 50 + stable_hash(world.seed, filters_json) % 1500])

        def geo_keys(name: str) -> set[str]:
            places = (world.places_by_geo_id.get(str(code)) for code in filters.get(name, ()))
            return {place.key for place in places if place is not None}

        include_geo, exclude_geo = (
            geo_keys("headquarters_location"),
            geo_keys("headquarters_location_exclude"),
        )
        industries = {str(code) for code in filters.get("industry_codes", ())}
        excluded = {str(code) for code in filters.get("industry_codes_exclude", ())}
        growth = filters.get("company_headcount_growth", {})
        words = str(filters.get("keywords", "")).lower().split()
        matches = []
        for slug in world.catalog:
            company = world.company(slug)
            text = " ".join(
                (company.name, company.description, company.industry.name, *company.specialties)
            ).lower()
            if (
                (industries and company.industry.id not in industries)
                or company.industry.id in excluded
                or (
                    "company_headcounts" in filters
                    and company.size_code not in filters["company_headcounts"]
                )
                or company.growth < growth.get("min", -math.inf)
                or company.growth > growth.get("max", math.inf)
                or (
                    "headquarters_location" in filters
                    and not include_geo & set(company.city.ancestors)
                )
                or exclude_geo & set(company.city.ancestors)
                or (
                    "hiring_on_profnet" in filters
                    and company.hiring != (filters["hiring_on_profnet"] == "true")
                )
                or (
                    "recent_activities" in filters
                    and not set(filters["recent_activities"]) & set(company.activities)
                )
                or any(word not in text for word in words)
            ):
                continue
            matches.append(slug)
        return tuple(sorted(matches, key=order))

    def _lead_population(self, selectors_json: str) -> tuple[Person, ...]:
        """Everyone a lead search's selectors (titles, companies, keywords, a URL) find."""
        world = self.world
        selectors: Params = json.loads(selectors_json)
        dims = sum(1 for name in selectors if name != "sales_nav_url")
        size = int((300 + stable_hash(world.seed, selectors_json) % 3000) / (1 + 0.5 * dims))
        people = []
        for index in range(size):
            rng = world.rng("lead", selectors_json, index)
            titles = selectors.get("title_keywords")
            company = None
            if selectors.get("current_company_names"):
                name = rng.choice(selectors["current_company_names"])
                company = world.company(slugify(name) or "company")
            elif selectors.get("current_company_ids"):
                company = self.company_by_id(str(rng.choice(selectors["current_company_ids"])))
            past: list[Company] = []
            if selectors.get("past_company_names"):
                name = rng.choice(selectors["past_company_names"])
                past.append(world.company(slugify(name) or "company"))
            if selectors.get("past_company_ids"):
                past.append(self.company_by_id(str(rng.choice(selectors["past_company_ids"]))))
            people.append(
                world.new_person(
                    rng,
                    title=rng.choice(titles) if titles else None,
                    company=company,
                    past=tuple(past),
                    school=rng.choice(data.SCHOOLS).name,
                )
            )
        return tuple(people)

    def _match_leads(self, filters_json: str) -> tuple[Person, ...]:
        """The population of the selectors, narrowed by location, industry and school."""
        world = self.world
        filters: Params = json.loads(filters_json)
        if _keywords_have(filters, EMPTY_TRIGGER):
            return ()
        selectors = {k: v for k, v in filters.items() if k not in LEAD_NARROWING}
        people = self._lead_population(canonical(selectors))
        if "geo_codes" in filters:
            places = {world.places_by_geo_id.get(str(code)) for code in filters["geo_codes"]}
            keys = {place.key for place in places if place is not None}
            people = tuple(
                p for p in people if keys & set(world.places_by_name[p.city_name].ancestors)
            )
        if "industry_codes" in filters:
            codes = {str(code) for code in filters["industry_codes"]}
            people = tuple(p for p in people if p.company.industry.id in codes)
        if "school_ids" in filters:
            schools = {str(school).strip().lower() for school in filters["school_ids"]}
            people = tuple(p for p in people if slugify(p.school or "") in schools)
        return people

    def results_page(self, job: Job, page: int) -> list[dict[str, Any]]:
        first = (page - 1) * RESULTS_PAGE_SIZE
        indexes = range(first, min(first + RESULTS_PAGE_SIZE, job.total))
        if job.kind == "companies":
            filters = {k: v for k, v in job.params.items() if k != "limit"}
            slugs = self._matching_companies(canonical(filters))
            return [self.world.company(slugs[i]).search_item() for i in indexes]
        filters = {k: v for k, v in job.params.items() if k != "limit"}
        matching = self._matching_leads(canonical(filters))
        people = [matching[i] for i in indexes]
        self._remember_people(people)
        return [
            {
                "name": person.name,
                "title": person.title,
                "company": person.company.name,
                "profnet_url": person.profnet_url,
                "location": person.city_name,
                "profile_picture": person.picture,
            }
            for person in people
        ]
