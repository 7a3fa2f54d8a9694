import { z } from "zod";

/** A GitHub source; the URL's rules (https, github.com, no credentials) are checked by the import service. */
export const githubImportBody = z.strictObject({
  url: z.string().trim().min(1).max(500),
  branch: z.string().max(255).nullish(),
  subdir: z.string().max(1000).nullish(),
});
export type GithubImportBody = z.infer<typeof githubImportBody>;

export const importParams = z.strictObject({ id: z.string().min(1).max(64) });

/** A graph's check result: null (not checked yet), what loaded, or why it did not. */
export const graphInspectionView = z.union([
  z.null(),
  z.object({
    ok: z.literal(true),
    name: z.string(),
    nodes: z.number().int(),
    edges: z.number().int(),
    conditional_edges: z.number().int(),
    subgraphs: z.array(z.string()),
    context_schema: z.unknown().nullable(),
  }),
  z.object({
    ok: z.literal(false),
    kind: z.enum(["missing_env", "network", "exception", "timeout"]),
    stage: z.enum(["import", "build", "inspect"]).nullable(),
    error_type: z.string().nullable(),
    message: z.string(),
    variables: z.array(z.string()),
    location: z.object({ file: z.string(), line: z.number().int(), function: z.string().nullable() }).nullable(),
  }),
]);

export type GraphInspection = z.infer<typeof graphInspectionView>;

export const importWorkflowBody = z.strictObject({
  graph_id: z.string().min(1).max(200),
  name: z.string().trim().min(1).max(200).optional(),
});
export type ImportWorkflowBody = z.infer<typeof importWorkflowBody>;

const stepName = z.enum(["download", "install", "check", "ready"]);

export const importJobView = z.object({
  id: z.string(),
  owner_id: z.string(),
  source: z.union([
    z.object({
      kind: z.literal("github"),
      url: z.string(),
      branch: z.string().nullable(),
      subdir: z.string().nullable(),
    }),
    z.object({ kind: z.literal("zip"), file_name: z.string(), bytes: z.number().int() }),
  ]),
  status: z.enum(["running", "succeeded", "failed", "interrupted"]),
  step: stepName,
  steps: z.array(
    z.object({
      name: stepName,
      status: z.enum(["pending", "running", "done", "failed", "skipped"]),
      started_at: z.string().nullable(),
      finished_at: z.string().nullable(),
    }),
  ),
  logs: z.array(z.object({ ts: z.string(), step: stepName, line: z.string() })),
  graphs: z.array(
    z.object({
      id: z.string(),
      spec: z.string(),
      file: z.string().nullable(),
      module: z.string().nullable(),
      variable: z.string(),
      line: z.number().int().nullable(),
      origin: z.enum(["langgraph.json", "scan"]),
      // Jobs written before the check step existed have no such field.
      inspected: graphInspectionView.default(null),
    }),
  ),
  env_names: z.array(z.string()),
  project: z
    .object({ kind: z.enum(["pyproject", "setup.py", "requirements", "none"]), files: z.array(z.string()) })
    .nullable(),
  source_root: z.string().nullable().default(null),
  source_bytes: z.number().int().nullable(),
  error: z.object({ code: z.string(), message: z.string(), details: z.unknown() }).nullable(),
  created_at: z.string(),
  updated_at: z.string(),
  pid: z.number().int(),
  keep: z.boolean(),
});
