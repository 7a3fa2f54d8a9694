// Entry of the sandbox child process (plain JavaScript: it runs without compilation, from src/
// under the tests and from dist/ in production). The parent starts one child per call as
// `node <walls> sandbox-child.mjs <language> <runtime modules as JSON>` with an empty
// environment. The child loads its runtime, locks itself down, then reads one JSON request
// from stdin (a spare child waits here, loaded) and writes newline-delimited JSON to stdout:
//   {"type":"started"}                       the user code starts now (the timeout starts here)
//   {"type":"log","line":"…"}                one line the code printed (within the log budget)
//   {"type":"result","ok":true}              followed by one line: main's result as JSON text
//   {"type":"result","ok":false,"code":"…","message":"…"}
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

function send(message, then) {
  stdout.write(`${JSON.stringify(message)}\n`, then);
}

let finished = false;
function finish(outcome) {
  if (finished) return;
  finished = true;
  const exit = () => process.exit(0);
  if (outcome.ok) stdout.write(`${JSON.stringify({ type: "result", ok: true })}\n${outcome.json}\n`, exit);
  else send({ type: "result", ok: false, code: outcome.code, message: outcome.message }, exit);
}

async function readRequest() {
  const chunks = [];
  for await (const chunk of process.stdin) chunks.push(chunk);
  // stdin closed without a request: the parent no longer needs this (spare) child, or is gone.
  if (chunks.length === 0) process.exit(0);
  return JSON.parse(Buffer.concat(chunks).toString("utf8"));
}

async function main() {
  const [language, runtimeJson] = process.argv.slice(2);
  const logs = new LogBuffer();
  const log = (line) => {
    const kept = logs.add(line);
    if (kept !== null) send({ type: "log", line: kept });
  };
  const load =
    language === "python"
      ? (await import("./pyodide-runner.mjs")).loadPython
      : (await import("./quickjs-runner.mjs")).loadJavaScript;
  const prepare = await load(JSON.parse(runtimeJson), log);
  lockDown();
  const run = prepare(await readRequest());
  send({ type: "started" });
  finish(await run());
}

// Anything unexpected is reported as the code's failure with its first line only: host stacks
// stay in this process (stderr, which the parent does not pass on).
const crash = (error) => {
  toStderr(error?.stack ?? error);
  const firstLine = String(error?.message ?? error).split("\n")[0] || "The sandbox failed.";
  finish({ ok: false, code: "CODE_ERROR", message: firstLine });
};
process.on("uncaughtException", crash);
process.on("unhandledRejection", crash);
main().catch(crash);
