"""The same lookup is never paid twice: memory, SQLite, Redis; offline and refresh modes."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
import requests
import time_machine

from profnet_sheets import Client, NotFound, OfflineMiss
from profnet_sheets.sandbox import RunningSandbox, start_sandbox
from tests.integration.client.conftest import KEY, MakeClient

pytestmark = pytest.mark.integration


def test_a_repeated_call_costs_nothing_even_from_another_client(
    make_client: MakeClient, fresh: RunningSandbox
) -> None:
    first = make_client()
    for variant in ("stripe.com", "https://www.stripe.com/about", "WWW.STRIPE.COM", " stripe.com "):
        first.get_company_details(domain=variant)
    second = make_client()
    assert second.get_company_details(domain="stripe.com")["company_name"] == "Stripe"
    assert fresh.calls(endpoint="get-company-details") == 1
    assert fresh.charged() == 1


def test_a_repeated_search_costs_nothing_unless_refreshed(
    make_client: MakeClient, fresh: RunningSandbox
) -> None:
    client = make_client()
    job = client.search_leads(title_keywords=["CTO"], limit=10)
    again = make_client().search_leads(title_keywords="CTO", limit=10.0)
    assert again.request_id == job.request_id
    assert fresh.calls(endpoint="search-leads") == 1
    fresh_job = client.with_options(refresh=True).search_leads(title_keywords="CTO", limit=10)
    assert fresh_job.request_id != job.request_id
    assert fresh.calls(endpoint="search-leads") == 2


@pytest.mark.parametrize("stale_ok", [False, True])
def test_status_is_never_cached(
    make_client: MakeClient, fresh: RunningSandbox, stale_ok: bool
) -> None:
    """Not even for a client that takes answers past their freshness (Excel sessions do)."""
    client = make_client(stale_ok=stale_ok)
    job = client.search_companies(keywords="software", limit=5)
    job.status()
    job.status()
    make_client(stale_ok=stale_ok).attach_search("companies", job.request_id).status()
    assert fresh.calls(endpoint="get-company-search-status") == 3
    assert fresh.usage()["calls"]["get-company-search-status"]["credits"] == 0


def test_a_search_seen_running_is_later_seen_completed_with_stale_ok(tmp_path: Path) -> None:
    """An Excel session (stale_ok) polling a running search must see it complete."""
    with start_sandbox(api_keys=(KEY,), credits=10_000, job_seconds=60) as sandbox:
        client = Client(api_key=KEY, base_url=sandbox.base_url, cache_dir=tmp_path, stale_ok=True)
        try:
            job = client.search_companies(keywords="software", limit=5)
            assert job.status().status == "processing"
            advanced = requests.post(
                f"{sandbox.base_url}/_sandbox/clock", json={"advance": 120}, timeout=5
            )
            advanced.raise_for_status()
            assert job.wait(timeout=5).status == "completed"
            assert len(job.results()) == 5
        finally:
            client.close()


def test_not_found_answers_are_cached_too(make_client: MakeClient, fresh: RunningSandbox) -> None:
    for client in (make_client(), make_client()):
        for _ in range(2):
            with pytest.raises(NotFound):
                client.get_post_details(urn="urn:profnet:activity:7000000000000000001")
    assert fresh.calls(endpoint="get-post-details") == 1


def test_concurrent_identical_calls_are_paid_once(
    make_client: MakeClient, fresh: RunningSandbox
) -> None:
    requests_put = __import__("requests").put
    requests_put(f"{fresh.base_url}/_sandbox/faults", json={"latency_ms": 100}, timeout=5)
    client = make_client()
    with ThreadPoolExecutor(32) as pool:
        names = list(pool.map(lambda _: client.get_company_details(domain="acme.io"), range(64)))
    assert len({n["company_name"] for n in names}) == 1
    assert fresh.calls(endpoint="get-company-details") == 1


def test_offline_answers_from_the_cache_only(
    make_client: MakeClient, fresh: RunningSandbox
) -> None:
    online = make_client()
    online.get_company_details(domain="cached.io")
    offline = make_client(offline=True)
    answer = offline.get_company_details(domain="https://cached.io/")
    assert answer == online.get_company_details(domain="cached.io")
    with pytest.raises(OfflineMiss, match="offline"):
        offline.get_company_details(domain="never-seen.io")
    assert fresh.calls(endpoint="get-company-details") == 1


def test_offline_serves_answers_past_their_freshness(
    make_client: MakeClient, fresh: RunningSandbox, wall_clock: time_machine.Coordinates
) -> None:
    """Offline, the only other answer would be none at all."""
    short = {"get-company-details": 0.5}
    make_client(expiry=short).get_company_details(domain="aging.io")
    wall_clock.shift(0.6)
    offline = make_client(expiry=short, offline=True)
    assert offline.get_company_details(domain="aging.io")["company_name"]
    make_client(expiry=short).get_company_details(domain="aging.io")  # online: fetched again
    assert fresh.calls(endpoint="get-company-details") == 2


def test_a_search_read_before_can_be_read_again_offline(
    make_client: MakeClient, fresh: RunningSandbox
) -> None:
    job = make_client().search_leads(title_keywords=["CTO"], limit=7)
    rows = job.results()
    offline = make_client(offline=True)
    assert offline.search_leads(title_keywords="CTO", limit=7).results() == rows
    assert offline.attach_search("leads", job.request_id).results() == rows
    with pytest.raises(OfflineMiss):
        offline.search_leads(title_keywords="CEO", limit=7)


def test_refresh_bypasses_the_cache_and_pays(
    make_client: MakeClient, fresh: RunningSandbox
) -> None:
    client = make_client()
    client.get_company_details(domain="fresh.io")
    client.with_options(refresh=True).get_company_details(domain="fresh.io")
    client.get_company_details(domain="fresh.io")
    assert fresh.calls(endpoint="get-company-details") == 2


def test_the_key_never_reaches_the_cache_or_ledger_files(
    make_client: MakeClient, fresh: RunningSandbox, tmp_path: Path
) -> None:
    client = make_client()
    client.get_company_details(domain="secret.io")
    client.search_posts(keyword="secrets")
    client.search_leads(keywords="secret", limit=3).results()
    client.close()
    files = [path for path in (tmp_path / "cache").rglob("*") if path.is_file()]
    assert any(path.name.endswith("answers.sqlite") for path in files)
    assert any("ledger" in path.name for path in files)
    for path in files:
        assert KEY.encode() not in path.read_bytes(), path
    assert KEY not in repr(client)


def test_a_team_shares_one_redis_cache_and_the_key_is_not_in_it(
    make_client: MakeClient, fresh: RunningSandbox, redis_url: str
) -> None:
    import redis

    first = make_client(cache=redis_url)
    first.get_company_details(domain="shared.io")
    first.search_posts(keyword="team")
    second = make_client(cache=redis_url)
    second.get_company_details(domain="shared.io")
    second.search_posts(keyword="team")
    assert fresh.calls(endpoint="get-company-details") == 1
    assert fresh.calls(endpoint="search-posts") == 1
    connection = redis.Redis.from_url(redis_url)
    keys = connection.keys("*")
    assert keys
    for key in keys:
        assert KEY.encode() not in key
        kind = connection.type(key)
        if kind == b"hash":
            for field, value in connection.hgetall(key).items():
                assert KEY.encode() not in field + value
        elif kind == b"string":
            assert KEY.encode() not in (connection.get(key) or b"")
            if key.startswith(b"profnet:json1:"):  # an answer (other tests' keys share it)
                assert connection.ttl(key) > 0, key  # Redis drops answers itself
    answers = [key for key in keys if key.startswith(b"profnet:json1:")]
    assert len(answers) == 2, "the company's answer and the posts' were looked at"


def test_calls_that_mean_the_same_share_one_payment(
    make_client: MakeClient, fresh: RunningSandbox
) -> None:
    client = make_client()
    pairs = [
        ("search-leads", {"title_keywords": ["CTO"]}, {"title_keywords": "CTO", "limit": 100}),
        (
            "search-leads",
            {"title_keywords": ["CEO", "CTO"]},
            {"title_keywords": ["CTO", "CEO", "CTO"]},
        ),
        ("search-leads", {"keywords": "data  engineer"}, {"keywords": " data engineer"}),
        ("search-posts", {"keyword": "ai"}, {"keyword": "ai", "start": 0, "sort_by": "relevance"}),
        ("google-full-profiles", {"name": "Ann Lee"}, {"name": "Ann  Lee", "limit": 3}),
        (
            "get-profile-details",
            {"profnet_url": "https://www.profnet.com/in/ann/"},
            {"profnet_url": "profnet.com/in/ann", "include_skills": False},
        ),
        ("google-schools", {"school_name": "Oxford"}, {"school_name": "Oxford", "page": 1}),
        (
            "get-company-details",
            {"company_id": 1035},
            {"company_id": "1035.0", "domain": "other.io"},
        ),
    ]
    for name, first, second in pairs:
        client.call(name, first)
        make_client().call(name, second)
    spent = fresh.usage()["calls"]
    assert {endpoint: entry["calls"] for endpoint, entry in spent.items()} == {
        "search-leads": 3,
        "search-posts": 1,
        "google-full-profiles": 1,
        "get-profile-details": 1,
        "google-schools": 1,
        "get-company-details": 1,
    }


def test_stale_answers_serve_when_asked_and_only_new_calls_are_paid(
    make_client: MakeClient, fresh: RunningSandbox, wall_clock: time_machine.Coordinates
) -> None:
    short = {"get-company-details": 0.5}
    make_client(expiry=short).get_company_details(domain="stale.io")
    wall_clock.shift(0.7)  # its freshness ran out
    patient = make_client(expiry=short, stale_ok=True)  # memory cold: the store answers
    assert patient.get_company_details(domain="stale.io")["company_name"]
    assert fresh.calls(endpoint="get-company-details") == 1, "a stale answer, free"
    patient.get_company_details(domain="new-one.io")
    assert fresh.calls(endpoint="get-company-details") == 2, "what was never fetched is paid"
    make_client(expiry=short).get_company_details(domain="stale.io")
    assert fresh.calls(endpoint="get-company-details") == 3, "without stale_ok: fetched anew"


def test_cache_info_says_where_answers_are_kept(
    make_client: MakeClient, fresh: RunningSandbox, redis_url: str, tmp_path: Path
) -> None:
    on_disk = make_client()
    on_disk.get_company_details(domain="info.io")
    info = on_disk.cache_info()
    assert info["cache"].startswith(str(tmp_path / "cache"))
    assert info["answers"] == 1
    in_memory = make_client(cache="memory")
    in_memory.get_company_details(domain="info.io")
    assert in_memory.cache_info()["cache"] == "memory (this process only)"
    assert in_memory.cache_info()["answers"] == 1
    shared = make_client(cache=redis_url)
    shared.clear_cache()
    shared.get_company_details(domain="info.io")
    assert shared.cache_info()["cache"] == redis_url
    assert shared.cache_info()["answers"] == 1


@pytest.mark.parametrize("source", ["service", "store"])
def test_changing_an_answer_never_changes_the_next_one(
    make_client: MakeClient, source: str
) -> None:
    """A caller's answer is its own, down to its lists: the memo keeps another."""
    if source == "store":
        make_client().get_company_details(domain="stripe.com")
    client = make_client()
    first = client.get_company_details(domain="stripe.com")
    expected = [*first["specialties"]]
    first["specialties"].append("changed by the caller")
    first["company_name"] = "changed"
    again = client.get_company_details(domain="stripe.com")
    assert again["specialties"] == expected
    assert again["company_name"] == "Stripe"
