"""What each of the 20 endpoints answers, computed from the world and the store (no HTTP)."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from datetime import timedelta
from functools import lru_cache
from typing import Any

from profnet_sheets.sandbox import data
from profnet_sheets.sandbox.params import ApiError, invalid
from profnet_sheets.sandbox.params import Params as ParsedParams
from profnet_sheets.sandbox.store import Job, Store
from profnet_sheets.sandbox.world import (
    WEB,
    WORLD_NOW,
    Company,
    Person,
    World,
    domain_to_slug,
    slugify,
    stable_hash,
    timestamp,
)
from profnet_sheets.spec import errors
from profnet_sheets.spec.endpoints import HEADCOUNT_URL_MARKERS, URL_PARTS_PATTERN, endpoint

RESULTS_PAGE_SIZE = 25
FEED_PAGE_SIZE = 10
SCHOOLS_PAGE_SIZE = 10
EMPTY_TRIGGER = "sandbox-empty"
FAIL_TRIGGER = "sandbox-fail"
TIMEOUT_TRIGGER = "sandbox-timeout"
URN_PREFIX = "urn:profnet:activity:"
_URL = re.compile(URL_PARTS_PATTERN)
_DOMAIN = re.compile(r"^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)+$")
_WINDOW_DAYS = {"past-24h": 1.0, "past-week": 7.0, "past-month": 30.0}

Params = dict[str, Any]
Operation = Callable[[Params, str], dict[str, Any]]


def parse_url(url: str, kinds: tuple[str, ...], parameter: str = "profnet_url") -> tuple[str, str]:
    """(kind, slug) of a service URL of one of `kinds`; 400 naming `parameter` otherwise."""
    match = _URL.match(url)
    if not match or match["kind"] not in kinds:
        wanted = " or ".join(f"/{kind}/" for kind in kinds)
        raise invalid(parameter, f"{parameter} must be a profnet.com {wanted} URL, got {url!r}.")
    return match["kind"], match["slug"].lower()


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
        """The company with a numeric id: one already shown, or one known only by its id."""
        company_id = company_id.strip()
        slug = self.world.catalog_ids.get(company_id) or self.store.recall("company_id", company_id)
        return self.world.company(str(slug or company_id))

    def _shown(self, company: Company) -> Company:
        if company.company_id not in self.world.catalog_ids:
            self.store.remember("company_id", [(company.company_id, company.slug)])
        return company

    def get_company_details(self, params: Params, key: str) -> dict[str, Any]:
        if "company_id" in params:
            company_id = params["company_id"].strip()
            company = self.company_by_id(company_id)
        elif "profnet_url" in params:
            _, slug = parse_url(params["profnet_url"], ("company", "showcase"))
            company = self.company_by_id(slug) if slug.isdigit() else self.world.company(slug)
        else:
            domain = normalize_domain(params["domain"])
            if not _DOMAIN.match(domain) or domain.endswith(".invalid"):
                raise ApiError(404, errors.not_found(f"No company found for domain {domain!r}."))
            slug = self._catalog_by_domain.get(domain) or domain_to_slug(domain)
            company = self.world.company(slug)
        return {"data": self._shown(company).record()}

    # -- posts ----------------------------------------------------------------------------------

    def _feed(
        self,
        source: tuple[object, ...],
        total: int,
        start: int,
        window_days: float,
        by_date: bool,
        author: Person | Company | None,
        topic: str | None,
    ) -> list[dict[str, Any]]:
        """A page of a post list; posts are remembered by urn, authors by profile slug."""
        order = list(range(total))
        if not by_date:
            self.world.rng(*source, "order").shuffle(order)
        posts = []
        people: list[Person] = []
        for index in order[start : start + FEED_PAGE_SIZE]:
            rng = self.world.rng(*source, index)
            age = (index + rng.random()) * window_days * 86400 / max(total, 1)
            who = author or self.world.new_person(rng)
            author_record: dict[str, Any]
            if isinstance(who, Company):
                author_record = {
                    "name": who.name,
                    "headline": f"{who.industry.name} · {who.record()['company_size']} employees",
                    "profnet_url": who.profnet_url,
                    "profile_picture": f"{WEB.replace('www', 'media')}/logo/{who.slug}.png",
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
            text = rng.choice(data.POST_TEMPLATES).format(
                topic=topic or rng.choice(data.SKILLS), company=self.world.catalog_company(rng).name
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
                            "url": f"https://media.profnet.com/{kind}/{rng.getrandbits(40):010x}",
                        }
                        for _ in range(rng.choice((0, 0, 1, 1, 2)))
                    ],
                }
            )
        self.store.remember("post", [(str(post["urn"]), post) for post in posts])
        self._remember_people(people)
        return posts

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
        window = _WINDOW_DAYS.get(params.get("date_posted", ""), 365.0)
        total = (
            0
            if EMPTY_TRIGGER in keyword.lower()
            else 20 + stable_hash(self.world.seed, keyword.lower()) % 400
        )
        total = math.ceil(total * window / 365.0)
        source = ("search-posts", keyword.lower(), params.get("date_posted"))
        posts = self._feed(
            source,
            total,
            params["start"],
            window,
            params["sort_by"] == "date",
            None,
            keyword,
        )
        return self._posts_body([self._summary(p, True) for p in posts], params["start"], total)

    def get_company_posts(self, params: Params, key: str) -> dict[str, Any]:
        _, slug = parse_url(params["profnet_url"], ("company", "showcase"))
        company = self.company_by_id(slug) if slug.isdigit() else self.world.company(slug)
        kind = params["type"]
        total = 3 + stable_hash(self.world.seed, slug, kind) % 80
        authored = company if kind == "posts" else None
        posts = self._feed(
            ("company-posts", slug, kind), total, params["start"], 730.0, True, authored, None
        )
        return self._posts_body([self._summary(p, False) for p in posts], params["start"], total)

    def get_profile_posts(self, params: Params, key: str) -> dict[str, Any]:
        _, slug = parse_url(params["profnet_url"], ("in",))
        person = self._person(slug)
        kind = params["type"]
        total = stable_hash(self.world.seed, slug, kind) % (40 if kind == "posts" else 60)
        authored = person if kind == "posts" else None
        posts = self._feed(
            ("profile-posts", slug, kind), total, params["start"], 730.0, True, authored, None
        )
        return self._posts_body([self._summary(p, False) for p in posts], params["start"], total)

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

    def search_jobs(self, params: Params, key: str) -> dict[str, Any]:
        world = self.world
        levels = {level.lower(): level for level in data.EXPERIENCE_LEVELS}
        level = params.get("experience_level")
        place = world.places_by_geo_id.get(params.get("geo_id", ""))
        company = (
            self.company_by_id(params["company_id"])
            if params.get("company_id", "").strip().isdigit()
            else None
        )
        industry_slugs = self._catalog_by_industry().get(params.get("industry_id", ""), ())
        impossible = (
            (level is not None and level.lower() not in levels)
            or ("geo_id" in params and place is None)
            or ("company_id" in params and company is None)
            or ("industry_id" in params and not industry_slugs)
            or _keywords_have(params, EMPTY_TRIGGER)
        )
        filters = {name: value for name, value in params.items() if name != "start"}
        window = _WINDOW_DAYS.get(params.get("date_posted", ""), 60.0)
        total = 0 if impossible else 10 + stable_hash(world.seed, canonical(filters)) % 250
        total = math.ceil(total * min(window, 60.0) / 60.0)
        start = params["start"]
        jobs = []
        for index in range(start, min(start + FEED_PAGE_SIZE, total)):
            rng = world.rng("job", canonical(filters), index)
            keyword = params.get("keyword", "").strip()
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
            city = rng.choice(world.cities_within(place)) if place else employer.city
            job_id = str(
                4_000_000_000 + stable_hash(world.seed, "job", canonical(filters), index) % 10**9
            )
            skills = rng.sample(data.SKILLS, k=rng.randint(3, 8))
            job_level = levels[level.lower()] if level else rng.choice(data.EXPERIENCE_LEVELS)
            low = rng.randrange(40, 200, 5) * 1000
            jobs.append(
                {
                    "job_id": job_id,
                    "title": title,
                    "company_name": employer.name,
                    "company_profnet_url": employer.profnet_url,
                    "location": city.name,
                    "remote_type": params.get("remote") or rng.choice(data.REMOTE_TYPES),
                    "job_type": params.get("job_type") or rng.choice(data.JOB_TYPES),
                    "experience_level": job_level,
                    "posted_at": timestamp(
                        WORLD_NOW
                        - timedelta(seconds=(index + rng.random()) * window * 86400 / total)
                    ),
                    "applicants_count": int(rng.paretovariate(1.3) * 8),
                    "description": rng.choice(data.JOB_DESCRIPTIONS).format(
                        title=title,
                        company=employer.name,
                        location=city.short_name,
                        skill=skills[0],
                        level=job_level.lower(),
                    ),
                    "skills": skills,
                    "benefits": rng.sample(data.BENEFITS, k=rng.randint(2, 6)),
                    "salary_range": None
                    if rng.random() < 0.5
                    else f"${low:,} - ${low + rng.randrange(10, 80, 5) * 1000:,}/yr",
                    "apply_url": f"{WEB}/jobs/view/{job_id}/apply/",
                }
            )
        self.store.remember("job", [(str(job["job_id"]), job) for job in jobs])
        summaries = [
            {
                **{
                    k: job[k]
                    for k in (
                        "job_id",
                        "title",
                        "company_name",
                        "company_profnet_url",
                        "location",
                        "posted_at",
                    )
                },
                "job_url": f"{WEB}/jobs/view/{job['job_id']}/",
            }
            for job in jobs
        ]
        return {
            "data": {
                "jobs": summaries,
                "paging": {"start": start, "count": len(jobs), "total": total},
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
        _, slug = parse_url(params["profnet_url"], ("in",))
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
        _, slug = parse_url(params["profnet_url"], ("in",))
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
        kind, slug = parse_url(url, ("company", "showcase", "school"))
        if kind == "school":
            base = self.world.school_alumni(slug)
        else:
            company = self.company_by_id(slug) if slug.isdigit() else self.world.company(slug)
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
        dims = sum(1 for name in filters if name != "sales_nav_url")
        return int(
            (200 + stable_hash(self.world.seed, canonical(filters)) % 5000) / (1 + 0.6 * dims)
        )

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

    def lead(self, params: Params, index: int) -> Person:
        """The index-th result of a lead search with these parameters."""
        world = self.world
        filters = {k: v for k, v in params.items() if k != "limit"}
        rng = world.rng("lead", canonical(filters), index)
        title = rng.choice(filters["title_keywords"]) if filters.get("title_keywords") else None
        company = None
        if filters.get("current_company_names"):
            company = world.company(
                slugify(rng.choice(filters["current_company_names"])) or "company"
            )
        elif filters.get("current_company_ids"):
            company = self.company_by_id(str(rng.choice(filters["current_company_ids"])))
        elif filters.get("industry_codes"):
            slugs = self._catalog_by_industry().get(str(rng.choice(filters["industry_codes"])), ())
            company = world.company(rng.choice(slugs)) if slugs else None
        city_name = None
        if filters.get("geo_codes"):
            place = world.places_by_geo_id.get(str(rng.choice(filters["geo_codes"])))
            if place is not None:
                city_name = (
                    place.name
                    if place.type == "CITY"
                    else rng.choice(world.cities_within(place)).name
                )
        return world.new_person(rng, title=title, company=company, city_name=city_name)

    def results_page(self, job: Job, page: int) -> list[dict[str, Any]]:
        first = (page - 1) * RESULTS_PAGE_SIZE
        indexes = range(first, min(first + RESULTS_PAGE_SIZE, job.total))
        if job.kind == "companies":
            filters = {k: v for k, v in job.params.items() if k != "limit"}
            slugs = self._matching_companies(canonical(filters))
            return [self.world.company(slugs[i]).search_item() for i in indexes]
        people = [self.lead(job.params, i) for i in indexes]
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
