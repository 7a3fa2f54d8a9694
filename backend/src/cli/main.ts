// The `superstep` command. Later commands (worker, run, validate) join the table below.
import { AppError } from "../core/errors.js";
import { migrateCommand } from "./migrate.command.js";
import { rotateKeyCommand } from "./rotate-key.command.js";
import { runCommand } from "./run.command.js";
import { startCommand } from "./start.command.js";
import { validateCommand } from "./validate.command.js";
import { UsageError } from "./workflow-file.js";

const COMMANDS: Record<string, { summary: string; run: (args: string[]) => Promise<number> }> = {
  start: { summary: "migrate the database, then serve the UI and API", run: startCommand },
  migrate: { summary: "apply database migrations and exit", run: migrateCommand },
  validate: { summary: "check a workflow file (exit 1 when it is not valid)", run: validateCommand },
  run: { summary: "run a workflow file: run FILE --input JSON [--json] [--step]", run: runCommand },
  "rotate-key": {
    summary: "re-encrypt stored credentials with a new key (stop the studio first)",
    run: rotateKeyCommand,
  },
};

function usage(): string {
  const lines = Object.entries(COMMANDS).map(([name, c]) => `  ${name.padEnd(12)}${c.summary}`);
  return [
    "Usage: superstep <command>",
    "",
    "Commands:",
    ...lines,
    "",
    "Settings come from environment variables; see docs/en/configuration.md.",
  ].join("\n");
}

async function main(argv: string[]): Promise<number> {
  const [name, ...args] = argv;
  if (!name || name === "help" || name === "--help" || name === "-h") {
    console.log(usage());
    return name ? 0 : 2;
  }
  const command = COMMANDS[name];
  if (!command) {
    console.error(`superstep: unknown command "${name}"\n\n${usage()}`);
    return 2;
  }
  try {
    return await command.run(args);
  } catch (error) {
    if (
      error instanceof UsageError ||
      (error instanceof TypeError && "code" in error && String(error.code).startsWith("ERR_PARSE_ARGS"))
    ) {
      console.error(`superstep: ${error.message}`);
      return 2;
    }
    if (error instanceof AppError && error.code === "CONFIG_INVALID") {
      console.error(`superstep: ${error.message}`);
      return 2;
    }
    console.error("superstep:", error instanceof Error ? (error.stack ?? error.message) : error);
    return 1;
  }
}

process.exitCode = await main(process.argv.slice(2));
