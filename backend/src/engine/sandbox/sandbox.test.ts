import { existsSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runInSandbox, type SandboxCall, type SandboxResult } from "./sandbox.js";
import { sandboxPoolStats, stopSandboxPool } from "./sandbox-pool.js";

// A small memory limit keeps the suite fast; each Python call needs a child of its own, so the
// Python escape checks share one call where each check still gets its own assertion. The time limit is generous:
// code that ends must never be cut short because the machine is busy. Only the endless loops run
// under a short one, and nothing here measures how long a call took.
const limits = { timeoutMs: 60_000, memoryMb: 64 };
const loopLimits = { timeoutMs: 3000, memoryMb: 64 };
const js = (code: string, args: unknown[] = [], given = limits) =>
  runInSandbox({ language: "javascript", code, args }, given);
const py = (code: string, args: unknown[] = [], given = limits) =>
  runInSandbox({ language: "python", code, args }, given);

function failed(result: SandboxResult) {
  if (result.ok) throw new Error(`expected a failure, got ${JSON.stringify(result.value)}`);
  return result;
}

beforeAll(() => {
  process.env.SUPERSTEP_CANARY = "secret";
});
afterAll(() => {
  delete process.env.SUPERSTEP_CANARY;
});

describe("sandbox: JavaScript (QuickJS)", () => {
  it("returns main's JSON value and collects console.log", async () => {
    const result = await js(
      `function main(a, b) {
        console.log("adding", a, b, { a });
        return { sum: a + b, nested: { list: [1, "x", null, true, { deep: [a] }] }, text: "é€😀" };
      }`,
      [2, 3],
    );
    expect(result).toEqual({
      ok: true,
      value: { sum: 5, nested: { list: [1, "x", null, true, { deep: [2] }] }, text: "é€😀" },
      logs: ['adding 2 3 {"a":2}'],
    });
  });

  it("awaits an async main and accepts main declared with const", async () => {
    expect(await js("async function main(x) { await null; return [x, await Promise.resolve(2)]; }", [1])).toMatchObject(
      {
        ok: true,
        value: [1, 2],
      },
    );
    expect(await js("const main = (x) => ({ twice: x * 2 });", [4])).toMatchObject({ ok: true, value: { twice: 8 } });
  });

  it("reports a throw, a rejected promise, a syntax error and a missing main as CODE_ERROR", async () => {
    expect(failed(await js("function main() {\n  throw new Error('boom');\n}"))).toMatchObject({
      code: "CODE_ERROR",
      message: "Error: boom (line 2)",
    });
    expect(failed(await js("async function main() { throw new TypeError('later'); }"))).toMatchObject({
      code: "CODE_ERROR",
      message: "TypeError: later (line 1)",
    });
    const syntax = failed(await js("function main( {"));
    expect(syntax.code).toBe("CODE_ERROR");
    expect(syntax.message).toMatch(/^SyntaxError: .* \(line 1\)$/);
    expect(failed(await js("const notMain = 1;"))).toMatchObject({
      code: "CODE_ERROR",
      message: "The code does not define a function named main.",
    });
    expect(failed(await js("function main() { return new Promise(() => {}); }"))).toMatchObject({
      code: "CODE_ERROR",
      message: "main() returned a promise that never settles.",
    });
  });

  it("stops runaway recursion inside the VM without crashing the child", async () => {
    expect(failed(await js("function f() { return f(); }\nfunction main() { return f(); }"))).toMatchObject({
      code: "CODE_ERROR",
      message: "InternalError: stack overflow (line 1)",
    });
  });

  it.each([
    ["a function", "return { f() {} };", "result.f is a function"],
    ["NaN", "return [1, NaN];", "result[1] is NaN"],
    ["Infinity", "return { x: Infinity };", "result.x is Infinity"],
    ["a BigInt", "return 1n;", "result is a BigInt"],
    ["a cycle", "const a = {}; a.self = a; return a;", "circular"],
    ["a Map", "return { m: new Map([[1, 2]]) };", "result.m is a Map"],
  ])("refuses %s as a result with CODE_RESULT_INVALID", async (_name, body, detail) => {
    const result = failed(await js(`function main() { ${body} }`));
    expect(result.code).toBe("CODE_RESULT_INVALID");
    expect(result.message).toContain(detail);
  });

  it("caps the collected logs", async () => {
    const result = await js("function main() { for (let i = 0; i < 500; i++) console.log('line ' + i); return 1; }");
    expect(result.logs).toHaveLength(101);
    expect(result.logs[99]).toBe("line 99");
    expect(result.logs[100]).toMatch(/dropped/);
  });

  describe("escapes", () => {
    it("cannot reach the host process through the Function constructor", async () => {
      const viaConstructor = failed(
        await js("function main() { return this.constructor.constructor('return process')(); }"),
      );
      expect(viaConstructor.code).toBe("CODE_ERROR");
      expect(viaConstructor.message).toMatch(/'process' is not defined/);
      // The VM's Function builds VM code: whatever it returns has no host `process` with `env`.
      const probe = await js(
        "function main() { const p = this.constructor.constructor('return typeof process')(); return [p, typeof globalThis.process, typeof require]; }",
      );
      expect(probe).toMatchObject({ ok: true, value: ["undefined", "undefined", "undefined"] });
    });

    it("has no require, process.env or globalThis.process", async () => {
      expect(failed(await js("function main() { return require('fs'); }")).message).toMatch(/'require' is not defined/);
      expect(failed(await js("function main() { return process.env; }")).message).toMatch(/'process' is not defined/);
      expect(await js("function main() { return globalThis.process === undefined; }")).toMatchObject({
        ok: true,
        value: true,
      });
    });

    it("cannot import a module", async () => {
      const result = failed(await js("async function main() { return await import('fs'); }"));
      expect(result).toMatchObject({ code: "CODE_ERROR", message: "ReferenceError: could not load module 'fs'" });
    });

    it("stops an endless loop with CODE_TIMEOUT, keeping what it printed", async () => {
      const result = await js("function main() { console.log('before'); while (true) {} }", [], loopLimits);
      expect(failed(result)).toMatchObject({ code: "CODE_TIMEOUT", logs: ["before"] });
    });

    it("stops a memory bomb with CODE_MEMORY", async () => {
      const result = await js("function main() { const a = []; while (true) a.push('x'.repeat(1000) + a.length); }");
      expect(failed(result).code).toBe("CODE_MEMORY");
    });

    it("cannot pollute the host's prototypes", async () => {
      const result = await js(
        "function main() { Object.prototype.polluted = 1; Array.prototype.push = null; return ({}).polluted; }",
      );
      expect(result).toMatchObject({ ok: true, value: 1 });
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      expect(typeof [].push).toBe("function");
      // Nor the next call's VM.
      expect(await js("function main() { return ({}).polluted === undefined; }")).toMatchObject({
        ok: true,
        value: true,
      });
    });
  });

  it("kills the child when the signal aborts, and does not start one for an aborted signal", async () => {
    const controller = new AbortController();
    // Whenever the abort lands (before or after the loop starts), only the abort can end this call
    // with "cancelled": the loop never ends and its time limit is far away.
    setTimeout(() => controller.abort(), 300);
    const call: SandboxCall = { language: "javascript", code: "function main() { while (true) {} }", args: [] };
    const result = await runInSandbox(call, { timeoutMs: 600_000, memoryMb: 64 }, controller.signal);
    expect(failed(result)).toMatchObject({ code: "CODE_ERROR", message: "cancelled" });
    expect(await runInSandbox(call, limits, AbortSignal.abort())).toEqual({
      ok: false,
      code: "CODE_ERROR",
      message: "cancelled",
      logs: [],
    });
  });
});

