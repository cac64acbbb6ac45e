"""Settings precedence, the 0600 config file, and an API key that never shows itself."""

from __future__ import annotations

import pickle
import socket
import stat
from pathlib import Path

import pytest

from profnet_sheets import ApiKey, ConfigurationError, Settings, save_config


def test_explicit_beats_environment_beats_file(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    save_config({"api_key": "from-file", "base_url": "https://file.example", "budget": 7}, config)
    env = {"PROFNET_BASE_URL": "https://env.example/", "PROFNET_BUDGET": "9"}
    settings = Settings.load(config_path=config, environ=env, budget=3)
    assert settings.api_key == ApiKey("from-file")
    assert settings.base_url == "https://env.example"
    assert settings.budget == 3
    assert Settings.load(config_path=config, environ={}).budget == 7


def test_the_config_file_is_written_readable_by_its_owner_only(tmp_path: Path) -> None:
    path = save_config({"api_key": "k"}, tmp_path / "sub" / "config.toml")
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_no_key_and_no_base_url_means_the_sandbox(tmp_path: Path) -> None:
    settings = Settings.load(config_path=tmp_path / "none.toml", environ={})
    assert settings.uses_sandbox
    assert not Settings.load(config_path=tmp_path / "n.toml", environ={}, api_key="k").uses_sandbox


@pytest.mark.parametrize(
    "placeholder",
    [
        "...",
        "YOUR_API_KEY",
        "<your key>",
        "xxxx",
        "sk-...",
        "${PROFNET_API_KEY}",
        "REPLACE_ME",
        "KEY",
    ],
)
def test_an_examples_placeholder_is_refused_before_it_is_sent(placeholder: str) -> None:
    """A new user's review: `Client(api_key="...")`, the docs' example as written, sent the
    placeholder to the service."""
    from profnet_sheets import Client

    assert ApiKey(placeholder).placeholder == placeholder, "not secret: said"
    assert ApiKey("sk-live-9f8e").placeholder is None
    with pytest.raises(ConfigurationError, match="an example's placeholder, not a key: nothing"):
        Client(api_key=placeholder, base_url="http://127.0.0.1:9", cache="memory")


@pytest.mark.parametrize("cache", [0, 42, ["x"], 1.5])
def test_a_client_given_no_cache_place_is_refused_and_false_is_off(
    cache: object, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Helper 96: `Client(cache=False)` kept a cache on disk in a folder named `False`."""
    from profnet_sheets import Client

    monkeypatch.chdir(tmp_path)
    base = "http://127.0.0.1:9"
    assert Client(api_key="k1", base_url=base, cache=False).settings.cache == "off"
    assert Client(api_key="k1", base_url=base, cache=Path("c.sqlite")).settings.cache
    with pytest.raises(ConfigurationError, match=r"is no cache: give a folder"):
        Client(api_key="k1", base_url=base, cache=cache)  # type: ignore[arg-type]
    with pytest.raises(ConfigurationError, match="api_key must be text, not int"):
        Client(api_key=123, base_url=base, cache="memory")  # type: ignore[arg-type]
    assert not any(path.name.startswith(("False", "0", "42", "[")) for path in tmp_path.iterdir())


def test_the_key_is_never_shown() -> None:
    key = ApiKey("super-secret-value")
    settings = Settings(api_key=key)
    for text in (repr(key), str(key), repr(settings), f"{settings}"):
        assert "super-secret-value" not in text
    assert key.reveal() == "super-secret-value"
    with pytest.raises(TypeError):
        pickle.dumps(key)


def test_bad_settings_say_what_to_fix(tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError, match="PROFNET_BASE_URL"):
        Settings.load(config_path=tmp_path / "x.toml", environ={"PROFNET_BASE_URL": "ftp://x"})
    with pytest.raises(ConfigurationError, match="PROFNET_BUDGET"):
        Settings.load(config_path=tmp_path / "x.toml", environ={"PROFNET_BUDGET": "lots"})
    with pytest.raises(ConfigurationError, match="empty"):
        Settings.load(config_path=tmp_path / "x.toml", environ={}, api_key="  ")
    for name, value, problem in [
        ("CONCURRENCY", "0", "1 or more"),
        ("CONCURRENCY", "none", "whole number"),
        ("CONCURRENCY", "2.5", "whole number"),
        ("RETRIES", "-1", "0 or more"),
        ("RETRIES", "none", "whole number"),
        ("BUDGET", "10.5", "whole number"),
        ("BUDGET", "inf", "whole number"),
    ]:
        with pytest.raises(
            ConfigurationError, match=f"PROFNET_{name}.*{problem}|{problem}.*PROFNET_{name}"
        ):
            Settings.load(config_path=tmp_path / "x.toml", environ={f"PROFNET_{name}": value})
    broken = tmp_path / "broken.toml"
    broken.write_text("this is = = not toml")
    with pytest.raises(ConfigurationError, match="config file"):
        Settings.load(config_path=broken, environ={})


@pytest.mark.parametrize("name", ["DEADLINE", "TIMEOUT", "BACKOFF"])
def test_a_number_of_seconds_not_a_number_is_said_in_words(tmp_path: Path, name: str) -> None:
    """`PROFNET_DEADLINE=abc` said `could not convert string to float: 'abc'`."""
    with pytest.raises(ConfigurationError) as refused:
        Settings.load(config_path=tmp_path / "x.toml", environ={f"PROFNET_{name}": "abc"})
    said = str(refused.value)
    assert f"Setting {name.lower()} = 'abc' is not usable" in said
    assert "it must be a number of seconds from 0 to 10,000,000, such as 30 or 2.5" in said
    assert f"PROFNET_{name}" in said
    assert "float" not in said


def test_a_machines_name_is_the_host_name_unless_set(tmp_path: Path) -> None:
    """The name the team's spend (`credits` on Redis) shows for this computer."""
    config = tmp_path / "x.toml"
    assert Settings.load(config_path=config, environ={}).machine == socket.gethostname()
    named = Settings.load(config_path=config, environ={"PROFNET_MACHINE": " ci-box "})
    assert named.machine == "ci-box"
    with pytest.raises(ConfigurationError) as refused:
        Settings.load(config_path=config, environ={"PROFNET_MACHINE": "a\tb"})
    said = str(refused.value)
    assert "\n" not in said
    assert "Setting machine = " in said
    assert "1 to 64 printable characters" in said
    assert "PROFNET_MACHINE" in said


@pytest.mark.parametrize(
    ("value", "said"), [("35 in all", "35 in all"), ("35", "35 in all"), (" 5/Day ", "5/day")]
)
def test_a_spending_cap_is_taken_as_it_is_said(tmp_path: Path, value: str, said: str) -> None:
    """A review: `credits` shows `35 in all`, and `config --spending-cap "35 in all"` was
    refused; what is shown is taken back."""
    settings = Settings.load(
        config_path=tmp_path / "x.toml", environ={"PROFNET_SPENDING_CAP": value}
    )
    assert settings.spending_cap is not None
    assert settings.spending_cap.said == said


@pytest.mark.parametrize("value", ["lots", "5/week", "-5/day", "2.5", "in all", "5/day in all"])
def test_a_spending_cap_refused_says_every_form_it_takes(tmp_path: Path, value: str) -> None:
    """`PROFNET_SPENDING_CAP=lots` said `it must be a whole number`, though `500/day` is one."""
    with pytest.raises(ConfigurationError) as refused:
        Settings.load(config_path=tmp_path / "x.toml", environ={"PROFNET_SPENDING_CAP": value})
    said = str(refused.value)
    assert f"Setting spending_cap = '{value}' is not usable" in said
    assert (
        "a whole number of credits a day, a month or in all: 500/day, 5000/month or 20000" in said
    )
    assert "PROFNET_SPENDING_CAP" in said


def test_expiry_table_is_configurable(tmp_path: Path) -> None:
    env = {"PROFNET_EXPIRY": '{"search-posts": 60}'}
    settings = Settings.load(config_path=tmp_path / "x.toml", environ=env)
    assert settings.expiry["search-posts"] == 60
    assert settings.expiry["get-company-details"] == 30 * 86400


def test_a_bom_written_by_notepad_is_fine(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_bytes("\ufeff[profnet]\nbudget = 5\n".encode())
    assert Settings.load(config_path=config, environ={}).budget == 5


def test_a_redis_password_is_masked(tmp_path: Path) -> None:
    settings = Settings.load(
        config_path=tmp_path / "x.toml", environ={}, cache="redis://:hunter2@redis.corp:6379/0"
    )
    assert "hunter2" not in repr(settings)
    assert "redis://:***@redis.corp:6379/0" in repr(settings)


def test_counts_take_whole_numbers_as_excel_gives_them(tmp_path: Path) -> None:
    settings = Settings.load(
        config_path=tmp_path / "x.toml",
        environ={"PROFNET_BUDGET": "1000.0", "PROFNET_CONCURRENCY": " 4 ", "PROFNET_RETRIES": "0"},
    )
    assert (settings.budget, settings.concurrency, settings.retries) == (1000, 4, 0)
    assert (
        Settings.load(config_path=tmp_path / "x.toml", environ={"PROFNET_BUDGET": "None"}).budget
        is None
    )


def test_the_expiry_table_refuses_what_it_cannot_mean(tmp_path: Path) -> None:
    def load(table: str) -> Settings:
        return Settings.load(config_path=tmp_path / "x.toml", environ={"PROFNET_EXPIRY": table})

    assert load('{"get-company-details": 60}').expiry["get-company-details"] == 60
    assert load('{"get-lead-search-status": 0}').expiry["get-lead-search-status"] == 0
    with pytest.raises(ConfigurationError, match="get-compnay-details"):
        load('{"get-compnay-details": 60}')
    with pytest.raises(ConfigurationError, match="get-lead-search-status is never cached"):
        load('{"get-lead-search-status": 3600}')
    with pytest.raises(ConfigurationError, match="finite"):
        load('{"get-company-details": -1}')


def test_a_variable_set_to_nothing_counts_as_unset(tmp_path: Path) -> None:
    """`PROFNET_RETRIES=` in a compose file: the default, not an error (nor a None that
    breaks the first retry)."""
    blank = dict.fromkeys(("PROFNET_RETRIES", "PROFNET_CONCURRENCY", "PROFNET_BUDGET"), " ")
    settings = Settings.load(
        config_path=tmp_path / "x.toml", environ={**blank, "PROFNET_API_KEY": ""}
    )
    defaults = Settings()
    assert (settings.retries, settings.concurrency, settings.budget) == (
        defaults.retries,
        defaults.concurrency,
        None,
    )
    assert settings.api_key is None


def test_a_misspelt_setting_is_said_with_the_one_it_looks_like(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`PROFNET_SPENDINGCAP=1/day` left the cap unset without a word: each name that is no
    setting is said once, as a warning, with the setting it looks like."""
    from profnet_sheets import config

    monkeypatch.setattr(config, "_WARNED", set())
    path = tmp_path / "config.toml"
    path.write_text('spendingcap = "1/day"\nbudget = 5\n', encoding="utf-8")
    environ = {"PROFNET_SPENDINGCAP": "1/day", "PROFNET_BUDGT": "1", "PROFNET_EXCEL_BUDGET": "9"}
    with caplog.at_level("WARNING", "profnet_sheets"):
        settings = Settings.load(environ=environ, config_path=path)
        Settings.load(environ=environ, config_path=path)
    assert (settings.spending_cap, settings.budget) == (None, 5)
    said = [record.getMessage() for record in caplog.records]
    assert said == [
        "PROFNET_BUDGT is not a setting of profnet-sheets, so it is ignored: did you mean "
        "PROFNET_BUDGET?",
        "PROFNET_SPENDINGCAP is not a setting of profnet-sheets, so it is ignored: did you "
        "mean PROFNET_SPENDING_CAP?",
        f"spendingcap in {path} is not a setting, so it is ignored: did you mean spending_cap?",
    ], "once each; PROFNET_EXCEL_BUDGET is the Excel session's"


def test_a_cache_on_a_full_disk_says_the_disk_is_full(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A new user's review: a full disk was said as `disk I/O error` (SQLite's words as often
    as `database or disk is full`) with advice to choose a folder one can write to."""
    import collections
    import shutil
    import sqlite3

    from profnet_sheets.config import Settings, unusable_cache

    settings = Settings(cache_dir=tmp_path)
    error = sqlite3.OperationalError("disk I/O error")
    usage = collections.namedtuple("usage", "total used free")  # as shutil.disk_usage's
    full = usage(100 << 20, 100 << 20, 4096)
    monkeypatch.setattr(shutil, "disk_usage", lambda folder: full)
    said = str(unusable_cache(error, settings))
    assert said == (
        f"Cannot keep the cache at {tmp_path}: the disk is full (4,096 bytes free; disk I/O "
        "error). Free some space, or set PROFNET_CACHE_DIR (or PROFNET_CACHE) to a folder on "
        "another disk."
    )
    roomy = usage(100 << 20, 0, 100 << 20)
    monkeypatch.setattr(shutil, "disk_usage", lambda folder: roomy)
    assert "to a folder you can write to" in str(unusable_cache(error, settings))
