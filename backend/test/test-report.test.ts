// The summary that `npm test` ends with, read from real vitest runs on small fixture files: a run
// whose failure is outside any test (a beforeAll that threw, an error no test owned) must still
// count as failed and say what broke.
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { junitSummary, readJunit, vitestSummary } from "../../scripts/test-report.mjs";

const VITEST = fileURLToPath(new URL("../../node_modules/.bin/vitest", import.meta.url));

const FIXTURES: Record<string, string> = {
  "hook-throws.test.ts": `import { beforeAll, expect, test } from "vitest";
beforeAll(() => { throw new Error("the service did not start"); });
test("first", () => expect(1).toBe(1));
test("second", () => expect(2).toBe(2));
`,
  "late-error.test.ts": `import { expect, test } from "vitest";
test("passes, and leaves a rejection no one handles", () => {
  void Promise.reject(new Error("rejected after the test"));
  expect(true).toBe(true);
});
`,
  "fails.test.ts": `import { expect, test } from "vitest";
test("adds", () => expect(1 + 1).toBe(3));
`,
  "passes.test.ts": `import { expect, test } from "vitest";
test("passes", () => expect(1).toBe(1));
`,
};

let dir = "";
let reports = 0;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "superstep-test-report-"));
  for (const [name, text] of Object.entries(FIXTURES)) writeFileSync(join(dir, name), text);
});

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

// Runs vitest as test-all.mjs does (default and JSON reporters) on some of the fixtures.
function runVitest(files: string[]): Promise<{ status: number; output: string; report: unknown }> {
  const reportPath = join(dir, `report-${++reports}.json`);
  // The inner vitest must not take this run's worker variables for its own; colours on, as in CI logs.
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith("VITEST")));
  const args = ["run", "--root", dir, "--reporter=default", "--reporter=json", `--outputFile.json=${reportPath}`];
  const child = spawn(VITEST, [...args, ...files], { cwd: dir, env: { ...env, FORCE_COLOR: "1" } });
  const kept: Buffer[] = [];
  child.stdout.on("data", (chunk: Buffer) => kept.push(chunk));
  child.stderr.on("data", (chunk: Buffer) => kept.push(chunk));
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) =>
      resolve({
        status: code ?? 1,
        output: Buffer.concat(kept).toString("utf8"),
        report: JSON.parse(readFileSync(reportPath, "utf8")),
      }),
    );
  });
}

describe("the vitest summary", () => {
  it("names a file whose beforeAll threw, a failed test and an error no test owned", async () => {
    const { status, output, report } = await runVitest(Object.keys(FIXTURES));
    expect(status).toBe(1);
    const summary = vitestSummary(report, status, output, `${dir}/`);
    expect(summary.ok).toBe(2);
    expect(summary.bad).toBe(1);
    expect(summary.failures).toContain("hook-throws.test.ts\n    the service did not start (2 skipped)");
    expect(summary.failures).toContainEqual(expect.stringMatching(/^fails\.test\.ts > adds\n {4}AssertionError: .*3/));
    expect(summary.failures).toHaveLength(2);
    const suites = summary.errors.find((block) => block.startsWith("Failed Suites:"));
    expect(suites).toContain("Error: the service did not start");
    expect(suites).toContain("hook-throws.test.ts");
    const unhandled = summary.errors.find((block) => block.startsWith("Unhandled Errors:"));
    expect(unhandled).toContain("Error: rejected after the test");
    expect(unhandled).toContain("late-error.test.ts:3");
    // Stack frames inside vitest itself say nothing about what broke.
    expect(unhandled).not.toContain("node_modules");
    // Colours, code frames and vitest's boilerplate are left out.
    // biome-ignore lint/suspicious/noControlCharactersInRegex: ANSI colour codes
    expect(summary.errors.join("\n")).not.toMatch(/\x1b\[|^\s*\d*\s*\||Vitest caught/m);
  });

  it("counts a run whose every test passed as failed when an error no test owned ended it", async () => {
    const { status, output, report } = await runVitest(["late-error.test.ts", "passes.test.ts"]);
    expect(status).toBe(1);
    const summary = vitestSummary(report, status, output, `${dir}/`);
    expect(summary).toMatchObject({ ok: 2, bad: 1, failures: [] });
    expect(summary.errors).toHaveLength(1);
    expect(summary.errors[0]).toMatch(/^Unhandled Errors:[\s\S]*rejected after the test/);
  });

  it("counts a clean run as it is, with nothing to name", async () => {
    const { status, output, report } = await runVitest(["passes.test.ts"]);
    expect(status).toBe(0);
    expect(vitestSummary(report, status, output, `${dir}/`)).toEqual({ ok: 1, bad: 0, failures: [], errors: [] });
  });

  it("counts a suite that wrote no report as failed", () => {
    expect(vitestSummary(null, 1, "", "/")).toEqual({ ok: 0, bad: 1, failures: [], errors: [] });
    // A suite that ran no test at all fails even when its exit status says it did not.
    expect(vitestSummary({ numPassedTests: 0, numFailedTests: 0, testResults: [] }, 0, "", "/").bad).toBe(1);
  });
});

describe("the pytest summary", () => {
  it("counts nothing when pytest wrote no report", () => {
    expect(readJunit(join(dir, "no-such-report.xml"))).toEqual({ ok: 0, bad: 0, failed: [] });
  });

  it("counts passed, failed and skipped tests and names the failures", () => {
    const xml = `<?xml version="1.0" encoding="utf-8"?><testsuites><testsuite name="pytest" errors="1" failures="1" skipped="1" tests="5">
<testcase classname="runner_test.test_stream" name="test_ok" time="0.1" />
<testcase classname="runner_test.test_stream" name="test_order" time="0.1"><failure message="assert [1, 2] == [2, 1]&#10;more">trace</failure></testcase>
<testcase classname="runner_test.test_io" name="test_open" time="0.1"><error message="OSError: &quot;x&quot; &lt;gone&gt; &amp; more">trace</error></testcase>
<testcase classname="runner_test.test_io" name="test_skip" time="0.1"><skipped message="no docker" /></testcase>
<testcase classname="runner_test.test_io" name="test_ok2" time="0.1" />
</testsuite></testsuites>`;
    expect(junitSummary(xml)).toEqual({
      ok: 2,
      bad: 2,
      failed: [
        "runner_test.test_stream > test_order\n    assert [1, 2] == [2, 1]",
        'runner_test.test_io > test_open\n    OSError: "x" <gone> & more',
      ],
    });
  });
});
