// Starts a throwaway PostgreSQL cluster from the installed server binaries, on loopback and a
// free port. initdb refuses to run as root, so as root the cluster runs as the `postgres` user.
import { execFileSync, spawnSync } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface PostgresCluster {
  adminUrl: string;
  /** Stops the server at once (`-m immediate`: no checkpoint, crash recovery at the next start), keeping its data. */
  kill(): void;
  /** Starts it again on the same port and data dir, after kill(); returns once it accepts connections. */
  restart(): void;
  /** Stops the server and removes its data. */
  stop(): void;
}

function findBinDir(): string {
  const fromPgConfig = spawnSync("pg_config", ["--bindir"], { encoding: "utf8" });
  const candidates = [
    process.env.PG_BIN_DIR,
    fromPgConfig.status === 0 ? fromPgConfig.stdout.trim() : undefined,
    ...(existsSync("/usr/lib/postgresql")
      ? readdirSync("/usr/lib/postgresql")
          .sort((a, b) => Number(b) - Number(a))
          .map((v) => `/usr/lib/postgresql/${v}/bin`)
      : []),
  ];
  const found = candidates.find((dir) => dir && existsSync(join(dir, "initdb")) && existsSync(join(dir, "pg_ctl")));
  if (!found) {
    throw new Error(
      "PostgreSQL server binaries (initdb, pg_ctl) were not found: install PostgreSQL (Debian: apt-get install postgresql) or set TEST_DATABASE_URL",
    );
  }
  return found;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

function osUser(): { name: string; uid: number; gid: number } | null {
  if (process.getuid?.() !== 0) return null;
  for (const name of ["postgres", "nobody"]) {
    const id = spawnSync("id", ["-u", name], { encoding: "utf8" });
    const gid = spawnSync("id", ["-g", name], { encoding: "utf8" });
    if (id.status === 0 && gid.status === 0) return { name, uid: Number(id.stdout), gid: Number(gid.stdout) };
  }
  throw new Error("running as root, but neither a `postgres` nor a `nobody` user exists to run PostgreSQL");
}

/**
 * `fsync: true` keeps PostgreSQL's durable default (benchmarks); tests turn it off for speed, since a
 * throwaway cluster never needs to survive a power loss. `settings` are more server settings
 * (`name=value`, each passed as `-c`), e.g. to load an extension's library.
 */
export async function startPostgresCluster(
  options: { fsync?: boolean; settings?: string[] } = {},
): Promise<PostgresCluster> {
  const bin = findBinDir();
  const user = osUser();
  const dir = mkdtempSync(join(tmpdir(), "superstep-pg-"));
  const data = join(dir, "data");
  if (user) chownSync(dir, user.uid, user.gid);
  const run = (tool: string, args: string[]) => {
    const command = user ? "runuser" : join(bin, tool);
    const argv = user ? ["-u", user.name, "--", join(bin, tool), ...args] : args;
    execFileSync(command, argv, { stdio: "pipe", cwd: dir });
  };
  const port = await freePort();
  run("initdb", ["-D", data, "-U", "postgres", "--auth=trust", "--no-sync", "-E", "UTF8"]);
  const start = () =>
    run("pg_ctl", [
      "-D",
      data,
      "-l",
      join(dir, "server.log"),
      "-w",
      "-o",
      `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1${options.fsync ? "" : " -c fsync=off"} -c max_connections=200${(options.settings ?? []).map((setting) => ` -c ${setting}`).join("")}`,
      "start",
    ]);
  start();
  let running = true;
  const kill = () => {
    if (!running) return;
    run("pg_ctl", ["-D", data, "-m", "immediate", "-w", "stop"]);
    running = false;
  };
  let stopped = false;
  const stop = () => {
    if (stopped) return;
    stopped = true;
    process.off("exit", stop);
    try {
      kill();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
  // The server runs detached: a test run that ends without its teardown (a crash, an interrupt)
  // still takes it down.
  process.once("exit", stop);
  return {
    adminUrl: `postgres://postgres@127.0.0.1:${port}/postgres`,
    kill,
    restart: () => {
      kill();
      start();
      running = true;
    },
    stop,
  };
}
