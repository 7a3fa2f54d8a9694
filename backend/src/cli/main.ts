// The `superstep` command. Each command's module is loaded only when it runs (inside the error
// handling, so even a failure to load one exits with a code from the table in exit-codes.ts).
import { AppError } from "../core/errors.js";
import { CommandError, EXIT, EXIT_SUMMARY, exitForError } from "./exit-codes.js";

type Command = (args: string[]) => Promise<number>;

const COMMANDS: Record<string, { summary: string; load: () => Promise<Command> }> = {
  start: {
    summary: "migrate the database, then serve the UI and API",
    load: async () => (await import("./start.command.js")).startCommand,
  },
  worker: {
    summary: "execute the runs queued on Redis (REDIS_URL), with a liveness answer on STUDIO_WORKER_HEALTH_PORT",
    load: async () => (await import("./worker.command.js")).workerCommand,
  },
  migrate: {
    summary: "apply database migrations and exit",
    load: async () => (await import("./migrate.command.js")).migrateCommand,
  },
  validate: {
    summary: "check a workflow file: validate FILE [--json] [--workflows DIR]",
    load: async () => (await import("./validate.command.js")).validateCommand,
  },
  run: {
    summary:
      "run a workflow file: run FILE --input JSON [--json] [--step]; go on with a recorded run: " +
      "run --continue RUN_ID, run --resume RUN_ID --input JSON",
    load: async () => (await import("./run.command.js")).runCommand,
  },
  "rotate-key": {
    summary: "re-encrypt stored credentials with a new key (stop the studio first)",
    load: async () => (await import("./rotate-key.command.js")).rotateKeyCommand,
  },
};

function usage(): string {
  const lines = Object.entries(COMMANDS).map(([name, c]) => `  ${name.padEnd(12)}${c.summary}`);
  const codes = EXIT_SUMMARY.map(([code, meaning]) => `  ${String(code).padEnd(5)}${meaning}`);
  return [
    "Usage: superstep <command>",
    "",
    "Commands:",
    ...lines,
    "",
    "Exit codes (every command):",
    ...codes,
    "",
    "Settings come from environment variables; see docs/en/configuration.md.",
  ].join("\n");
}

async function main(argv: string[]): Promise<number> {
  const [name, ...args] = argv;
  if (!name || name === "help" || name === "--help" || name === "-h") {
    console.log(usage());
    return name ? EXIT.OK : EXIT.USAGE;
  }
  const command = COMMANDS[name];
  if (!command) {
    console.error(`superstep: unknown command "${name}"\n\n${usage()}`);
    return EXIT.USAGE;
  }
  try {
    return await (await command.load())(args);
  } catch (error) {
    const code = exitForError(error);
    // Expected failures are one line; anything else keeps its stack for a bug report.
    if (code !== EXIT.FAILED || error instanceof AppError || error instanceof CommandError)
      console.error(`superstep: ${(error as Error).message}`);
    else console.error("superstep:", error instanceof Error ? (error.stack ?? error.message) : error);
    return code;
  }
}

process.exitCode = await main(process.argv.slice(2));
