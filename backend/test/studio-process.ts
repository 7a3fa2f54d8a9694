// Runs the built `superstep` command as a separate process, the way a user starts it.
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

export const SUPERSTEP_BIN = fileURLToPath(new URL("../bin/superstep.js", import.meta.url));
const BUILT_ENTRY = fileURLToPath(new URL("../dist/cli/main.js", import.meta.url));

export interface StudioProcess {
  url: string;
  child: ChildProcess;
  output(): string;
  /** SIGTERM, then the exit code. */
  stop(): Promise<number | null>;
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
    timeout: 30_000,
  });
}

/** Starts `superstep start` and resolves once it logs the address it listens on. */
export function startStudioProcess(extra: Record<string, string>): Promise<StudioProcess> {
  const child = spawn(process.execPath, [SUPERSTEP_BIN, "start"], { env: processEnv({ STUDIO_PORT: "0", ...extra }) });
  let output = "";
  const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`the studio did not start within 20 s:\n${output}`));
    }, 20_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /running on (http:\/\/localhost:\d+)/.exec(output);
      if (!match?.[1]) return;
      clearTimeout(timer);
      resolve({
        url: match[1],
        child,
        output: () => output,
        stop: () => {
          if (child.exitCode === null) child.kill("SIGTERM");
          return exited;
        },
      });
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`the studio exited with ${code}:\n${output}`));
    });
  });
}
