"""The curated public API, and the direction of imports between the layers."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import profnet_sheets

PACKAGE = Path(profnet_sheets.__file__).parent


def test_all_is_sorted_and_complete() -> None:
    assert profnet_sheets.__all__ == sorted(profnet_sheets.__all__)
    for name in profnet_sheets.__all__:
        assert getattr(profnet_sheets, name)


def test_importing_the_package_stays_light() -> None:
    code = (
        "import sys, profnet_sheets; "
        "print(sorted(m for m in ('uvicorn', 'polars', 'xlwings', 'ipywidgets', 'tqdm', "
        "'requests_cache', 'requests') "
        "if m in sys.modules))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "[]"


def imports_of(folder: str) -> set[str]:
    found: set[str] = set()
    for path in (PACKAGE / folder).rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module:
                found.add(node.module)
            elif isinstance(node, ast.Import):
                found.update(alias.name for alias in node.names)
    return {name for name in found if name.startswith("profnet_sheets")}


def test_spec_imports_nothing_of_ours_but_itself() -> None:
    assert all(name.startswith("profnet_sheets.spec") for name in imports_of("spec"))


def test_the_sandbox_meets_the_client_only_on_the_wire() -> None:
    for name in imports_of("sandbox"):
        assert name.startswith(("profnet_sheets.spec", "profnet_sheets.sandbox")), name


def test_the_client_imports_no_front_end() -> None:
    allowed = (
        "profnet_sheets.spec",
        "profnet_sheets.client",
        "profnet_sheets.config",
        "profnet_sheets.errors",
        "profnet_sheets.sandbox.server",  # the embedded default, behind one function
        "profnet_sheets",
    )
    for name in imports_of("client"):
        assert name.startswith(allowed), name
        assert not name.startswith(("profnet_sheets.batch", "profnet_sheets.excel")), name


def test_lazy_names_resolve_and_unknown_names_fail() -> None:
    import pytest

    from profnet_sheets import batch

    assert profnet_sheets.Client.__name__ == "Client"
    assert batch.enrich.__name__ == "enrich"
    with pytest.raises(AttributeError, match="no attribute 'Nope'"):
        _ = profnet_sheets.Nope  # type: ignore[attr-defined]


def test_no_front_end_reaches_into_a_client() -> None:
    """The money path has one owner: front ends and the batch engine use the client's public
    methods, never its private state (where the spend, the budget or the caches live)."""
    for path in PACKAGE.rglob("*.py"):
        if path.parent.name in ("client", "sandbox", "spec"):
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Attribute) and node.attr in {"_shared", "_budget", "_policy"}:
                raise AssertionError(f"{path.relative_to(PACKAGE)}:{node.lineno}: .{node.attr}")


def test_prices_are_read_from_one_table() -> None:
    """One price table (spec.profile.PriceTable: the spec's prices with the profile's over
    them): outside the spec, nothing reads an endpoint's own `.price`; everything asks a
    table's `.price(endpoint)`."""
    for path in PACKAGE.rglob("*.py"):
        if path.parent.name == "spec":
            continue
        tree = ast.parse(path.read_text())
        called = {id(node.func) for node in ast.walk(tree) if isinstance(node, ast.Call)}
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and node.attr == "price" and id(node) not in called:
                raise AssertionError(f"{path.relative_to(PACKAGE)}:{node.lineno}: .price")


def test_every_error_a_user_can_meet_is_a_profnet_error_with_its_message() -> None:
    made = {
        "NormalizationError": lambda: profnet_sheets.NormalizationError("x is no id", "id", "x"),
        "NotAKeyError": lambda: profnet_sheets.NotAKeyError("gmail.com is personal", "domain", 1),
        "StoreError": lambda: profnet_sheets.StoreError("could not write to the cache at c.db"),
        "ArgumentError": lambda: profnet_sheets.ArgumentError("give a range of one row"),
    }
    for name, make in made.items():
        assert name in profnet_sheets.__all__
        error = make()
        assert isinstance(error, profnet_sheets.ProfnetError), name
        assert str(error) == error.message != "", name
    # Still what callers caught them as before: a refused value is a ValueError.
    for name in ("NormalizationError", "NotAKeyError", "ArgumentError"):
        assert isinstance(made[name](), ValueError), name
