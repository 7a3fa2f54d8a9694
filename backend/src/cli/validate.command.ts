// `superstep validate FILE`: lists every problem of a workflow file (exit 1 when it is not valid,
// as `superstep run` does for the same file).
import { parseArgs } from "node:util";
import { loadConfig } from "../core/config.js";
import { AppError } from "../core/errors.js";
import { prepareWorkflow } from "../engine/runtime/prepare-workflow.js";
import type { Problem } from "../engine/validator/validator.js";
import { EXIT, UsageError } from "./exit-codes.js";
import { formatProblems } from "./problems-printer.js";
import { readJsonFile, readWorkflowFile } from "./workflow-file.js";

export async function validateCommand(args: string[]): Promise<number> {
  const { positionals, values } = parseArgs({
    args,
    allowPositionals: true,
    options: { json: { type: "boolean" }, workflows: { type: "string" } },
  });
  const [file] = positionals;
  if (!file || positionals.length > 1)
    throw new UsageError("usage: superstep validate FILE [--json] [--workflows DIR]");
  const document = await readJsonFile(file);
  const config = loadConfig();
  try {
    const dir = values.workflows;
    await prepareWorkflow(document, {
      engine: config.engine,
      resolveWorkflow: dir ? (id) => readWorkflowFile(dir, id) : undefined,
    });
  } catch (error) {
    if (!(error instanceof AppError) || error.code !== "WORKFLOW_INVALID") throw error;
    const problems = error.details as Problem[];
    if (values.json) console.log(JSON.stringify({ valid: false, problems }));
    else
      console.error(
        `${file}: ${problems.length} problem${problems.length === 1 ? "" : "s"}\n${formatProblems(problems)}`,
      );
    return EXIT.INVALID;
  }
  if (values.json) console.log(JSON.stringify({ valid: true, problems: [] }));
  else console.log(`${file}: valid`);
  return EXIT.OK;
}
