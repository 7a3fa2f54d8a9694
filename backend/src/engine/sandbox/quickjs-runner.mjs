// Runs a JavaScript `main` inside QuickJS (a WebAssembly interpreter). The guest sees only the
// ECMAScript built-ins and a console shim: no host function crosses the boundary except one that
// takes a string for the log. Arguments go in and the result comes out as JSON text.

import { readFileSync } from "node:fs";
import { capWasmMemory } from "./child-lockdown.mjs";

// QuickJS counts its own stack; past this depth it throws "stack overflow" instead of letting the
// WebAssembly recursion exhaust the host's stack (which would crash the child).
const MAX_STACK_BYTES = 256 * 1024;
// Room above the memory limit for the interpreter's own structures and allocator slack.
const WASM_SLACK_BYTES = 16 * 1024 * 1024;
const USER_FILE = "main.js";
const WARM_UP = {
  code: 'async function main(state, item) { console.log("warm"); return { words: String(state.text).split(" ").length, item }; }',
  args: [{ text: "warm up" }, 1],
  timeoutMs: 60_000,
  memoryMb: 16,
};
const WARM_UP_CALLS = 20;
// What the Emscripten factory resolves each time it builds an instance (see lockDown).
const FACTORY_IMPORTS = ["node:module", "node:fs", "node:path", "node:url"];

// Evaluated before the user code, in its own function scope: it captures the built-ins it needs
// (so the user code cannot swap them) and returns the helpers the host calls. Nothing here is
// reachable from the user code except `console`.
const PRELUDE = `(function (hostLog) {
  "use strict";
  const stringify = JSON.stringify;
  const parse = JSON.parse;
  const getPrototypeOf = Object.getPrototypeOf;
  const isArray = Array.isArray;
  const objectPrototype = Object.prototype;
  const isFinite = Number.isFinite;
  const StringOf = String;
  const ErrorClass = Error;
  const PathMap = WeakMap;
  const exec = RegExp.prototype.exec;
  const apply = Reflect.apply;
  const USER_LINE = /main\\.js:(\\d+)/;

  const show = (value) => {
    if (typeof value === "string") return value;
    if (typeof value === "function") return "[Function " + (value.name || "anonymous") + "]";
    try {
      if (value instanceof ErrorClass) return StringOf(value);
      const text = stringify(value);
      if (text !== undefined) return text;
    } catch {}
    try { return StringOf(value); } catch { return "[object]"; }
  };
  // Cut inside the VM: the host keeps at most LOG_LIMITS.maxBytes anyway.
  const log = (...values) => { const line = values.map(show).join(" "); hostLog(line.length > 16384 ? line.slice(0, 16384) : line); };
  globalThis.console = { log, info: log, warn: log, error: log, debug: log };

  const kindOf = (value) => {
    switch (typeof value) {
      case "function":
        return "a function";
      case "symbol":
        return "a symbol";
      case "bigint":
        return "a BigInt";
      case "number":
        return StringOf(value);
      default: {
        const proto = getPrototypeOf(value);
        const name = proto && proto.constructor && proto.constructor.name;
        return name ? "a " + name : "an object";
      }
    }
  };

  return {
    // Strict JSON: refuses what JSON.stringify would silently drop or change.
    toJson(value) {
      const paths = new PathMap();
      const text = stringify(value, function (key, item) {
        const parent = paths.get(this);
        const path = parent === undefined ? "result" : parent + (isArray(this) ? "[" + key + "]" : "." + key);
        const type = typeof item;
        if (type === "function" || type === "symbol" || type === "bigint" || (type === "number" && !isFinite(item))) {
          throw new TypeError(path + " is " + kindOf(item) + ", which JSON cannot represent");
        }
        if (type === "object" && item !== null) {
          const proto = getPrototypeOf(item);
          if (!isArray(item) && proto !== objectPrototype && proto !== null) {
            throw new TypeError(path + " is " + kindOf(item) + ", not a plain object, list, string, number, boolean or null");
          }
          paths.set(item, path);
        }
        return item;
      });
      return text === undefined ? "null" : text;
    },
    call(main, argsJson) {
      return main(...parse(argsJson));
    },
    describe(error) {
      let text;
      try {
        text = error instanceof ErrorClass ? error.name + ": " + error.message : "Uncaught " + show(error);
        const line = error instanceof ErrorClass && apply(exec, USER_LINE, [StringOf(error.stack)]);
        if (line) text += " (line " + line[1] + ")";
      } catch {
        text = "Uncaught exception";
      }
      return StringOf(text);
    },
  };
})`;

