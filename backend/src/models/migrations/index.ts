// Migrations in the order they apply. Names are fixed once released: add, never rename.
import type { Migration } from "kysely/migration";
import * as initial from "./0001-initial.migration.js";

export const MIGRATIONS: Record<string, Migration> = {
  "0001-initial": initial,
};
