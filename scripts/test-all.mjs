// The whole test suite: build, then every vitest suite (backend on SQLite and PostgreSQL, then
// the browser tests), each with a JSON report, then the sandbox runner's pytest suite with a JUnit
// report; ends with one line "N passed, N failed".
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const reports = `${root}test-results/`;
mkdirSync(reports, { recursive: true });

function run(command, args, cwd = root) {
  const result = spawnSync(command, args, { cwd, stdio: "inherit", env: process.env });
  return result.status ?? 1;
}

if (run("npm", ["run", "build"]) !== 0) {
  console.log("\nThe build failed.\n0 passed, 1 failed");
  process.exit(1);
}

const suites = [
  { name: "backend (sqlite + postgres)", cwd: `${root}backend`, args: [] },
  { name: "frontend (unit)", cwd: `${root}frontend`, args: [] },
  { name: "browser (e2e)", cwd: root, args: ["--config", "e2e/vitest.config.ts"] },
];

// Runs a suite with its output passed through and kept, so that what vitest prints outside its
// report (an unhandled error, a worker that died) can be named again at the end.
function runKept(command, args, cwd) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd, stdio: ["inherit", "pipe", "pipe"], env: process.env });
    const kept = [];
    child.stdout.on("data", (chunk) => {
      process.stdout.write(chunk);
      kept.push(chunk);
    });
    child.stderr.on("data", (chunk) => {
      process.stderr.write(chunk);
      kept.push(chunk);
    });
    child.on("close", (code) => resolve({ status: code ?? 1, output: Buffer.concat(kept).toString("utf8") }));
  });
}

