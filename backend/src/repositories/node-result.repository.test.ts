import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openTestDatabase, type TestDatabase } from "../../test/test-database.js";
import { NodeResultRepository } from "./node-result.repository.js";

let database: TestDatabase;

beforeAll(async () => {
  database = await openTestDatabase();
});

afterAll(async () => {
  await database.drop();
});

describe("NodeResultRepository", () => {
  it("stores results by key per run, keeps the first, and forgets a run", async () => {
    const repository = new NodeResultRepository(database.db);
    const ledger = repository.ledgerFor("run-1");
    const other = repository.ledgerFor("run-2");

    expect(await ledger.get("llm:n1:0")).toBeUndefined();
    const update = { answer: "hi", nested: { lc: 1, type: "constructor", id: ["x"], kwargs: {} } };
    await ledger.put("llm:n1:0", { update });
    await ledger.put("llm:n1:0", { update: { answer: "second" } });
    const stored = await ledger.get("llm:n1:0");
    expect(stored).toStrictEqual({ update });
    expect(Object.getPrototypeOf(stored?.update.nested)).toBe(Object.prototype);

    expect(await other.get("llm:n1:0")).toBeUndefined();
    await other.put("llm:n1:0", { update: { answer: "other" } });

    await repository.deleteRun("run-1");
    expect(await ledger.get("llm:n1:0")).toBeUndefined();
    expect(await other.get("llm:n1:0")).toStrictEqual({ update: { answer: "other" } });
  });

  it("makes what the run wrote durable before a node looks its key up to call out", async () => {
    const order: string[] = [];
    const repository = new NodeResultRepository(database.db, async () => {
      order.push("settled");
    });
    const ledger = repository.ledgerFor("run-3");
    await ledger.put("tool:t:0", { update: { n: 1 } });
    order.push("put");
    expect(await ledger.get("tool:t:0")).toStrictEqual({ update: { n: 1 } });
    expect(order).toEqual(["put", "settled"]);
  });
});
