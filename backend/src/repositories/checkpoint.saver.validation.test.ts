// LangGraph's conformance suite for checkpoint savers, against DatabaseCheckpointSaver on this
// project's database. The suite is written for vitest globals, so they are installed here.
import { deltaChannelHistoryTests, validate } from "@langchain/langgraph-checkpoint-validation";
import * as vitest from "vitest";
import { openTestDatabase, type TestDatabase } from "../../test/test-database.js";
import { DatabaseCheckpointSaver } from "./checkpoint.saver.js";

// The one test skipped, with its reason in the test name. Upstream skips it for MemorySaver and
// the SQLite saver for the same reason: they, like this saver, store whole checkpoints.
const SKIPPED: Record<string, string> = {
  "should only store channel_values that have changed (based on newVersions)":
    "whole checkpoints are stored, channel values included, as MemorySaver and the SQLite saver do",
};

const it = new Proxy(vitest.it, {
  apply(target, thisArg, args: unknown[]) {
    const [name, ...rest] = args;
    const reason = typeof name === "string" ? SKIPPED[name] : undefined;
    if (reason) return (target.skip as (...a: unknown[]) => void)(`[because ${reason}] ${name}`, ...rest);
    return Reflect.apply(target, thisArg, args);
  },
});

Object.assign(globalThis, {
  describe: vitest.describe,
  it,
  test: it,
  expect: vitest.expect,
  beforeAll: vitest.beforeAll,
  afterAll: vitest.afterAll,
  beforeEach: vitest.beforeEach,
  afterEach: vitest.afterEach,
});

let database: TestDatabase;

const initializer = {
  checkpointerName: "DatabaseCheckpointSaver",
  beforeAllTimeout: 60_000,
  beforeAll: async () => {
    database = await openTestDatabase();
  },
  afterAll: () => database.drop(),
  // One saver at a time, each over empty tables (the list tests list every thread).
  createCheckpointer: async () => {
    await database.db.deleteFrom("checkpoint_writes").execute();
    await database.db.deleteFrom("checkpoints").execute();
    return new DatabaseCheckpointSaver(database.db);
  },
};

validate(initializer);
// Opt-in upstream: DeltaSnapshot round trips and the default ancestor walk over stored writes.
deltaChannelHistoryTests(initializer);
