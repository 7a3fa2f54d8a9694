// Starting the real studio for a benchmark: `node backend/dist/cli/main.js start` on a free port of
// 127.0.0.1 with a temporary data directory (SQLite; PostgreSQL when DATABASE_URL is set), waiting
// until it answers /api/health, then the owner account and an API key. Used by fork.mjs and
// memory.mjs. The studio is killed and its data directory removed on stop() or when the bench exits.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const entry = fileURLToPath(new URL("../backend/dist/cli/main.js", import.meta.url));
export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** A port nobody listens on now (another process may take it before the studio does: rare). */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
    server.on("error", reject);
  });
}

/**
 * Starts the studio. `env` is added to the environment (after the bench's own settings);
 * `nodeArgs` go before the entry point (e.g. --expose-gc). Resolves once /api/health answers.
 */
export async function launchStudio({ name, env = {}, nodeArgs = [] }) {
  const dataDir = mkdtempSync(join(tmpdir(), `superstep-bench-${name}-`));
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, [...nodeArgs, entry, "start"], {
    env: {
      ...process.env,
      STUDIO_DATA_DIR: dataDir,
      STUDIO_HOST: "127.0.0.1",
      STUDIO_PORT: String(port),
      STUDIO_LOG_FORMAT: "json",
      STUDIO_LOG_LEVEL: "warn",
      ...(typeof env === "function" ? env(dataDir) : env),
    },
    stdio: ["ignore", "ignore", "inherit"],
  });
  const stop = () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    rmSync(dataDir, { recursive: true, force: true });
  };
  process.on("exit", stop);

  async function call(method, path, body, token) {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: {
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...(body !== undefined ? { "content-type": "application/json" } : {}),
      },
      body: body !== undefined ? JSON.stringify(body) : undefined,
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : null };
  }

  for (;;) {
    try {
      if ((await fetch(`${base}/api/health`)).ok) break;
    } catch {}
    if (child.exitCode !== null || child.signalCode !== null) throw new Error("the studio exited at start");
    await sleep(100);
  }

  /** Creates the owner account and an API key: `{ token, key }` (session token, hook key). */
  async function setupOwner() {
    const setup = await call("POST", "/api/auth/setup", { email: "bench@example.com", password: "bench-password" });
    if (setup.status !== 201) throw new Error(`setup answered ${setup.status}: ${JSON.stringify(setup.body)}`);
    const token = setup.body.data.token;
    const key = (await call("POST", "/api/api-keys", { name: "bench" }, token)).body.data.key;
    return { token, key };
  }

  return { base, port, dataDir, child, call, setupOwner, stop };
}
