"""The retry policy and the meaning of answers: pure decisions."""

from __future__ import annotations

import random

from profnet_sheets import (
    InsufficientCredits,
    InvalidParameter,
    NotFound,
    RateLimited,
    SearchNotReady,
    ServiceError,
    Unauthorized,
)
from profnet_sheets.client.policy import RetryPolicy, error_for, parse_retry_after
from profnet_sheets.spec import endpoint

POLICY = RetryPolicy(retries=3, backoff=1.0, max_backoff=8.0, retry_after_cap=20.0)
RNG = random.Random(0)


def test_retryable_statuses_back_off_with_jitter_up_to_a_cap() -> None:
    for status in (429, 500, 502, 503, 504):
        wait = POLICY.after_status(0, status, {}, {}, RNG)
        assert wait is not None
        assert 0.5 <= wait <= 1.0
    assert POLICY.after_status(3, 500, {}, {}, RNG) is None, "retries are spent"
    assert 2.0 <= (POLICY.after_status(2, 503, {}, {}, RNG) or 0) <= 4.0
    assert (POLICY.wait_before(10, RNG)) <= 8.0


def test_retry_after_is_honoured_and_capped() -> None:
    assert POLICY.after_status(0, 429, {"Retry-After": "3"}, {}, RNG) == 3.0
    assert POLICY.after_status(0, 429, {"Retry-After": "3600"}, {}, RNG) == 20.0
    assert parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT") == 0.0
    assert parse_retry_after("soon") is None


def test_errors_that_retrying_cannot_fix_are_not_retried() -> None:
    for status in (400, 401, 402, 404, 409):
        assert POLICY.after_status(0, status, {}, {}, RNG) is None
    quota = {"message": "Too many requests", "details": "You have exceeded your monthly quota"}
    assert POLICY.after_status(0, 429, {"Retry-After": "1"}, quota, RNG) is None


def test_a_failure_is_retried_while_retries_last() -> None:
    # Whether one that may have been charged may be repeated is the spend policy's to say
    # (tests/unit/test_spend_policy.py).
    assert POLICY.after_failure(0, "connect", RNG) is not None
    assert POLICY.after_failure(0, "read", RNG) is not None
    assert POLICY.after_failure(3, "connect", RNG) is None
    assert POLICY.after_failure(0, "deadline", RNG) is None


def test_rate_limit_words_are_not_mistaken_for_an_empty_balance() -> None:
    for text in ("You have exceeded your rate limit", "no credits were charged", "slow down"):
        assert POLICY.after_status(0, 429, {}, {"details": text}, RNG) is not None


def test_answers_map_to_the_exception_tree() -> None:
    ep = endpoint("get-company-details")

    def error(status: int, body: object) -> object:
        return error_for(ep, status, body)

    bad = error_for(
        ep, 400, {"message": "invalid_parameter", "parameter": "domain", "details": "x"}
    )
    assert isinstance(bad, InvalidParameter)
    assert bad.parameter == "domain"
    assert (bad.endpoint, bad.status, bad.code) == ("get-company-details", 400, "invalid_parameter")
    assert isinstance(error(401, {"message": "unauthorized"}), Unauthorized)
    assert isinstance(error(402, {"message": "insufficient_credits"}), InsufficientCredits)
    quota = {"message": "rate_limited", "details": "quota exceeded for this plan"}
    assert isinstance(error(429, quota), InsufficientCredits)
    assert isinstance(error(429, {"message": "rate_limited"}), RateLimited)
    assert isinstance(error(404, {"message": "not_found"}), NotFound)
    assert isinstance(error(409, {"message": "search_not_completed"}), SearchNotReady)
    assert isinstance(error(503, "gateway trouble"), ServiceError)
    assert "Try again later" in str(error(500, {"message": "error", "error": "boom"}))


def test_only_a_job_state_marks_a_results_page_unfinished() -> None:
    from profnet_sheets.client.policy import unfinished

    results = endpoint("get-lead-results")
    page = {"request_id": "r", "page": 1, "total_pages": 1, "total_results": 1, "results": [{}]}
    assert not unfinished(results, page)
    assert not unfinished(results, {**page, "status": "success"})  # a marketplace's envelope
    assert not unfinished(results, {**page, "status": "completed"})
    assert unfinished(results, {**page, "status": "processing", "results": []})
    assert unfinished(results, {**page, "status": "failed"})
    assert not unfinished(endpoint("get-company-details"), {"status": "processing"})


def test_a_quota_of_calls_per_time_is_a_rate_limit_and_a_spent_one_is_not() -> None:
    from profnet_sheets.client.policy import says_out_of_credits

    ep = endpoint("get-company-details")

    def error(status: int, body: object) -> object:
        return error_for(ep, status, body)

    rate_limits = (
        "per-second request quota exceeded",
        "rate quota exceeded, retry in 1s",
        "request quota exceeded: 10 requests per minute",
        "You have exceeded the rate limit per second for your plan, BASIC",
        {"message": "Too many requests"},
    )
    spent = (
        "monthly quota exhausted",
        "insufficient credits",
        {"message": "Too many requests", "details": "You have exceeded your monthly quota"},
        {"message": "rate_limited", "details": "quota exceeded for this plan"},
        {"message": "insufficient_credits"},
    )
    for body in rate_limits:
        assert not says_out_of_credits(429, body), body
        assert isinstance(error(429, body), RateLimited), body
        assert POLICY.after_status(0, 429, {"Retry-After": "1"}, body, RNG) == 1.0, body
    for body in spent:
        assert says_out_of_credits(429, body), body
        assert isinstance(error(429, body), InsufficientCredits), body
        assert POLICY.after_status(0, 429, {"Retry-After": "1"}, body, RNG) is None, body
    assert says_out_of_credits(402, {}), "a 402 whatever it says"


def test_a_refused_connection_is_tried_again_once_only() -> None:
    assert POLICY.after_failure(0, "refused", RNG) is not None
    assert POLICY.after_failure(1, "refused", RNG) is None
    assert POLICY.after_failure(1, "connect", RNG) is not None
