// Entry of the sandbox child process (plain JavaScript: it runs without compilation, from src/
// under the tests and from dist/ in production). The parent starts it as
// `node <walls> sandbox-child.mjs <language> <runtime modules as JSON> <start as JSON>` with an
// empty environment. The child loads its runtime, locks itself down, says it is ready, then reads
// requests from stdin, one JSON line each, and writes newline-delimited JSON to stdout:
//   {"type":"snapshot","bytes":N}            then N raw bytes: a Pyodide memory snapshot (only
//                                            when start.makeSnapshot; before "ready"; N = 0 when
//                                            no snapshot could be taken)
//   {"type":"ready"}                         loaded and locked down: waiting for a request
//   {"type":"started"}                       the user code starts now (the timeout starts here)
//   {"type":"log","line":"…"}                one line the code printed (within the log budget)
//   {"type":"result","ok":true}              followed by one line: main's result as JSON text
//   {"type":"result","ok":false,"code":"…","message":"…"}
// A Python child exits after its call unless the request says `keep` (the parent may send it
// another call of the same scope, which runs in a fresh namespace of the same interpreter). A
// JavaScript child waits for the next request: each call runs in a fresh QuickJS instance, and
// this side keeps nothing of a call once it has answered.
// The result's JSON text is produced inside the VM and passed through untouched: parsing and
// re-serialising it here would only double the memory a large result takes. The parent parses
// and validates it.

import { lockDown } from "./child-lockdown.mjs";
import { LogBuffer } from "./log-buffer.mjs";

// Keep the real stdout writer and route the host's console to stderr: runtimes print diagnostics
// with console.*, and stdout carries only protocol messages.
const stdout = process.stdout;
const toStderr = (...values) => process.stderr.write(`${values.map(String).join(" ")}\n`);
for (const name of ["log", "info", "warn", "error", "debug"]) console[name] = toStderr;

function write(text) {
  return new Promise((resolve) => stdout.write(text, () => resolve()));
}

const send = (message) => write(`${JSON.stringify(message)}\n`);

function resultText(outcome) {
  return outcome.ok
    ? `${JSON.stringify({ type: "result", ok: true })}\n${outcome.json}\n`
    : `${JSON.stringify({ type: "result", ok: false, code: outcome.code, message: outcome.message })}\n`;
}

/** Request lines from stdin; ends when the parent closes it (it no longer needs this child). */
async function* requests() {
  process.stdin.setEncoding("utf8");
  let buffered = "";
  for await (const chunk of process.stdin) {
    buffered += chunk;
    for (let newline = buffered.indexOf("\n"); newline !== -1; newline = buffered.indexOf("\n")) {
      const line = buffered.slice(0, newline);
      buffered = buffered.slice(newline + 1);
      if (line.length > 0) yield line;
    }
  }
}

// Set while a call runs: an unexpected failure then answers that call before the child exits.
let inCall = false;

async function main() {
  const [language, runtimeJson, startJson] = process.argv.slice(2);
  const runtimeModules = JSON.parse(runtimeJson);
  const start = JSON.parse(startJson ?? "{}");
  const runtime =
    language === "python"
      ? await (await import("./pyodide-runner.mjs")).loadPython(runtimeModules, start)
      : await (await import("./quickjs-runner.mjs")).loadJavaScript(runtimeModules);
  if (start.makeSnapshot) {
    const bytes = runtime.snapshot ?? new Uint8Array(0);
    await send({ type: "snapshot", bytes: bytes.byteLength });
    if (bytes.byteLength > 0) await write(bytes);
    runtime.snapshot = undefined;
  }
  lockDown(runtime.lockDown);
  await send({ type: "ready" });

  // Work the runtime does while the child waits (warming up), one step at a time, yielding to
  // stdin between steps; a request waits for the step in progress only.
  let idleWork = Promise.resolve();
  const whileIdle = () => {
    if (!runtime.idle) return;
    idleWork = (async () => {
      while (!inCall && (await runtime.idle())) await new Promise((resolve) => setImmediate(resolve));
    })();
  };
  whileIdle();

  for await (const line of requests()) {
    inCall = true;
    await idleWork;
    const request = JSON.parse(line);
    const logs = new LogBuffer();
    const log = (text) => {
      const kept = logs.add(text);
      if (kept !== null) void send({ type: "log", line: kept });
    };
    const run = await runtime.prepare(request, log);
    await send({ type: "started" });
    const outcome = await run();
    await write(resultText(outcome));
    inCall = false;
    if (language === "python" && request.keep !== true) process.exit(0);
    runtime.afterCall?.();
    whileIdle();
  }
  process.exit(0);
}

// Anything unexpected is reported as the running call's failure with its first line only (host
// stacks stay in this process: stderr, which the parent does not pass on), and the child exits.
const crash = (error) => {
  toStderr(error?.stack ?? error);
  if (!inCall) process.exit(1);
  inCall = false;
  const firstLine = String(error?.message ?? error).split("\n")[0] || "The sandbox failed.";
  stdout.write(resultText({ ok: false, code: "CODE_ERROR", message: firstLine }), () => process.exit(1));
};
process.on("uncaughtException", crash);
process.on("unhandledRejection", crash);
main().catch(crash);
