// The container image (Dockerfile) and the compose stack (compose.yaml), built and started for
// real: the image from a base built here without any registry (scripts/build-base-image.sh; or
// SUPERSTEP_BASE_IMAGE, e.g. node:24-bookworm-slim where Docker Hub is reachable), PostgreSQL and
// Redis from a stand-in image of Debian's packages (e2e/container). Docker must be there: without
// it these tests fail, they never skip.
// The containers sit on internal networks (no route off the machine); the test reaches the API
// through a relay on 127.0.0.1, as Docker's own port publishing would (which internal networks
// do not allow).
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { connect, createServer, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, type StudioApi, setUp, until, waitForStatus } from "../backend/test/studio-api.js";

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL("..", import.meta.url));
const BASE_IMAGE = process.env.SUPERSTEP_BASE_IMAGE ?? "superstep-base:local";
const IMAGE = "superstep:e2e";
const SERVICES_IMAGE = "superstep-services:e2e";
// Names of this run's containers, networks and compose project: two runs never share one.
const PREFIX = `superstep-e2e-${process.pid}`;
const ENDED = ["ok", "error", "cancelled", "timeout", "expired"];
const NON_ROOT_UID = "10001";

/** A code node counts the words of `text`: a run that needs the sandbox, and nothing outside. */
const WORD_STATS = {
  name: "Word statistics",
  state: [
    { name: "text", type: "string" },
    { name: "result", type: "object" },
  ],
  nodes: [
    {
      id: "stats",
      type: "code",
      position: { x: 200, y: 0 },
      data: {
        language: "javascript",
        code: "function main(state) {\n  const words = state.text.split(/\\s+/).filter(Boolean);\n  return { result: { words: words.length } };\n}",
        outputs: ["result"],
      },
    },
  ],
  edges: [
    { id: "e1", source: "start", target: "stats" },
    { id: "e2", source: "stats", target: "end" },
  ],
};

async function command(file: string, args: string[], env: Record<string, string> = {}): Promise<string> {
  try {
    const { stdout } = await run(file, args, {
      cwd: ROOT,
      env: { ...process.env, ...env },
      maxBuffer: 256 * 1024 * 1024,
    });
    return stdout.trim();
  } catch (error) {
    const failed = error as { stderr?: string; stdout?: string; message: string };
    const output = `${failed.stdout ?? ""}\n${failed.stderr ?? ""}`.trim().split("\n").slice(-40).join("\n");
    throw new Error(`${file} ${args.join(" ")} failed: ${failed.message.split("\n")[0]}\n${output}`);
  }
}

const docker = (...args: string[]) => command("docker", args);

