// Runs a Python `main` inside Pyodide (CPython compiled to WebAssembly), loaded offline from the
// npm package. Python can reach JavaScript objects through Pyodide's FFI, so this module also
// takes away the JavaScript-side doors Pyodide opens: host file mounts, sockets, package
// downloads. The permission model and the lockdown in child-lockdown.mjs stay the real walls.

import { closeSync, fstatSync, readSync } from "node:fs";
import { allowPyodideUnderPermission, capWasmMemory } from "./child-lockdown.mjs";

const USER_FILE = "main.py";
// What Code nodes commonly do: strings, a regular expression, comprehensions, an exception, f-strings.
const WARM_UP = {
  code: `import math, re

async def main(state, item=None):
    print("warm")
    words = re.findall(r"\\w+", state["text"])
    counts = {word: words.count(word) for word in set(words)}
    try:
        int(state["text"])
    except ValueError as exc:
        message = f"{type(exc).__name__}: {exc}"
    return {
        "words": len(words),
        "counts": sorted(counts.items()),
        "upper": " ".join(word.upper() for word in words if len(word) > 1),
        "mean": round(sum(map(len, words)) / max(len(words), 1), 2) + math.floor(0.5),
        "item": item,
        "message": message,
    }
`,
  args: [{ text: "warm up the interpreter" }, 1],
  timeoutMs: 60_000,
  memoryMb: 16,
};

// Imported before a memory snapshot is taken, so that a child started from the snapshot finds them
// loaded: the driver's own modules, and standard modules Code nodes commonly import. Importing
// runs only the standard library's code; no user code has run when the snapshot is taken.
const WARM_MODULES = [
  "asyncio",
  "base64",
  "collections",
  "datetime",
  "decimal",
  "functools",
  "hashlib",
  "inspect",
  "itertools",
  "json",
  "math",
  "os",
  "random",
  "re",
  "statistics",
  "string",
  "sys",
  "traceback",
  "typing",
];

// Runs in a private namespace before the user code. `run` executes the source in a fresh
// namespace, calls main, awaits a coroutine, and returns "status\npayload" where status is ok
// (payload = JSON text), error, memory or invalid (payload = message).
const DRIVER = `
import inspect
import json
import os
import sys
import traceback

# The host process's script path leaks through Emscripten's default environment.
os.environ.pop("_", None)
# pyodide_js is the whole JavaScript API of Pyodide (mountNodeFS, loadPackage, …). The host has
# registered a stub in its place; drop what was already imported under the real one.
for _name in [name for name in sys.modules if name == "pyodide_js" or name.startswith("pyodide_js.")]:
    del sys.modules[_name]

USER_FILE = ${JSON.stringify(USER_FILE)}
_dumps = json.dumps
_loads = json.loads


def _line_of(exc):
    line = exc.lineno if isinstance(exc, SyntaxError) and exc.filename == USER_FILE else None
    tb = exc.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == USER_FILE:
            line = tb.tb_lineno
        tb = tb.tb_next
    return f" (line {line})" if line else ""


def _describe(exc):
    last = traceback.format_exception_only(type(exc), exc)[-1].strip()
    return last + _line_of(exc)


async def run(source, args_json):
    try:
        return await _run(source, args_json)
    finally:
        # print(..., end="") leaves a partial line behind; flushing Python's buffer and then the
        # device (fsync) hands it to the log too.
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
                os.fsync(stream.fileno())
            except Exception:
                pass


def _fitting(function, args):
    # Like JavaScript, extra arguments a main does not declare are not passed: main(state) also
    # works as a For each body, which is called with (state, item, index).
    try:
        params = inspect.signature(function).parameters.values()
    except (TypeError, ValueError):
        return args
    if any(p.kind == p.VAR_POSITIONAL for p in params):
        return args
    positional = sum(1 for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD))
    return args[:positional]


async def _run(source, args_json):
    namespace = {"__name__": "__main__"}
    try:
        exec(compile(source, USER_FILE, "exec"), namespace)
        main = namespace.get("main")
        if not callable(main):
            return "error\\nThe code does not define a function named main."
        result = main(*_fitting(main, _loads(args_json)))
        if inspect.isawaitable(result):
            result = await result
    except MemoryError:
        return "memory\\n"
    # BaseException: SystemExit and KeyboardInterrupt are the code's failures too.
    except BaseException as exc:
        return "error\\n" + _describe(exc)
    try:
        return "ok\\n" + _dumps(result, allow_nan=False)
    except MemoryError:
        return "memory\\n"
    except BaseException as exc:
        return "invalid\\n" + _describe(exc)
`;

const refuse = (what) => () => {
  throw new Error(`${what} is not available in the sandbox`);
};

/**
 * Loads Pyodide for a child's calls: from a memory snapshot when `start.snapshotFd` is given (a
 * few hundred milliseconds instead of seconds), else from its package. With `start.makeSnapshot`
 * it also takes that snapshot, after importing WARM_MODULES and before anything else runs, and
 * returns it as `snapshot`. Returns `{ snapshot, lockDown, prepare(request, log) }`; `prepare`
 * returns the function that runs the call. A Python child serves one call, or the calls of one
 * scope (one run's turn, within one workflow): Python code can reach this process's JavaScript
 * objects through Pyodide's FFI, so no interpreter and no JavaScript realm that ran user code ever
 * runs a call of another scope.
 */
