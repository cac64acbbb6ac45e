"""Pyodide in Node for tests: the npm package installed once, the pure-Python wheels a probe
needs downloaded once (both kept in CACHE), and a probe run in it."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path

import pytest

from tests.tools import missing_tool
from tests.wheels import core_requirements

HERE = Path(__file__).parent
MICROPIP = "micropip==0.11.1"
# Kept between runs: the npm install of Pyodide and the downloaded wheels (keyed by what they
# are for); deleting the folder only costs a download.
# Node's options for WebAssembly stack switching (JSPI): Node 20 has the older API under the
# first name, which Pyodide 314 still supports; later Nodes the newer one (decision 335).
JSPI_OPTIONS = ("--experimental-wasm-stack-switching", "--experimental-wasm-jspi")
CACHE = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "profnet-sheets-tests"


def run(
    command: Sequence[str], cwd: Path | None = None, env: Mapping[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """`command` run to its end; a failure fails the test with what it said."""
    result = subprocess.run(
        list(command),
        cwd=cwd,
        env=None if env is None else {**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    if result.returncode != 0:
        said = f"{result.stdout[-2000:]}{result.stderr[-3000:]}"
        pytest.fail(f"{' '.join(map(str, command))} failed:\n{said}")
    return result


def install_pyodide() -> Path:
    """The npm package `pyodide` (the version tests/pyodide/package.json pins), installed once."""
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        missing_tool("no node/npm on PATH: install them (`apt-get install nodejs npm`)")
    pinned = (HERE / "package.json").read_text()
    home = CACHE / ("npm-" + hashlib.sha256(pinned.encode()).hexdigest()[:12])
    package = home / "node_modules" / "pyodide"
    if not (package / "pyodide.mjs").exists():
        home.mkdir(parents=True, exist_ok=True)
        (home / "package.json").write_text(pinned)
        run([npm, "install", "--no-audit", "--no-fund", "--loglevel=error"], cwd=home)
    return package


def jspi_flags() -> tuple[str, ...]:
    """Node's option turning JSPI on (with it, Python called from JS may block on a promise,
    `run_sync`, as in Chromium); none when this Node has none of JSPI_OPTIONS."""
    known = run([shutil.which("node") or "node", "--v8-options"]).stdout
    return tuple(option for option in JSPI_OPTIONS if option in known)[-1:]


def pure_wheels(wheel: Path, *more: str) -> list[Path]:
    """The wheels the core needs in Pyodide (its requirements' closure, micropip, and `more`),
    pure Python: a requirement with no pure wheel fails the download."""
    wanted = [*sorted(str(r) for r in core_requirements(wheel)), MICROPIP, *more]
    folder = CACHE / ("wheels-" + hashlib.sha256("\n".join(wanted).encode()).hexdigest()[:12])
    done = folder / "done"
    if not done.exists():
        uv = os.environ.get("UV") or shutil.which("uv") or "uv"
        pip = [uv, "run", "--no-project", "--with", "pip", "python", "-m", "pip"]
        only_pure = ["--only-binary=:all:", "--platform", "any", "--python-version", "3.14"]
        run([*pip, "download", "--quiet", *only_pure, "--implementation", "py", "-d",
             str(folder), *wanted])  # fmt: skip
        done.write_text("\n".join(wanted))
    return sorted(folder.glob("*.whl"))


def run_in_pyodide(
    pyodide: Path,
    probe: Path,
    wheel: Path,
    wheels: list[Path],
    env: Mapping[str, str] | None = None,
    mount: Path | None = None,
    node_flags: Sequence[str] = (),
) -> subprocess.CompletedProcess[str]:
    """`probe` run in Pyodide under Node with our wheel and `wheels` installed offline;
    `env`: its environment variables; `mount`: a host folder it sees at the same path;
    `node_flags`: Node's own options (`jspi_flags()`: with WebAssembly stack switching)."""
    (micropip,) = [w for w in wheels if w.name.startswith("micropip-")]
    others = [w for w in wheels if w != micropip]
    node = [shutil.which("node") or "node", *node_flags, str(HERE / "run_core.mjs"), str(pyodide)]
    told = {"PYODIDE_ENV": json.dumps(dict(env or {}))}
    if mount is not None:
        told["PYODIDE_MOUNT"] = str(mount)
    return run([*node, str(probe), str(micropip), str(wheel), *others], env=told)