async function timed(what: string, work: () => Promise<unknown>) {
  const started = Date.now();
  await work();
  console.log(`${what}: ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

/** Waits for the image's HEALTHCHECK to call the container healthy; a container that stops fails. */
async function healthy(container: string) {
  await until(
    `${container} to be healthy`,
    async () => {
      const [status, health] = (
        await docker("inspect", "-f", "{{.State.Status}} {{.State.Health.Status}}", container)
      ).split(" ");
      if (status !== "running")
        throw new Error(`${container} is ${status}:\n${await docker("logs", "--tail", "40", container)}`);
      if (health === "healthy") return true;
      await new Promise((resolve) => setTimeout(resolve, 250));
      return undefined;
    },
    240_000,
  );
}

async function addressOf(container: string): Promise<string> {
  const address = await docker("inspect", "-f", "{{range .NetworkSettings.Networks}}{{.IPAddress}} {{end}}", container);
  return address.split(" ")[0] as string;
}

/** A TCP relay from 127.0.0.1 to a container's port. */
async function relay(host: string, port: number): Promise<{ url: string; close: () => Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect(port, host);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on("error", () => {
        client.destroy();
        upstream.destroy();
      });
      socket.on("close", () => sockets.delete(socket));
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port: local } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${local}`,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The owner, a workflow and a run started by its hook; returns the finished run. */
async function hookRun(base: string) {
  const api: StudioApi = { base, token: "" };
  const { key, workflowIds } = await setUp(api, [WORD_STATS]);
  const hook = await call(
    api,
    "POST",
    `/api/hooks/workflows/${workflowIds[0]}/runs`,
    { input: { text: "one two three" } },
    key,
  );
  expect(hook.status, JSON.stringify(hook.body)).toBe(202);
  return waitForStatus(api, String(hook.body.data.run_id), ENDED, 120_000);
}

// The Uid line of the `superstep` process (node running the command's script); the bracket keeps
// the pattern from matching this shell's own command line.
const SERVER_UID =
  'for d in /proc/[0-9]*; do if tr "\\0" " " <"$d/cmdline" | grep -q "[/]usr/local/bin/superstep"; then grep ^Uid: "$d/status"; exit 0; fi; done; exit 1';

async function userOf(container: string) {
  return {
    exec: await docker("exec", container, "id", "-u"),
    // The server itself (process 1, or the one after an init): its real and effective user.
    server: (await docker("exec", container, "sh", "-c", SERVER_UID)).split(/\s+/).slice(1, 3),
  };
}

/** `docker compose` when the plugin is there, else Debian's docker-compose; with neither the test fails. */
async function composeCommand(): Promise<string[]> {
  try {
    await docker("compose", "version");
    return ["docker", "compose"];
  } catch {
    await command("docker-compose", ["version"]);
    return ["docker-compose"];
  }
}

// What the builds threw: each test fails with it (a failing beforeAll alone would mark the tests
// skipped, and a missing Docker engine must read as a failure).
let setupError: unknown;
const built = () => {
  if (setupError) throw setupError;
};

async function buildImages() {
  await docker("info", "--format", "{{.ServerVersion}}");
  if (!process.env.SUPERSTEP_BASE_IMAGE)
    await timed(`base image ${BASE_IMAGE}`, () => command("bash", ["scripts/build-base-image.sh", BASE_IMAGE]));
  // The build stages install from the npm registry and Debian's mirror: the host's network for
  // the builds only. What runs afterwards has none.
  await timed(`image ${IMAGE}`, () =>
    docker("build", "--force-rm", "--network", "host", "--build-arg", `BASE_IMAGE=${BASE_IMAGE}`, "-t", IMAGE, "."),
  );
  await timed(`image ${SERVICES_IMAGE}`, () =>
    docker(
      "build",
      "--force-rm",
      "--network",
      "host",
      "--build-arg",
      `BASE_IMAGE=${BASE_IMAGE}`,
      "-f",
      "e2e/container/services.Dockerfile",
      "-t",
      SERVICES_IMAGE,
      "e2e/container",
    ),
  );
  console.log(`image ${IMAGE}: ${await docker("image", "inspect", "-f", "{{.Size}}", IMAGE)} bytes`);
}

beforeAll(async () => {
  await buildImages().catch((error: unknown) => {
    setupError = error;
  });
}, 1_800_000);

describe("the studio image", () => {
  const network = `${PREFIX}-net`;
  const container = `${PREFIX}-studio`;
  let toApi: Awaited<ReturnType<typeof relay>> | undefined;

  afterAll(async () => {
    await toApi?.close();
    if (setupError) return;
    await docker("rm", "-f", "-v", container).catch(() => undefined);
    await docker("network", "rm", network).catch(() => undefined);
    expect(await docker("ps", "-aq", "--filter", `name=${container}`)).toBe("");
  });

  it("serves the API and UI as a non-root user, healthy, and runs a hook-started run", async () => {
    built();
    await docker("network", "create", "--internal", network);
    await docker("run", "-d", "--init", "--name", container, "--network", network, IMAGE);
    await healthy(container);
    toApi = await relay(await addressOf(container), 8080);

    const health = await call({ base: toApi.url, token: "" }, "GET", "/api/health");
    expect(health.status).toBe(200);
    expect(health.body.data).toMatchObject({ status: "ok", db: "sqlite", executes_runs: true });
    const page = await fetch(`${toApi.url}/`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<div id="root">');

    const finished = await hookRun(toApi.url);
    expect(finished.status, JSON.stringify(finished)).toBe("ok");
    expect(finished.output).toEqual({ text: "one two three", result: { words: 3 } });

    expect(await docker("inspect", "-f", "{{.Config.User}}", IMAGE)).toBe("superstep:superstep");
    const user = await userOf(container);
    expect(user.exec).toBe(NON_ROOT_UID);
    expect(user.server).toEqual([NON_ROOT_UID, NON_ROOT_UID]);
    // The embedded database lives on the image's data volume.
    expect((await docker("exec", container, "ls", "/data")).split("\n")).toContain("superstep.db");
    // Repo import's tools: git for the clone, the Docker CLI for the sandbox (no daemon in the image).
    expect(await docker("exec", container, "git", "--version")).toMatch(/^git version \d/);
    expect(await docker("exec", container, "docker", "--version")).toMatch(/^Docker version \d/);
    expect(await docker("exec", container, "sh", "-c", "command -v dockerd || echo none")).toBe("none");

    // `docker stop` (SIGTERM through the init) ends the studio cleanly, well before the SIGKILL.
    await docker("stop", "--time", "60", container);
    expect(await docker("inspect", "-f", "{{.State.ExitCode}}", container)).toBe("0");
    expect(await command("docker", ["logs", container])).toContain('"msg":"stopped"');
  }, 600_000);
});

describe("the compose stack", () => {
  const project = PREFIX.replaceAll("-", "");
  const dir = mkdtempSync(join(tmpdir(), "superstep-compose-"));
  const override = join(dir, "compose.internal.yaml");
  let compose: string[] = [];
  let toApi: Awaited<ReturnType<typeof relay>> | undefined;
  const env = {
    SUPERSTEP_IMAGE: IMAGE,
    BASE_IMAGE,
    POSTGRES_IMAGE: SERVICES_IMAGE,
    REDIS_IMAGE: SERVICES_IMAGE,
    POSTGRES_PASSWORD: randomBytes(12).toString("hex"),
    STUDIO_ENCRYPTION_KEY: randomBytes(32).toString("base64"),
    // Any free port: internal networks publish nothing, and a fixed one could be taken.
    STUDIO_PUBLISH: "127.0.0.1:",
  };
  const composeRun = (...args: string[]) =>
    command(
      compose[0] as string,
      [...compose.slice(1), "-p", project, "-f", "compose.yaml", "-f", override, ...args],
      env,
    );
  const containersOf = async (service: string) =>
    (
      await docker(
        "ps",
        "-q",
        "--filter",
        `label=com.docker.compose.project=${project}`,
        "--filter",
        `label=com.docker.compose.service=${service}`,
      )
    )
      .split("\n")
      .filter(Boolean);

  afterAll(async () => {
    await toApi?.close();
    if (compose.length > 0) await composeRun("down", "--volumes", "--remove-orphans", "--timeout", "20");
    rmSync(dir, { recursive: true, force: true });
    if (setupError) return;
    const label = `label=com.docker.compose.project=${project}`;
    expect(await docker("ps", "-aq", "--filter", label)).toBe("");
    expect(await docker("volume", "ls", "-q", "--filter", label)).toBe("");
    expect(await docker("network", "ls", "-q", "--filter", label)).toBe("");
  }, 300_000);

  it("starts an API, two workers, PostgreSQL and Redis, all healthy; a hook run executes on a worker", async () => {
    built();
    compose = await composeCommand();
    writeFileSync(override, "networks:\n  default:\n    internal: true\n");
    await composeRun("up", "-d", "--no-build");

    const services = { api: 1, worker: 2, postgres: 1, redis: 1 };
    const containers: Record<string, string[]> = {};
    for (const [service, count] of Object.entries(services)) {
      containers[service] = await containersOf(service);
      expect(containers[service], service).toHaveLength(count);
      for (const id of containers[service] ?? []) await healthy(id);
    }
    const api = containers.api?.[0] as string;
    toApi = await relay(await addressOf(api), 8080);

    // With Redis the API process queues runs and leaves their execution to the workers.
    const base = toApi.url;
    const health = await until("the API to reach PostgreSQL and Redis", async () => {
      const answer = await call({ base, token: "" }, "GET", "/api/health");
      return answer.status === 200 && answer.body.data.status === "ok" ? answer.body.data : undefined;
    });
    expect(health).toMatchObject({ db: "postgres", queue: "redis", redis: "ok", executes_runs: false });

    const finished = await hookRun(toApi.url);
    expect(finished.status, JSON.stringify(finished)).toBe("ok");
    expect(finished.output).toEqual({ text: "one two three", result: { words: 3 } });

    for (const id of [api, ...(containers.worker ?? [])]) {
      const user = await userOf(id);
      expect(user.exec).toBe(NON_ROOT_UID);
      expect(user.server).toEqual([NON_ROOT_UID, NON_ROOT_UID]);
    }
    const redis = containers.redis?.[0] as string;
    expect(await docker("exec", redis, "redis-cli", "config", "get", "appendonly")).toBe("appendonly\nyes");
    expect(await docker("exec", redis, "redis-cli", "config", "get", "maxmemory-policy")).toBe(
      "maxmemory-policy\nnoeviction",
    );
  }, 600_000);
});
