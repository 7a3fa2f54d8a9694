// The whole test suite: build, then every vitest suite (backend on SQLite and PostgreSQL, then
// the browser tests), each with a JSON report, then the sandbox runner's pytest suite with a JUnit
// report; ends with one line "N passed, N failed".
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { readJunit, vitestSummary } from "./test-report.mjs";

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
  const summary = vitestSummary(result, status, output, root);
  const { ok, bad } = summary;
  failures.push(...summary.failures);
  // Errors outside the tests fail the run with none failed: say what they were.
  for (const errors of summary.errors) failures.push(`${suite.name}: ${errors}`);
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

if (failures.length > 0) console.log(`\nFailed:\n${failures.map((f) => `- ${f}`).join("\n")}`);
console.log(`\n${lines.join("\n")}`);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed > 0 ? 1 : 0);
