// The check step run through the import sandbox (phase "inspect", network none): `runner.py
// inspect` over every discovered graph at once, within STUDIO_INSPECT_TIMEOUT. Each graph gets its
// `inspected` summary, and each loaded graph's full line is kept for building its workflow.
import { AppError } from "../../core/errors.js";
import {
  type GraphInspection,
  inspectableId,
  inspectCommand,
  loadedSummary,
  notInspected,
  readInspectLine,
} from "../../engine/repo_import/graph-inspection.js";
import type { ImportSandbox } from "../../engine/sandbox/import-sandbox.js";

export interface CheckStepInput {
  sandbox: ImportSandbox;
  jobDir: string;
  sourceRoot: string;
  graphs: { id: string; spec: string }[];
  env: Record<string, string>;
  timeoutMs: number;
  signal: AbortSignal;
  log: (line: string) => void;
}

export interface CheckStepResult {
  /** Graph id → its summary; every graph asked for has one. */
  inspected: Map<string, GraphInspection>;
  /** Graph id → the runner's line for it, as printed (kept in <job>/inspect.json). */
  lines: Record<string, unknown>;
}

export async function runCheckStep(input: CheckStepInput): Promise<CheckStepResult> {
  const inspected = new Map<string, GraphInspection>();
  const lines: Record<string, unknown> = {};
  const wanted = new Set<string>();
  for (const graph of input.graphs) {
    if (inspectableId(graph.id)) wanted.add(graph.id);
    else
      inspected.set(
        graph.id,
        notInspected("exception", "the graph id contains '=', which runner.py cannot take (id=spec)"),
      );
  }
  const graphs = input.graphs.filter((graph) => wanted.has(graph.id));
  if (graphs.length === 0) return { inspected, lines };

  const paths = input.sandbox.paths(input.jobDir);
  const argv = inspectCommand(paths, `${paths.job}/${input.sourceRoot}`, graphs);
  input.log(`$ runner.py inspect ${graphs.map((graph) => `--graph '${graph.id}=${graph.spec}'`).join(" ")}`);
  const result = await input.sandbox.exec({
    phase: "inspect",
    jobDir: input.jobDir,
    argv,
    env: input.env,
    cwd: `${paths.job}/${input.sourceRoot}`,
    timeoutMs: input.timeoutMs,
    signal: input.signal,
    onStdoutLine: (text) => {
      const line = readInspectLine(text);
      if (!line || !wanted.has(line.id) || inspected.has(line.id)) return;
      inspected.set(line.id, line.kind === "graph" ? loadedSummary(line.id, line.line) : line.inspected);
      lines[line.id] = line.raw;
      const summary = inspected.get(line.id);
      input.log(
        summary?.ok
          ? `graph ${line.id}: loaded (${summary.nodes} nodes, ${summary.edges} edges, ${summary.conditional_edges} conditional)`
          : `graph ${line.id}: not loaded (${summary?.kind}, ${summary?.stage ?? "-"}): ${summary?.message}`,
      );
    },
    onStderrLine: input.log,
  });
  if (result.aborted) throw new AppError("IMPORT_INTERRUPTED");
  const seconds = Math.round(input.timeoutMs / 1000);
  for (const graph of graphs) {
    if (inspected.has(graph.id)) continue;
    const missing = result.timedOut
      ? notInspected("timeout", `inspection stopped at the time limit (${seconds}s, STUDIO_INSPECT_TIMEOUT)`)
      : notInspected(
          "exception",
          result.exitCode === 137 || result.outOfMemory
            ? "the sandbox stopped the inspection (out of memory (exit 137))"
            : `runner.py printed no result for this graph (exit code ${result.exitCode})`,
        );
    inspected.set(graph.id, missing);
    input.log(
      `graph ${graph.id}: not loaded (${missing.ok ? "" : missing.kind}): ${missing.ok ? "" : missing.message}`,
    );
  }
  return { inspected, lines };
}
