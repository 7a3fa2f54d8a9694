// Starts a throwaway Redis server from the installed `redis-server` binary, on loopback and a free
// port, with its own temp dir and the settings the studio asks for in production: AOF on
// (`appendonly yes`) and `maxmemory-policy noeviction`; no RDB snapshots. A server that cannot start
// fails the test that asked for it (never a skip). Every server started here is killed when the
// test worker exits, whatever happened before.
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface RedisServer {
  url: string;
  port: number;
  /** The server's working dir (its append-only files). */
  dir: string;
  /** What the server printed so far. */
  output(): string;
  /** Stops the server (SIGKILL: it keeps only what its append-only file holds) and waits for its exit. */
  kill(): Promise<void>;
  /** Starts it again on the same port and dir, after kill(). */
  restart(): Promise<void>;
  /** Kills the server and removes its dir. */
  stop(): Promise<void>;
}

// Starting is quick, but on a busy machine it can take long; only a start that never happens fails.
const START_TIMEOUT_MS = 60_000;
const PORT_ATTEMPTS = 5;
const live = new Set<ChildProcess>();
process.once("exit", () => {
  for (const child of live) child.kill("SIGKILL");
});

function findBinary(): string {
  const found = spawnSync("redis-server", ["--version"], { encoding: "utf8" });
  if (found.status !== 0) {
    throw new Error(
      "redis-server was not found: install it (Debian: apt-get install redis-server); the Redis tests start their own server from it",
    );
  }
  return "redis-server";
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

function launch(binary: string, port: number, dir: string, log: (text: string) => void, extra: string[]) {
  const child = spawn(
    binary,
    [
      "--port",
      String(port),
      "--bind",
      "127.0.0.1",
      "--dir",
      dir,
      "--appendonly",
      "yes",
      "--maxmemory-policy",
      "noeviction",
      "--save",
      "",
      "--daemonize",
      "no",
      "--protected-mode",
      "yes",
      ...extra,
    ],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  live.add(child);
  const exited = new Promise<void>((resolve) =>
    child.once("exit", () => {
      live.delete(child);
      resolve();
    }),
  );
  const ready = new Promise<void>((resolve, reject) => {
    let output = "";
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`redis-server did not start within ${START_TIMEOUT_MS / 1000} s:\n${output}`));
    }, START_TIMEOUT_MS);
    const onData = (chunk: Buffer) => {
      const text = chunk.toString();
      output += text;
      log(text);
      if (output.includes("Ready to accept connections")) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    child.once("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`redis-server exited before it was ready:\n${output}`));
    });
  });
  return { child, exited, ready };
}

/**
 * Launches a server on a free port and waits until it is ready. The port is released before the
 * server binds it, and meanwhile another process may take it (an outgoing connection's local port,
 * another test's server): then it tries another port.
 */
async function launchOnFreePort(
  binary: string,
  dir: string,
  log: (text: string) => void,
  extra: string[],
  pickPort: () => Promise<number>,
) {
  for (let attempt = 1; ; attempt++) {
    const port = await pickPort();
    const launched = launch(binary, port, dir, log, extra);
    try {
      await launched.ready;
      return { port, launched };
    } catch (error) {
      const taken =
        error instanceof Error && /exited before it was ready[\s\S]*address already in use/i.test(error.message);
      if (!taken || attempt >= PORT_ATTEMPTS) throw error;
    }
  }
}

/**
 * `extraArgs`: more settings on the command line (e.g. `["--rename-command", "CONFIG", ""]`).
 * `pickPort`: where to look for a port (a free one by default; its own test hands out a taken one).
 */
export async function startRedisServer(
  options: { extraArgs?: string[]; pickPort?: () => Promise<number> } = {},
): Promise<RedisServer> {
  const extra = options.extraArgs ?? [];
  const binary = findBinary();
  const dir = mkdtempSync(join(tmpdir(), "superstep-redis-"));
  let output = "";
  const log = (text: string) => {
    output += text;
  };
  let port: number;
  let current: ReturnType<typeof launch>;
  try {
    ({ port, launched: current } = await launchOnFreePort(binary, dir, log, extra, options.pickPort ?? freePort));
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  const kill = async () => {
    if (current.child.exitCode === null && current.child.signalCode === null) current.child.kill("SIGKILL");
    await current.exited;
  };
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    dir,
    output: () => output,
    kill,
    restart: async () => {
      await kill();
      current = launch(binary, port, dir, log, extra);
      await current.ready;
    },
    stop: async () => {
      await kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
