import { loadConfig } from "../core/config.js";
import { migrateToLatest, openDatabase, SchemaNewerError } from "../repositories/database.js";
import { CommandError, EXIT } from "./exit-codes.js";

export async function migrateCommand(): Promise<number> {
  const config = loadConfig();
  const database = openDatabase(config);
  try {
    const { applied } = await migrateToLatest(database.db, database.kind);
    console.log(
      applied.length > 0
        ? `Applied ${applied.join(", ")} (${database.kind}).`
        : `Database is up to date (${database.kind}).`,
    );
    return EXIT.OK;
  } catch (error) {
    if (error instanceof SchemaNewerError) throw new CommandError(EXIT.FAILED, error.message);
    throw error;
  } finally {
    await database.close();
  }
}
