// The import service on its own: a real job store in a temporary directory, uploads as streams the
// test controls, so that jobs stay "uploading" exactly as long as the test wants. The sandbox's
// interpreter does not exist here, so each job ends at its install step (IMPORT_SANDBOX_UNAVAILABLE)
// without a real install; import-install.routes.test.ts installs for real.
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { openTestDatabase, type TestDatabase } from "../../../test/test-database.js";
import { makeZip, NEW_PROJECT_FILES } from "../../../test/zip-fixture.js";
import type { Actor } from "../../core/authz.js";
import { loadConfig } from "../../core/config.js";
import { AppError } from "../../core/errors.js";
import { createLogger } from "../../core/logging.js";
import { createImportSandbox } from "../../engine/sandbox/container/import-sandbox-factory.js";
import { ImportJobRepository } from "../../repositories/import-job.repository.js";
import { wireWorkflowAccess } from "../runs/run-execution.wiring.js";
import type { WorkflowService } from "../workflow.service.js";
import { ImportService, MAX_IMPORTS_PER_USER } from "./import.service.js";

let dir: string;
let service: ImportService;
const alice: Actor = { userId: "alice", role: "owner", via: "session" };
const bob: Actor = { userId: "bob", role: "member", via: "session" };

let database: TestDatabase;
let workflows: WorkflowService;
const NO_SANDBOX = { STUDIO_IMPORT_RUNTIME: "subprocess", STUDIO_IMPORT_PYTHON: "/nonexistent/python3" };

beforeAll(async () => {
  database = await openTestDatabase();
  workflows = wireWorkflowAccess(loadConfig({}), database.db).workflows;
});
afterAll(async () => {
  await database.drop();
});

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "superstep-import-service-"));
  const config = loadConfig({ STUDIO_IMPORT_DIR: dir, STUDIO_LOG_LEVEL: "silent", ...NO_SANDBOX }).imports;
  service = new ImportService({
    config,
    jobs: new ImportJobRepository(dir),
    logger: createLogger("silent", "json"),
    sandbox: async (imports) => createImportSandbox(imports),
    workflows,
  });
});
afterEach(async () => {
  await service.close();
  rmSync(dir, { recursive: true, force: true });
});

const projectZip = makeZip(Object.entries(NEW_PROJECT_FILES).map(([name, data]) => ({ name, data })));

describe("import service", () => {
  it(`lets one user have ${MAX_IMPORTS_PER_USER} imports uploading or running, then refuses with IMPORT_LIMIT_REACHED`, async () => {
    const streams = Array.from({ length: MAX_IMPORTS_PER_USER }, () => new PassThrough());
    const uploads = streams.map((stream) => service.createFromZip(alice, { fileName: "p.zip", stream }));
    // Every slot is taken as soon as each upload begins, before any byte arrives.
    const refused = await service.createFromGithub(alice, { url: "https://github.com/a/b" }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(AppError);
    expect((refused as AppError).code).toBe("IMPORT_LIMIT_REACHED");
    expect((refused as AppError).status).toBe(429);
    const refusedZip = await service
      .createFromZip(alice, { fileName: "p.zip", stream: new PassThrough() })
      .catch((e: unknown) => e);
    expect((refusedZip as AppError).code).toBe("IMPORT_LIMIT_REACHED");
    // Bad input is still refused first, and does not take a slot.
    await expect(service.createFromGithub(alice, { url: "http://github.com/a/b" })).rejects.toMatchObject({
      code: "IMPORT_URL_INVALID",
    });
    // Another user is not held back by alice's imports.
    const other = new PassThrough();
    const bobs = service.createFromZip(bob, { fileName: "p.zip", stream: other });
    other.end(projectZip);
    expect((await bobs).owner_id).toBe("bob");

    for (const stream of streams) stream.end(projectZip);
    const jobs = await Promise.all(uploads);
    await service.idle();
    for (const job of jobs)
      expect(await service.get(alice, job.id)).toMatchObject({
        status: "failed",
        step: "install",
        error: { code: "IMPORT_SANDBOX_UNAVAILABLE" },
      });
    // Once they have ended, the slots are free again.
    const again = new PassThrough();
    const next = service.createFromZip(alice, { fileName: "p.zip", stream: again });
    again.end(projectZip);
    expect((await next).status).toBe("running");
    await service.idle();
  });

  it("gives the slot back when an upload is refused, and keeps no directory for it", async () => {
    const small = loadConfig({ STUDIO_IMPORT_DIR: dir, STUDIO_IMPORT_MAX_BYTES: "2048", ...NO_SANDBOX }).imports;
    const tight = new ImportService({
      config: small,
      jobs: new ImportJobRepository(dir),
      logger: createLogger("silent", "json"),
      sandbox: async (imports) => createImportSandbox(imports),
      workflows,
    });
    try {
      for (let i = 0; i < MAX_IMPORTS_PER_USER + 1; i += 1) {
        const stream = new PassThrough();
        const upload = tight.createFromZip(alice, { fileName: "big.zip", stream });
        stream.end(Buffer.alloc(4096));
        await expect(upload).rejects.toMatchObject({ code: "IMPORT_SOURCE_TOO_LARGE" });
      }
      expect(readdirSync(dir)).toEqual([]);
    } finally {
      await tight.close();
    }
  });

  it("marks a job it is running as interrupted when it is closed", async () => {
    const stream = new PassThrough();
    const upload = service.createFromZip(alice, { fileName: "p.zip", stream });
    stream.end(projectZip);
    const job = await upload;
    // close() comes before the job's first step has been written: its signal is aborted from the start.
    await service.close();
    const stored = await service.get(alice, job.id);
    expect(stored).toMatchObject({ status: "interrupted", error: { code: "IMPORT_INTERRUPTED" } });
    expect(stored.logs.at(-1)?.line).toBe("Import interrupted by a restart");
    expect(await service.list(bob)).toEqual([]);
  });
});
