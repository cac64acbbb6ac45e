"""The add-in's files, generated from the formulas' declarations (udfs.py): never a second list."""

from __future__ import annotations

import inspect
import json
import re
import sys
import xml.etree.ElementTree as ET
import zipfile
from pathlib import Path

from profnet_sheets.calc import build, catalog
from profnet_sheets.excel import formulas, udfs

OOR = "{http://openoffice.org/2001/registry}"
IDENTIFIER = re.compile(r"[a-z][A-Za-z0-9]*")  # what LibreOffice's IDL reader takes


def test_the_catalog_is_every_formula_excel_declares_with_its_help() -> None:
    declared = catalog.functions()
    names = [name for name in vars(udfs) if name.startswith("PROFNET_")]
    assert [function.name for function in declared] == names
    assert sorted(names) == sorted(formulas.FORMULAS)
    for function in declared:
        parameters = list(inspect.signature(getattr(udfs, function.name)).parameters)
        assert [argument.name for argument in function.arguments] == parameters
        for argument in function.arguments:
            assert argument.help == " ".join(
                udfs.ARGUMENT_HELP[function.name][argument.name].split()
            )
        assert function.description.startswith(
            (inspect.getdoc(getattr(udfs, function.name)) or "")[:30]
        )


def test_the_idl_declares_each_formula_over_any_arguments() -> None:
    declared = catalog.functions()
    text = build.idl(declared)
    methods = re.findall(r"sequence< sequence< any > > (PROFNET_\w+)\(([^)]*)\);", text)
    assert [name for name, _ in methods] == [function.name for function in declared]
    for (_, arguments), function in zip(methods, declared, strict=True):
        names = re.findall(r"\[in\] any (\w+)", arguments)
        assert len(names) == len(function.arguments)
        assert all(IDENTIFIER.fullmatch(name) for name in names), names
        assert not set(names) & build.IDL_KEYWORDS
    assert build.idl_name("id_url_or_domain") == "idUrlOrDomain"
    assert build.idl_name("type") == "typeValue"
    assert f"interface {build.INTERFACE} " in text


def test_the_xcu_shows_the_plain_names_and_excels_help() -> None:
    declared = catalog.functions()
    root = ET.fromstring(build.xcu(declared))
    (implementation,) = root.find("node").findall("node")  # type: ignore[union-attr]
    assert implementation.get(f"{OOR}name") == build.IMPLEMENTATION
    nodes = implementation.find("node").findall("node")  # type: ignore[union-attr]
    assert [node.get(f"{OOR}name") for node in nodes] == [f.name for f in declared]
    geocode = next(node for node in nodes if node.get(f"{OOR}name") == "PROFNET_GEOCODE")
    arguments = geocode.find("node").findall("node")  # type: ignore[union-attr]
    shown = [argument.find("prop/value").text for argument in arguments]  # type: ignore[union-attr]
    assert shown == ["location", "type", "fields", "header"]
    assert [argument.get(f"{OOR}name") for argument in arguments][1] == "typeValue"


def test_the_oxt_holds_the_files_its_manifest_names_and_rebuilds_to_the_same_bytes(
    tmp_path: Path,
) -> None:
    first = build.build(tmp_path / "a.oxt").read_bytes()
    second = build.build(tmp_path / "b.oxt").read_bytes()
    assert first == second
    with zipfile.ZipFile(tmp_path / "a.oxt") as archive:
        names = set(archive.namelist())
        manifest = archive.read("META-INF/manifest.xml").decode()
        record = json.loads(archive.read(build.ENVIRONMENT))
        component = archive.read(build.COMPONENT).decode()
    for path in re.findall(r'full-path="([^"]+)"', manifest):
        assert path in names
    assert "uno-component;type=Python" in manifest
    assert component == build.COMPONENT_SOURCE.read_text()
    assert record["python"] == "{}.{}".format(*sys.version_info[:2])
    assert record["functions"] == [function.name for function in catalog.functions()]
    assert record["interface"] == f"{build.MODULE}.{build.INTERFACE}"
    assert record["implementation"] == build.IMPLEMENTATION


def test_the_recorded_environment_is_where_profnet_sheets_and_its_dependencies_are() -> None:
    import polars
    import requests

    import profnet_sheets

    paths = [Path(path) for path in build.environment_paths()]
    for module in (profnet_sheets, requests, polars):
        where = Path(module.__file__ or "").resolve()
        assert any(where.is_relative_to(path.resolve()) for path in paths), (module, paths)


def test_an_out_that_cannot_be_written_is_one_line_and_leaves_nothing(tmp_path: Path) -> None:
    """`calc build --out` a folder, an empty name, a folder that does not exist or cannot
    hold files: a traceback and a `.partial` left behind, or a folder made unasked, before."""
    import pytest

    from profnet_sheets.errors import ConfigurationError

    cases = {
        tmp_path: "is a folder; give a file name in it",
        Path(""): "is a folder; give a file name in it",
        tmp_path / "missing" / "x.oxt": "does not exist: create it first",
    }
    for target, said in cases.items():
        with pytest.raises(ConfigurationError, match=said):
            build.build(target)
    assert not (tmp_path / "missing").exists()
    blocked = tmp_path / "blocked.oxt"
    blocked.mkdir()
    (blocked / "inside").write_text("x")
    with pytest.raises(ConfigurationError, match="is a folder"):
        build.build(blocked)
    assert not list(tmp_path.glob("*.partial"))
    assert build.build(tmp_path / "ok.oxt").stat().st_size > 0
