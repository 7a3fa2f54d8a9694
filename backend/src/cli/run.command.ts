// `superstep run FILE --input JSON`: runs a workflow from a file, printing the events live (or
// as JSON lines with --json) and the final state. With a studio database that has an owner
// account, the run is recorded there (trigger `cli`); otherwise it runs in memory only.
import { createInterface } from "node:readline/promises";
import { parseArgs } from "node:util";
import { loadConfig } from "../core/config.js";
import { AppError } from "../core/errors.js";
import { checkHumanInput, type HumanRequest } from "../engine/nodes/human.node.js";
import type { StudioEvent } from "../engine/runtime/events.js";
import type { Problem } from "../engine/validator/validator.js";
import { EventPrinter } from "./event-printer.js";
import { formatProblems } from "./problems-printer.js";
import { LocalDriver, RecordedDriver, type RunDriver, type Turn } from "./run-drivers.js";
import { parseJson, readJsonFile, readWorkflowFile, UsageError } from "./workflow-file.js";

const USAGE =
  "usage: superstep run FILE [--input JSON | --input-file FILE] [--json] [--step] [--workflows DIR] [--no-record]";

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

async function pressEnter(): Promise<void> {
  const rl = createInterface({ input: process.stdin, output: process.stdout });
  try {
    await rl.question("    press Enter for the next step ");
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
      "no-record": { type: "boolean" },
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
  const mode = values.step ? "step" : "full";
  const workflowsDir = values.workflows;

  const recorded = values["no-record"] || workflowsDir ? null : await RecordedDriver.open(config, mode, show);
  const driver: RunDriver =
    recorded ??
    new LocalDriver(
      {
        engine: config.engine,
        mode,
        // Outside the server, a Subgraph's workflow_id names a file DIR/<id>.json.
        resolveWorkflow: workflowsDir ? (id) => readWorkflowFile(workflowsDir, id) : undefined,
      },
      show,
    );
  process.once("SIGINT", () => driver.cancel());

  let turn: Turn;
  try {
    turn = await driver.start(document, input);
    const interactive = process.stdin.isTTY && !values.json;
    while (interactive && (turn.status === "waiting" || turn.status === "paused")) {
      if (turn.status === "waiting" && turn.waiting) turn = await driver.resume(await ask(turn.waiting));
      else {
        await pressEnter();
        turn = await driver.continue();
      }
    }
  } catch (error) {
    await driver.close();
    // Ctrl+D or Ctrl+C at a question: leave the run where it is.
    if ((error as Error).name === "AbortError") {
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
  await driver.close();
  if (values.json)
    console.log(
      JSON.stringify({
        run_id: turn.runId,
        recorded: driver.recorded,
        status: turn.status,
        state: turn.state,
        output: turn.output,
      }),
    );
  else {
    console.log(`\nFinal state (${turn.status}):\n${JSON.stringify(turn.state, null, 2)}`);
    if (driver.recorded) console.log(`Recorded in the studio as run ${turn.runId} (GET /api/runs/${turn.runId}).`);
  }
  if (turn.status === "ok") return 0;
  if (turn.status === "waiting" || turn.status === "paused") return 3;
  return 1;
}
