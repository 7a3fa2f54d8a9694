// `superstep run`: runs a workflow file, or goes on with a run recorded in the studio.
//   superstep run FILE [--input JSON | --input-file FILE] [--json] [--step] [--workflows DIR] [--no-record]
//   superstep run --continue RUN_ID [--json]          the next step of a paused (one-step) run
//   superstep run --resume RUN_ID --input JSON [--json]   the answer to a run waiting at a Human node
// Events print live (JSON lines with --json), then the state and, for a run that paused or waits,
// the exact command that goes on with it. With a studio database that has an owner account, a new
// run is recorded there (trigger `cli`); otherwise it runs in memory only and ends with the
// command. On a terminal (without --json) questions and steps are asked for as the run goes.
import { parseArgs } from "node:util";
import { loadConfig } from "../core/config.js";
import { AppError } from "../core/errors.js";
import type { HumanRequest } from "../engine/nodes/human.node.js";
import type { StudioEvent } from "../engine/runtime/events.js";
import type { Problem } from "../engine/validator/validator.js";
import type { RunView } from "../services/runs/run.service.js";
import { EventPrinter } from "./event-printer.js";
import { EXIT, exitForRunStatus, UsageError } from "./exit-codes.js";
import { type CommandContext, continueCommand, describeForm, resumeCommand } from "./next-step.js";
import { formatProblems } from "./problems-printer.js";
import { LocalDriver, NOT_RECORDED, RecordedDriver, type RunDriver, type Turn } from "./run-drivers.js";
import { askForm, pressEnter } from "./terminal-prompts.js";
import { parseJson, readJsonFile, readWorkflowFile } from "./workflow-file.js";

const USAGE = [
  "usage: superstep run FILE [--input JSON | --input-file FILE] [--json] [--step] [--workflows DIR] [--no-record]",
  "       superstep run --continue RUN_ID [--json]",
  "       superstep run --resume RUN_ID (--input JSON | --input-file FILE) [--json]",
].join("\n");

const OPTIONS = {
  input: { type: "string" },
  "input-file": { type: "string" },
  json: { type: "boolean" },
  step: { type: "boolean" },
  workflows: { type: "string" },
  "no-record": { type: "boolean" },
  continue: { type: "string" },
  resume: { type: "string" },
} as const;

type Values = ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>["values"];

type Plan =
  | { kind: "start"; file: string }
  | { kind: "continue"; runId: string }
  | { kind: "resume"; runId: string; answered: boolean };

function planOf(positionals: string[], values: Values): Plan {
  const goOn = values.continue ?? values.resume;
  if (goOn === undefined) {
    const [file] = positionals;
    if (!file || positionals.length > 1) throw new UsageError(USAGE);
    return { kind: "start", file };
  }
  if (values.continue !== undefined && values.resume !== undefined)
    throw new UsageError(`--continue and --resume cannot be used together\n${USAGE}`);
  const flag = values.continue !== undefined ? "--continue" : "--resume";
  if (positionals.length > 0)
    throw new UsageError(`${flag} goes on with a recorded run: give no FILE (the run keeps its workflow)\n${USAGE}`);
  for (const only of ["step", "workflows", "no-record"] as const)
    if (values[only] !== undefined) throw new UsageError(`--${only} applies to a new run only, not with ${flag}`);
  if (goOn.trim() === "") throw new UsageError(`${flag} needs a run id\n${USAGE}`);
  if (values.continue !== undefined) {
    if (values.input !== undefined || values["input-file"] !== undefined)
      throw new UsageError("--continue takes no input: it runs the next step (use --resume to answer a waiting run)");
    return { kind: "continue", runId: goOn };
  }
  return { kind: "resume", runId: goOn, answered: values.input !== undefined || values["input-file"] !== undefined };
}

async function inputOf(values: Values): Promise<unknown> {
  if (values.input !== undefined && values["input-file"] !== undefined)
    throw new UsageError("give --input or --input-file, not both");
  if (values["input-file"] !== undefined) return readJsonFile(values["input-file"]);
  if (values.input !== undefined) return parseJson(values.input, "--input");
  return undefined;
}

