"""The yes-or-no question: understood answers, a re-ask, the end of input."""

from __future__ import annotations

import io
import os

import pytest

from profnet_sheets.asking import confirmed
from profnet_sheets.stops import Stops


def typed(monkeypatch: pytest.MonkeyPatch, text: str) -> None:
    """`text` as what the user types (a pipe: select() can wait on it, as on a terminal)."""
    reading, writing = os.pipe()
    os.write(writing, text.encode())
    os.close(writing)
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.FileIO(reading, "r")))


@pytest.mark.parametrize(
    ("text", "answer"),
    [("y\n", True), ("YES\n", True), ("n\n", False), ("\n", False), ("", False)],
)
def test_an_answer_is_understood_and_no_is_the_default(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], text: str, answer: bool
) -> None:
    typed(monkeypatch, text)
    assert confirmed("Spend up to 3 credits?", Stops(lambda said: None)) is answer
    assert "Spend up to 3 credits? [y/N]: " in capsys.readouterr().err


def test_an_answer_not_understood_is_asked_again(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    typed(monkeypatch, "maybe\ny\n")
    assert confirmed("Go?", Stops(lambda said: None))
    err = capsys.readouterr().err
    assert err.count("Go? [y/N]: ") == 2
    assert "Error: invalid input" in err
