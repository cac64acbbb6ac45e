"""Every endpoint through the Client, against the sandbox over HTTP."""

from __future__ import annotations

import inspect

import pytest

from profnet_sheets import Client, InvalidParameter, NotFound
from profnet_sheets.sandbox import RunningSandbox
from profnet_sheets.spec import ENDPOINTS
from tests.integration.client.conftest import MakeClient

pytestmark = pytest.mark.integration


@pytest.mark.parametrize("ep", ENDPOINTS, ids=lambda e: e.name)
def test_one_method_per_endpoint_with_the_spec_parameters(ep: object) -> None:
    from profnet_sheets.spec import Endpoint

    assert isinstance(ep, Endpoint)
    method = getattr(Client, ep.python_name)
    assert method.__doc__
    if ep.search_role == "create":
        return  # filters as keyword arguments: checked by the search tests
    signature = inspect.signature(method)
    named = [p.name for p in signature.parameters.values() if p.name != "self"]
    assert named == list(ep.param_names)
    assert all(p.kind is p.KEYWORD_ONLY for p in signature.parameters.values() if p.name != "self")


def test_every_endpoint_answers(make_client: MakeClient, fresh: RunningSandbox) -> None:
    client = make_client()
    company = client.get_company_details(domain="https://www.Acme-Robotics.com/about")
    assert company["company_name"] == "Acme-robotics" or company["company_name"]
    assert client.get_company_details(company_id=1035.0)["profnet_url"].endswith("/1035/")
    url = company["profnet_url"]
    assert client.get_company_details(profnet_url=url.upper().replace("HTTPS://WWW.", "http://"))
    posts = client.search_posts(keyword="python", sort_by="DATE", date_posted="past-month")
    urn = posts["posts"][0]["urn"]
    assert client.get_post_details(urn=urn)["urn"] == urn.rsplit(":", 1)[1]
    places = client.find_geocode_by_location(location="Berlin")
    assert places[0]["name"].startswith("Berlin")
    jobs = client.search_jobs(keyword="engineer", geo_id=places[0]["geo_id"])
    if jobs["jobs"]:
        job = jobs["jobs"][0]
        assert client.get_job_details(job_id=job["job_id"])["title"] == job["title"]
    company_posts = client.get_company_posts(profnet_url=url, type="posts")
    assert "paging" in company_posts
    profiles = client.google_full_profiles(name="Anna Schmidt", limit=2.0)
    assert 1 <= len(profiles) <= 2
    profile_url = profiles[0]["profnet_url"]
    profile = client.get_profile_details(profnet_url=profile_url, include_skills=True)
    assert profile["full_name"] == profiles[0]["full_name"]
    assert "skills" in profile
    assert "certifications" in profile, "asked too, at the same price (decision 596)"
    assert "posts" in client.get_profile_posts(profnet_url=profile_url, type="comments")
    assert "recommendations" in client.get_recommendations_received(profnet_url=profile_url)
    assert "recommendations" in client.get_recommendations_given(profnet_url=profile_url)
    assert "results" in client.google_schools(school_name="University", page=1)
    headcount = client.find_custom_headcount(
        profnet_url=url, where_they_live=places[0]["geo_id"], include_subsidiaries="yes"
    )
    assert headcount["filters"]["where_they_live"] == [places[0]["geo_id"]]
    assert headcount["filters"]["include_subsidiaries"] == "true"
    leads = client.search_leads(title_keywords="CTO", geo_codes=places[0]["geo_id"], limit=5)
    status = client.get_lead_search_status(request_id=leads.request_id)
    assert status["status"] == "completed"
    assert client.get_lead_results(request_id=leads.request_id)["total_results"] <= 5
    companies = client.search_companies(company_headcounts="B-C", limit=5)
    assert client.get_company_search_status(request_id=companies.request_id)["progress"] == 100
    assert len(client.get_company_results(request_id=companies.request_id)["results"]) <= 5
    spent = fresh.usage()
    assert spent["credits_charged"] == client.ledger.total()


def test_bad_input_is_refused_before_anything_is_sent(
    make_client: MakeClient, fresh: RunningSandbox
) -> None:
    client = make_client()
    cases = [
        (client.get_company_details, "company_id, profnet_url, or domain"),
        (lambda: client.get_company_details(domain="localhost"), "domain"),
        (lambda: client.get_profile_details(profnet_url="https://x.com/in/a"), "profnet_url"),
        (lambda: client.search_leads(limit=10), "payload"),
        (lambda: client.search_leads(keywords="a", sales_nav_url="https://s/"), "sales_nav_url"),
        (lambda: client.search_companies(company_headcounts="Z"), "company_headcounts"),
        (lambda: client.search_leads(keywords="a", limit=2501), "limit"),
        (lambda: client.google_full_profiles(name="a", limit=6), "limit"),
        (lambda: client.search_posts(keyword="a", sort_by="newest"), "sort_by"),
        (
            lambda: client.search_jobs(start=3),
            "keyword, geo_id, date_posted, experience_level, "
            "job_type, remote, company_id, industry_id",
        ),
        (lambda: client.call("get-company-details", {"domian": "a.com"}), "domian"),
    ]
    for attempt, parameter in cases:
        with pytest.raises(InvalidParameter) as caught:
            attempt()
        assert caught.value.parameter == parameter, caught.value
        assert str(caught.value)
    assert fresh.usage()["calls"] == {}


def test_not_found_is_an_error_with_endpoint_and_status(make_client: MakeClient) -> None:
    client = make_client()
    with pytest.raises(NotFound) as caught:
        client.get_job_details(job_id="123")
    assert caught.value.endpoint == "get-job-details"
    assert caught.value.status == 404
    assert caught.value.code == "not_found"


def test_a_profile_asked_with_or_without_skills_and_certifications_is_paid_once(
    make_client: MakeClient, fresh: RunningSandbox
) -> None:
    """Helper 95: the same profile was paid once per combination of the two flags (4 credits
    for one profile). Both only add fields at the same price: the call is sent with both,
    and its answer serves every later ask."""
    client, sandbox = make_client(), fresh
    url = "https://www.profnet.com/in/flags-once/"
    before = sandbox.charged()
    for flags in ({}, {"include_skills": True}, {"include_certifications": "yes"},
                  {"include_skills": False, "include_certifications": True}):  # fmt: skip
        answer = client.get_profile_details(profnet_url=url, **flags)
        assert {"skills", "certifications"} <= set(answer)
    assert sandbox.charged() - before == 1
    assert client.is_cached("get-profile-details", {"profnet_url": url, "include_skills": True})
    estimate = client.estimate(
        [("get-profile-details", {"profnet_url": url}),
         ("get-profile-details", {"profnet_url": url, "include_skills": "true"})]
    )  # fmt: skip
    assert (estimate.unique, estimate.cached) == (1, 1)
