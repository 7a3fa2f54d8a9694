// Migrations in the order they apply. Names are fixed once released: add, never rename.
import type { Migration } from "kysely/migration";
import * as initial from "./0001-initial.migration.js";
import * as runs from "./0002-runs.migration.js";
import * as credentials from "./0003-credentials.migration.js";
import * as runLifecycle from "./0004-run-lifecycle.migration.js";
import * as runIndexes from "./0005-run-indexes.migration.js";
import * as runForks from "./0006-run-forks.migration.js";
import * as runPins from "./0007-run-pins.migration.js";
import * as runSchedules from "./0008-run-schedules.migration.js";
import * as runPartialIndexes from "./0009-run-partial-indexes.migration.js";

export const MIGRATIONS: Record<string, Migration> = {
  "0001-initial": initial,
  "0002-runs": runs,
  "0003-credentials": credentials,
  "0004-run-lifecycle": runLifecycle,
  "0005-run-indexes": runIndexes,
  "0006-run-forks": runForks,
  "0007-run-pins": runPins,
  "0008-run-schedules": runSchedules,
  "0009-run-partial-indexes": runPartialIndexes,
};
