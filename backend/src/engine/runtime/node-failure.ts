// How a failure is reported in events. No LangGraph here: the run executor classifies errors
// with it before (or without) loading the graph engine.
import { AppError } from "../../core/errors.js";
import type { EventError } from "./events.js";

/** A node failure already reported as an `error` event; the runtime ends the run with it. */
export class NodeFailure extends Error {
  readonly nodeId: string;
  readonly error: EventError;
  constructor(nodeId: string, error: EventError) {
    super(error.message);
    this.name = "NodeFailure";
    this.nodeId = nodeId;
    this.error = error;
  }
}

export function toEventError(error: unknown): EventError {
  if (error instanceof AppError) return { code: error.code, message: error.message, details: error.details };
  if (error instanceof NodeFailure) return error.error;
  const message = error instanceof Error ? error.message : String(error);
  return { code: "NODE_FAILED", message };
}
