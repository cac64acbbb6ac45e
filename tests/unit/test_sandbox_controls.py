"""The sandbox's settings (control endpoints and start options) go through one check."""

from __future__ import annotations

import math
from dataclasses import fields
from typing import Any

import pytest

from profnet_sheets.sandbox.backend import Faults
from profnet_sheets.sandbox.controls import SETTINGS, SettingError, check, check_all
from profnet_sheets.sandbox.server import SandboxConfig


def test_every_fault_and_start_option_of_a_control_has_its_range() -> None:
    faults = {setting.name for setting in fields(Faults)}
    others = {"key", "credits", "advance", "rate", "hostile_rate"}
    played = {"network_host", "key_header", "required_headers", "prices"}  # another service
    web = {"cors_origins"}  # who may call it from a browser
    assert faults | others | played | web == set(SETTINGS)
    options = {setting.name for setting in fields(SandboxConfig)}
    assert played | web <= options


@pytest.mark.parametrize(
    ("name", "value", "kept"),
    [
        ("latency_ms", 0, 0.0),
        ("latency_ms", 60_000, 60_000.0),
        ("fail_rate", 1, 1.0),
        ("rate_limit", None, None),
        ("rate_limit", 2.5, 2.5),
        ("retry_after", 2.0, 2),
        ("credits", 5.0, 5),
        ("credits", 10**12, 10**12),
        ("advance", 601, 601.0),
        ("key", "k-1", "k-1"),
        ("network_host", "https://www.Other-Net.example/", "other-net.example"),
        ("key_header", "X-Other-Key", "X-Other-Key"),
        (
            "required_headers",
            {"X-Gateway-Host": "data.example"},
            {"X-Gateway-Host": "data.example"},
        ),
        ("cors_origins", ["https://addin.xlwings.org/", "*"], ("https://addin.xlwings.org", "*")),
    ],
)
def test_values_in_range_are_kept_as_the_sandbox_uses_them(
    name: str, value: object, kept: object
) -> None:
    got = check(name, value)
    assert got == kept
    assert type(got) is type(kept)


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("latency_ms", math.inf),
        ("latency_ms", 1e12),
        ("latency_ms", -0.5),
        ("latency_ms", None),
        ("fail_rate", math.nan),
        ("fail_rate", True),
        ("fail_rate", "0.5"),
        ("rate_limit", 0),
        ("rate_limit", 0.5),
        ("retry_after", 1.5),
        ("credits", -5),
        ("credits", True),
        ("credits", 10**29),
        ("credits", 10**400),
        ("advance", math.nan),
        ("advance", -1),
        ("rate", 2),
        ("key", ""),
        ("key", " k"),
        ("key", "k\n"),
        ("key", "clé"),
        ("key", 5),
        ("network_host", "localhost"),
        ("network_host", "10.0.0.1"),
        ("network_host", None),
        ("key_header", "X Key"),
        ("key_header", "Content-Type"),
        ("required_headers", {"X-Gateway-Host": "two\nlines"}),
        ("required_headers", ["X-Gateway-Host"]),
        ("prices", {"get-lead-search-status": 1}),
        ("prices", {"no-such-endpoint": 1}),
        ("prices", {"get-profile-details": -1}),
        ("prices", {"get-profile-details": 1.5}),
        ("prices", {"get-profile-details": True}),
    ],
)
def test_values_that_cannot_be_meant_are_refused_naming_the_field_and_its_range(
    name: str, value: object
) -> None:
    with pytest.raises(SettingError) as caught:
        check(name, value)
    assert caught.value.name == name
    assert str(caught.value).startswith(f"{name} must be {SETTINGS[name].describe()}; got ")


def test_unknown_fields_are_refused() -> None:
    assert check_all({"advance": 5}, ("advance",)) == {"advance": 5.0}
    with pytest.raises(SettingError, match="Unknown setting 'advence'"):
        check_all({"advence": 5}, ("advance",))


def test_a_refused_change_of_faults_changes_nothing() -> None:
    faults = Faults()
    with pytest.raises(SettingError):
        faults.update({"fail_rate": 0.5, "latency_ms": math.inf})
    assert faults == Faults()
    faults.update({"fail_rate": 0.5, "retry_after": 3.0})
    assert (faults.fail_rate, faults.retry_after) == (0.5, 3)


@pytest.mark.parametrize(
    "options",
    [
        {"latency_ms": math.inf},
        {"fail_rate": 2},
        {"hostile_rate": -0.1},
        {"credits": -1},
        {"rate_limit": 0.5},
        {"api_keys": ("ok", "")},
        {"network_host": "not a host"},
        {"key_header": "Host"},
        {"prices": {"search-leads": "fifty"}},
    ],
)
def test_a_sandbox_is_not_configured_with_values_that_cannot_be_meant(
    options: dict[str, Any],
) -> None:
    with pytest.raises(SettingError):
        SandboxConfig(**options)


def test_the_service_a_sandbox_plays_is_one_profile() -> None:
    config = SandboxConfig(
        network_host="other-net.example",
        key_header="X-Other-Key",
        required_headers={"X-Gateway-Host": "data.example"},
        prices={"get-profile-details": 2.0},
    )
    profile = config.profile()
    assert profile.network_hosts == ("other-net.example",)
    assert profile.key_header == "X-Other-Key"
    assert profile.headers == (("X-Gateway-Host", "data.example"),)
    assert profile.prices.changed() == {"get-profile-details": 2}
    assert SandboxConfig().profile().is_default
