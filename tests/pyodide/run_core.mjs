// Pyodide in Node, offline: micropip from its wheel installs the given wheels (ours and its
// requirements, pure Python) from the in-memory file system, then the probe runs (and its
// `amain()`, awaited, when it has one).
// Usage: node run_core.mjs PYODIDE_DIR PROBE.py MICROPIP.whl WHEEL.whl...
// Optional: PYODIDE_ENV (JSON: environment variables for Python), PYODIDE_MOUNT (a host folder
// mounted at the same path, NODEFS: what a browser's IndexedDB folder is to a page),
// PYODIDE_TIMINGS (set: a last line on stderr, JSON: milliseconds to load Pyodide and to
// install the wheels).
// Node exits once the probe is done, whatever timers it left.
import { readFileSync } from "node:fs";
import { basename, join } from "node:path";
import { pathToFileURL } from "node:url";

const [pyodideDir, probe, micropip, ...wheels] = process.argv.slice(2);
const { loadPyodide } = await import(pathToFileURL(join(pyodideDir, "pyodide.mjs")).href);
const started = performance.now();
const py = await loadPyodide({ indexURL: pyodideDir + "/" });
const loaded = performance.now();
await py.loadPackage(micropip);
py.FS.mkdirTree("/wheels");
for (const wheel of wheels) {
  py.FS.writeFile("/wheels/" + basename(wheel), readFileSync(wheel));
}
const mount = process.env.PYODIDE_MOUNT;
if (mount) {
  py.FS.mkdirTree(mount);
  py.FS.mount(py.FS.filesystems.NODEFS, { root: mount }, mount);
}
py.FS.writeFile("/probe.py", readFileSync(probe));
py.globals.set("wheels", wheels.map((wheel) => "emfs:/wheels/" + basename(wheel)));
py.globals.set("environment", process.env.PYODIDE_ENV ?? "{}");
try {
  await py.runPythonAsync(`
import json, micropip, os, runpy
os.environ.update(json.loads(environment))
# every requirement must be among the given wheels: no index to fall back on
await micropip.install(list(wheels), deps=True, index_urls=[])
import js
installed_at = js.performance.now()
found = runpy.run_path("/probe.py", run_name="__main__")
if callable(found.get("amain")):
    await found["amain"]()
`);
  if (process.env.PYODIDE_TIMINGS) {
    const installed = py.globals.get("installed_at");
    const times = { load_ms: loaded - started, install_ms: installed - loaded };
    console.error(JSON.stringify(times));
  }
} catch (error) {
  console.error(String(error.message ?? error).split("\n").slice(-12).join("\n"));
  process.exit(1);
}
// Done: timers the probe left behind (a lease's renewal, a stop's hold, a connection kept
// alive) would keep Node running until they fire, as a page would; a probe is a run.
process.exit(0);
