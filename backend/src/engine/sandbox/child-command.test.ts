// The walls of the sandbox child one layer at a time, without a guest runtime: the Node flags of
// childCommand, then the lockdown the child applies to its own realm.
import { spawnSync } from "node:child_process";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { childCommand } from "./child-command.js";

/** Runs an ES module snippet under the given flags and an empty environment; it prints JSON. */
function runUnder(flags: string[], source: string): Record<string, unknown> {
  const child = spawnSync(process.execPath, [...flags, "--input-type=module", "-e", source], {
    env: {},
    encoding: "utf8",
    // Only a child that hangs is stopped: a busy machine may take long to start one.
    timeout: 120_000,
    killSignal: "SIGKILL",
  });
  if (child.status !== 0) throw new Error(child.stderr);
  return JSON.parse(child.stdout) as Record<string, unknown>;
}

const ATTEMPT = `
const out = {};
const attempt = async (name, fn) => {
  try { await fn(); out[name] = "open"; } catch (error) { out[name] = error.code ?? error.name; }
};`;

describe("childCommand", () => {
  it("grants each language only its own runtime package and nothing beyond file reads", () => {
    const python = childCommand("python", 64).flags.join(" ");
    const javascript = childCommand("javascript", 64).flags.join(" ");
    expect(python).toMatch(/--allow-fs-read=\S*pyodide/);
    expect(python).not.toMatch(/quickjs/);
    expect(javascript).toMatch(/--allow-fs-read=\S*quickjs-wasmfile-release-sync/);
    expect(javascript).not.toMatch(/pyodide/);
    for (const flags of [python, javascript]) {
      expect(flags).toContain("--permission");
      expect(flags).toContain("--disallow-code-generation-from-strings");
      expect(flags).not.toMatch(/--allow-(child-process|worker|addons|wasi|fs-write|net|inspector)/);
    }
    expect(childCommand("python", 64).flags).toContain("--max-old-space-size=256");
    // A child started from the Pyodide snapshot reads it from a descriptor it is handed: no path.
    expect(childCommand("python", 64, { fromSnapshot: true }).flags).toEqual(childCommand("python", 64).flags);
  });

  it("the flags alone refuse reads outside the grant, writes, processes, workers and eval", () => {
    const { flags, runtime } = childCommand("python", 64);
    const outside = fileURLToPath(new URL("../../../package.json", import.meta.url));
    const out = runUnder(
      flags,
      `${ATTEMPT}
const fs = await import("node:fs");
await attempt("readOutside", () => fs.readFileSync(${JSON.stringify(outside)}));
await attempt("readRuntime", () => fs.readdirSync(${JSON.stringify(runtime.pyodideDir)}));
await attempt("write", () => fs.writeFileSync(${JSON.stringify(join(tmpdir(), "superstep-sandbox-write"))}, "x"));
await attempt("spawn", async () => (await import("node:child_process")).spawnSync("true"));
await attempt("worker", async () => new (await import("node:worker_threads")).Worker("0", { eval: true }));
await attempt("eval", () => eval("1"));
await attempt("Function", () => new Function("return 1")());
await attempt("wasm", () => new WebAssembly.Module(new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0])));
process.stdout.write(JSON.stringify(out));`,
    );
    expect(out).toEqual({
      readOutside: "ERR_ACCESS_DENIED",
      readRuntime: "open",
      write: "ERR_ACCESS_DENIED",
      spawn: "ERR_ACCESS_DENIED",
      worker: "ERR_ACCESS_DENIED",
      eval: "EvalError",
      Function: "EvalError",
      // The runtimes are WebAssembly: compiling it must stay allowed.
      wasm: "open",
    });
  });

  it("lockDown closes modules, network globals and process internals in the child's realm", () => {
    const { flags } = childCommand("python", 64);
    const lockdown = new URL("./child-lockdown.mjs", import.meta.url).href;
    const out = runUnder(
      flags,
      `${ATTEMPT}
await attempt("importBefore", () => import("node:dgram"));
out.fetchBefore = typeof fetch;
const { lockDown } = await import(${JSON.stringify(lockdown)});
lockDown();
await attempt("importNet", () => import("node:net"));
await attempt("getBuiltinModule", () => process.getBuiltinModule("node:net"));
out.fetch = typeof fetch;
out.WebSocket = typeof WebSocket;
process.stdout.write(JSON.stringify(out));`,
    );
    expect(out).toEqual({
      importBefore: "open",
      fetchBefore: "function",
      importNet: "ERR_ACCESS_DENIED",
      getBuiltinModule: "Error",
      fetch: "undefined",
      WebSocket: "undefined",
    });
  });
});
