// The backend modules the run panel uses as they are, from their source (pure: zod at most): the run
// statuses and event shape, the check of a Human form's answer, and the shapes of the run routes'
// answers, so the panel reads what the server writes instead of keeping a copy.
import type { z } from "zod";
import type { nodeRunView } from "../../../../backend/src/schemas/node-run.schema.js";
import type { forkPreviewView } from "../../../../backend/src/schemas/run-fork.schema.js";
import type { nodeStatView, runCompareView, runListItem } from "../../../../backend/src/schemas/run-list.schema.js";

export { checkHumanInput, type FormProblem } from "../../../../backend/src/engine/nodes/human-form.js";
export {
  type EventError,
  RUN_STATUSES,
  type RunStatus,
  type StudioEvent as RunEvent,
  type StudioEventType as RunEventType,
} from "../../../../backend/src/engine/runtime/events.js";
export { RUN_TRIGGERS } from "../../../../backend/src/schemas/run-list.schema.js";

/** What a fork would do (POST /api/runs/:id/fork/preview). */
export type ForkPreview = z.infer<typeof forkPreviewView>;
/** What running one node alone answers (POST /api/node-runs). */
export type NodeRunResult = z.infer<typeof nodeRunView>;
/** One run of the runs page (GET /api/runs). */
export type RunListItem = z.infer<typeof runListItem>;
/** One node over the workflow's last runs (GET /api/workflows/:id/node-stats). */
export type NodeStat = z.infer<typeof nodeStatView>;
/** Two runs side by side (GET /api/runs/compare). */
export type RunComparison = z.infer<typeof runCompareView>;
