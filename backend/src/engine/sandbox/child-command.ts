// The command line of a sandbox child: the Node flags that wall it in and the runtime modules it
// loads. The child may read only its own scripts and the one runtime package it needs.

import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, sep } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { snapshotKey } from "./snapshot-store.js";

export type RuntimeLanguage = "javascript" | "python";

/**
 * How a Python child loads Pyodide: from its package, taking a memory snapshot on the way
 * (`makeSnapshot`), or from a snapshot the parent hands it as file descriptor SNAPSHOT_FD
 * (`fromSnapshot`): an unlinked file, so the child needs no permission to read any path for it.
 */
export interface PythonStart {
  makeSnapshot?: boolean;
  fromSnapshot?: boolean;
}

/** The child's file descriptor that holds the snapshot, when it starts from one. */
export const SNAPSHOT_FD = 3;

export interface ChildCommand {
  /** Node options that wall the child in; the child is started as `node ...flags script`. */
  flags: string[];
  /** The child's entry script. */
  script: string;
  /** The script's arguments: the language, the runtime modules (see `runtime`) and the start. */
  scriptArgs: string[];
  /** Module URLs the child imports to load its runtime (absolute, so it resolves nothing itself). */
  runtime: Record<string, string>;
}

interface Runtime {
  readDirs: string[];
  modules: Record<string, string>;
}

// Resolved relative to this module, so it works from src/ (tests) and from dist/ (the CLI), which
// gets a copy of the .mjs files at build time.
const SANDBOX_DIR = dirname(fileURLToPath(import.meta.url));
const CHILD_SCRIPT = fileURLToPath(new URL("./sandbox-child.mjs", import.meta.url));
const CHILD_MODULES: Record<RuntimeLanguage, string[]> = {
  javascript: ["sandbox-child.mjs", "child-lockdown.mjs", "log-buffer.mjs", "quickjs-runner.mjs"],
  python: ["sandbox-child.mjs", "child-lockdown.mjs", "log-buffer.mjs", "pyodide-runner.mjs"],
};

// Room for Node itself and for host-side copies of the guest's strings (the result travels as a
// UTF-16 string at least once) on top of the guest's own budget.
const HOST_HEAP_BASE_MB = 128;

const runtimes = new Map<RuntimeLanguage, Runtime>();

export function childCommand(language: RuntimeLanguage, memoryMb: number, start: PythonStart = {}): ChildCommand {
  const runtime = runtimes.get(language) ?? resolveRuntime(language);
  runtimes.set(language, runtime);
  const readable = [...CHILD_MODULES[language].map((file) => join(SANDBOX_DIR, file)), ...runtime.readDirs];
  return {
    flags: [
      // No --allow-child-process, --allow-worker, --allow-addons, --allow-wasi, --allow-fs-write:
      // all refused. Node 24 has no network permission (Node 25 adds --allow-net, refused unless
      // granted, so nothing is granted here either); child-lockdown.mjs closes the network inside
      // the child.
      "--permission",
      ...readable.map((path) => `--allow-fs-read=${path}`),
      // A guest that reaches any host function cannot compile host code from a string.
      "--disallow-code-generation-from-strings",
      `--max-old-space-size=${HOST_HEAP_BASE_MB + 2 * memoryMb}`,
    ],
    script: CHILD_SCRIPT,
    scriptArgs: [
      language,
      JSON.stringify(runtime.modules),
      JSON.stringify(
        language === "python"
          ? { makeSnapshot: start.makeSnapshot === true, snapshotFd: start.fromSnapshot ? SNAPSHOT_FD : null }
          : {},
      ),
    ],
    runtime: runtime.modules,
  };
}

let pythonKey: string | null = null;

/**
 * What a Pyodide memory snapshot depends on, as a key for snapshot-store.ts: Pyodide's version, the
 * Python child's own scripts (they take the snapshot and run from it), Node's version and the CPU.
 */
export function pythonSnapshotKey(): string {
  if (pythonKey !== null) return pythonKey;
  const pyodide = packageOf("pyodide", import.meta.url);
  const { version } = JSON.parse(readFileSync(join(pyodide.dir, "package.json"), "utf8")) as { version?: unknown };
  const scripts = CHILD_MODULES.python.map((file) => readFileSync(join(SANDBOX_DIR, file), "utf8"));
  pythonKey = snapshotKey([String(version), ...scripts, process.version, process.arch]);
  return pythonKey;
}

function resolveRuntime(language: RuntimeLanguage): Runtime {
  if (language === "python") {
    const pyodide = packageOf("pyodide", import.meta.url);
    return {
      readDirs: [pyodide.dir],
      modules: { pyodide: pyodide.entryUrl, pyodideDir: `${pyodide.dir}${sep}` },
    };
  }
  // quickjs-emscripten is the declared dependency; the child loads its core and the parts of its
  // default (release, sync) WebAssembly variant directly: the Emscripten factory, the FFI and the
  // .wasm file, which it compiles once and instantiates afresh for every call.
  const quickjs = packageOf("quickjs-emscripten", import.meta.url);
  const from = join(quickjs.dir, "package.json");
  const core = packageOf("quickjs-emscripten-core", from);
  const variant = packageOf("@jitl/quickjs-wasmfile-release-sync", from);
  const ffiTypes = packageOf("@jitl/quickjs-ffi-types", join(core.dir, "package.json"));
  return {
    readDirs: [core.dir, variant.dir, ffiTypes.dir],
    modules: {
      core: core.entryUrl,
      factory: variant.exportUrl("./emscripten-module"),
      ffi: variant.exportUrl("./ffi"),
      wasm: variant.exportUrl("./wasm"),
    },
  };
}

interface Package {
  dir: string;
  /** URL of the package's ES module entry. */
  entryUrl: string;
  /** URL of one of the package's exported subpaths (its ES module file, or the file itself). */
  exportUrl: (subpath: string) => string;
}

/** The directory of an installed package and the URLs of its ES module entry and exports. */
function packageOf(name: string, from: string): Package {
  const resolved = createRequire(from).resolve(name);
  let dir = dirname(resolved);
  while (!isPackageRoot(dir, name)) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`Cannot find the package directory of ${name}`);
    dir = parent;
  }
  const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as {
    exports?: Record<string, unknown>;
    module?: string;
  };
  const importOf = (target: unknown) =>
    typeof target === "string" ? target : (target as { import?: unknown } | undefined)?.import;
  const entry = importOf(manifest.exports?.["."]) ?? manifest.module;
  if (typeof entry !== "string") throw new Error(`${name} has no ES module entry`);
  return {
    dir,
    entryUrl: pathToFileURL(join(dir, entry)).href,
    exportUrl: (subpath) => {
      const target = importOf(manifest.exports?.[subpath]);
      if (typeof target !== "string") throw new Error(`${name} does not export ${subpath}`);
      return pathToFileURL(join(dir, target)).href;
    },
  };
}

function isPackageRoot(dir: string, name: string): boolean {
  const manifest = join(dir, "package.json");
  if (!existsSync(manifest)) return false;
  return (JSON.parse(readFileSync(manifest, "utf8")) as { name?: unknown }).name === name;
}
