import { describe, expect, it } from "vitest";
import { TurnPace } from "./turn-pace.js";

/** A pace on a clock the test moves, whose "next turn" callbacks the test runs. */
function pacedByHand(budgetMs = 4) {
  let clock = 0;
  const nextTurn: (() => void)[] = [];
  const pace = new TurnPace({ budgetMs, now: () => clock, nextTurn: (callback) => nextTurn.push(callback) });
  return {
    pace,
    spend: (ms: number) => {
      clock += ms;
    },
    /**
     * Runs the callbacks queued for the next turn in order, each followed by the continuations it
     * woke, as Node runs setImmediate callbacks (microtasks drain between them).
     */
    turn: async () => {
      for (const callback of nextTurn.splice(0)) {
        callback();
        await new Promise((resolve) => setImmediate(resolve));
      }
    },
  };
}

describe("turn pace", () => {
  it("lets steps go on until the turn has used its budget, then sends them to a later turn", async () => {
    const { pace, spend, turn } = pacedByHand(4);
    expect(pace.pace()).toBeNull();
    spend(3);
    expect(pace.pace()).toBeNull();
    spend(1);
    const first = pace.pace();
    const second = pace.pace();
    expect(first).toBeInstanceOf(Promise);
    expect(second).toBeInstanceOf(Promise);
    expect(pace.deferred).toBe(2);

    // Each step, once it goes on, spends the new turn's budget: the other waits one turn more.
    const resumed: string[] = [];
    void first?.then(() => {
      resumed.push("first");
      spend(5);
    });
    void second?.then(() => {
      resumed.push("second");
      spend(5);
    });
    await turn();
    expect(resumed).toEqual(["first"]);
    expect(pace.deferred).toBe(3);
    await turn();
    expect(resumed).toEqual(["first", "second"]);
  });

  it("starts every turn with a full budget", async () => {
    const { pace, spend, turn } = pacedByHand(4);
    expect(pace.pace()).toBeNull();
    spend(10);
    const deferred = pace.pace();
    expect(deferred).not.toBeNull();
    let resumed = false;
    void deferred?.then(() => {
      resumed = true;
    });
    await turn();
    expect(resumed).toBe(true);
    // The deferred step opened the new turn: the next steps go on until it has spent 4 ms again.
    expect(pace.pace()).toBeNull();
    spend(4);
    expect(pace.pace()).not.toBeNull();
  });
});
