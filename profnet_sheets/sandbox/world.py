"""A deterministic synthetic world (places, companies, people, schools) derived from a seed."""

from __future__ import annotations

import hashlib
import random
import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from functools import cached_property, lru_cache
from typing import Any
from urllib.parse import quote

from publicsuffixlist import PublicSuffixList

from profnet_sheets.sandbox import data
from profnet_sheets.spec.endpoints import NETWORK_HOST
from profnet_sheets.spec.resources import HEADCOUNT_CODES, company_size_label

# Generated timestamps count back from this instant, so that the world does not change with the
# wall clock (the same request gives the same answer tomorrow).
WORLD_NOW = datetime(2026, 11, 1, 12, 0, 0, tzinfo=UTC)
CATALOG_SIZE = 4000
_SIZE_WEIGHTS = {"A": 22, "B": 24, "C": 20, "D": 12, "E": 8, "F": 8, "G": 3, "H": 3}
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
# The public suffix list (a snapshot in the package: nothing fetched), its ICANN part.
_PUBLIC_SUFFIXES = PublicSuffixList(only_icann=True)
# Words a company slug's suffix may be made of besides country codes: `acme-software` stays
# Acme Software (.com), not acme.software.
_SUFFIX_WORDS = frozenset({"com", "net", "org", "dev", "app", "edu", "gov"})
HOSTNAME = re.compile(r"^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)+$")
_PERSON_SLUG = re.compile(r"^(?P<first>[a-z]+)-(?P<last>[a-z]+)(?:-[0-9a-z]+)?$")