/**
 * Loads QuickJS once per child: the Emscripten factory, the FFI and the compiled WebAssembly
 * module. Every call then gets a fresh WebAssembly instance (its own linear memory) with one
 * runtime and one context in it, built ahead of need while the child waits, and dropped after the
 * call: nothing a call leaves in memory, globals or prototypes is there for the next one.
 * Returns `{ lockDown, prepare(request, log) }`; `prepare` returns the function that runs the call.
 */
export async function loadJavaScript(runtimeModules) {
  const [core, factoryModule, ffiModule] = await Promise.all([
    import(runtimeModules.core),
    import(runtimeModules.factory),
    import(runtimeModules.ffi),
  ]);
  const createEmscriptenModule = factoryModule.default;
  const { QuickJSFFI } = ffiModule;
  const { QuickJSWASMModule, shouldInterruptAfterDeadline } = core;
  const compiled = await WebAssembly.compile(readFileSync(new URL(runtimeModules.wasm)));

  const newInstance = async () => {
    const emscripten = await createEmscriptenModule({
      instantiateWasm(imports, onSuccess) {
        const instance = new WebAssembly.Instance(compiled, imports);
        onSuccess(instance, compiled);
        return instance.exports;
      },
    });
    emscripten.type = "sync";
    return new QuickJSWASMModule(emscripten, new QuickJSFFI(emscripten));
  };
  let next = newInstance();
  // The first instance is built before the lockdown: a failure to build one shows at load.
  await next;
  // After a call has answered, the next instance is built while the child waits: an instance
  // serves one call only.
  const buildNext = () => {
    next = newInstance();
    // A failure to build it is reported by the next call that awaits it, not as an unhandled
    // rejection now.
    next.catch(() => {});
  };

  const runtime = {
    lockDown: { allowImports: { parentURL: runtimeModules.factory, specifiers: FACTORY_IMPORTS } },
    async prepare(request, log) {
      const quickjs = await next;
      next = null;
      const memory = quickjs.getWasmMemory();
      const memoryBytes = request.memoryMb * 1024 * 1024;
      const growRefused = capWasmMemory(memory, memory.buffer.byteLength + memoryBytes + WASM_SLACK_BYTES);
      return () => {
        const runtime = quickjs.newRuntime();
        // The limit QuickJS counts itself; some allocations (long strings) escape its count, so the
        // WebAssembly memory cap above is the backstop.
        runtime.setMemoryLimit(memoryBytes);
        runtime.setMaxStackSize(MAX_STACK_BYTES);
        const deadline = Date.now() + request.timeoutMs;
        runtime.setInterruptHandler(shouldInterruptAfterDeadline(deadline));
        // Nothing is disposed: the whole instance is dropped after this one call, and disposing
        // after an abrupt failure would only trip QuickJS's leak assertions.
        return runInContext(runtime.newContext(), runtime, request, log, () => ({
          timedOut: Date.now() >= deadline,
          outOfMemory: growRefused(),
        }));
      };
    },
    afterCall: buildNext,
  };
  // WebAssembly functions compile on their first call, and the hot ones are optimised after a few
  // more: calls of our own code, each in an instance of its own, do that so that user calls do not
  // pay for it. The first runs before the child says it is ready; the others while it waits
  // (`idle`, one at a time, never during a call). A child serves many calls: this is paid once.
  let warmUpsLeft = WARM_UP_CALLS;
  runtime.idle = async () => {
    if (warmUpsLeft === 0) return false;
    warmUpsLeft -= 1;
    (await runtime.prepare(WARM_UP, () => {}))();
    buildNext();
    await next;
    return warmUpsLeft > 0;
  };
  await runtime.idle();
  return runtime;
}

