// The container for a long-running command (start, worker), with the refusals a person must read
// in one line: a database that a newer version has migrated (exit 5).
import { buildContainer, type Container } from "../api/deps.js";
import type { Config } from "../core/config.js";
import type { Logger } from "../core/logging.js";
import { SchemaNewerError } from "../repositories/database.js";
import { CommandError, EXIT } from "./exit-codes.js";

export async function containerFor(config: Config, logger: Logger): Promise<Container> {
  try {
    return await buildContainer(config, logger);
  } catch (error) {
    if (error instanceof SchemaNewerError) throw new CommandError(EXIT.FAILED, error.message);
    throw error;
  }
}
