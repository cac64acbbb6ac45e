"""The sandbox's hostile text (profnet_sheets/sandbox/hostile.py): planted only in free text,
deterministically, at the rate asked, never changing an answer's shape."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from profnet_sheets.sandbox.backend import Backend
from profnet_sheets.sandbox.hostile import PAYLOADS, PREFIXES, is_text_field, plant, planted

COMPANY: dict[str, Any] = {
    "data": {
        "company_name": "Acme",
        "profnet_url": "https://www.profnet.com/company/acme/",
        "industry": "Software",
        "company_size": "51-200",
        "founded": 1999,
        "website": "https://acme.io",
        "description": "We make things.",
        "specialties": ["Rockets", "Anvils"],
    }
}
JSON = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.text(max_size=20)),
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(
            st.sampled_from(["name", "text", "urn", "job_id", "profnet_url", "posted_at", "type"]),
            inner,
            max_size=4,
        ),
    ),
    max_leaves=20,
)


def shape(value: object) -> object:
    """The value with every string replaced by `str`: its structure and types only."""
    if isinstance(value, dict):
        return {key: shape(item) for key, item in value.items()}
    if isinstance(value, list):
        return [shape(item) for item in value]
    return str if isinstance(value, str) else value


@settings(max_examples=200, deadline=None)
@given(body=JSON, rate=st.floats(min_value=0, max_value=1))
def test_planting_keeps_the_shape_and_is_deterministic(body: object, rate: float) -> None:
    once = plant(body, rate)
    assert shape(once) == shape(body)
    assert plant(body, rate) == once
    assert plant(body, 0) is body, "off: the very same answer"


def test_every_free_text_and_nothing_else_at_rate_one() -> None:
    data = plant(COMPANY, 1.0)["data"]
    for field in ("company_name", "industry", "description"):
        assert data[field].startswith(PREFIXES), field
        assert COMPANY["data"][field] in data[field], "the original text is still in it"
    assert all(item.startswith(PREFIXES) for item in data["specialties"])
    for field in ("profnet_url", "company_size", "founded", "website"):
        assert data[field] == COMPANY["data"][field], field
    assert COMPANY["data"]["company_name"] == "Acme", "the answer given is not changed"


@pytest.mark.parametrize(
    "field",
    ["urn", "job_id", "geo_id", "request_id", "profnet_url", "company_profnet_url", "apply_url",
     "profile_picture", "website", "posted_at", "start_date", "status", "type", "job_type",
     "remote_type", "experience_level", "company_size", "filters", "message", "search_type"],
)  # fmt: skip
def test_ids_urls_times_and_enumerations_are_never_planted(field: str) -> None:
    assert not is_text_field(field)


def test_the_rate_is_the_share_of_texts_planted_and_every_payload_is_used() -> None:
    texts = [f"Company {number}" for number in range(4000)]
    for rate in (0.05, 0.2, 0.5):
        share = sum(planted(text, rate) != text for text in texts) / len(texts)
        assert rate * 0.8 < share < rate * 1.2
    used = {
        payload
        for text in texts
        for payload in PAYLOADS
        if planted(text, 1.0) == payload.format(text)
    }
    assert used == set(PAYLOADS)
    assert {planted(text, 1.0)[0] for text in texts} == set(PREFIXES)


def test_the_backend_refuses_a_rate_that_is_not_a_share() -> None:
    backend = Backend()
    try:
        assert backend.hostile_rate == 0.0, "off by default"
        for bad in (-0.1, 1.5, "0.2", True, None):
            with pytest.raises(ValueError, match="from 0 to 1"):
                backend.set_hostile(bad)
        backend.set_hostile(1)
        assert backend.hostile_rate == 1.0
    finally:
        backend.close()
