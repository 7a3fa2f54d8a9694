// The bench scripts' command lines (bench/bench-args.mjs): `--help` prints the usage, and a
// mistyped option, a malformed value or an unreadable file stops the script with exit status 2,
// what was wrong and the usage, before it starts anything (a studio, a database, a browser).
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

const BENCH = fileURLToPath(new URL("../../bench/", import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), "bench-args-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function bench(script: string, ...args: string[]) {
  const result = spawnSync(process.execPath, [join(BENCH, script), ...args], {
    encoding: "utf8",
    // Past this the script has started its work: the test fails on the status below.
    timeout: 60_000,
    env: { ...process.env, DATABASE_URL: "" },
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe("bench scripts' command lines", () => {
  it.each([
    ["throughput.mjs", "node bench/throughput.mjs [options]"],
    ["run-path-profile.mjs", "node bench/run-path-profile.mjs [options]"],
    ["run-latency.mjs", "node bench/run-latency.mjs [--runs 600]"],
    ["cpu-profile-summary.mjs", "usage: node bench/cpu-profile-summary.mjs FILE.cpuprofile"],
    ["heap-diff.mjs", "node bench/heap-diff.mjs counts"],
  ])("%s --help prints its usage and exits with 0", (script, usage) => {
    const run = bench(script, "--help");
    expect(run.status).toBe(0);
    expect(run.stdout).toContain(usage);
    expect(run.stderr).toBe("");
  });

  it.each([
    ["throughput.mjs", ["--rounds", "2", "--bogus"], "Unknown option '--bogus'"],
    ["throughput.mjs", ["--runs", "many"], "--runs must be a whole number of at least 0, not 'many'"],
    ["throughput.mjs", ["--graphs", "hello,loop"], "--graphs takes some of hello, chain10, fanout8"],
    ["run-path-profile.mjs", ["--inflight", "0"], "--inflight must be a whole number of at least 1, not '0'"],
    ["run-path-profile.mjs", ["--graphs", "chain11"], "--graphs: no graph 'chain11'"],
    ["run-path-profile.mjs", ["--runs"], "Option '--runs <value>' argument missing"],
    ["run-latency.mjs", ["--in-flight", "20"], "Unknown option '--in-flight'"],
    ["memory.mjs", ["--waiting", "2.5"], "--waiting must be a whole number of at least 0, not '2.5'"],
    ["sandbox.mjs", ["20", "30"], "unexpected argument '30'"],
    ["editor.mjs", ["--until", "zoom"], "--until: no step 'zoom' (pan, drag, paste, layout)"],
    ["heap-diff.mjs", ["paths", "one.heapsnapshot"], "paths: wrong number of arguments"],
    ["heap-diff.mjs", ["diff"], "no command 'diff'"],
  ])("%s %j stops with status 2 and says why", (script, args, message) => {
    const run = bench(script, ...args);
    expect(run.status).toBe(2);
    expect(run.stderr).toContain(message);
    // The usage follows what was wrong; nothing was printed as a result.
    expect(run.stderr.split("\n").length).toBeGreaterThan(1);
    expect(run.stdout).toBe("");
  });

  it("refuses a file it cannot read, and a file that is not a profile of its kind", () => {
    const missing = bench("cpu-profile-summary.mjs", join(scratch, "gone.cpuprofile"));
    expect(missing.status).toBe(2);
    expect(missing.stderr).toContain(`cannot read ${join(scratch, "gone.cpuprofile")}: ENOENT`);

    const heap = join(scratch, "alloc.heapprofile");
    writeFileSync(heap, JSON.stringify({ head: { callFrame: {}, selfSize: 0, children: [] } }));
    const wrongKind = bench("cpu-profile-summary.mjs", heap);
    expect(wrongKind.status).toBe(2);
    expect(wrongKind.stderr).toContain(`${heap} is not a CPU profile`);

    const text = join(scratch, "notes.txt");
    writeFileSync(text, "not JSON");
    const notJson = bench("heap-profile-summary.mjs", text);
    expect(notJson.status).toBe(2);
    expect(notJson.stderr).toContain(`cannot read ${text}:`);
  });

  it("still summarises a real profile with the rows it is asked for", () => {
    const file = join(scratch, "tiny.cpuprofile");
    writeFileSync(
      file,
      JSON.stringify({
        nodes: [
          { id: 1, callFrame: { functionName: "(root)", url: "", lineNumber: -1 }, children: [2] },
          { id: 2, callFrame: { functionName: "work", url: "file:///app/work.js", lineNumber: 3 } },
        ],
        startTime: 0,
        endTime: 3000,
        samples: [2, 2, 2],
        timeDeltas: [1000, 1000, 1000],
      }),
    );
    const run = bench("cpu-profile-summary.mjs", file, "5");
    expect(run.status).toBe(0);
    expect(run.stdout).toContain("work");
  });
});
