// Placeholder until saving is built.
import type { Workflow } from "@/lib/api";

export function SaveControls(_props: { workflow: Workflow }) {
  return null;
}
