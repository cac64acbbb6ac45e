"""The service profile (issue 16): key header, extra headers, network hosts and prices, read
from the config file, the environment and arguments, checked on load with one line each."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from profnet_sheets.config import Settings, save_config
from profnet_sheets.errors import ConfigurationError
from profnet_sheets.spec import DEFAULT_PROFILE, PriceTable, ServiceProfile, endpoint
from profnet_sheets.spec.endpoints import PROFILE_URL_PATTERN, page_pattern

TOML = """
[profnet]
base_url = "https://api.provider.example/v1"
key_header = "X-Provider-Key"
network_hosts = ["https://www.LinkedIn.com/", "linkedin.cn"]

[profnet.headers]
X-Provider-Host = "people-data.provider.example"

[profnet.prices]
get-profile-details = 2
get-lead-results = 2.0
"""


def test_a_profile_in_the_config_file(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text(TOML)
    settings = Settings.load(config_path=path, environ={})
    assert settings.profile == ServiceProfile(
        key_header="X-Provider-Key",
        headers=(("X-Provider-Host", "people-data.provider.example"),),
        network_hosts=("linkedin.com", "linkedin.cn"),
        prices=PriceTable((("get-lead-results", 2), ("get-profile-details", 2))),
    )
    save_config({"budget": 5}, path)  # rewriting the file keeps the profile as it was
    assert Settings.load(config_path=path, environ={}).profile == settings.profile


def test_the_environment_and_arguments_come_first(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text(TOML)
    environ = {
        "PROFNET_KEY_HEADER": "X-Env-Key",
        "PROFNET_HEADERS": '{"X-Gateway": "g1"}',
        "PROFNET_NETWORK_HOSTS": "people-net.example people-net.cn",
        "PROFNET_PRICES": '{"search-leads": 60}',
    }
    settings = Settings.load(config_path=path, environ=environ, key_header="X-Arg-Key")
    assert settings.key_header == "X-Arg-Key"
    assert settings.headers == {"X-Gateway": "g1"}
    assert settings.network_hosts == ("people-net.example", "people-net.cn")
    assert settings.prices.changed() == {"search-leads": 60}


def test_the_defaults_are_the_specs_names() -> None:
    settings = Settings.load(environ={})
    assert settings.profile == DEFAULT_PROFILE
    assert settings.key_header == "X-SERVICE-API-KEY"
    assert settings.network_hosts == ("profnet.com",)
    assert settings.prices.changed() == {}


@pytest.mark.parametrize(
    ("variable", "value", "says"),
    [
        ("KEY_HEADER", "X API Key", "'X API Key' is not a header name"),
        ("KEY_HEADER", "Content-Type", "Content-Type is a header profnet-sheets sets itself"),
        ("HEADERS", '{"X-Host": "a\\nb"}', "the value of the header X-Host must be text"),
        ("HEADERS", "X-Host: a", "give the headers as a table of names and values"),
        ("NETWORK_HOSTS", "localhost", "'localhost' is not a host name such as linkedin.com"),
        ("NETWORK_HOSTS", "192.168.0.1", "is not a host name"),
        ("NETWORK_HOSTS", " , ", "give at least one host name"),
        ("PRICES", '{"get-profile": 2}', "'get-profile' is no endpoint of the service"),
        ("PRICES", '{"get-company-search-status": 1}', "is free (a search's status)"),
        ("PRICES", '{"search-leads": -5}', "must be a whole number of credits from 0 to"),
        ("PRICES", '{"search-leads": 2.5}', "must be a whole number of credits from 0 to"),
    ],
)
def test_a_bad_profile_value_is_one_line_that_names_it(
    variable: str, value: str, says: str
) -> None:
    with pytest.raises(ConfigurationError) as caught:
        Settings.load(environ={f"PROFNET_{variable}": value})
    message = str(caught.value)
    assert "\n" not in message
    assert message.startswith(f"Setting {variable.lower()} = ")
    assert says in message
    assert f"PROFNET_{variable}" in message


def test_header_values_are_never_shown() -> None:
    with pytest.raises(ConfigurationError) as caught:
        Settings.load(environ={"PROFNET_HEADERS": '{"X-Secret": "s3cr3t\\u0007"}'})
    assert "s3cr3t" not in str(caught.value)
    settings = Settings.load(environ={"PROFNET_HEADERS": '{"X-Secret": "s3cr3t"}'})
    assert "s3cr3t" not in repr(settings)
    assert "X-Secret" in repr(settings)


def test_the_key_header_is_not_an_extra_header_too() -> None:
    with pytest.raises(ConfigurationError, match="the key header X-Key is among the extra"):
        Settings.load(environ={"PROFNET_KEY_HEADER": "X-Key", "PROFNET_HEADERS": '{"x-key": "v"}'})


def test_a_price_table_changes_credits_never_kinds() -> None:
    table = PriceTable.parse({"get-lead-results": 2, "get-company-details": 1})
    assert table.changed() == {"get-lead-results": 2}, "the spec's own price is no change"
    results = table.price(endpoint("get-lead-results"))
    assert (results.kind, results.charge({"results": [{}, {}, {}]})) == ("per_item", 6)
    assert table.price(endpoint("get-lead-search-status")).kind == "free"
    assert table.describe(endpoint("get-lead-results")) == "2 credits per item (the spec: 1)"
    assert table.describe(endpoint("search-leads")) == "50 credits"
    assert repr(table) == "PriceTable(get-lead-results=2)"
    assert repr(PriceTable()) == "PriceTable(the spec)"


def test_page_patterns_for_other_hosts() -> None:
    assert page_pattern(PROFILE_URL_PATTERN, ("profnet.com",)) == PROFILE_URL_PATTERN
    one = page_pattern(PROFILE_URL_PATTERN, ("people-net.example",))
    assert re.match(one, "https://de.people-net.example/in/anna/")
    assert not re.match(one, "https://www.profnet.com/in/anna/")
    assert not re.match(one, "https://www.people-netXexample/in/anna/"), "dots are dots"
    two = page_pattern(PROFILE_URL_PATTERN, ("a.example", "b.example"))
    assert re.match(two, "b.example/in/x")
    assert re.match(two, "www.a.example/in/x")
