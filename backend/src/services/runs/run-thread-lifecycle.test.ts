// A run thread's own start and end, with real threads: one that cannot start (its module throws,
// or its database cannot be opened or reached) rejects the turns handed to it with an error that
// says so and counts one background failure per attempt, never hangs; one that does not stop
// within its close timeout is terminated (and counted); one that stops in time is not; and each
// thread gets the process's counter of SQLite lock releases.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Config, loadConfig } from "../../core/config.js";
import { createLogger } from "../../core/logging.js";
import { lockReleases } from "../../repositories/sqlite-busy-wait.js";
import { BackgroundMonitor } from "../background-monitor.js";
import { MemoryRunBus } from "./run-bus.js";
import { RunThread } from "./run-thread.js";

/** A loopback port nothing listens on (it was free a moment ago). */
function closedPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.on("error", reject);
  });
}

describe("run thread start and close", () => {
  let dir: string;
  let config: Config;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "superstep-run-thread-"));
    config = loadConfig({ STUDIO_DATA_DIR: join(dir, "data"), STUDIO_LOG_LEVEL: "silent" });
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** A thread module written for the test, as a file URL. */
  const moduleOf = (name: string, source: string) => {
    const file = join(dir, name);
    writeFileSync(file, source);
    return pathToFileURL(file).href;
  };
  const threadOf = (options: { config?: Config; entry?: string; closeTimeoutMs?: number } = {}) => {
    const monitor = new BackgroundMonitor(createLogger("silent"));
    const thread = new RunThread({
      config: options.config ?? config,
      bus: new MemoryRunBus(),
      monitor,
      onEnded: () => {},
      ...(options.entry ? { entry: options.entry } : {}),
      ...(options.closeTimeoutMs ? { closeTimeoutMs: options.closeTimeoutMs } : {}),
    });
    return { thread, monitor };
  };

  /** Every turn handed to a thread that cannot start is rejected, saying so, and each attempt is counted. */
  async function expectStartFailure(thread: RunThread, monitor: BackgroundMonitor, reason: RegExp) {
    const turns = [thread.execute("run-a"), thread.execute("run-b")];
    for (const turn of turns) {
      const error = await turn.then(
        () => null,
        (e: unknown) => e as Error,
      );
      expect(error?.name).toBe("RunThreadStartError");
      expect(error?.message).toMatch(/^the run thread could not start \(/);
      expect(error?.message).toMatch(reason);
    }
    expect(thread.executing()).toBe(0);
    expect(thread.threadId()).toBeNull();
    expect(monitor.view()).toMatchObject({ failures: 1, last_failure_task: "run" });
    // The next turn tries a new thread, which fails the same way: counted again.
    await expect(thread.execute("run-c")).rejects.toThrow(reason);
    expect(monitor.view().failures).toBe(2);
    await thread.close();
  }

  it("rejects its turns when its module throws as it loads", async () => {
    const entry = moduleOf("throws.mjs", 'throw new Error("the thread module is broken on purpose");\n');
    const { thread, monitor } = threadOf({ entry });
    await expectStartFailure(thread, monitor, /broken on purpose/);
  });

  it("rejects its turns when its SQLite database cannot be opened", async () => {
    // The data directory would have to be created inside a regular file.
    const file = join(dir, "not-a-directory");
    writeFileSync(file, "");
    const { thread, monitor } = threadOf({
      config: loadConfig({ STUDIO_DATA_DIR: join(file, "data"), STUDIO_LOG_LEVEL: "silent" }),
    });
    await expectStartFailure(thread, monitor, /ENOTDIR/);
  });

  it("rejects its turns when its PostgreSQL server cannot be reached", async () => {
    const port = await closedPort();
    const { thread, monitor } = threadOf({
      config: loadConfig({
        STUDIO_DATA_DIR: join(dir, "pg-data"),
        STUDIO_LOG_LEVEL: "silent",
        DATABASE_URL: `postgres://nobody:nothing@127.0.0.1:${port}/superstep`,
      }),
    });
    await expectStartFailure(thread, monitor, /ECONNREFUSED/);
  });

  it("terminates a thread that does not stop within its close timeout, and counts it", async () => {
    // Ready, then deaf to every message: it would never stop by itself (its port keeps it alive).
    const entry = moduleOf(
      "never-stops.mjs",
      [
        'import { parentPort } from "node:worker_threads";',
        'parentPort.on("message", () => {});',
        'parentPort.postMessage({ type: "ready" });',
      ].join("\n"),
    );
    const { thread, monitor } = threadOf({ entry, closeTimeoutMs: 200 });
    // A turn it will never end: close() must not wait for it.
    const turn = thread.execute("run-held").then(
      () => null,
      (e: unknown) => e as Error,
    );
    await thread.close();
    expect(thread.threadId()).toBeNull();
    expect(monitor.view()).toMatchObject({ failures: 1, last_failure_task: "run" });
    // The turn it held is rejected as a thread that ended mid-turn (its run goes on after its lease).
    expect((await turn)?.message).toMatch(/^the run thread ended \(exit code 1\) during a turn/);
  });

  it("hands the thread the counter the process's SQLite connections move when they let go of the write lock", async () => {
    // Moves the counter it was handed once per turn, as its connection would on a commit.
    const entry = moduleOf(
      "releases.mjs",
      [
        'import { parentPort, workerData } from "node:worker_threads";',
        "const releases = new Int32Array(workerData.lockReleases);",
        'parentPort.on("message", (message) => {',
        '  if (message.type === "execute") {',
        "    Atomics.add(releases, 0, 1);",
        '    parentPort.postMessage({ type: "done", runId: message.runId, turn: message.turn });',
        "  }",
        '  if (message.type === "close") { parentPort.postMessage({ type: "closed" }); parentPort.close(); }',
        "});",
        'parentPort.postMessage({ type: "ready" });',
      ].join("\n"),
    );
    const { thread } = threadOf({ entry });
    const releases = new Int32Array(lockReleases());
    const before = Atomics.load(releases, 0);
    await thread.execute("run-a");
    expect(Atomics.load(releases, 0)).toBe(before + 1);
    await thread.close();
  });

  it("does not terminate or count a thread that stops within its close timeout", async () => {
    const entry = moduleOf(
      "stops.mjs",
      [
        'import { parentPort } from "node:worker_threads";',
        'parentPort.on("message", (message) => {',
        '  if (message.type === "close") { parentPort.postMessage({ type: "closed" }); parentPort.close(); }',
        "});",
        'parentPort.postMessage({ type: "ready" });',
      ].join("\n"),
    );
    // A minute: the close ends long before, so the timeout never fires.
    const { thread, monitor } = threadOf({ entry, closeTimeoutMs: 60_000 });
    // The thread starts with its first turn (which this module never ends: close() ends it).
    const turn = thread.execute("run-x").then(
      () => null,
      (e: unknown) => e as Error,
    );
    await thread.close();
    expect(thread.threadId()).toBeNull();
    expect(monitor.view().failures).toBe(0);
    expect((await turn)?.message).toMatch(/^the run thread ended \(exit code 0\) during a turn/);
  });
});
