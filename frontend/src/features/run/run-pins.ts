// Pinned node outputs for editor runs (like n8n's pinned data): a pinned node does not run, its pin
// is its output. Kept per workflow in this browser; sent with each editor run (never with hooks,
// schedules or the CLI, which the server refuses anyway).
export type Pins = Record<string, Record<string, unknown>>;

const keyOf = (workflowId: string) => `superstep.pins.${workflowId}`;

function storage(): Storage | null {
  return typeof localStorage === "undefined" ? null : localStorage;
}

export function readPins(workflowId: string): Pins {
  try {
    const value = JSON.parse(storage()?.getItem(keyOf(workflowId)) ?? "{}") as unknown;
    if (!value || typeof value !== "object" || Array.isArray(value)) return {};
    return Object.fromEntries(
      Object.entries(value).filter(([, pin]) => pin && typeof pin === "object" && !Array.isArray(pin)),
    ) as Pins;
  } catch {
    return {};
  }
}

export function writePins(workflowId: string, pins: Pins): void {
  try {
    if (Object.keys(pins).length === 0) storage()?.removeItem(keyOf(workflowId));
    else storage()?.setItem(keyOf(workflowId), JSON.stringify(pins));
  } catch {
    // A full storage loses the pins of this browser, never the workflow.
  }
}