// What vitest printed outside its report: its "Failed Suites" block (a hook such as beforeAll
// that threw: the file's tests are skipped, none failed) and its "Unhandled Errors" block (an
// error no test owned: every test may pass). Colours, code frames and boilerplate removed, at
// most `limit` lines each: the error, where it was thrown, and which file and test it came from.
function errorsOutsideTests(output, limit = 10) {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: ANSI colour codes
  const plain = output.replace(/\x1b\[[0-9;]*m/g, "");
  const found = [];
  for (const block of ["Failed Suites", "Unhandled Errors"]) {
    const start = plain.indexOf(block);
    if (start < 0) continue;
    // The block ends where vitest's next block or its totals begin.
    const next = /⎯ (Failed Tests|Failed Suites|Unhandled Errors) |\n\s*Test Files /.exec(
      plain.slice(start + block.length),
    );
    const end = next ? start + block.length + next.index : undefined;
    const lines = plain
      .slice(start, end)
      .split("\n")
      .map((line) => line.trim())
      .filter(
        (line) =>
          line &&
          !/^[⎯\s]*(\[\d+\/\d+\]⎯*)?$/.test(line) &&
          !/^\d*\s*\|/.test(line) &&
          !line.includes("node:internal") &&
          !/^(Vitest caught|This might cause|- the error was thrown)\b/.test(line),
      )
      .slice(1, limit + 1);
    if (lines.length > 0) found.push(`${block}:\n    ${lines.join("\n    ")}`);
  }
  return found;
}

function firstLine(message) {
  return String(message ?? "")
    .split("\n")[0]
    .slice(0, 300);
}

let passed = 0;
let failed = 0;
const lines = [];
// Failed tests are named again at the end, beside the totals, so a log cut to its last lines
// still says what broke.
const failures = [];
for (const suite of suites) {
  const report = `${reports}${suite.name.split(" ")[0]}.json`;
  rmSync(report, { force: true });
  const { status, output } = await runKept(
    "npx",
    [
      "--no-install",
      "vitest",
      "run",
      ...suite.args,
      "--reporter=default",
      "--reporter=json",
      `--outputFile.json=${report}`,
    ],
    suite.cwd,
  );
  const result = existsSync(report) ? JSON.parse(readFileSync(report, "utf8")) : null;
  const ok = result?.numPassedTests ?? 0;
  // A suite that crashed or could not start its services counts as a failure even with no test.
  let bad = result?.numFailedTests ?? 0;
  if (status !== 0 && bad === 0) bad = 1;
  if (ok + bad === 0) bad = 1;
  for (const file of result?.testResults ?? []) {
    const relative = file.name.startsWith(root) ? file.name.slice(root.length) : file.name;
    for (const test of file.assertionResults ?? []) {
      if (test.status !== "failed") continue;
      failures.push(`${relative} > ${test.fullName}\n    ${firstLine(test.failureMessages?.[0])}`);
    }
    // A file that failed with no test failed: it did not load, or a hook of it threw (its tests
    // are then skipped); what the hook threw is in the output, below.
    const tests = file.assertionResults ?? [];
    if (file.status === "failed" && !tests.some((test) => test.status === "failed")) {
      const skipped = tests.filter((test) => test.status === "skipped" || test.status === "pending").length;
      const why = file.message ? firstLine(file.message) : `failed outside its tests (${skipped} skipped)`;
      failures.push(`${relative}\n    ${why}`);
    }
  }
  // Errors outside the tests fail the run with none failed: say what they were.
  if (status !== 0) for (const errors of errorsOutsideTests(output)) failures.push(`${suite.name}: ${errors}`);
  passed += ok;
  failed += bad;
  lines.push(`${suite.name}: ${ok} passed, ${bad} failed${status !== 0 ? ` (exit ${status})` : ""}`);
}

// The import sandbox's runner.py is Python: its pytest suite runs in .venv-runner/ (made by
// scripts/python-venv.sh) against the real langgraph. A suite that cannot run counts as a failure.
{
  const name = "runner (pytest)";
  const report = `${reports}runner-pytest.xml`;
  rmSync(report, { force: true });
  let status = run("bash", ["scripts/python-venv.sh"]);
  const python = `${root}.venv-runner/bin/python`;
  if (status === 0 && existsSync(python)) {
    const result = spawnSync(
      python,
      ["-m", "pytest", "backend/src/engine/sandbox/runner_test", "-p", "no:cacheprovider", `--junitxml=${report}`],
      { cwd: root, stdio: "inherit", env: { ...process.env, PYTHONDONTWRITEBYTECODE: "1" } },
    );
    status = result.status ?? 1;
  } else {
    failures.push(`${name}\n    the Python venv for the runner could not be made (scripts/python-venv.sh)`);
  }
  const { ok, bad, failed: names } = readJunit(report);
  let worse = bad;
  if (status !== 0 && worse === 0) worse = 1;
  if (ok + worse === 0) worse = 1;
  failures.push(...names);
  passed += ok;
  failed += worse;
  lines.push(`${name}: ${ok} passed, ${worse} failed${status !== 0 ? ` (exit ${status})` : ""}`);
}

// Counts of a pytest JUnit XML report, and the failed tests by name with their first line.
function readJunit(path) {
  if (!existsSync(path)) return { ok: 0, bad: 0, failed: [] };
  const xml = readFileSync(path, "utf8");
  const attr = (tag, key) => Number(new RegExp(`<testsuite\\b[^>]*\\b${key}="(\\d+)"`).exec(tag)?.[1] ?? 0);
  const total = attr(xml, "tests");
  const bad = attr(xml, "failures") + attr(xml, "errors");
  const skipped = attr(xml, "skipped");
  const failed = [];
  const fromXml = (text) =>
    text
      .replace(/&quot;/g, '"')
      .replace(/&lt;/g, "<")
      .replace(/&gt;/g, ">")
      .replace(/&#10;/g, "\n")
      .replace(/&amp;/g, "&");
  for (const match of xml.matchAll(/<testcase\b([^>]*?)(?:\/>|>([\s\S]*?)<\/testcase>)/g)) {
    const body = match[2] ?? "";
    const problem = /<(failure|error)\b[^>]*?message="([^"]*)"/.exec(body);
    if (!problem) continue;
    const classname = /classname="([^"]*)"/.exec(match[1])?.[1] ?? "";
    const testName = /\bname="([^"]*)"/.exec(match[1])?.[1] ?? "";
    failed.push(`${fromXml(classname)} > ${fromXml(testName)}\n    ${firstLine(fromXml(problem[2]))}`);
  }
  return { ok: Math.max(0, total - bad - skipped), bad, failed };
}

if (failures.length > 0) console.log(`\nFailed:\n${failures.map((f) => `- ${f}`).join("\n")}`);
console.log(`\n${lines.join("\n")}`);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed > 0 ? 1 : 0);
