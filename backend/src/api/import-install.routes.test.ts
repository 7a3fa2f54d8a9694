// The install, check and ready steps of repo import, and workflows made from an imported graph,
// through the API with the subprocess runtime: real venvs, real pip installing offline from the
// test wheels, real runner.py inspect. Each import installs once (10–30 s), so the imports are
// started together before the tests and shared by them.
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  FLAT_LAYOUT_FILES,
  MANY_GRAPHS_FILES,
  MISSING_PIN_FILES,
  NOTHING_LOADS_FILES,
  REQUIREMENTS_FILES,
} from "../../test/import-fixtures.js";
import {
  registerMember,
  type Session,
  sampleDocument,
  setupOwner,
  startTestStudio,
  type TestStudio,
} from "../../test/test-studio.js";
import { makeZip, multipartBody } from "../../test/zip-fixture.js";

const WHEELS = fileURLToPath(new URL("../../../.wheels-import", import.meta.url));

type Job = {
  id: string;
  status: string;
  steps: { name: string; status: string }[];
  logs: { step: string; line: string }[];
  graphs: { id: string; inspected: Record<string, unknown> | null }[];
  error: { code: string; details: Record<string, unknown> } | null;
  keep: boolean;
};

function zipOf(files: Record<string, string>) {
  return makeZip([
    { name: "repo-main/" },
    ...Object.entries(files).map(([name, data]) => ({ name: `repo-main/${name}`, data, deflate: true })),
  ]);
}