describe("sandbox: Python (Pyodide)", () => {
  it("returns main's JSON value and collects print", async () => {
    const result = await py(
      `def main(a, b):
    print("adding", a, b)
    print("no newline", end="")
    return {"sum": a + b, "nested": {"list": [1, "x", None, True, {"deep": [a]}]}, "float": 0.5}
`,
      [2, 3],
    );
    expect(result).toEqual({
      ok: true,
      value: { sum: 5, nested: { list: [1, "x", null, true, { deep: [2] }] }, float: 0.5 },
      logs: ["adding 2 3", "no newline"],
    });
  });

  it("awaits an async main", async () => {
    const result = await py(
      `import asyncio

async def main(x):
    await asyncio.sleep(0.01)
    return [x, "done"]
`,
      [7],
    );
    expect(result).toMatchObject({ ok: true, value: [7, "done"] });
  });

  it("reports an exception with its last traceback line, and a syntax error and a missing main", async () => {
    expect(failed(await py("def main():\n    raise ValueError('boom')\n"))).toMatchObject({
      code: "CODE_ERROR",
      message: "ValueError: boom (line 2)",
    });
    const syntax = failed(await py("def main(:\n    pass\n"));
    expect(syntax.code).toBe("CODE_ERROR");
    expect(syntax.message).toMatch(/^SyntaxError: .* \(line 1\)$/);
    expect(failed(await py("x = 1\n"))).toMatchObject({
      code: "CODE_ERROR",
      message: "The code does not define a function named main.",
    });
  });

  it("never runs two calls in one interpreter (each Python call gets a child of its own)", async () => {
    const code =
      "import builtins\n\ndef main():\n    seen = hasattr(builtins, 'leak')\n    builtins.leak = 1\n    return seen\n";
    expect(await py(code)).toMatchObject({ ok: true, value: false });
    expect(await py(code)).toMatchObject({ ok: true, value: false });
  });

  it("refuses a set as a result with CODE_RESULT_INVALID", async () => {
    const result = failed(await py("def main():\n    return {1, 2}\n"));
    expect(result.code).toBe("CODE_RESULT_INVALID");
    expect(result.message).toContain("Object of type set is not JSON serializable");
  });

  describe("escapes", () => {
    let server: net.Server;
    let port = 0;
    let connections = 0;
    beforeAll(async () => {
      server = net.createServer((socket) => {
        connections += 1;
        socket.end("HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nhi");
      });
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      port = (server.address() as net.AddressInfo).port;
    });
    afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

    // Each check records "open: <value>" or "<ExceptionType>: <message>".
    const probe = `import asyncio, os, socket

async def main(port):
    out = {}

    async def check(name, attempt):
        try:
            value = attempt()
            if hasattr(value, "__await__"):
                value = await value
            out[name] = "open: " + repr(value)[:200]
        except BaseException as exc:
            out[name] = type(exc).__name__ + ": " + str(exc)[:200]

    out["environ"] = dict(os.environ)
    await check("passwd", lambda: open("/etc/passwd").read())

    def js_process():
        import js
        return js.process
    await check("js.process", js_process)

    def mount():
        import pyodide_js
        return pyodide_js.mountNodeFS("/host", "/etc")
    await check("mountNodeFS", mount)
    await check("/host/passwd", lambda: open("/host/passwd").read())

    def function_constructor():
        from pyodide.ffi import to_js
        return to_js([]).constructor.constructor("return process")()
    await check("Function", function_constructor)

    def subprocess_run():
        import subprocess
        return subprocess.run(["id"])
    await check("subprocess", subprocess_run)

    await check("socket", lambda: socket.create_connection(("127.0.0.1", port), timeout=1))

    def urlopen():
        import urllib.request
        return urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=1).read()
    await check("urllib", urlopen)

    def pyfetch():
        from pyodide.http import pyfetch
        return pyfetch(f"http://127.0.0.1:{port}/")
    await check("pyfetch", pyfetch)
    return out
`;

    // The first Python child of a process loads Pyodide from its package and takes the memory
    // snapshot; every later one starts from that snapshot. Both kinds are walled in alike.
    it.each([
      ["the child that takes the snapshot", true],
      ["a child started from the snapshot", false],
    ])("sees no host environment, files, process or network (%s)", async (_kind, first) => {
      // With no child kept ready, the first call after a stop is served by the one child started
      // for it: the one that takes the snapshot. Once there is a snapshot, every child starts from it.
      if (first) await stopSandboxPool();
      else expect(sandboxPoolStats().snapshotFd).not.toBeNull();
      const call: SandboxCall = { language: "python", code: probe, args: [port] };
      const result = await runInSandbox(call, limits, undefined, { warm: first ? 0 : 1 });
      if (!result.ok) throw new Error(`${result.code}: ${result.message}`);
      const out = result.value as Record<string, string> & { environ: Record<string, string> };
      // Environment: the child starts with env {} and Pyodide with its own defaults.
      expect(Object.keys(out.environ)).not.toContain("SUPERSTEP_CANARY");
      expect(Object.values(out.environ)).not.toContain("secret");
      expect(Object.values(out.environ)).not.toContain(process.env.PATH);
      // Files: Pyodide's file system is virtual; the host's /etc is not in it.
      expect(out.passwd).toMatch(/^FileNotFoundError/);
      // `js` is an empty object without a prototype.
      expect(out["js.process"]).toMatch(/^AttributeError/);
      // pyodide_js is a stub without mountNodeFS, so nothing is mounted at /host.
      expect(out.mountNodeFS).toMatch(/^AttributeError: mountNodeFS/);
      expect(out["/host/passwd"]).toMatch(/^FileNotFoundError/);
      // Any JavaScript object leads to Function, which cannot compile code in the child.
      expect(out.Function).toMatch(/^JsException: EvalError: Code generation from strings disallowed/);
      expect(out.subprocess).toMatch(/^OSError/);
      // Network: sockets, urllib and fetch all fail, and the test server saw nobody.
      expect(out.socket).toMatch(/^OSError/);
      expect(out.urllib).toMatch(/^URLError/);
      expect(out.pyfetch).toMatch(/^NameError/);
      expect(connections).toBe(0);
    });

    it("cannot start a host process through os.system", async () => {
      const marker = join(tmpdir(), `superstep-sandbox-${process.pid}`);
      const result = failed(await py(`import os\n\ndef main():\n    return os.system("touch ${marker}")\n`));
      expect(result.code).toBe("CODE_ERROR");
      expect(result.message).toMatch(/node:child_process|restricted/);
      expect(existsSync(marker)).toBe(false);
    });

    it("stops an endless loop with CODE_TIMEOUT, keeping what it printed", async () => {
      // Loading Pyodide (~1.4 s) is not counted in the timeout.
      const result = await py("def main():\n    print('before')\n    while True:\n        pass\n", [], loopLimits);
      // The child is killed mid-loop: only lines streamed before the kill are there.
      expect(failed(result)).toMatchObject({ code: "CODE_TIMEOUT", logs: ["before"] });
    });

    // The WebAssembly memory cap makes CPython's allocations fail: the code sees MemoryError,
    // which the sandbox reports as CODE_MEMORY (not CODE_ERROR).
    it("stops a memory bomb with CODE_MEMORY", async () => {
      const result = await py("def main():\n    x = []\n    while True:\n        x.append(' ' * 1_000_000)\n");
      expect(failed(result)).toMatchObject({ code: "CODE_MEMORY", message: "The code used more than 64 MB." });
    });

    // Pyodide's in-memory files live outside the WebAssembly heap; the resident-memory watchdog
    // (Linux only) stops them.
    it.runIf(process.platform === "linux")("stops a file-system memory bomb with CODE_MEMORY", async () => {
      const result = await py(`def main():
    chunk = b"x" * (8 * 1024 * 1024)
    for i in range(1000):
        with open(f"/tmp/f{i}", "wb") as f:
            f.write(chunk)
`);
      expect(failed(result).code).toBe("CODE_MEMORY");
    });
  });
});
