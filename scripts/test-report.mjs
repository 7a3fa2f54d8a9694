// How test-all.mjs reads a suite's results: vitest's JSON report and what it printed, or a pytest
// JUnit report, into counts and the failures to name again beside the totals.
import { existsSync, readFileSync } from "node:fs";

// What vitest printed outside its report: its "Failed Suites" block (a hook such as beforeAll
// that threw: the file's tests are skipped, none failed) and its "Unhandled Errors" block (an
// error no test owned: every test may pass). Colours, code frames and boilerplate removed, at
// most `limit` lines each: the error, where it was thrown, and which file and test it came from.
export function errorsOutsideTests(output, limit = 10) {
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
          !/^❯ .*node_modules\//.test(line) &&
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

// A vitest suite's counts and failures from its JSON report (null when it wrote none), its exit
// status and its output. A suite that crashed or could not start its services counts as a failure
// even with no test failed; paths are named relative to `root`.
export function vitestSummary(result, status, output, root) {
  const ok = result?.numPassedTests ?? 0;
  let bad = result?.numFailedTests ?? 0;
  if (status !== 0 && bad === 0) bad = 1;
  if (ok + bad === 0) bad = 1;
  const failures = [];
  for (const file of result?.testResults ?? []) {
    const relative = file.name.startsWith(root) ? file.name.slice(root.length) : file.name;
    const tests = file.assertionResults ?? [];
    for (const test of tests) {
      if (test.status !== "failed") continue;
      failures.push(`${relative} > ${test.fullName}\n    ${firstLine(test.failureMessages?.[0])}`);
    }
    // A file that failed with no test failed: it did not load, or a hook of it threw (its tests
    // are then skipped); what the hook threw is in the output.
    if (file.status === "failed" && !tests.some((test) => test.status === "failed")) {
      const skipped = tests.filter((test) => test.status === "skipped" || test.status === "pending").length;
      const why = file.message ? firstLine(file.message) : "failed outside its tests";
      failures.push(`${relative}\n    ${why}${skipped > 0 ? ` (${skipped} skipped)` : ""}`);
    }
  }
  return { ok, bad, failures, errors: status !== 0 ? errorsOutsideTests(output) : [] };
}

// Counts of a pytest JUnit XML report, and the failed tests by name with their first line.
export function readJunit(path) {
  if (!existsSync(path)) return { ok: 0, bad: 0, failed: [] };
  return junitSummary(readFileSync(path, "utf8"));
}

// The same from the XML text.
export function junitSummary(xml) {
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
