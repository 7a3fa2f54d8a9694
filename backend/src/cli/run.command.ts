// `superstep run FILE --input JSON`: runs a workflow in this process with an in-memory
// checkpointer, printing the events live (or as JSON lines with --json) and the final state.
import { createInterface } from "node:readline/promises";
import { parseArgs } from "node:util";
import { MemorySaver } from "@langchain/langgraph";
import { loadConfig } from "../core/config.js";
import { AppError } from "../core/errors.js";
import { checkHumanInput, type HumanRequest } from "../engine/nodes/human.node.js";
import type { StudioEvent } from "../engine/runtime/events.js";
import { type RunOptions, type RunOutcome, runStream } from "../engine/runtime/runtime.js";
import type { Problem } from "../engine/validator/validator.js";
import { EventPrinter } from "./event-printer.js";
import { formatProblems } from "./problems-printer.js";
import { parseJson, readJsonFile, readWorkflowFile, UsageError } from "./workflow-file.js";

const USAGE = "usage: superstep run FILE [--input JSON | --input-file FILE] [--json] [--step] [--workflows DIR]";

/** Asks for each form field until the answer fits the form. */
async function ask(request: HumanRequest): Promise<Record<string, unknown>> {
  const rl = createInterface({ input: process.stdin, output: process.stdout });
  try {
    for (;;) {
      const answer: Record<string, unknown> = {};
      for (const field of request.fields) {
        const raw = (
          await rl.question(`    ${field.label ?? field.name}${field.required ? " *" : ""} (${field.type}): `)
        ).trim();
        if (raw === "") continue;
        answer[field.name] =
          field.type === "number" ? Number(raw) : field.type === "boolean" ? /^(y|yes|true|1)$/i.test(raw) : raw;
      }
      const problems = checkHumanInput(request.fields, answer);
      if (problems.length === 0) return answer;
      for (const p of problems) console.log(`    ✗ ${p.field}: ${p.message}`);
    }
  } finally {
    rl.close();
  }
}

export async function runCommand(args: string[]): Promise<number> {
  const { positionals, values } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      input: { type: "string" },
      "input-file": { type: "string" },
      json: { type: "boolean" },
      step: { type: "boolean" },
      workflows: { type: "string" },
    },
  });
  const [file] = positionals;
  if (!file || positionals.length > 1) throw new UsageError(USAGE);
  const document = await readJsonFile(file);
  const input = values["input-file"]
    ? await readJsonFile(values["input-file"])
    : values.input
      ? parseJson(values.input, "--input")
      : {};
  const config = loadConfig();
  const printer = new EventPrinter();
  const show = (event: StudioEvent) => (values.json ? console.log(JSON.stringify(event)) : printer.print(event));
  const controller = new AbortController();
  process.once("SIGINT", () => controller.abort());

  const workflowsDir = values.workflows;
  const base: RunOptions = {
    engine: config.engine,
    checkpointer: new MemorySaver(),
    signal: controller.signal,
    mode: values.step ? "step" : "full",
    // Outside the server, a Subgraph's workflow_id names a file DIR/<id>.json.
    resolveWorkflow: workflowsDir ? (id) => readWorkflowFile(workflowsDir, id) : undefined,
  };
  let outcome: RunOutcome;
  let options: RunOptions = base;
  let runInput: unknown = input;
  try {
    for (;;) {
      const run = runStream(document, runInput, options);
      let next = await run.next();
      while (!next.done) {
        show(next.value);
        next = await run.next();
      }
      outcome = next.value;
      const interactive = process.stdin.isTTY && !values.json;
      if (outcome.status === "waiting" && interactive && outcome.waiting) {
        const answer = await ask(outcome.waiting);
        options = {
          ...base,
          runId: outcome.runId,
          firstSeq: outcome.nextSeq,
          resume: { kind: "human", input: answer },
        };
      } else if (outcome.status === "paused" && interactive) {
        const rl = createInterface({ input: process.stdin, output: process.stdout });
        await rl.question("    press Enter for the next step ");
        rl.close();
        options = { ...base, runId: outcome.runId, firstSeq: outcome.nextSeq, resume: { kind: "continue" } };
      } else {
        break;
      }
      runInput = null;
    }
  } catch (error) {
    // Ctrl+D or Ctrl+C at a question: leave the run where it is.
    if ((error as Error).name === "AbortError" && !controller.signal.aborted) {
      console.error("\nstopped at a question; the run was not finished");
      return 130;
    }
    if (error instanceof AppError && (error.code === "WORKFLOW_INVALID" || error.code === "RUN_INPUT_INVALID")) {
      if (error.code === "WORKFLOW_INVALID")
        console.error(`${file}: the workflow is not valid\n${formatProblems(error.details as Problem[])}`);
      else console.error(`the input does not fit: ${JSON.stringify(error.details)}`);
      return 2;
    }
    throw error;
  }
  if (values.json)
    console.log(JSON.stringify({ status: outcome.status, state: outcome.state, output: outcome.output }));
  else console.log(`\nFinal state (${outcome.status}):\n${JSON.stringify(outcome.state, null, 2)}`);
  if (outcome.status === "ok") return 0;
  if (outcome.status === "waiting" || outcome.status === "paused") return 3;
  return 1;
}
