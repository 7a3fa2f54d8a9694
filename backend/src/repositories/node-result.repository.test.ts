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

  it("gives a fork the results its parent finished, except for the nodes run again, and copies what it reuses", async () => {
    const repository = new NodeResultRepository(database.db);
    const parent = repository.ledgerFor("parent-1");
    await parent.put("parent-1:llm:0", { update: { answer: "from the parent" } });
    await parent.put("parent-1:tool:1", { update: { reply: "parent tool" } });
    await parent.put("parent-1:sub:0:inner:0", { update: { inner: true } });
    const parentKeys = (await repository.keysOf("parent-1")).sort();
    expect(parentKeys).toEqual(["llm:0", "sub:0:inner:0", "tool:1"]);

    const fork = repository.forkLedgerFor("fork-1", "parent-1", new Set(["tool", "sub"]));
    expect(await fork.get("fork-1:llm:0")).toStrictEqual({ update: { answer: "from the parent" } });
    // Chosen to run again: the node itself, and the nodes inside a Subgraph node.
    expect(await fork.get("fork-1:tool:1")).toBeUndefined();
    expect(await fork.get("fork-1:sub:0:inner:0")).toBeUndefined();
    // An execution the parent never finished.
    expect(await fork.get("fork-1:llm:1")).toBeUndefined();
    // What it reused is now its own; what it runs again it stores itself.
    expect(await repository.keysOf("fork-1")).toEqual(["llm:0"]);
    await fork.put("fork-1:tool:1", { update: { reply: "fork tool" } });
    expect(await fork.get("fork-1:tool:1")).toStrictEqual({ update: { reply: "fork tool" } });
    // The parent's results are only read.
    expect((await repository.keysOf("parent-1")).sort()).toEqual(parentKeys);
    expect(await parent.get("parent-1:tool:1")).toStrictEqual({ update: { reply: "parent tool" } });
  });
});
