import { z } from "zod";

/** What started a run: a hook (API key), a schedule, the editor, the command line, or a fork. */
export const RUN_TRIGGERS = ["api", "schedule", "editor", "cli", "fork"] as const;
export type RunTrigger = (typeof RUN_TRIGGERS)[number];

const isoTime = z.iso.datetime({ offset: true, local: false });

/**
 * The runs page's filters but the status (the route adds it: run statuses are the engine's); `from`
 * after `to` is refused by the service (RUN_FILTER_RANGE_INVALID).
 */
export const runListFilters = z.strictObject({
  workflow_id: z.string().max(100).optional(),
  trigger: z.enum(RUN_TRIGGERS).optional(),
  schedule_id: z.string().min(1).max(100).optional(),
  from: isoTime.optional(),
  to: isoTime.optional(),
  /** A run id, or its first or last characters (hex digits and dashes, any case). */
  q: z
    .string()
    .trim()
    .regex(/^[0-9a-fA-F-]{1,36}$/, "a run id, or its first or last characters: hex digits and dashes")
    .optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
  offset: z.coerce.number().int().min(0).max(1_000_000).default(0),
});

export const runListItem = z.object({
  id: z.string(),
  workflow_id: z.string().nullable(),
  workflow_name: z.string().nullable(),
  workflow_version: z.number().int().nullable(),
  trigger: z.string(),
  mode: z.string(),
  status: z.string(),
  error_code: z.string().nullable(),
  error: z.unknown(),
  metrics: z.unknown(),
  parent_run_id: z.string().nullable(),
  parent_checkpoint_id: z.string().nullable(),
  schedule_id: z.string().nullable(),
  /** The nodes an editor run did not execute: their pinned output was used instead. */
  pinned_nodes: z.array(z.string()),
  created_at: z.string(),
  started_at: z.string().nullable(),
  finished_at: z.string().nullable(),
  duration_ms: z.number().int().nullable(),
});

/** How many of a workflow's newest runs the node statistics read. */
export const NODE_STATS_MAX_RUNS = 200;

export const nodeStatsQuery = z.strictObject({
  runs: z.coerce.number().int().min(1).max(NODE_STATS_MAX_RUNS).default(20),
});

export const nodeStatView = z.object({
  node_id: z.string(),
  /** Runs (of those read) in which the node started. */
  runs: z.number().int(),
  /** Times the node finished (a loop or For each finishes it more than once per run). */
  executions: z.number().int(),
  /** Runs in which the node reported an error, and that over `runs`. */
  error_runs: z.number().int(),
  error_rate: z.number(),
  /** Over its finished executions, in milliseconds; null when it never finished. */
  median_ms: z.number().nullable(),
  p95_ms: z.number().nullable(),
  /** LLM tokens over all its executions, and per run counted. */
  input_tokens: z.number().int(),
  output_tokens: z.number().int(),
  avg_input_tokens: z.number(),
  avg_output_tokens: z.number(),
});

export const nodeStatsView = z.object({
  workflow_id: z.string(),
  /** Runs asked for, and runs read (fewer when the workflow has fewer, or their events are too many). */
  runs_requested: z.number().int(),
  runs_counted: z.number().int(),
  truncated: z.boolean(),
  nodes: z.array(nodeStatView),
});
export type NodeStatsView = z.infer<typeof nodeStatsView>;

export const runCompareQuery = z.strictObject({
  a: z.string().min(1).max(100),
  b: z.string().min(1).max(100),
});

/** What one run did at one node, from its events. */
export const comparedNodeView = z.object({
  /** ok: finished last time it ran; error: reported an error; started: started, never finished (waiting, cancelled). */
  status: z.enum(["ok", "error", "started"]),
  executions: z.number().int(),
  /** Summed over its executions. */
  duration_ms: z.number(),
  reused: z.boolean(),
  /** The output of its last finished execution (as the event recorded it, possibly truncated). */
  output: z.unknown(),
  error: z.unknown(),
  input_tokens: z.number().int(),
  output_tokens: z.number().int(),
});

export const comparedRunView = z.object({
  id: z.string(),
  workflow_version: z.number().int().nullable(),
  status: z.string(),
  trigger: z.string(),
  error_code: z.string().nullable(),
  created_at: z.string(),
  started_at: z.string().nullable(),
  finished_at: z.string().nullable(),
  duration_ms: z.number().int().nullable(),
  input: z.unknown(),
  output: z.unknown(),
  /** True when the run had more node events than are read for a comparison: later nodes are missing. */
  truncated: z.boolean(),
});

export const runCompareView = z.object({
  workflow_id: z.string(),
  a: comparedRunView,
  b: comparedRunView,
  /** Every top-level state field of either run, by name; `equal` compares the values as JSON. */
  state: z.array(z.object({ field: z.string(), a: z.unknown(), b: z.unknown(), equal: z.boolean() })),
  /** Every node either run started, in the order run a (then run b) first reached it. */
  nodes: z.array(z.object({ node_id: z.string(), a: comparedNodeView.nullable(), b: comparedNodeView.nullable() })),
});
export type RunCompareView = z.infer<typeof runCompareView>;
export type ComparedNodeView = z.infer<typeof comparedNodeView>;