describe("repo import: install, check, ready and imported workflows", () => {
  let studio: TestStudio;
  let owner: Session;
  let member: Session;
  let work: string;
  let importDir: string;
  const jobs: Record<"many" | "flat" | "requirements" | "pin" | "none", Job> = {} as never;

  const get = (url: string, session = owner) => studio.app.inject({ method: "GET", url, headers: session.auth });
  const createWorkflow = (id: string, payload: object, session = owner) =>
    studio.app.inject({ method: "POST", url: `/api/imports/${id}/workflows`, headers: session.auth, payload });
  const logLines = (job: Job, step?: string) =>
    job.logs.filter((l) => step === undefined || l.step === step).map((l) => l.line);
  const graph = (job: Job, id: string) => job.graphs.find((g) => g.id === id)?.inspected;

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), "superstep-import-install-"));
    importDir = join(work, "imports");
    studio = await startTestStudio({
      STUDIO_ENABLE_IMPORT: "1",
      STUDIO_IMPORT_DIR: importDir,
      STUDIO_IMPORT_RUNTIME: "subprocess",
      STUDIO_IMPORT_WHEELS: WHEELS,
      STUDIO_IMPORT_PYTHON: "python3",
      STUDIO_ALLOW_SIGNUP: "1",
    });
    owner = await setupOwner(studio);
    member = await registerMember(studio, "member@example.com");
    const upload = async (files: Record<string, string>, session: Session) => {
      const body = multipartBody("repo.zip", zipOf(files));
      const response = await studio.app.inject({
        method: "POST",
        url: "/api/imports",
        headers: { ...session.auth, ...body.headers },
        payload: body.payload,
      });
      expect(response.statusCode, response.body).toBe(202);
      return response.json().data.id as string;
    };
    const ids = {
      many: await upload(MANY_GRAPHS_FILES, owner),
      flat: await upload(FLAT_LAYOUT_FILES, owner),
      requirements: await upload(REQUIREMENTS_FILES, owner),
      pin: await upload(MISSING_PIN_FILES, member),
      none: await upload(NOTHING_LOADS_FILES, member),
    };
    await studio.container.imports.idle();
    for (const [key, id] of Object.entries(ids)) {
      const session = key === "pin" || key === "none" ? member : owner;
      jobs[key as keyof typeof jobs] = (await get(`/api/imports/${id}`, session)).json().data;
    }
  }, 600_000);
  afterAll(async () => {
    await studio?.close();
    rmSync(work, { recursive: true, force: true });
  });

  it("installs a pyproject project with pip install -e from the wheels, checks every graph and is ready", () => {
    const job = jobs.many;
    expect(job.error).toBeNull();
    expect(job.status).toBe("succeeded");
    expect(job.steps.map((s) => [s.name, s.status])).toEqual([
      ["download", "done"],
      ["install", "done"],
      ["check", "done"],
      ["ready", "done"],
    ]);
    const install = logLines(job, "install");
    expect(install[0]).toMatch(/^\$ python3 -m venv .*\/venv$/);
    expect(install).toContainEqual(
      expect.stringMatching(
        new RegExp(
          `^\\$ .*/venv/bin/python -m pip install --no-index --find-links ${WHEELS} -e .*/src/repo-main langgraph python-dotenv$`,
        ),
      ),
    );
    // pip's own lines are in the log, as it printed them.
    expect(install.some((line) => /Successfully installed .*langgraph/.test(line))).toBe(true);
    expect(logLines(job, "ready")).toEqual(["ready: 5 of 7 graph(s) loaded"]);
    const kept = JSON.parse(readFileSync(join(importDir, job.id, "inspect.json"), "utf8")).graphs;
    expect(Object.keys(kept).sort()).toEqual(
      ["agent", "broken", "by module", "factory", "needs key", "nested", "react agent"].sort(),
    );
    expect(kept.agent).toMatchObject({ type: "graph", id: "agent", name: "New Graph" });
  });

  it("summarises each loaded graph: the new-project graph with its context schema, a factory, a module spec, a subgraph", () => {
    const job = jobs.many;
    expect(graph(job, "agent")).toEqual({
      ok: true,
      name: "New Graph",
      nodes: 3,
      edges: 2,
      conditional_edges: 0,
      subgraphs: [],
      context_schema: expect.objectContaining({
        properties: { my_configurable_param: expect.objectContaining({ type: "string" }) },
      }),
    });
    expect(graph(job, "factory")).toMatchObject({ ok: true, nodes: 3, edges: 2 });
    expect(graph(job, "by module")).toMatchObject({ ok: true, name: "ReAct Agent" });
    expect(graph(job, "nested")).toMatchObject({ ok: true, subgraphs: ["child"] });
  });

  it("shows the react-agent loop: call_model and tools, with call_model's routing as conditional edges", () => {
    expect(graph(jobs.many, "react agent")).toEqual({
      ok: true,
      name: "ReAct Agent",
      nodes: 4,
      edges: 4,
      conditional_edges: 2,
      subgraphs: [],
      context_schema: null,
    });
  });

  it("names why a graph did not load: an exception at import, a key missing while it is built", () => {
    const job = jobs.many;
    expect(graph(job, "broken")).toEqual({
      ok: false,
      kind: "exception",
      stage: "import",
      error_type: "RuntimeError",
      message: "this module cannot be imported",
      variables: [],
      location: { file: "src/agent/broken.py", line: 1, function: "<module>" },
    });
    expect(graph(job, "needs key")).toMatchObject({
      ok: false,
      kind: "missing_env",
      stage: "build",
      error_type: "KeyError",
      variables: ["ACME_API_KEY"],
      location: { file: "src/agent/needs_key.py", line: 7, function: "make_graph" },
    });
    expect(logLines(job, "check")).toContainEqual(
      expect.stringMatching(/^graph needs key: not loaded \(missing_env, build\)/),
    );
  });

  it("installs the pyproject's dependencies instead when setuptools refuses a flat layout, and says so", () => {
    const job = jobs.flat;
    expect(job.error).toBeNull();
    expect(job.status).toBe("succeeded");
    const install = logLines(job, "install");
    expect(install.some((line) => line.includes("Multiple top-level packages discovered in a flat-layout"))).toBe(true);
    expect(install).toContainEqual(
      expect.stringMatching(
        /^pip install -e failed on packaging alone .*\[project\] dependencies instead \(1: langgraph\)/,
      ),
    );
    expect(install).toContainEqual(
      expect.stringMatching(
        /^\$ .*\/venv\/bin\/python -m pip install --no-index --find-links \S+ langgraph langgraph python-dotenv$/,
      ),
    );
    expect(graph(job, "flat")).toMatchObject({ ok: true, nodes: 3 });
  });

  it("installs requirements.txt with -r when it is the only file, and finds the graph by the scan", () => {
    const job = jobs.requirements;
    expect(job.status).toBe("succeeded");
    expect(logLines(job, "install")).toContainEqual(
      expect.stringMatching(/ -r .*\/requirements\.txt langgraph python-dotenv$/),
    );
    expect(graph(job, "app")).toMatchObject({ ok: true, nodes: 3, edges: 2 });
  });

  it("fails the install naming a pinned package no index has", () => {
    const job = jobs.pin;
    expect(job.status).toBe("failed");
    expect(job.error).toMatchObject({
      code: "IMPORT_INSTALL_FAILED",
      details: { package: "superstep-no-such-package", requirement: "superstep-no-such-package==9.9.9" },
    });
    expect(job.steps.map((s) => s.status)).toEqual(["done", "failed", "pending", "pending"]);
    expect(job.graphs[0]?.inspected).toBeNull();
    expect(
      logLines(job, "install").some((l) =>
        /No matching distribution found for superstep-no-such-package==9\.9\.9/.test(l),
      ),
    ).toBe(true);
  });

  it("fails the check with IMPORT_INSPECT_FAILED when no graph loads, each cause on its graph", () => {
    const job = jobs.none;
    expect(job.status).toBe("failed");
    expect(job.error).toMatchObject({
      code: "IMPORT_INSPECT_FAILED",
      details: { graphs: [{ id: "app", kind: "exception", message: "no graph today" }] },
    });
    expect(job.steps.map((s) => s.status)).toEqual(["done", "done", "failed", "pending"]);
    expect(graph(job, "app")).toMatchObject({
      ok: false,
      kind: "exception",
      stage: "import",
      error_type: "ValueError",
    });
  });

  it("creates a read-only workflow from the new-project graph, answered as POST /api/workflows answers, and keeps the job", async () => {
    const response = await createWorkflow(jobs.many.id, { graph_id: "agent" });
    expect(response.statusCode, response.body).toBe(201);
    const workflow = response.json().data;
    expect(response.headers.etag).toBe(`"${workflow.version}"`);
    expect(workflow).toMatchObject({ name: "New Graph", version: 1, description: null });
    const { document } = workflow;
    expect(document.imported).toEqual({
      job_id: jobs.many.id,
      graph_id: "agent",
      spec: "./src/agent/graph.py:graph",
      env_names: ["LANGSMITH_API_KEY", "OPENAI_API_KEY"],
      context_schema: expect.objectContaining({ properties: expect.any(Object) }),
    });
    expect(document.nodes.map((n: { id: string; type: string }) => [n.id, n.type])).toEqual([
      ["start", "start"],
      ["call_model", "code"],
      ["end", "end"],
    ]);
    const node = document.nodes[1];
    expect(node.data).toMatchObject({
      label: "call_model",
      language: "python",
      imported: { node: "call_model", source: { file: "src/agent/graph.py", line: 21 }, subgraph: null },
    });
    expect(node.data.code.split("\n")[0]).toBe(
      "async def call_model(state: State, runtime: Runtime[Context]) -> Dict[str, Any]:",
    );
    expect(node.data.code).toContain('"""Process input and returns output."""');
    expect(node.data.code).not.toContain("graph = (");
    expect(document.edges.map((e: { source: string; target: string }) => `${e.source}>${e.target}`)).toEqual([
      "start>call_model",
      "call_model>end",
    ]);
    const stored = (await get(`/api/workflows/${workflow.id}`)).json().data;
    expect(stored).toEqual(workflow);
    const validate = await studio.app.inject({
      method: "POST",
      url: "/api/workflows/validate",
      headers: owner.auth,
      payload: document,
    });
    expect(validate.statusCode, validate.body).toBe(200);
    expect((await get(`/api/imports/${jobs.many.id}`)).json().data.keep).toBe(true);
    expect(JSON.parse(readFileSync(join(importDir, jobs.many.id, "job.json"), "utf8")).keep).toBe(true);
  });

  it("makes the react-agent loop a workflow: tools is library code, call_model's routes are conditional", async () => {
    const response = await createWorkflow(jobs.many.id, { graph_id: "react agent", name: "My agent" });
    expect(response.statusCode, response.body).toBe(201);
    const { name, document } = response.json().data;
    expect(name).toBe("My agent");
    const byId = new Map(document.nodes.map((n: { id: string }) => [n.id, n]));
    expect([...byId.keys()].sort()).toEqual(["call_model", "end", "start", "tools"]);
    expect((byId.get("tools") as { data: { code: string } }).data.code).toBe(
      "# tools: library code, no source in the repository",
    );
    const edges = document.edges.map((e: { source: string; target: string; conditional?: boolean }) => [
      e.source,
      e.target,
      e.conditional ?? false,
    ]);
    expect(edges).toEqual(
      expect.arrayContaining([
        ["start", "call_model", false],
        ["call_model", "tools", true],
        ["call_model", "end", true],
        ["tools", "call_model", false],
      ]),
    );
    expect(edges).toHaveLength(4);
    const positions = document.nodes.map(
      (n: { position: { x: number; y: number } }) => `${n.position.x},${n.position.y}`,
    );
    expect(new Set(positions).size).toBe(positions.length);
  });

  it("keeps a subgraph's nodes with their parent's id", async () => {
    const response = await createWorkflow(jobs.many.id, { graph_id: "nested" });
    expect(response.statusCode, response.body).toBe(201);
    const inner = response
      .json()
      .data.document.nodes.find(
        (n: { data: { imported?: { node: string } } }) => n.data.imported?.node === "child:inner_step",
      );
    expect(inner).toMatchObject({
      id: "child_inner_step",
      type: "code",
      data: { imported: { subgraph: "child", source: { file: "src/agent/nested.py", line: 9 } } },
    });
  });

  it.each([
    ["a graph that did not load", "many", { graph_id: "broken" }, 404, "IMPORT_GRAPH_NOT_FOUND"],
    ["a graph the job does not have", "many", { graph_id: "nope" }, 404, "IMPORT_GRAPH_NOT_FOUND"],
    ["a body without graph_id", "many", {}, 422, "VALIDATION_FAILED"],
    ["an empty name", "many", { graph_id: "agent", name: " " }, 422, "VALIDATION_FAILED"],
    ["a job that failed", "pin", { graph_id: "app" }, 409, "IMPORT_NOT_READY"],
    ["a job whose check failed", "none", { graph_id: "app" }, 409, "IMPORT_NOT_READY"],
  ] as const)("refuses %s", async (_what, key, payload, status, code) => {
    const session = key === "pin" || key === "none" ? member : owner;
    const response = await createWorkflow(jobs[key].id, payload, session);
    expect(response.statusCode, response.body).toBe(status);
    expect(response.json().error.code).toBe(code);
  });

  it("answers another user's import and an unknown one as missing", async () => {
    for (const id of [jobs.many.id, "no-such-job"]) {
      const response = await createWorkflow(id, { graph_id: "agent" }, member);
      expect(response.statusCode).toBe(404);
      expect(response.json().error.code).toBe("IMPORT_NOT_FOUND");
    }
  });

  it("refuses a save that changes an imported workflow's graph, and allows renaming it", async () => {
    const created = (await createWorkflow(jobs.requirements.id, { graph_id: "app" })).json().data;
    const put = (document: object) =>
      studio.app.inject({ method: "PUT", url: `/api/workflows/${created.id}`, headers: owner.auth, payload: document });
    const moved = structuredClone(created.document);
    moved.nodes[1].position.x += 50;
    const withoutImport = structuredClone(created.document);
    delete withoutImport.imported;
    const otherJob = structuredClone(created.document);
    otherJob.imported.job_id = jobs.many.id;
    const fewerEdges = structuredClone(created.document);
    fewerEdges.edges.pop();
    for (const document of [moved, withoutImport, otherJob, fewerEdges]) {
      const response = await put(document);
      expect(response.statusCode, response.body).toBe(409);
      expect(response.json().error.code).toBe("WORKFLOW_READ_ONLY");
    }
    const renamed = await put({ ...created.document, name: "Hello graph", description: "From app.py" });
    expect(renamed.statusCode, renamed.body).toBe(200);
    expect(renamed.json().data).toMatchObject({ name: "Hello graph", description: "From app.py", version: 2 });
    expect(existsSync(join(importDir, jobs.requirements.id, "venv"))).toBe(true);
  });

  it("refuses a save that turns an ordinary workflow into an imported one", async () => {
    const plain = await studio.app.inject({
      method: "POST",
      url: "/api/workflows",
      headers: owner.auth,
      payload: sampleDocument(),
    });
    expect(plain.statusCode).toBe(201);
    const { id, document } = plain.json().data;
    const response = await studio.app.inject({
      method: "PUT",
      url: `/api/workflows/${id}`,
      headers: owner.auth,
      payload: { ...document, imported: { job_id: jobs.many.id, graph_id: "agent", spec: "./x.py:g" } },
    });
    expect(response.statusCode).toBe(409);
    expect(response.json().error.code).toBe("WORKFLOW_READ_ONLY");
  });

  it("never reads a node's source through a link that leads out of the source, as the sandbox could leave one", async () => {
    // What a repository's code could do to its own directory while it runs in the sandbox.
    const project = join(importDir, jobs.flat.id, "src/repo-main");
    const outside = join(work, "outside");
    mkdirSync(outside, { recursive: true });
    writeFileSync(join(outside, "steps.py"), "def step(state):\n    return 'server secret'\n");
    renameSync(join(project, "helpers"), join(project, "helpers-real"));
    symlinkSync(outside, join(project, "helpers"));
    const response = await createWorkflow(jobs.flat.id, { graph_id: "flat" });
    expect(response.statusCode, response.body).toBe(201);
    const step = response.json().data.document.nodes.find((n: { id: string }) => n.id === "step");
    expect(step.data.imported.source).toEqual({ file: "helpers/steps.py", line: 1 });
    expect(step.data.code).toBe("# step: library code, no source in the repository");
    expect(response.body).not.toContain("server secret");
  });
});
