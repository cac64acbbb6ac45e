"""The driver without threads (AsyncClient, the Recorder, Lite's formulas) uses the client
through its interface for drivers (`Client.plan_call`, `replan`, `paid_flow`, `book`,
`api_key`), never another object's private members (before: `client._recall`, `_paid`,
`_book`, `_shared`)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import profnet_sheets

PACKAGE = Path(profnet_sheets.__file__).parent
DRIVER = ["client/async_client.py", "client/recorder.py", "excel/lite.py"]


def _privates_of_others(source: str) -> list[str]:
    """`thing._name` where `thing` is not `self` or `cls` (dunders aside)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Attribute):
            continue
        name = node.attr
        private = name.startswith("_") and not (name.startswith("__") and name.endswith("__"))
        own = isinstance(node.value, ast.Name) and node.value.id in ("self", "cls")
        if private and not own:
            found.append(f"line {node.lineno}: {ast.unparse(node)}")
    return found


@pytest.mark.parametrize("module", DRIVER)
def test_the_driver_uses_no_private_member_of_another_object(module: str) -> None:
    assert _privates_of_others((PACKAGE / module).read_text()) == []
