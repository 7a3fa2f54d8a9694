import { z } from "zod";

/** Where to fork from (a superstep or a checkpoint id: one of the two), the edit, and what to run again. */
export const forkRequest = z
  .strictObject({
    superstep: z.number().int().min(0).max(1_000_000).optional(),
    checkpoint_id: z.string().min(1).max(100).optional(),
    /** State fields to replace at the checkpoint (each must fit its field). */
    state: z.record(z.string(), z.unknown()).optional(),
    /** Side-effect (or Subgraph) nodes to run again instead of reusing the parent's results. */
    rerun: z.array(z.string().min(1).max(200)).max(500).optional(),
    mode: z.enum(["full", "step"]).optional(),
    /**
     * The workflow to run from the checkpoint, e.g. the editor's document after fixing the node that
     * failed (checked like any document); by default the document the parent ran.
     */
    document: z.unknown().optional(),
  })
  .refine((body) => (body.superstep === undefined) !== (body.checkpoint_id === undefined), {
    message: "give either superstep or checkpoint_id",
  });
export type ForkRequest = z.infer<typeof forkRequest>;

export const stepNodeView = z.object({
  node_id: z.string(),
  status: z.enum(["ok", "error"]),
  reused: z.boolean(),
  iteration: z.string().nullable(),
});

/**
 * One superstep of a run: its checkpoint, the nodes that ran in it, the state after it. A superstep
 * that failed wrote no checkpoint: checkpoint_id, created_at and state are null.
 */
export const stepView = z.object({
  superstep: z.number().int(),
  checkpoint_id: z.string().nullable(),
  created_at: z.string().nullable(),
  nodes: z.array(stepNodeView),
  state: z.record(z.string(), z.unknown()).nullable(),
});

export const forkPreviewView = z.object({
  run_id: z.string(),
  checkpoint_id: z.string(),
  superstep: z.number().int(),
  next: z.array(z.string()),
  side_effects: z.array(
    z.object({
      node_id: z.string(),
      type: z.string(),
      action: z.enum(["reuse", "run_again", "run"]),
      parent_results: z.number().int(),
      /** Fields the node's settings read that the edited state changes: a reused result may be stale. */
      reads_edited: z.array(z.string()),
      /** The node's settings differ from those of the run forked (a fork with another document). */
      settings_changed: z.boolean(),
    }),
  ),
  state_changes: z.array(z.string()),
});