def stable_hash(*parts: object) -> int:
    """A 64-bit hash of `parts` that is the same in every process and Python version."""
    digest = hashlib.blake2b(repr(parts).encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big")


def slugify(text: str) -> str:
    """`Velorix Systems, Inc.` -> `velorix-systems-inc`."""
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def timestamp(moment: datetime) -> str:
    """ISO 8601 UTC with seconds and a Z: `2026-11-03T14:22:05Z`."""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def month_label(moment: datetime) -> str:
    return f"{_MONTHS[moment.month - 1]} {moment.year}"


def registrable_domain(domain: str) -> str:
    """The domain a company registers, by the public suffix list: `open.spotify.com` ->
    `spotify.com`, `news.bbc.co.uk` -> `bbc.co.uk`; `domain` itself when it has none."""
    return _PUBLIC_SUFFIXES.privatesuffix(domain) or domain


def domain_to_slug(domain: str) -> str:
    """The company slug of a normalised domain, its registrable part: `stripe.com` and
    `open.stripe.com` -> `stripe`, `acme.io` -> `acme-io`, `bbc.co.uk` -> `bbc-co-uk`."""
    registrable = registrable_domain(domain)
    return registrable.removesuffix(".com").replace(".", "-")


def slug_to_domain(slug: str) -> str:
    """The inverse of domain_to_slug for the domains it produces: the longest public suffix
    of country codes (and a few words: `co-uk`, `com-au`, `io`, `so`) ending the slug, else
    `.com`."""
    parts = slug.split("-")
    for start in range(1, len(parts)):
        words = parts[start:]
        suffix = ".".join(words)
        if (
            suffix != "com"
            and all(len(word) == 2 or word in _SUFFIX_WORDS for word in words)
            and _PUBLIC_SUFFIXES.publicsuffix(suffix, accept_unknown=False) == suffix
        ):
            return f"{'-'.join(parts[:start])}.{suffix}"
    return f"{slug}.com"


def _unicode_label(label: str) -> str:
    """A domain label as people write it: an IDN's punycode (`xn--zrich-kva`) decoded."""
    if not label.startswith("xn--"):
        return label
    try:
        return label.encode("ascii").decode("idna")
    except UnicodeError:
        return label


def title_from_slug(slug: str) -> str:
    return " ".join(part.capitalize() for part in slug.split("-") if part)


@dataclass(frozen=True)
class Place:
    """A place with its geo id and the keys of everything that contains it."""

    key: str
    geo_id: str
    name: str
    type: str
    ancestors: tuple[str, ...]  # own key first, then parent, grandparent, ...

    @property
    def short_name(self) -> str:
        return self.name.split(",")[0]

    def item(self) -> dict[str, str]:
        return {"geo_id": self.geo_id, "name": self.name, "type": self.type}


@dataclass(frozen=True)
class Company:
    """Everything the world knows of one company; `record()` is what the service returns."""

    slug: str
    company_id: str
    name: str
    industry: data.Industry
    size_code: str
    employees: int
    city: Place
    founded: int | None
    website: str | None
    description: str
    specialties: tuple[str, ...]
    growth: float
    hiring: bool
    activities: tuple[str, ...]
    web: str = f"https://www.{NETWORK_HOST}"  # the network's pages (World.web)

    @property
    def profnet_url(self) -> str:
        return f"{self.web}/company/{quote(self.slug, safe='-_.~')}/"

    def record(self) -> dict[str, Any]:
        return {
            "company_name": self.name,
            "profnet_url": self.profnet_url,
            "industry": self.industry.name,
            "company_size": company_size_label(self.size_code),
            "headquarters": self.city.name,
            "founded": self.founded,
            "website": self.website,
            "description": self.description,
            "specialties": list(self.specialties),
        }

    def search_item(self) -> dict[str, Any]:
        return {
            "company_name": self.name,
            "profnet_url": self.profnet_url,
            "industry": self.industry.name,
            "company_size": company_size_label(self.size_code),
            "headquarters": self.city.name,
            "website": self.website,
        }


@dataclass(frozen=True)
class Person:
    """The facts of a person that other records quote (leads, authors, recommenders)."""

    slug: str
    first: str
    last: str
    title: str
    company: Company
    city_name: str
    picture: str | None
    past: tuple[str, ...] = ()  # slugs of companies the person worked at before
    school: str | None = None
    web: str = f"https://www.{NETWORK_HOST}"  # the network's pages (World.web)

    @property
    def name(self) -> str:
        return f"{self.first} {self.last}"

    @property
    def profnet_url(self) -> str:
        return f"{self.web}/in/{quote(self.slug, safe='-_.~')}/"

    @property
    def headline(self) -> str:
        return f"{self.title} at {self.company.name}"

    def overrides(self) -> dict[str, Any]:
        """What a profile lookup must repeat of this person (stored by the backend)."""
        return {
            "first": self.first,
            "last": self.last,
            "title": self.title,
            "company": self.company.slug,
            "city_name": self.city_name,
            "picture": self.picture,
            "past": list(self.past),
            "school": self.school,
        }


class World:
    """Pure functions of (seed, inputs): the same question always gets the same answer. Its
    pages live on `host` (the network's; another one when the sandbox plays another service):
    `web` and `media` are their addresses."""

    def __init__(self, seed: int = 0, host: str = NETWORK_HOST) -> None:
        self.seed = seed
        self.host = host
        self.web = f"https://www.{host}"
        self.media = f"https://media.{host}"
        self.company_cache = lru_cache(maxsize=65536)(self._company)

    def rng(self, *parts: object) -> random.Random:
        return random.Random(stable_hash(self.seed, *parts))

    # -- places ---------------------------------------------------------------------------------

    @cached_property
    def places(self) -> dict[str, Place]:
        parents = {place.key: place.parent for place in data.PLACES}
        places: dict[str, Place] = {}
        for raw in data.PLACES:
            chain = [raw.key]
            while parents[chain[-1]] is not None:
                chain.append(str(parents[chain[-1]]))
            geo_id = str(100_000_000 + stable_hash("geo", raw.key) % 900_000_000)
            places[raw.key] = Place(raw.key, geo_id, raw.name, raw.type, tuple(chain))
        return places

    @cached_property
    def places_by_geo_id(self) -> dict[str, Place]:
        return {place.geo_id: place for place in self.places.values()}

    @cached_property
    def places_by_name(self) -> dict[str, Place]:
        return {place.name: place for place in self.places.values()}

    @cached_property
    def cities(self) -> tuple[Place, ...]:
        return tuple(place for place in self.places.values() if place.type == "CITY")

    def geocode(self, query: str) -> list[Place]:
        """Places whose name, or a part of it, starts with the query (best matches first)."""
        wanted = " ".join(query.lower().split())
        scored: list[tuple[int, str, Place]] = []
        for place in self.places.values():
            name = place.name.lower()
            parts = [part.strip() for part in name.split(",")]
            if name == wanted or parts[0] == wanted:
                score = 0
            elif parts[0].startswith(wanted) or name.startswith(wanted):
                score = 1
            elif any(part.startswith(wanted) for part in parts[1:]) or wanted in name:
                score = 2
            else:
                continue
            scored.append((score, place.name, place))
        return [place for _, _, place in sorted(scored, key=lambda s: (s[0], s[1]))][:10]

    # -- companies ------------------------------------------------------------------------------

    @cached_property
    def catalog(self) -> tuple[str, ...]:
        """The slugs of the companies that searches draw from (the world's known companies)."""
        slugs: list[str] = []
        seen: set[str] = set()
        for index in range(CATALOG_SIZE):
            rng = self.rng("catalog", index)
            name = f"{rng.choice(data.COMPANY_WORDS_A)} {rng.choice(data.COMPANY_WORDS_B)}"
            slug = slugify(name)
            suffix = 2
            while slug in seen:
                slug = f"{slugify(name)}-{suffix}"
                suffix += 1
            seen.add(slug)
            slugs.append(slug)
        return tuple(slugs)

    @cached_property
    def catalog_ids(self) -> dict[str, str]:
        """Company id -> slug in the catalog (other companies' ids are remembered by the store)."""
        return {self.company_id_for(slug): slug for slug in self.catalog}

    @cached_property
    def catalog_names(self) -> dict[str, str]:
        names: dict[str, str] = {}
        for index, slug in enumerate(self.catalog):
            rng = self.rng("catalog", index)
            names[slug] = f"{rng.choice(data.COMPANY_WORDS_A)} {rng.choice(data.COMPANY_WORDS_B)}"
        return names

    def company_id_for(self, slug: str) -> str:
        """The numeric company id of a slug (7 digits in the catalog, 8 digits elsewhere)."""
        if slug.isdigit():
            return slug
        catalog_index = self._catalog_index.get(slug)
        if catalog_index is not None:
            return str(1_000_000 + (catalog_index * 7919 + self.seed) % 9_000_000)
        return str(10_000_000 + stable_hash(self.seed, "company-id", slug) % 90_000_000)

    @cached_property
    def _catalog_index(self) -> dict[str, int]:
        return {slug: index for index, slug in enumerate(self.catalog)}

    def company(self, slug: str) -> Company:
        return self.company_cache(slug)

    def _company(self, slug: str) -> Company:
        rng = self.rng("company", slug)
        if slug in self._catalog_index:
            name = self.catalog_names[slug]
            domain = slugify(name).replace("-", "") + ".com"
        elif slug.isdigit():  # known only by its numeric id: no website to find it by again
            name = f"{rng.choice(data.COMPANY_WORDS_A)} {rng.choice(data.COMPANY_WORDS_B)}"
            domain = ""
        else:
            domain = slug_to_domain(slug)
            name = title_from_slug(_unicode_label(domain.split(".")[0]))
            domain = domain if HOSTNAME.match(domain) else ""
        industry = rng.choice(data.INDUSTRIES)
        size_code = rng.choices(list(_SIZE_WEIGHTS), weights=list(_SIZE_WEIGHTS.values()))[0]
        low, high = HEADCOUNT_CODES[size_code]
        employees = rng.randint(low, high if high is not None else 250_000)
        city = rng.choice(self.cities)
        specialties = tuple(
            rng.sample(industry.specialties, k=min(len(industry.specialties), rng.randint(3, 6)))
        )
        description = rng.choice(data.COMPANY_DESCRIPTIONS).format(
            name=name,
            industry=industry.name.lower(),
            city=city.short_name,
            specialty=specialties[0].lower(),
        )
        return Company(
            slug=slug,
            company_id=self.company_id_for(slug),
            name=name,
            industry=industry,
            size_code=size_code,
            employees=employees,
            city=city,
            founded=None if rng.random() < 0.05 else rng.randint(1950, 2024),
            website=None if not domain or rng.random() < 0.03 else f"https://www.{domain}",
            description=description,
            specialties=specialties,
            growth=round(rng.uniform(-15, 60), 1),
            hiring=rng.random() < 0.4,
            activities=tuple(a for a in data.RECENT_ACTIVITIES if rng.random() < 0.25),
            web=self.web,
        )

    def catalog_company(self, rng: random.Random) -> Company:
        return self.company(rng.choice(self.catalog))

    @cached_property
    def industries(self) -> dict[str, data.Industry]:
        return {industry.id: industry for industry in data.INDUSTRIES}

    # -- people ---------------------------------------------------------------------------------

    def person(self, slug: str, overrides: dict[str, Any] | None = None) -> Person:
        """The person behind a profile slug; `overrides` pin what a search result said of them."""
        rng = self.rng("person", slug)
        match = _PERSON_SLUG.match(slug)
        first = match["first"].capitalize() if match else rng.choice(data.FIRST_NAMES)
        last = match["last"].capitalize() if match else rng.choice(data.LAST_NAMES)
        title = rng.choice(data.JOB_TITLES)
        company_slug = rng.choice(self.catalog)
        city_name = rng.choice(self.cities).name
        picture = (
            None
            if rng.random() < 0.1
            else f"{self.media}/profile/{stable_hash(slug) % 16**12:012x}.jpg"
        )
        if overrides:
            first = overrides.get("first", first)
            last = overrides.get("last", last)
            title = overrides.get("title", title)
            company_slug = overrides.get("company", company_slug)
            city_name = overrides.get("city_name", city_name)
            picture = overrides.get("picture", picture)
            return Person(
                slug,
                first,
                last,
                title,
                self.company(company_slug),
                city_name,
                picture,
                tuple(overrides.get("past", ())),
                overrides.get("school"),
                self.web,
            )
        company = self.company(company_slug)
        return Person(slug, first, last, title, company, city_name, picture, web=self.web)

    def new_person(
        self,
        rng: random.Random,
        *,
        title: str | None = None,
        company: Company | None = None,
        city_name: str | None = None,
        full_name: str | None = None,
        past: tuple[Company, ...] = (),
        school: str | None = None,
    ) -> Person:
        """A person generated for a search result (their slug is unique to them)."""
        first, last = rng.choice(data.FIRST_NAMES), rng.choice(data.LAST_NAMES)
        if full_name:
            words = full_name.split()
            first, last = (
                words[0].capitalize(),
                " ".join(words[1:]).title() or rng.choice(data.LAST_NAMES),
            )
        slug_name = slugify(f"{first} {last}") or "member"
        slug = f"{slug_name}-{rng.getrandbits(32):08x}"
        return Person(
            slug=slug,
            first=first,
            last=last,
            title=title or rng.choice(data.JOB_TITLES),
            company=company or self.catalog_company(rng),
            city_name=city_name or rng.choice(self.cities).name,
            picture=None
            if rng.random() < 0.1
            else f"{self.media}/profile/{rng.getrandbits(48):012x}.jpg",
            past=tuple(company.slug for company in past),
            school=school,
            web=self.web,
        )

    def profile(self, person: Person, *, skills: bool, certifications: bool) -> dict[str, Any]:
        """The get-profile-details record of a person."""
        rng = self.rng("profile", person.slug)
        start = WORLD_NOW - timedelta(days=rng.randint(60, 2500))
        experience = [
            self._experience(rng, person.title, person.company, person.city_name, start, None)
        ]
        end = start
        past = list(person.past)
        for _ in range(max(len(past), rng.randint(0, 4))):
            begin = end - timedelta(days=rng.randint(300, 1800))
            company = self.company(past.pop(0)) if past else self.catalog_company(rng)
            experience.append(
                self._experience(
                    rng, rng.choice(data.JOB_TITLES), company, company.city.name, begin, end
                )
            )
            end = begin - timedelta(days=rng.randint(0, 120))
        education = []
        school_end = end.year
        schools = [person.school] if person.school else []
        for _ in range(rng.randint(1, 2)):
            school = schools.pop(0) if schools else rng.choice(data.SCHOOLS).name
            education.append(
                {
                    "school": school,
                    "degree": rng.choice(data.DEGREES),
                    "field": rng.choice(data.FIELDS_OF_STUDY),
                    "start_date": str(school_end - rng.randint(2, 5)),
                    "end_date": str(school_end),
                }
            )
            school_end -= rng.randint(3, 6)
        top_skill = rng.choice(data.SKILLS)
        record: dict[str, Any] = {
            "full_name": person.name,
            "headline": person.headline,
            "location": person.city_name,
            "profile_picture": person.picture,
            "about": None
            if rng.random() < 0.15
            else rng.choice(data.ABOUT_TEMPLATES).format(
                first=person.first,
                title=person.title,
                company=person.company.name,
                skill=top_skill,
                years=max(1, WORLD_NOW.year - end.year),
            ),
            "experience": experience,
            "education": education,
        }
        if skills:
            record["skills"] = [
                top_skill,
                *rng.sample([s for s in data.SKILLS if s != top_skill], k=rng.randint(5, 14)),
            ]
        if certifications:
            record["certifications"] = [
                {
                    "name": cert.name,
                    "issuer": cert.issuer,
                    "issue_date": month_label(WORLD_NOW - timedelta(days=rng.randint(30, 3000))),
                }
                for cert in rng.sample(data.CERTIFICATIONS, k=rng.randint(0, 3))
            ]
        return record

    def _experience(
        self,
        rng: random.Random,
        title: str,
        company: Company,
        location: str,
        start: datetime,
        end: datetime | None,
    ) -> dict[str, str]:
        return {
            "title": title,
            "company": company.name,
            "company_url": company.profnet_url,
            "location": location,
            "start_date": month_label(start),
            "end_date": "Present" if end is None else month_label(end),
            "description": rng.choice(data.EXPERIENCE_DESCRIPTIONS).format(
                title=title, company=company.name, skill=rng.choice(data.SKILLS)
            ),
        }

    def short_experience(self, profile: dict[str, Any]) -> list[dict[str, str]]:
        keys = ("title", "company", "start_date", "end_date")
        return [{key: item[key] for key in keys} for item in profile["experience"]]

    # -- schools --------------------------------------------------------------------------------

    def school_item(self, name: str, city_key: str | None) -> dict[str, str]:
        rng = self.rng("school", name)
        city = self.places.get(city_key or "") or rng.choice(self.cities)
        return {
            "school_name": name,
            "profnet_url": f"{self.web}/school/{slugify(name)}/",
            "description": rng.choice(data.SCHOOL_DESCRIPTIONS).format(
                name=name, city=city.short_name, field=rng.choice(data.FIELDS_OF_STUDY)
            ),
        }

    def school_alumni(self, slug: str) -> int:
        return 2_000 + stable_hash(self.seed, "alumni", slug) % 250_000
