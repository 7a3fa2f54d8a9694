import { z } from "zod";

/** Where a one-node run takes its state: a superstep (or checkpoint) of one of your past runs. */
const stateSource = z
  .strictObject({
    run_id: z.string().min(1).max(100),
    checkpoint_id: z.string().min(1).max(100).optional(),
    superstep: z.number().int().min(0).max(1_000_000).optional(),
  })
  .refine((from) => (from.checkpoint_id === undefined) !== (from.superstep === undefined), {
    message: "give either checkpoint_id or superstep",
  });

/** One iteration of a For each body: the item it runs on and its index in the list. */
const iteration = z
  .strictObject({
    item: z.unknown(),
    index: z.number().int().min(0).max(1_000_000).optional(),
  })
  .refine((value) => value.item !== undefined, { message: "give the item", path: ["item"] });

/**
 * Run one node: of a saved workflow (its current version, or `version`) or of the unsaved
 * `document` the editor shows, on a state taken from a past run's superstep (`from`) and/or given
 * as JSON (`state`: fields that replace those of `from`). A node inside a For each runs as one
 * iteration: `iteration` gives its item (and index).
 */
export const nodeRunRequest = z
  .strictObject({
    workflow_id: z.string().min(1).max(100).optional(),
    version: z.number().int().min(1).optional(),
    document: z.unknown().optional(),
    node_id: z.string().min(1).max(200),
    from: stateSource.optional(),
    state: z.record(z.string(), z.unknown()).optional(),
    iteration: iteration.optional(),
    context: z.record(z.string(), z.unknown()).optional(),
  })
  .refine((body) => (body.workflow_id === undefined) !== (body.document === undefined), {
    message: "give either workflow_id or document",
  })
  .refine((body) => body.version === undefined || body.workflow_id !== undefined, {
    message: "version goes with workflow_id",
  });
export type NodeRunRequest = z.infer<typeof nodeRunRequest>;

const eventError = z.object({ code: z.string(), message: z.string(), details: z.unknown().optional() });

export const nodeRunView = z.object({
  node_id: z.string(),
  node_type: z.string(),
  status: z.enum(["ok", "error"]),
  input_state: z.record(z.string(), z.unknown()),
  output: z.record(z.string(), z.unknown()).nullable(),
  /** Null when the node failed, and for a For each iteration (the For each writes all its items' values together). */
  state: z.record(z.string(), z.unknown()).nullable(),
  route: z.string().nullable(),
  usage: z.object({ input_tokens: z.number(), output_tokens: z.number() }).nullable(),
  duration_ms: z.number(),
  error: eventError.nullable(),
});
