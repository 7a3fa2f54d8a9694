// Repo import through the API while STUDIO_ENABLE_IMPORT is on: sources from a zip upload and from
// a git repository served on this machine (STUDIO_TEST_IMPORT_GIT_MIRROR), every bad input a clear
// error on the request or the job, and the job directories' life (restart, age clean-up). The
// sandbox's interpreter does not exist here, so every job that gets past its download ends at its
// install step with IMPORT_SANDBOX_UNAVAILABLE; import-install.routes.test.ts installs for real.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addBareRepo } from "../../test/git-fixture.js";
import { registerMember, type Session, setupOwner, startTestStudio, type TestStudio } from "../../test/test-studio.js";
import { makeZip, multipartBody, NEW_PROJECT_FILES, type ZipEntrySpec } from "../../test/zip-fixture.js";

const MAX_BYTES = 256 * 1024;

function projectZip(files: Record<string, string>, top = "project-main/", extra: ZipEntrySpec[] = []) {
  return makeZip([
    { name: top },
    ...Object.entries(files).map(([name, data]) => ({ name: `${top}${name}`, data, deflate: true })),
    ...extra,
  ]);
}

describe("repo import API", () => {
  let studio: TestStudio;
  let owner: Session;
  let work: string;
  let importDir: string;

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), "superstep-import-api-"));
    importDir = join(work, "imports");
    const mirror = join(work, "mirror");
    addBareRepo(mirror, "langchain-ai", "new-langgraph-project", { files: NEW_PROJECT_FILES });
    addBareRepo(mirror, "acme", "monorepo", {
      files: {
        "README.md": "# many apps",
        ...Object.fromEntries(Object.entries(NEW_PROJECT_FILES).map(([path, text]) => [`apps/agent/${path}`, text])),
      },
    });
    addBareRepo(mirror, "acme", "js-agent", {
      files: { "langgraph.json": JSON.stringify({ graphs: { agent: "./src/graph.ts:graph" } }), "src/graph.ts": "" },
    });
    addBareRepo(mirror, "acme", "huge", { files: { "data.bin": "x".repeat(MAX_BYTES + 1) } });
    studio = await startTestStudio({
      STUDIO_ENABLE_IMPORT: "1",
      STUDIO_IMPORT_DIR: importDir,
      STUDIO_IMPORT_MAX_BYTES: String(MAX_BYTES),
      STUDIO_TEST_IMPORT_GIT_MIRROR: mirror,
      STUDIO_ALLOW_SIGNUP: "1",
      STUDIO_IMPORT_RUNTIME: "subprocess",
      STUDIO_IMPORT_PYTHON: "/nonexistent/python3",
    });
    owner = await setupOwner(studio);
  });
  afterAll(async () => {
    await studio.close();
    rmSync(work, { recursive: true, force: true });
  });

  const post = (payload: object, session = owner) =>
    studio.app.inject({ method: "POST", url: "/api/imports", headers: session.auth, payload });
  const upload = (zip: Buffer, session = owner, name = "project.zip") => {
    const body = multipartBody(name, zip);
    return studio.app.inject({
      method: "POST",
      url: "/api/imports",
      headers: { ...session.auth, ...body.headers },
      payload: body.payload,
    });
  };
  /** Starts an import and returns the job once its steps have ended. */
  async function finished(response: Awaited<ReturnType<typeof post>>, session = owner) {
    expect(response.statusCode, response.body).toBe(202);
    const started = response.json().data;
    expect(started.status).toBe("running");
    expect(started.steps.map((s: { name: string }) => s.name)).toEqual(["download", "install", "check", "ready"]);
    await studio.container.imports.idle();
    const read = await studio.app.inject({ method: "GET", url: `/api/imports/${started.id}`, headers: session.auth });
    expect(read.statusCode).toBe(200);
    return read.json().data;
  }

  it("needs a signed-in caller", async () => {
    for (const [method, url] of [
      ["GET", "/api/imports"],
      ["POST", "/api/imports"],
      ["GET", "/api/imports/x"],
    ] as const) {
      const response = await studio.app.inject({ method, url });
      expect(response.statusCode).toBe(401);
      expect(response.json().error.code).toBe("AUTH_REQUIRED");
    }
  });

  it("imports a zip: unpacked into <job>/src, graphs, env names and project kind found, then the install needs the sandbox", async () => {
    const job = await finished(await upload(projectZip(NEW_PROJECT_FILES)));
    expect(job).toMatchObject({
      status: "failed",
      step: "install",
      source: { kind: "zip", file_name: "project.zip" },
      graphs: [
        {
          id: "agent",
          spec: "./src/agent/graph.py:graph",
          file: "src/agent/graph.py",
          origin: "langgraph.json",
          inspected: null,
        },
      ],
      env_names: ["LANGSMITH_API_KEY", "OPENAI_API_KEY"],
      project: { kind: "pyproject", files: ["pyproject.toml"] },
      source_root: "src/project-main",
      error: { code: "IMPORT_SANDBOX_UNAVAILABLE" },
      keep: false,
    });
    expect(job.steps.map((s: { status: string }) => s.status)).toEqual(["done", "failed", "pending", "pending"]);
    expect(job.logs.map((l: { line: string }) => l.line)).toContain(
      "found 1 graph(s): agent (./src/agent/graph.py:graph)",
    );
    expect(job.logs.map((l: { line: string }) => l.line)).toContainEqual(
      expect.stringMatching(/^could not start \/nonexistent\/python3: /),
    );
    expect(readFileSync(join(importDir, job.id, "src/project-main/src/agent/graph.py"), "utf8")).toContain(
      "StateGraph",
    );
    expect(existsSync(join(importDir, job.id, "upload.zip"))).toBe(false);
    const stored = JSON.parse(readFileSync(join(importDir, job.id, "job.json"), "utf8"));
    expect(stored).toMatchObject({ id: job.id, status: "failed", pid: process.pid, keep: false });
  });

  it("clones a GitHub URL (a local mirror in tests) and a sub-directory of one", async () => {
    const job = await finished(await post({ url: "https://github.com/langchain-ai/new-langgraph-project.git" }));
    expect(job).toMatchObject({
      status: "failed",
      error: { code: "IMPORT_SANDBOX_UNAVAILABLE" },
      source_root: "src",
      source: {
        kind: "github",
        url: "https://github.com/langchain-ai/new-langgraph-project",
        branch: null,
        subdir: null,
      },
      graphs: [{ id: "agent" }],
    });
    expect(job.logs[0].line).toBe("git clone --depth 1 https://github.com/langchain-ai/new-langgraph-project.git");
    expect(existsSync(join(importDir, job.id, "src/.git"))).toBe(true);

    const sub = await finished(
      await post({ url: "https://github.com/acme/monorepo", subdir: "apps/agent", branch: "main" }),
    );
    expect(sub).toMatchObject({
      status: "failed",
      error: { code: "IMPORT_SANDBOX_UNAVAILABLE" },
      source: { subdir: "apps/agent", branch: "main" },
      source_root: "src/apps/agent",
    });
    expect(sub.steps[0]).toMatchObject({ name: "download", status: "done" });
    expect(sub.graphs.map((g: { file: string }) => g.file)).toEqual(["src/agent/graph.py"]);
  });

  it.each([
    [{ url: "http://github.com/a/b" }, "IMPORT_URL_INVALID"],
    [{ url: "https://gitlab.com/a/b" }, "IMPORT_URL_INVALID"],
    [{ url: "https://user:token@github.com/a/b" }, "IMPORT_URL_INVALID"],
    [{ url: "--upload-pack=touch /tmp/pwned" }, "IMPORT_URL_INVALID"],
    [{ url: "ext::sh -c touch% /tmp/pwned" }, "IMPORT_URL_INVALID"],
    [{ url: "file:///etc" }, "IMPORT_URL_INVALID"],
    [{ url: "https://github.com/a/b", branch: "--upload-pack=touch" }, "IMPORT_BRANCH_INVALID"],
    [{ url: "https://github.com/a/b", subdir: "../../etc" }, "IMPORT_SUBDIR_INVALID"],
    [{ url: "https://github.com/a/b", subdir: "/etc" }, "IMPORT_SUBDIR_INVALID"],
    [{ url: "https://github.com/a/b", extra: 1 }, "VALIDATION_FAILED"],
    [{}, "VALIDATION_FAILED"],
  ])("refuses %j at once with %s, starting no job", async (payload, code) => {
    const before = (await studio.app.inject({ method: "GET", url: "/api/imports", headers: owner.auth })).json().data
      .length;
    const response = await post(payload);
    expect(response.statusCode).toBe(422);
    expect(response.json().error.code).toBe(code);
    const after = (await studio.app.inject({ method: "GET", url: "/api/imports", headers: owner.auth })).json().data;
    expect(after.length).toBe(before);
  });

  it("refuses a request with neither a URL nor a zip, and a multipart one without a file", async () => {
    const empty = await studio.app.inject({ method: "POST", url: "/api/imports", headers: owner.auth });
    expect(empty.statusCode).toBe(422);
    expect(empty.json().error.code).toBe("IMPORT_SOURCE_MISSING");
    const boundary = "----x";
    const noFile = await studio.app.inject({
      method: "POST",
      url: "/api/imports",
      headers: { ...owner.auth, "content-type": `multipart/form-data; boundary=${boundary}` },
      payload: `--${boundary}\r\nContent-Disposition: form-data; name="note"\r\n\r\nhello\r\n--${boundary}--\r\n`,
    });
    expect(noFile.statusCode).toBe(422);
    expect(noFile.json().error.code).toBe("IMPORT_SOURCE_MISSING");
  });

  it("refuses a multipart body that cannot be read with UPLOAD_INVALID, keeping no job", async () => {
    const count = async () =>
      (await studio.app.inject({ method: "GET", url: "/api/imports", headers: owner.auth })).json().data.length;
    const before = await count();
    const cut = '--abc\r\nContent-Disposition: form-data; name="file"; filename="a.zip"\r\n\r\nPK';
    for (const contentType of ["multipart/form-data", "multipart/form-data; boundary=abc"]) {
      const response = await studio.app.inject({
        method: "POST",
        url: "/api/imports",
        headers: { ...owner.auth, "content-type": contentType },
        payload: cut,
      });
      expect(response.statusCode, response.body).toBe(400);
      expect(response.json().error.code).toBe("UPLOAD_INVALID");
    }
    await studio.container.imports.idle();
    expect(await count()).toBe(before);
  });

  it.each([
    ["a zip-slip entry ../x", [{ name: "../evil.py", data: "x" }], "IMPORT_ZIP_UNSAFE_ENTRY"],
    ["a zip-slip entry /etc/x", [{ name: "/etc/evil", data: "x" }], "IMPORT_ZIP_UNSAFE_ENTRY"],
    ["a zip-slip entry ..\\x", [{ name: "..\\evil.py", data: "x" }], "IMPORT_ZIP_UNSAFE_ENTRY"],
    [
      "a symlink entry",
      [{ name: "project-main/link", data: "/etc/passwd", mode: 0o120777 }],
      "IMPORT_ZIP_UNSAFE_ENTRY",
    ],
    [
      "a zip bomb",
      [{ name: "project-main/bomb.bin", data: Buffer.alloc(4 * MAX_BYTES), deflate: true }],
      "IMPORT_SOURCE_TOO_LARGE",
    ],
  ] as const)("fails the job with a clear error for %s, keeping nothing of the source", async (_what, extra, code) => {
    const job = await finished(await upload(projectZip(NEW_PROJECT_FILES, "project-main/", [...extra])));
    expect(job.status).toBe("failed");
    expect(job.error.code).toBe(code);
    expect(job.steps[0]).toMatchObject({ name: "download", status: "failed" });
    expect(job.logs.at(-1).line).toContain(code);
    expect(existsSync(join(importDir, job.id, "src"))).toBe(false);
    expect(existsSync(join(importDir, "evil.py"))).toBe(false);
    expect(existsSync(join(work, "evil.py"))).toBe(false);
  });

  it("fails the job for a repo with no graph, a JavaScript langgraph.json, a too-large or missing repo", async () => {
    const none = await finished(await upload(projectZip({ "main.py": "print('hi')\n", "requirements.txt": "" })));
    expect(none).toMatchObject({ status: "failed", error: { code: "IMPORT_NO_GRAPH" } });
    const js = await finished(await post({ url: "https://github.com/acme/js-agent" }));
    expect(js).toMatchObject({ status: "failed", error: { code: "IMPORT_GRAPH_JAVASCRIPT" } });
    expect(js.error.message).toContain("only Python graphs");
    const huge = await finished(await post({ url: "https://github.com/acme/huge" }));
    expect(huge).toMatchObject({ status: "failed", error: { code: "IMPORT_SOURCE_TOO_LARGE" } });
    const missing = await finished(await post({ url: "https://github.com/acme/nothing-here" }));
    expect(missing).toMatchObject({ status: "failed", error: { code: "IMPORT_CLONE_FAILED" } });
    expect(JSON.stringify(missing)).not.toContain(join(work, "mirror"));
    const noSubdir = await finished(await post({ url: "https://github.com/acme/monorepo", subdir: "apps/none" }));
    expect(noSubdir).toMatchObject({ status: "failed", error: { code: "IMPORT_SUBDIR_NOT_FOUND" } });
  });

  it("refuses an upload over STUDIO_IMPORT_MAX_BYTES on the request, keeping no job, and a file that is not a zip on the job", async () => {
    const before = (await studio.app.inject({ method: "GET", url: "/api/imports", headers: owner.auth })).json().data
      .length;
    const big = await upload(makeZip([{ name: "noise.bin", data: Buffer.from(randomText(MAX_BYTES + 10)) }]));
    expect(big.statusCode).toBe(413);
    expect(big.json().error.code).toBe("IMPORT_SOURCE_TOO_LARGE");
    const after = (await studio.app.inject({ method: "GET", url: "/api/imports", headers: owner.auth })).json().data;
    expect(after.length).toBe(before);
    const notZip = await finished(await upload(Buffer.from("just text"), owner, "notes.zip"));
    expect(notZip).toMatchObject({ status: "failed", error: { code: "IMPORT_ZIP_INVALID" } });
  });

  it("lists only the caller's jobs, newest first, and answers another user's job as missing", async () => {
    const member = await registerMember(studio, "member@example.com");
    const mine = await finished(await upload(projectZip(NEW_PROJECT_FILES), member), member);
    const list = (await studio.app.inject({ method: "GET", url: "/api/imports", headers: member.auth })).json().data;
    expect(list.map((j: { id: string }) => j.id)).toEqual([mine.id]);
    const ownerList = (await studio.app.inject({ method: "GET", url: "/api/imports", headers: owner.auth })).json()
      .data;
    expect(ownerList.map((j: { id: string }) => j.id)).not.toContain(mine.id);
    const created = ownerList.map((j: { created_at: string }) => j.created_at);
    expect(created).toEqual([...created].sort().reverse());
    for (const id of [mine.id, "no-such-job", "..%2F..%2Fetc"]) {
      const other = await studio.app.inject({ method: "GET", url: `/api/imports/${id}`, headers: owner.auth });
      expect(other.statusCode).toBe(404);
      expect(other.json().error.code).toBe("IMPORT_NOT_FOUND");
    }
  });

  it("documents the import routes in the OpenAPI reference", async () => {
    const docs = (await studio.app.inject({ method: "GET", url: "/api/docs/json" })).json();
    expect(Object.keys(docs.paths)).toEqual(expect.arrayContaining(["/api/imports", "/api/imports/{id}"]));
    expect(docs.paths["/api/imports"].post.requestBody.content).toHaveProperty("application/json");
  });
});

