"""This project's wheel, built by uv, and the requirements its metadata declares."""

from __future__ import annotations

import email.parser
import os
import shutil
import subprocess
import zipfile
from pathlib import Path

from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parents[1]


def build_wheel(out: Path) -> Path:
    """`uv build --wheel` of this checkout into `out`: the wheel's path."""
    uv = os.environ.get("UV") or shutil.which("uv") or "uv"  # `uv run` names itself in UV
    subprocess.run(
        [uv, "build", "--wheel", "--quiet", "--out-dir", str(out), str(ROOT)],
        check=True,
        capture_output=True,
        text=True,
    )
    (wheel,) = out.glob("profnet_sheets-*.whl")
    return wheel


def core_requirements(wheel: Path) -> list[Requirement]:
    """The wheel's requirements that no extra asks for: what `pip install profnet-sheets`
    (and xlwings Lite's requirements.txt) installs."""
    with zipfile.ZipFile(wheel) as archive:
        (name,) = [n for n in archive.namelist() if n.endswith(".dist-info/METADATA")]
        metadata = email.parser.Parser().parsestr(archive.read(name).decode())
    found = [Requirement(text) for text in metadata.get_all("Requires-Dist") or []]
    return [r for r in found if r.marker is None or "extra" not in str(r.marker)]
