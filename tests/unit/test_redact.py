"""The one way a message shows a value (profnet_sheets.redact): credentials masked, ~200
characters at most (issue 14, items 9 and 10)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from profnet_sheets import config
from profnet_sheets.redact import LIMIT, clipped, listed, masked, masked_url, shown


@pytest.mark.parametrize(
    ("given_text", "expected"),
    [
        ("redis://:hunter2@redis.corp:6379/8", "redis://:***@redis.corp:6379/8"),
        ("rediss://bob:hunter2@redis.corp/0", "rediss://bob:***@redis.corp/0"),
        ("https://user:pw@api.example.com/v1", "https://user:***@api.example.com/v1"),
        ("https://ghp_token@api.example.com", "https://***@api.example.com"),
        ("redis://:p/a#s?s@host/0", "redis://:***@host/0"),  # unescaped / # ? in it
        ("redis://:p@ss@host/0", "redis://:***@host/0"),  # an unescaped @ in it
        ("https://h.com/v1?api_key=abc&x=1", "https://h.com/v1?api_key=***&x=1"),
        ("https://h.com/?key=abc", "https://h.com/?key=***"),
        ("https://h.com/?x=1&token=a@b#f", "https://h.com/?x=1&token=***#f"),
        ("https://h.com/?Password=abc;sig=def", "https://h.com/?Password=***;sig=***"),
        ("https://h.com/?access_token=abc", "https://h.com/?access_token=***"),
        ("https://h.com/#id_token=abc", "https://h.com/#id_token=***"),
        ("https://h.com/v1?page=2", "https://h.com/v1?page=2"),
        ("memory", "memory"),
        ("C:\\Users\\me@corp\\cache", "C:\\Users\\me@corp\\cache"),
        (
            "Cannot reach redis://:pw@h:1/0 or https://u:pw@x.org, try again",
            "Cannot reach redis://:***@h:1/0 or https://u:***@x.org, try again",
        ),
    ],
)
def test_credentials_are_masked_wherever_a_url_is(given_text: str, expected: str) -> None:
    assert masked(given_text) == expected
    assert masked(expected) == expected  # masking twice changes nothing


SECRET = st.text(
    alphabet=st.characters(blacklist_categories=["Cs", "Cc", "Zs", "Zl", "Zp"]),
    min_size=6,
    max_size=30,
).filter(lambda text: not any(blank in text for blank in "\x85\u200b\ufeff"))


@given(password=SECRET, user=st.sampled_from(["", "bob"]))
def test_no_password_survives_masking(password: str, user: str) -> None:
    for scheme, place in (("redis", "host:6379/0"), ("https", "h.com/v1")):
        expected = f"{scheme}://{user}:***@{place}"
        assume(password not in expected)
        url = f"{scheme}://{user}:{password}@{place}"
        assert masked(url) == expected
        assert password not in shown(url)
        assert password not in clipped(f"could not reach {url}.")


@given(token=SECRET.filter(lambda text: not set(text) & set("&;#")))
def test_no_query_token_survives_masking(token: str) -> None:
    expected = "https://h.com/v1?x=1&api_key=***&y=2"
    assume(token not in expected)
    assert masked(f"https://h.com/v1?x=1&api_key={token}&y=2") == expected


def test_settings_and_config_use_the_same_masking() -> None:
    assert config.masked_url is masked_url
    assert masked_url(Path("/a@b")) == Path("/a@b")
    assert masked_url(None) is None
    settings = config.Settings(cache="redis://:hunter2@h/0", base_url="https://u:pw@h.com")
    assert "hunter2" not in repr(settings)
    assert ":pw@" not in repr(settings)


def test_a_long_value_is_cut_after_it_is_masked() -> None:
    assert len(shown("x" * 100_000)) == LIMIT
    assert shown("x" * 100_000).endswith("...")
    long_password = "redis://:" + "p" * 500 + "@host/0"
    assert "p" * 10 not in shown(long_password)  # masked first, so no cut can split it
    assert shown("redis://:pw@h/0") == "'redis://:***@h/0'"
    assert shown(10**5000) == "a int too long to show"
    assert shown("short") == "'short'"


def test_a_list_shows_whole_items_that_fit_and_how_many_in_all() -> None:
    assert listed(["a", "b"]) == "'a', 'b'"
    names = [f"column{number}" for number in range(1000)]
    text = listed(names)
    assert len(text) < LIMIT + 30
    assert text.endswith("... (1,000 in all)")
    assert listed(["x" * 10_000]) == shown("x" * 10_000)


def test_a_secret_given_is_masked_whole_wherever_it_is() -> None:
    said = "the key sk-123 is not valid at https://u:pw@h/?key=sk-123"
    assert masked(said, ("sk-123",)) == "the key *** is not valid at https://u:***@h/?key=***"
    assert clipped("x" * 300 + "sk-123", secrets=("sk-123",)).endswith("...")
    assert masked("nothing", ("",)) == "nothing"


def test_words_that_hold_key_or_auth_are_not_credentials() -> None:
    """Helper 94: a search URL's `keywords=` was masked in the message quoting it."""
    from profnet_sheets.redact import masked

    url = "https://x.com/search?keywords=cto&author=jane&api_key=s3cr3t&auth=t0k"
    assert masked(url) == "https://x.com/search?keywords=cto&author=jane&api_key=***&auth=***"
