// Runs the built `superstep` command as a separate process, the way a user starts it. Every
// process started here is tracked until it exits: `reapStudioProcesses()` (call it in afterEach
// or afterAll) kills the ones still alive, and so does the test worker's own exit, so a failed
// test never leaves a studio behind.
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

export const SUPERSTEP_BIN = fileURLToPath(new URL("../bin/superstep.js", import.meta.url));
const BUILT_ENTRY = fileURLToPath(new URL("../dist/cli/main.js", import.meta.url));
// Starting is CPU-bound (Node, migrations); on a machine that is busy with other work it can take
// many times its usual second, and only a start that never happens should fail a test.
const START_TIMEOUT_MS = 90_000;

export interface StudioProcess {
  url: string;
  child: ChildProcess;
  output(): string;
  /** Resolves once the output (stdout and stderr together) satisfies `test`; rejects if the process exits first. */
  untilOutput(what: string, test: (output: string) => boolean): Promise<string>;
  /** SIGTERM, then the exit code. */
  stop(): Promise<number | null>;
  /** SIGKILL, resolved once the process has exited. */
  kill(): Promise<void>;
  /** The exit code once the process has exited (null after a signal). */
  exited: Promise<number | null>;
}

const live = new Set<ChildProcess>();

function track(child: ChildProcess): Promise<number | null> {
  live.add(child);
  return new Promise((resolve) =>
    child.once("exit", (code) => {
      live.delete(child);
      resolve(code);
    }),
  );
}

// Last resort: a test worker that exits (even after a failure) takes its studios with it.
process.once("exit", () => {
  for (const child of live) child.kill("SIGKILL");
});

/** Kills every studio process started by this test file that is still alive, and waits for their exit. */
export async function reapStudioProcesses(): Promise<void> {
  await Promise.all(
    [...live].map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          child.once("exit", () => resolve());
          child.kill("SIGKILL");
        }),
    ),
  );
}

export function assertBuilt(): void {
  if (!existsSync(BUILT_ENTRY)) throw new Error("the backend is not built: run `npm run build` first");
}

function processEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env = { ...process.env };
  // Only what the test passes: never a database or Redis of the surrounding environment.
  delete env.DATABASE_URL;
  delete env.REDIS_URL;
  return { ...env, STUDIO_LOG_LEVEL: "info", ...extra };
}

export function runSuperstep(args: string[], extra: Record<string, string>) {
  return spawnSync(process.execPath, [SUPERSTEP_BIN, ...args], {
    env: processEnv(extra),
    encoding: "utf8",
    timeout: START_TIMEOUT_MS,
    killSignal: "SIGKILL",
  });
}

/** Starts `superstep start` and resolves once it logs the address it listens on. */
export function startStudioProcess(extra: Record<string, string>): Promise<StudioProcess> {
  return startProcess("start", { STUDIO_PORT: "0", ...extra }, /running on (http:\/\/localhost:\d+)/);
}

/**
 * Starts `superstep worker` and resolves once it logs its liveness address; `url` is that address
 * (its `/health` answers there).
 */
export function startWorkerProcess(extra: Record<string, string>): Promise<StudioProcess> {
  return startProcess(
    "worker",
    { STUDIO_WORKER_HEALTH_PORT: "0", ...extra },
    /liveness on (http:\/\/[\d.]+:\d+)\/health/,
  );
}

function startProcess(command: string, env: Record<string, string>, ready: RegExp): Promise<StudioProcess> {
  const child = spawn(process.execPath, [SUPERSTEP_BIN, command], { env: processEnv(env) });
  const exited = track(child);
  let output = "";
  const watchers = new Set<() => void>();
  const untilOutput = (what: string, test: (text: string) => boolean) =>
    new Promise<string>((resolve, reject) => {
      const check = () => {
        if (!test(output)) return false;
        watchers.delete(check);
        resolve(output);
        return true;
      };
      if (check()) return;
      watchers.add(check);
      void exited.then(() => {
        if (watchers.delete(check)) reject(new Error(`the studio exited before ${what}:\n${output}`));
      });
    });
  const onData = (chunk: Buffer) => {
    output += chunk.toString();
    for (const check of [...watchers]) check();
  };
  child.stdout.on("data", onData);
  child.stderr.on("data", onData);

  const studio = (url: string): StudioProcess => ({
    url,
    child,
    output: () => output,
    untilOutput,
    exited,
    stop: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      return exited;
    },
    kill: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
      await exited;
    },
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`superstep ${command} did not start within ${START_TIMEOUT_MS / 1000} s:\n${output}`));
    }, START_TIMEOUT_MS);
    untilOutput("it listened", (text) => ready.test(text)).then(
      (text) => {
        clearTimeout(timer);
        resolve(studio(ready.exec(text)?.[1] as string));
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}
