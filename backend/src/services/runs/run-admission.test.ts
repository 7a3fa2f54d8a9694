// A user's queued and running runs stay under STUDIO_USER_MAX_QUEUED however their creates
// interleave: a run being created is counted once, by the admission until the database's count
// sees it, then by the database.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { insertTestOwner, openTestDatabase, type TestDatabase, testRunInput } from "../../../test/test-database.js";
import { AppError } from "../../core/errors.js";
import type { RunRow } from "../../models/database.model.js";
import { type NewRun, RunRepository } from "../../repositories/run.repository.js";
import { RunAdmission } from "./run-admission.js";
import { TriggerRateLimiter } from "./trigger-rate.js";

/** A promise the test settles by hand. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { open, opened };
}

describe("run admission", () => {
  let database: TestDatabase;
  let runs: RunRepository;
  let ownerId: string;

  beforeEach(async () => {
    database = await openTestDatabase();
    runs = new RunRepository(database.db, { settled: () => database.settled(), writes: database.writes });
    ownerId = await insertTestOwner(database.db);
  });
  afterEach(() => database.drop());

  const newRun = (): NewRun => testRunInput(ownerId, { trigger: "hook" });
  const admissionOf = (maxQueued: number) =>
    new RunAdmission({
      runs,
      maxQueued,
      rate: new TriggerRateLimiter(10_000),
      server: { maxQueued: 1_000_000, current: () => 0 },
    });
  const refusalOf = async (admitted: Promise<unknown>) => {
    const error = await admitted.then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(AppError);
    return (error as AppError).code;
  };

  it("never admits one run too many when many triggers of one user race", async () => {
    const admission = admissionOf(3);
    const outcomes = await Promise.allSettled(
      Array.from({ length: 12 }, () =>
        admission.admit(ownerId, "hook", (visible) => runs.create(newRun(), { visible })),
      ),
    );
    const admitted = outcomes.filter((o) => o.status === "fulfilled");
    const refused = outcomes.filter((o) => o.status === "rejected");
    expect(admitted).toHaveLength(3);
    for (const r of refused) expect((r.reason as AppError).code).toBe("RUN_LIMIT_REACHED");
    expect(await runs.countActive(ownerId)).toBe(3);
  });

  it("decides a burst of one user's triggers with one count, and counts again for those that came after it", async () => {
    const admission = admissionOf(12);
    const counting = runs.countActive.bind(runs);
    let counts = 0;
    runs.countActive = async (owner: string) => {
      counts++;
      return counting(owner);
    };
    const admit = () => admission.admit(ownerId, "hook", (visible) => runs.create(newRun(), { visible }));
    // Ten at once: all of them were waiting when the first count started.
    const burst = await Promise.all(Array.from({ length: 10 }, admit));
    expect(burst.every((admitted) => admitted.created)).toBe(true);
    expect(counts).toBe(1);
    // Later ones are counted afresh, and the limit still holds: two fit, the third does not.
    expect((await admit()).created).toBe(true);
    expect((await admit()).created).toBe(true);
    expect(await refusalOf(admit())).toBe("RUN_LIMIT_REACHED");
    expect(counts).toBe(4);
    expect(await runs.countActive(ownerId)).toBe(12);
  });

  it("counts a run admitted before it and not committed yet, without waiting for its commit", async () => {
    const admission = admissionOf(1);
    const held = gate();
    let inserted = false;
    // The first create waits before its insert: the run is in no count of the database yet.
    const first = admission.admit(ownerId, "hook", async (visible) => {
      await held.opened;
      inserted = true;
      return runs.create(newRun(), { visible });
    });
    // Decided while the first run is still uncommitted, and refused: the first one counts.
    expect(await refusalOf(admission.admit(ownerId, "hook", (visible) => runs.create(newRun(), { visible })))).toBe(
      "RUN_LIMIT_REACHED",
    );
    expect(inserted).toBe(false);
    held.open();
    expect((await first).created).toBe(true);
    expect(await runs.countActive(ownerId)).toBe(1);
  });

  it("counts a run whose commit lands during the count once, counting again when that decides", async () => {
    const admission = admissionOf(2);
    const held = gate();
    const started = gate();
    const committed = gate();
    // The first run commits while the second admission's count runs: the count may or may not
    // see it, and counting it twice would refuse the second wrongly.
    const first = admission.admit(ownerId, "hook", async (visible) => {
      started.open();
      await held.opened;
      return runs.create(newRun(), {
        visible: () => {
          visible();
          committed.open();
        },
      });
    });
    await started.opened;
    const counting = runs.countActive.bind(runs);
    let counts = 0;
    runs.countActive = async (owner: string) => {
      counts++;
      if (counts === 1) {
        // The first run commits while this count is under way, and the count sees it.
        held.open();
        await committed.opened;
      }
      return counting(owner);
    };
    const second = await admission.admit(ownerId, "hook", (visible) => runs.create(newRun(), { visible }));
    expect(second.created).toBe(true);
    expect(counts).toBe(2);
    expect((await first).created).toBe(true);
    expect(await runs.countActive(ownerId)).toBe(2);
  });

  it("counts a committed run once while its create still waits for the disk, so the next trigger is admitted", async () => {
    const admission = admissionOf(2);
    const held = gate();
    const committed = gate();
    // The first run is committed (visible to every count) but its create has not returned: as
    // when the answer waits for the disk. It must not be counted twice meanwhile.
    const first = admission.admit(ownerId, "hook", async (visible) => {
      const created = await runs.create(newRun(), {
        visible: () => {
          visible();
          committed.open();
        },
      });
      await held.opened;
      return created;
    });
    await committed.opened;
    const second = await admission.admit(ownerId, "hook", (visible) => runs.create(newRun(), { visible }));
    expect(second.created).toBe(true);
    expect(await refusalOf(admission.admit(ownerId, "hook", (visible) => runs.create(newRun(), { visible })))).toBe(
      "RUN_LIMIT_REACHED",
    );
    held.open();
    const done: RunRow = (await first).run;
    expect(done.status).toBe("queued");
    expect(await runs.countActive(ownerId)).toBe(2);
  });

  it("frees the place of a create that fails", async () => {
    const admission = admissionOf(1);
    await expect(
      admission.admit(ownerId, "hook", async () => {
        throw new Error("the insert failed");
      }),
    ).rejects.toThrow("the insert failed");
    const admitted = await admission.admit(ownerId, "hook", (visible) => runs.create(newRun(), { visible }));
    expect(admitted.created).toBe(true);
  });
});
