// Hardening of the sandbox child's own JavaScript realm. The operating-system wall is Node's
// permission model (set by the parent on the command line: no file reads outside the runtime
// packages, no writes, no child processes, no workers, no addons) plus
// --disallow-code-generation-from-strings (a guest that reaches any host function cannot turn
// `fn.constructor("return process")` into host code). What follows closes what those flags leave
// open; Node 24's permission model does not cover the network, for one.

import fs from "node:fs";
import module from "node:module";
import os from "node:os";

/**
 * Pyodide reads `process.binding("constants")` while loading, which the permission model refuses.
 * Hand it the same constants from the public modules; every other binding stays out of reach.
 */
export function allowPyodideUnderPermission() {
  const constants = { fs: fs.constants, os: os.constants };
  process.binding = (name) => (name === "constants" ? constants : {});
}

// The cap of each capped memory; one patch of Memory.prototype.grow serves them all, so a child
// that creates a fresh QuickJS instance per call does not stack one wrapper per call.
const caps = new WeakMap();
let growPatched = false;

/**
 * Caps how far a WebAssembly memory may grow. Emscripten grows its heap through
 * `WebAssembly.Memory.prototype.grow`; a refused grow makes malloc fail inside the guest (Python
 * raises MemoryError), which is cleaner than the process dying. `--max-old-space-size` does not
 * cover WebAssembly memory, so without this a guest could take gigabytes.
 * Returns a function telling whether a grow of this memory was ever refused.
 */
export function capWasmMemory(memory, maxBytes) {
  if (!growPatched) {
    growPatched = true;
    const grow = WebAssembly.Memory.prototype.grow;
    WebAssembly.Memory.prototype.grow = function cappedGrow(pages) {
      const cap = caps.get(this);
      if (cap && this.buffer.byteLength + Number(pages) * 65536 > cap.maxBytes) {
        cap.refused = true;
        throw new RangeError("sandbox memory limit reached");
      }
      return grow.call(this, pages);
    };
  }
  const cap = { maxBytes, refused: false };
  caps.set(memory, cap);
  return () => cap.refused;
}

const refuse = (what) => () => {
  throw new Error(`${what} is not available in the sandbox`);
};

/**
 * Run once the runtime is loaded and before any user code: from here on the child needs no new
 * module, no network and no process internals.
 * `allowImports` names the one runtime module that may still resolve a few built-ins, and which:
 * QuickJS's Emscripten factory imports node:module (and requires node:fs, node:path, node:url)
 * each time it builds an instance, and a JavaScript child builds a fresh one for every call. Those
 * built-ins are loaded already; nothing else may resolve anything.
 */
export function lockDown({ allowImports } = {}) {
  // Every later import() or require() fails, built-ins included (node:net, node:child_process, …).
  // Pyodide would otherwise import node:net for its socket support.
  // Fail closed on a Node without synchronous module hooks (added in 22.15 / 23.5).
  if (typeof module.registerHooks !== "function") throw new Error("The sandbox needs Node.js 22.15 or later");
  const allowed = allowImports ? new Set(allowImports.specifiers) : new Set();
  const allowedParent = allowImports?.parentURL;
  module.registerHooks({
    resolve(specifier, context, nextResolve) {
      if (allowedParent !== undefined && context.parentURL === allowedParent && allowed.has(specifier)) {
        return nextResolve(specifier, context);
      }
      throw Object.assign(new Error(`Cannot load "${specifier}": the sandbox loads no modules`), {
        code: "ERR_ACCESS_DENIED",
      });
    },
  });
  // Network entry points that live on the global object (Pyodide's package loader calls fetch,
  // Emscripten's socket emulation uses WebSocket).
  for (const name of ["fetch", "WebSocket", "EventSource", "XMLHttpRequest", "require"]) {
    delete globalThis[name];
  }
  // process.getBuiltinModule bypasses the module hooks; the others are refused by the permission
  // model already but cost nothing to close.
  for (const name of ["getBuiltinModule", "binding", "_linkedBinding", "dlopen", "kill", "chdir"]) {
    process[name] = refuse(`process.${name}`);
  }
}
