// Code nodes and Python function tools run user code in the sandbox, never in this process.
import { AppError } from "../../core/errors.js";
import type { SandboxCall, SandboxResult } from "../sandbox/sandbox.js";
import { renderValue } from "../templates/template.js";
import type { TypedNode } from "../validator/validator.js";
import type { ExecutionEnv, Executor } from "./node-execution.js";
import { sandboxScopeOf } from "./sandbox-scope.js";
import { withSandboxSlot } from "./sandbox-slots.js";

async function sandboxed(env: ExecutionEnv, call: SandboxCall): Promise<unknown> {
  const { engine, signal } = env.ctx;
  if (engine.codeMode === "off")
    throw new AppError("NODE_FAILED", null, "Code nodes are turned off on this server (STUDIO_CODE_MODE=off).");
  // Loaded on first use: workflows without code never load the sandbox.
  const { runInSandbox } = await import("../sandbox/sandbox.js");
  const result: SandboxResult = await withSandboxSlot(() =>
    runInSandbox(call, { timeoutMs: engine.codeTimeoutMs, memoryMb: engine.codeMemoryMb }, signal, {
      warm: engine.codeWarm,
      warmMax: engine.codeWarmMax,
      scope: sandboxScopeOf(env.ctx),
      ...(engine.codeSnapshotDir === undefined ? {} : { snapshotDir: engine.codeSnapshotDir }),
    }),
  );
  if (signal.aborted) throw signal.reason;
  if (!result.ok) throw new AppError(result.code, { logs: result.logs }, result.message);
  return result.value;
}

export const executeCode: Executor<Extract<TypedNode, { type: "code" }>> = async (env) => {
  const { node, scope, stateFields } = env;
  // A For each body is called main(state, item, index); other nodes main(state).
  const args = scope.index === undefined ? [scope.state] : [scope.state, scope.item ?? null, scope.index];
  const value = await sandboxed(env, { language: node.data.language, code: node.data.code, args });
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new AppError("CODE_RESULT_INVALID", { returned: Array.isArray(value) ? "list" : typeof value });
  }
  const allowed = node.data.outputs ? new Set(node.data.outputs) : stateFields;
  const unknown = Object.keys(value).filter((key) => !allowed.has(key));
  if (unknown.length > 0) {
    throw new AppError(
      "CODE_RESULT_INVALID",
      { unknown_keys: unknown },
      `main() returned ${unknown.map((k) => `"${k}"`).join(", ")}, which ${node.data.outputs ? "this node's outputs do not list" : "are not declared state fields"}.`,
    );
  }
  const update: Record<string, unknown> = {};
  for (const [key, member] of Object.entries(value)) {
    Object.defineProperty(update, key, { value: member, enumerable: true, writable: true, configurable: true });
  }
  return update;
};

export const executePythonTool: Executor<Extract<TypedNode, { type: "tool" }>> = async (env) => {
  const { node, scope, key } = env;
  if (node.data.kind !== "python") throw new AppError("NODE_FAILED", null, "not a Python tool");
  const args = renderValue(node.data.args, scope);
  const value = await sandboxed(env, { language: "python", code: node.data.code, args: [args, key] });
  return { [node.data.output_field]: value };
};