/** Why a recorded run cannot go on the way the command asks, with what would work instead. */
function wrongState(run: RunView, wanted: "paused" | "waiting", context: CommandContext): UsageError {
  const id = run.id;
  const waiting = run.waiting as HumanRequest | null;
  let hint: string;
  if (run.status === "waiting" && waiting)
    hint = `it waits for a person at ${waiting.node_id}: answer it with: ${resumeCommand(id, waiting, context)}`;
  else if (run.status === "paused") hint = `it is paused: continue it with: ${continueCommand(id, context)}`;
  else if (run.status === "queued" || run.status === "running")
    hint = "it is running now (in a studio, or in a process that stopped: the studio takes such runs over)";
  else hint = "it has ended: there is nothing left to run";
  return new UsageError(`run ${id} is ${run.status}, not ${wanted}: ${hint}`);
}

async function attach(driver: RecordedDriver, runId: string): Promise<RunView> {
  try {
    return await driver.attach(runId);
  } catch (error) {
    if (error instanceof AppError && error.code === "RUN_NOT_FOUND")
      throw new UsageError(
        `no run ${runId} in the studio's database (STUDIO_DATA_DIR or DATABASE_URL), or it is not the owner account's`,
      );
    throw error;
  }
}

/** The driver for a new run: recorded when the studio's database allows it, else in memory. */
async function newRunDriver(values: Values, show: (event: StudioEvent) => void): Promise<RunDriver> {
  const config = loadConfig();
  const mode = values.step ? "step" : "full";
  const workflowsDir = values.workflows;
  let reason: string;
  if (values["no-record"]) reason = NOT_RECORDED.noRecord;
  else if (workflowsDir !== undefined) {
    reason = NOT_RECORDED.workflows;
    console.error(`superstep: this run is not recorded in the studio: ${reason}.`);
  } else {
    const opened = await RecordedDriver.open(config, mode, show);
    if ("driver" in opened) return opened.driver;
    reason = opened.notRecordedBecause;
  }
  return new LocalDriver(
    {
      engine: config.engine,
      mode,
      // Outside the server, a Subgraph's workflow_id names a file DIR/<id>.json.
      resolveWorkflow: workflowsDir ? (id) => readWorkflowFile(workflowsDir, id) : undefined,
    },
    show,
    reason,
  );
}

/** Prints the state and, for a run that paused or waits, the command that goes on with it. */
function summarize(turn: Turn, driver: RunDriver, context: CommandContext): void {
  const pending = turn.status === "paused" || turn.status === "waiting";
  const next =
    !pending || !driver.recorded
      ? null
      : turn.status === "waiting" && turn.waiting
        ? resumeCommand(turn.runId, turn.waiting, context)
        : continueCommand(turn.runId, context);
  if (context.json)
    console.log(
      JSON.stringify({
        run_id: turn.runId,
        recorded: driver.recorded,
        ...(driver.notRecordedBecause ? { not_recorded_because: driver.notRecordedBecause } : {}),
        status: turn.status,
        state: turn.state,
        output: turn.output,
        ...(turn.status === "waiting" && turn.waiting ? { waiting: turn.waiting } : {}),
        ...(pending ? { continue_with: next } : {}),
      }),
    );
  else {
    console.log(`\n${pending ? "State" : "Final state"} (${turn.status}):\n${JSON.stringify(turn.state, null, 2)}`);
    if (driver.recorded) console.log(`Recorded in the studio as run ${turn.runId} (GET /api/runs/${turn.runId}).`);
    else console.log(`Not recorded in the studio: ${driver.notRecordedBecause}.`);
    if (next && turn.status === "paused") console.log(`Continue with: ${next}`);
    if (next && turn.status === "waiting" && turn.waiting)
      console.log(`Answer with: ${next}\n  (put the person's answer in; the form: ${describeForm(turn.waiting)})`);
  }
  if (pending && !driver.recorded)
    console.error(
      `superstep: this run cannot be continued later: it was kept in memory only, because ${driver.notRecordedBecause}. ` +
        `It ends with this command; run it on a terminal without --json to ${turn.status === "paused" ? "step through it" : "answer its questions"} as it goes.`,
    );
}

