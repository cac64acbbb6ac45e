// Pyodide in Node, offline: micropip from its wheel installs the given wheels (ours and its
// requirements, pure Python) from the in-memory file system, then the probe runs.
// Usage: node run_core.mjs PYODIDE_DIR PROBE.py MICROPIP.whl WHEEL.whl...
import { readFileSync } from "node:fs";
import { basename, join } from "node:path";
import { pathToFileURL } from "node:url";

const [pyodideDir, probe, micropip, ...wheels] = process.argv.slice(2);
const { loadPyodide } = await import(pathToFileURL(join(pyodideDir, "pyodide.mjs")).href);
const py = await loadPyodide({ indexURL: pyodideDir + "/" });
await py.loadPackage(micropip);
py.FS.mkdirTree("/wheels");
for (const wheel of wheels) {
  py.FS.writeFile("/wheels/" + basename(wheel), readFileSync(wheel));
}
py.FS.writeFile("/probe.py", readFileSync(probe));
py.globals.set("wheels", wheels.map((wheel) => "emfs:/wheels/" + basename(wheel)));
try {
  await py.runPythonAsync(`
import micropip, runpy
# every requirement must be among the given wheels: no index to fall back on
await micropip.install(list(wheels), deps=True, index_urls=[])
runpy.run_path("/probe.py", run_name="__main__")
`);
} catch (error) {
  console.error(String(error.message ?? error).split("\n").slice(-12).join("\n"));
  process.exit(1);
}