describe("import job directories across restarts", () => {
  it("marks a job left running by a process that is gone as interrupted, and deletes old jobs but kept ones", async () => {
    const work = mkdtempSync(join(tmpdir(), "superstep-import-jobs-"));
    const importDir = join(work, "imports");
    // A pid that certainly belonged to a process that has ended.
    const gone = spawnSync(process.execPath, ["-e", ""]).pid as number;
    const old = new Date(Date.now() - 100 * 3600 * 1000).toISOString();
    const write = (id: string, fields: object) => {
      mkdirSync(join(importDir, id, "src"), { recursive: true });
      writeFileSync(
        join(importDir, id, "job.json"),
        JSON.stringify({
          id,
          owner_id: "someone",
          source: { kind: "github", url: "https://github.com/a/b", branch: null, subdir: null },
          status: "succeeded",
          step: "download",
          steps: ["download", "install", "check", "ready"].map((name) => ({
            name,
            status: name === "download" ? "done" : "skipped",
            started_at: null,
            finished_at: null,
          })),
          logs: [],
          graphs: [],
          env_names: [],
          project: null,
          source_bytes: 0,
          error: null,
          created_at: new Date().toISOString(),
          updated_at: new Date().toISOString(),
          pid: gone,
          keep: false,
          ...fields,
        }),
      );
    };
    write("running-gone", {
      status: "running",
      steps: ["download", "install", "check", "ready"].map((name) => ({
        name,
        status: name === "download" ? "running" : "pending",
        started_at: null,
        finished_at: null,
      })),
    });
    write("old-job", { created_at: old });
    write("old-kept", { created_at: old, keep: true });
    write("recent", {});
    const studio = await startTestStudio({ STUDIO_ENABLE_IMPORT: "1", STUDIO_IMPORT_DIR: importDir });
    try {
      const read = (id: string) => JSON.parse(readFileSync(join(importDir, id, "job.json"), "utf8"));
      expect(read("running-gone")).toMatchObject({
        status: "interrupted",
        error: { code: "IMPORT_INTERRUPTED", message: "Import interrupted by a restart." },
      });
      expect(read("running-gone").steps[0].status).toBe("failed");
      expect(read("running-gone").logs.at(-1).line).toBe("Import interrupted by a restart");
      // Nothing is deleted until the next import starts.
      expect(existsSync(join(importDir, "old-job"))).toBe(true);
      const session = await setupOwner(studio);
      const body = multipartBody("p.zip", projectZip(NEW_PROJECT_FILES));
      const started = await studio.app.inject({
        method: "POST",
        url: "/api/imports",
        headers: { ...session.auth, ...body.headers },
        payload: body.payload,
      });
      expect(started.statusCode).toBe(202);
      await studio.container.imports.idle();
      expect(existsSync(join(importDir, "old-job"))).toBe(false);
      expect(existsSync(join(importDir, "old-kept"))).toBe(true);
      expect(existsSync(join(importDir, "recent"))).toBe(true);
      expect(existsSync(join(importDir, "running-gone"))).toBe(true);
    } finally {
      await studio.close();
      rmSync(work, { recursive: true, force: true });
    }
  });

  it("never deletes job directories when STUDIO_IMPORT_MAX_AGE_HOURS=0", async () => {
    const work = mkdtempSync(join(tmpdir(), "superstep-import-keep-"));
    const importDir = join(work, "imports");
    mkdirSync(join(importDir, "ancient"), { recursive: true });
    writeFileSync(join(importDir, "ancient", "job.json"), "{ not json");
    const studio = await startTestStudio({
      STUDIO_ENABLE_IMPORT: "1",
      STUDIO_IMPORT_DIR: importDir,
      STUDIO_IMPORT_MAX_AGE_HOURS: "0",
    });
    try {
      const session = await setupOwner(studio);
      const body = multipartBody("p.zip", projectZip(NEW_PROJECT_FILES));
      const started = await studio.app.inject({
        method: "POST",
        url: "/api/imports",
        headers: { ...session.auth, ...body.headers },
        payload: body.payload,
      });
      expect(started.statusCode).toBe(202);
      await studio.container.imports.idle();
      expect(existsSync(join(importDir, "ancient"))).toBe(true);
    } finally {
      await studio.close();
      rmSync(work, { recursive: true, force: true });
    }
  });
});

/** Text that does not compress, so a zip of it is as large as the text. */
function randomText(length: number): string {
  let text = "";
  while (text.length < length) text += Math.random().toString(36).slice(2);
  return text.slice(0, length);
}
