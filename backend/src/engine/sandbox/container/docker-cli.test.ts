import { execFile } from "node:child_process";
import { mkdtemp, rm, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findDockerCli } from "./docker-cli.js";

let dir = "";
let realDocker = "";

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "superstep-docker-cli-"));
  // The machine's own CLI: a missing Docker fails this file.
  const { stdout } = await promisify(execFile)("sh", ["-c", "command -v docker"]);
  realDocker = stdout.trim();
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("findDockerCli", () => {
  it("takes docker from the PATH, the first directory that has it", async () => {
    const bin = await mkdtemp(join(dir, "bin-"));
    await symlink(realDocker, join(bin, "docker"));
    const empty = await mkdtemp(join(dir, "empty-"));
    await expect(findDockerCli({ path: [empty, bin].join(delimiter), desktopCli: join(dir, "none") })).resolves.toBe(
      join(bin, "docker"),
    );
  });

  it("falls back to Docker Desktop's CLI when the PATH has none", async () => {
    const empty = await mkdtemp(join(dir, "empty-"));
    await expect(findDockerCli({ path: empty, desktopCli: realDocker })).resolves.toBe(realDocker);
  });

  it("is IMPORT_SANDBOX_UNAVAILABLE with neither, saying where it looked", async () => {
    const empty = await mkdtemp(join(dir, "empty-"));
    const desktopCli = join(dir, "Docker.app/docker");
    const error = await findDockerCli({ path: empty, desktopCli }).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: "IMPORT_SANDBOX_UNAVAILABLE" });
    expect((error as { details: { reason: string } }).details.reason).toContain(desktopCli);
  });

  it("uses the CLI it is given, and nothing else when that one cannot run", async () => {
    await expect(findDockerCli({ explicit: realDocker })).resolves.toBe(realDocker);
    await expect(findDockerCli({ explicit: join(dir, "missing"), path: process.env.PATH })).rejects.toMatchObject({
      code: "IMPORT_SANDBOX_UNAVAILABLE",
    });
  });
});