/** Errors that end the command with a code of their own; anything else goes to main. */
function reportFailure(error: unknown, plan: Plan, last: Turn | null, driver: RunDriver, context: CommandContext) {
  // Ctrl+C or Ctrl+D at a question: leave the run where it is.
  if ((error as Error).name === "AbortError") {
    const where =
      driver.recorded && last
        ? `run ${last.runId} is still ${last.status}; go on later with: ${
            last.status === "waiting" && last.waiting
              ? resumeCommand(last.runId, last.waiting, context)
              : continueCommand(last.runId, context)
          }`
        : "the run was kept in memory only and ends here";
    console.error(`\nstopped at a question; ${where}`);
    return EXIT.INTERRUPTED;
  }
  if (!(error instanceof AppError)) throw error;
  switch (error.code) {
    case "WORKFLOW_INVALID":
      console.error(
        `${plan.kind === "start" ? plan.file : "the workflow"}: the workflow is not valid\n${formatProblems(error.details as Problem[])}`,
      );
      return EXIT.INVALID;
    case "RUN_INPUT_INVALID":
      console.error(`the input does not fit: ${JSON.stringify(error.details)}`);
      return EXIT.INVALID;
    case "HUMAN_INPUT_INVALID": {
      const problems = error.details as { field: string; message: string }[];
      console.error(
        `the answer does not fit the form:\n${problems.map((p) => `  ✗ ${p.field || "answer"}: ${p.message}`).join("\n")}`,
      );
      return EXIT.INVALID;
    }
    case "HUMAN_WAIT_EXPIRED":
      console.error(`superstep: ${error.message}`);
      return EXIT.RUN_FAILED;
    default:
      throw error;
  }
}

export async function runCommand(args: string[]): Promise<number> {
  const { positionals, values } = parseArgs({ args, allowPositionals: true, options: OPTIONS });
  const plan = planOf(positionals, values);
  const document = plan.kind === "start" ? await readJsonFile(plan.file) : null;
  const input = await inputOf(values);
  const context: CommandContext = { json: Boolean(values.json), env: process.env };
  const printer = new EventPrinter();
  const show = (event: StudioEvent) => (context.json ? console.log(JSON.stringify(event)) : printer.print(event));
  const interactive = Boolean(process.stdin.isTTY) && !context.json;

  let driver: RunDriver;
  if (plan.kind === "start") driver = await newRunDriver(values, show);
  else {
    const opened = await RecordedDriver.open(loadConfig(), "full", show);
    if ("notRecordedBecause" in opened)
      throw new UsageError(
        `cannot go on with run ${plan.runId}: only runs recorded in the studio's database can be continued or answered later, and ${opened.notRecordedBecause}`,
      );
    driver = opened.driver;
  }
  process.once("SIGINT", () => driver.cancel());

  let turn: Turn | null = null;
  try {
    if (plan.kind === "start") turn = await driver.start(document, input ?? {});
    else {
      const recorded = driver as RecordedDriver;
      const run = await attach(recorded, plan.runId);
      if (plan.kind === "continue") {
        if (run.status !== "paused") throw wrongState(run, "paused", context);
        turn = await recorded.continue();
      } else {
        const waiting = run.waiting as HumanRequest | null;
        if (run.status !== "waiting" || !waiting) throw wrongState(run, "waiting", context);
        turn = { runId: run.id, status: run.status, state: {}, output: {}, waiting };
        let answer = input;
        if (answer === undefined && interactive) answer = await askForm(waiting);
        if (answer === undefined)
          throw new UsageError(
            `--resume needs --input JSON (or --input-file), the answer to the form: ${describeForm(waiting)}`,
          );
        turn = await recorded.resume(answer as Record<string, unknown>);
      }
    }
    while (interactive && (turn.status === "waiting" || turn.status === "paused")) {
      if (turn.status === "waiting" && turn.waiting) turn = await driver.resume(await askForm(turn.waiting));
      else {
        await pressEnter();
        turn = await driver.continue();
      }
    }
  } catch (error) {
    await driver.close();
    return reportFailure(error, plan, turn, driver, context);
  }
  await driver.close();
  if (turn.status === "queued" || turn.status === "running") {
    // The lease was held elsewhere when this process went to take the run.
    console.error(
      `superstep: run ${turn.runId} was not run here: another process holds it (a studio on the same database); follow it with GET /api/runs/${turn.runId}`,
    );
    return EXIT.FAILED;
  }
  summarize(turn, driver, context);
  return exitForRunStatus(turn.status);
}
