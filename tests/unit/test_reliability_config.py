"""The config file (issue 7, secrets and bad input): private before the key is in it, and
whatever text a setting holds, what is saved reads back (a saved value never breaks later runs:
it is used, or refused in one line).
New files being 0600 is tests/unit/test_config.py and tests/integration/test_cli.py."""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from profnet_sheets import ConfigurationError, Settings, save_config
from profnet_sheets import config as config_module


def test_an_existing_readable_file_is_made_private_before_the_key_is_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "config.toml"
    path.write_text("[profnet]\nbudget = 5\n")
    path.chmod(0o644)
    modes: list[int] = []
    real_fdopen = os.fdopen

    def watching_fdopen(fd: int, *args: Any, **kwargs: Any) -> Any:
        modes.append(stat.S_IMODE(os.fstat(fd).st_mode))  # as the key is about to be written
        return real_fdopen(fd, *args, **kwargs)

    monkeypatch.setattr(config_module.os, "fdopen", watching_fdopen)
    save_config({"api_key": "k-123"}, path)
    assert modes == [0o600]
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_a_new_file_is_private_whatever_the_umask(tmp_path: Path) -> None:
    previous = os.umask(0)
    try:
        path = save_config({"api_key": "k-123"}, tmp_path / "config.toml")
    finally:
        os.umask(previous)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


@settings(max_examples=200, deadline=None)
@given(value=st.text(max_size=40))
def test_any_text_saved_reads_back_the_same(
    tmp_path_factory: pytest.TempPathFactory, value: str
) -> None:
    """JSON's escapes were written as TOML: an emoji became a surrogate pair TOML refuses, and
    every later command failed on the config file."""
    path = tmp_path_factory.mktemp("config") / "config.toml"
    save_config({"cache": value, "expiry": {"search-posts": 60}}, path)
    assert config_module._read_config(path)["cache"] == value
    try:
        loaded: Settings | str = Settings.load(config_path=path, environ={})
    except ConfigurationError as error:  # a cache no file system takes (a NUL, ftp://...)
        loaded = str(error)
    if isinstance(loaded, str):
        assert loaded.startswith("Setting cache = ")
        return
    expected = value.strip()
    if expected.lower() in ("memory", "off"):
        expected = expected.lower()
    assert loaded.cache == (expected or None)  # blank reads as unset
    assert loaded.expiry["search-posts"] == 60