export async function loadPython(runtimeModules, start) {
  allowPyodideUnderPermission();
  const { loadPyodide } = await import(runtimeModules.pyodide);
  let log = () => {};
  const snapshotBytes = typeof start.snapshotFd === "number" ? readSnapshot(start.snapshotFd) : undefined;
  const pyodide = await loadPyodide({
    indexURL: runtimeModules.pyodideDir,
    // `import js` sees an empty object without a prototype: no js.process, no js.fetch, and no
    // js.constructor to climb to Function.
    jsglobals: Object.create(null),
    env: {},
    args: [],
    stdin: () => null,
    stdout: (line) => log(line),
    stderr: (line) => log(line),
    ...(start.makeSnapshot ? { _makeSnapshot: true } : {}),
    ...(snapshotBytes ? { _loadSnapshot: snapshotBytes } : {}),
  });
  // The snapshot is in the WebAssembly memory now; Pyodide keeps a reference to the bytes read,
  // so they are released here (~30 MB of the ready child's memory).
  snapshotBytes?.buffer.transfer(0);
  let snapshot;
  if (start.makeSnapshot) {
    pyodide.runPython(WARM_MODULES.map((name) => `import ${name}`).join("\n"));
    snapshot = pyodide.makeMemorySnapshot();
  }
  const memory = pyodide._module.wasmMemory ?? pyodide._module.memory;
  if (!(memory instanceof WebAssembly.Memory)) throw new Error("Pyodide's WebAssembly memory was not found");
  closePyodideDoors(pyodide);
  const driver = pyodide.globals.get("dict")();
  pyodide.runPython(DRIVER, { globals: driver, filename: "driver.py" });
  // Called directly rather than through runPythonAsync, which parses its source text with
  // Python's ast module on every call.
  const runDriver = driver.get("run");
  /** The WebAssembly memory once warmed up, before any user call. */
  let loadedBytes;

  const runtime = {
    snapshot,
    lockDown: {},
    prepare(request, callLog) {
      log = callLog;
      // The code gets memoryMb on top of what the loaded interpreter occupies (~30 MB), counted
      // from before the first call: the calls of one scope share it.
      const growRefused = capWasmMemory(
        memory,
        (loadedBytes ?? memory.buffer.byteLength) + request.memoryMb * 1024 * 1024,
      );
      const outOfMemory = () => ({
        ok: false,
        code: "CODE_MEMORY",
        message: `The code used more than ${request.memoryMb} MB.`,
      });
      return async () => {
        let outcome;
        try {
          outcome = String(await runDriver(request.code, JSON.stringify(request.args)));
        } catch (error) {
          // Only Pyodide-level failures land here (a fatal error, memory exhausted inside the
          // driver); the driver reports the code's own exceptions.
          if (growRefused() || error?.type === "MemoryError") return outOfMemory();
          return { ok: false, code: "CODE_ERROR", message: lastLine(error) };
        }
        const newline = outcome.indexOf("\n");
        const status = outcome.slice(0, newline);
        const payload = outcome.slice(newline + 1);
        if (status === "ok") return { ok: true, json: payload };
        if (status === "memory") return outOfMemory();
        if (status === "invalid") {
          return {
            ok: false,
            code: "CODE_RESULT_INVALID",
            message: `main() returned a value that is not JSON: ${payload}`,
          };
        }
        return { ok: false, code: "CODE_ERROR", message: payload };
      };
    },
  };
  // WebAssembly functions compile on their first call: one call of our own code before the child
  // says it is ready compiles what every call needs (compile, exec, json), so that the user's call
  // does not pay for it. Its output is dropped; it leaves nothing the user's call could see.
  await (await runtime.prepare(WARM_UP, () => {}))();
  loadedBytes = memory.buffer.byteLength;
  return runtime;
}

/** The snapshot from the file descriptor the parent handed over, which is then closed. */
function readSnapshot(fd) {
  // Positioned reads: the descriptor is shared with the parent and other children.
  const bytes = new Uint8Array(fstatSync(fd).size);
  for (let at = 0; at < bytes.length; ) {
    const read = readSync(fd, bytes, at, bytes.length - at, at);
    if (read === 0) throw new Error("The Python snapshot is shorter than its size");
    at += read;
  }
  closeSync(fd);
  return bytes;
}

/** Replaces the parts of Pyodide's JavaScript API that reach outside the sandbox. */
function closePyodideDoors(pyodide) {
  const api = pyodide._api;
  // Mounting host directories (the n8n-style escape), package downloads, sockets over node:net.
  pyodide.mountNodeFS = refuse("mountNodeFS");
  pyodide.mountNativeFS = refuse("mountNativeFS");
  pyodide.loadPackage = refuse("loadPackage");
  pyodide.loadPackagesFromImports = refuse("loadPackagesFromImports");
  if (pyodide.FS?.filesystems?.NODEFS) pyodide.FS.filesystems.NODEFS.mount = refuse("NODEFS");
  api.loadBinaryFile = refuse("loadBinaryFile");
  api.initializeNodeSockFS = refuse("node sockets");
  // Python code imports pyodide_js to reach all of the above; what remains under that name is
  // what Pyodide's own asyncio loop needs.
  pyodide.unregisterJsModule("pyodide_js");
  pyodide.registerJsModule("pyodide_js", {
    _api: {
      config: { enableRunUntilComplete: api.config.enableRunUntilComplete },
      scheduleCallback: api.scheduleCallback,
    },
  });
}

function lastLine(error) {
  const text = String(error?.message ?? error).trim();
  return text.slice(text.lastIndexOf("\n") + 1) || "The code failed.";
}