function runInContext(vm, runtime, request, log, limitsHit) {
  // The only host function the guest can reach, and only through the prelude's console.
  const hostLog = vm.newFunction("log", (line) => {
    if (vm.typeof(line) === "string") log(vm.getString(line));
  });
  const prelude = vm.unwrapResult(vm.evalCode(PRELUDE, "prelude.js", { type: "global", strict: true }));
  const helpersResult = vm.callFunction(prelude, vm.undefined, hostLog);
  prelude.dispose();
  hostLog.dispose();
  const helpers = vm.unwrapResult(helpersResult);
  const helper = (name) => vm.getProp(helpers, name);

  const failure = (errorHandle, stage) => {
    const limits = limitsHit();
    const message = describe(vm, helpers, errorHandle);
    errorHandle.dispose();
    if (limits.timedOut || message.startsWith("InternalError: interrupted")) {
      return { ok: false, code: "CODE_TIMEOUT", message: `The code ran longer than ${request.timeoutMs} ms.` };
    }
    if (message.includes("out of memory") || (limits.outOfMemory && message.startsWith("InternalError"))) {
      return { ok: false, code: "CODE_MEMORY", message: `The code used more than ${request.memoryMb} MB.` };
    }
    if (stage === "result") {
      return {
        ok: false,
        code: "CODE_RESULT_INVALID",
        message: `main() returned a value that is not JSON: ${message}`,
      };
    }
    return { ok: false, code: "CODE_ERROR", message };
  };

  const loaded = vm.evalCode(request.code, USER_FILE, { type: "global" });
  if (loaded.error) return failure(loaded.error, "load");
  loaded.value.dispose();

  const mainLookup = vm.evalCode('typeof main === "function" ? main : undefined', "driver.js", { type: "global" });
  if (mainLookup.error) return failure(mainLookup.error, "load");
  const main = mainLookup.value;
  if (vm.typeof(main) !== "function") {
    main.dispose();
    return { ok: false, code: "CODE_ERROR", message: "The code does not define a function named main." };
  }

  const args = vm.newString(JSON.stringify(request.args));
  const call = helper("call");
  const called = vm.callFunction(call, vm.undefined, main, args);
  call.dispose();
  args.dispose();
  main.dispose();
  if (called.error) return failure(called.error, "call");

  const settled = settle(vm, runtime, called.value);
  if (settled.error) return failure(settled.error, "call");
  if (settled.pending) {
    return { ok: false, code: "CODE_ERROR", message: "main() returned a promise that never settles." };
  }

  const toJson = helper("toJson");
  const serialised = vm.callFunction(toJson, vm.undefined, settled.value);
  toJson.dispose();
  settled.value.dispose();
  if (serialised.error) return failure(serialised.error, "result");
  const json = vm.getString(serialised.value);
  serialised.value.dispose();
  return { ok: true, json };
}

/** Awaits a promise returned by an async main by running QuickJS's job queue until it settles. */
function settle(vm, runtime, value) {
  for (;;) {
    const state = vm.getPromiseState(value);
    if (state.type === "fulfilled") {
      if (state.notAPromise) return { value };
      value.dispose();
      return { value: state.value };
    }
    if (state.type === "rejected") {
      value.dispose();
      return { error: state.error };
    }
    const ran = runtime.executePendingJobs();
    if (ran.error) {
      value.dispose();
      return { error: ran.error };
    }
    // Nothing left to run and still pending: nothing inside the VM can ever resolve it (there are
    // no timers or I/O in the guest).
    if (ran.value === 0) {
      value.dispose();
      return { pending: true };
    }
  }
}

function describe(vm, helpers, errorHandle) {
  const describeFn = vm.getProp(helpers, "describe");
  const described = vm.callFunction(describeFn, vm.undefined, errorHandle);
  describeFn.dispose();
  if (described.error) {
    // Describing failed too (the deadline passed or memory is exhausted): read the name and
    // message directly, without running guest code.
    described.error.dispose();
    return readErrorDirectly(vm, errorHandle);
  }
  const text = vm.typeof(described.value) === "string" ? vm.getString(described.value) : "Uncaught exception";
  described.value.dispose();
  return text;
}

function readErrorDirectly(vm, errorHandle) {
  if (vm.typeof(errorHandle) !== "object") return "Uncaught exception";
  const read = (key) => {
    try {
      const handle = vm.getProp(errorHandle, key);
      const text = vm.typeof(handle) === "string" ? vm.getString(handle) : "";
      handle.dispose();
      return text;
    } catch {
      return "";
    }
  };
  const name = read("name");
  const message = read("message");
  return name || message ? `${name}: ${message}` : "Uncaught exception";
}
