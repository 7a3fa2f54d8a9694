// The runs page's filters, kept in the address (so a filtered list can be shared and survives a
// reload), and the API query they make.
export { RUN_STATUSES, RUN_TRIGGERS } from "../run/backend-shared";

export interface RunFilters {
  workflow: string;
  status: string;
  trigger: string;
  /** Local date-times as the inputs give them (yyyy-mm-ddThh:mm). */
  from: string;
  to: string;
  q: string;
  /** The schedule whose runs to list (set by a schedule's "Runs" link). */
  schedule: string;
}

const KEYS: (keyof RunFilters)[] = ["workflow", "status", "trigger", "from", "to", "q", "schedule"];

export function filtersFrom(params: URLSearchParams): RunFilters {
  return Object.fromEntries(KEYS.map((key) => [key, params.get(key) ?? ""])) as unknown as RunFilters;
}

export function filtersToParams(filters: RunFilters): URLSearchParams {
  const params = new URLSearchParams();
  for (const key of KEYS) if (filters[key]) params.set(key, filters[key]);
  return params;
}

/** A local date-time as an ISO instant (the API wants a zone), or null when it is not one. */
function instant(local: string): string | null {
  const time = new Date(local);
  return Number.isNaN(time.getTime()) ? null : time.toISOString();
}

/** The API's query for the filters; a run id searched is trimmed and lower-cased. */
export function runsQuery(filters: RunFilters): string {
  const query = new URLSearchParams();
  if (filters.workflow) query.set("workflow_id", filters.workflow);
  if (filters.status) query.set("status", filters.status);
  if (filters.trigger) query.set("trigger", filters.trigger);
  if (filters.schedule) query.set("schedule_id", filters.schedule);
  const from = filters.from ? instant(filters.from) : null;
  const to = filters.to ? instant(filters.to) : null;
  if (from) query.set("from", from);
  if (to) query.set("to", to);
  const q = filters.q.trim().toLowerCase();
  if (q) query.set("q", q);
  return query.toString();
}
