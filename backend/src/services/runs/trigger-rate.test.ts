import { describe, expect, it } from "vitest";
import { AppError } from "../../core/errors.js";
import { TriggerRateLimiter } from "./trigger-rate.js";

/** A limiter on a clock the test moves by hand. */
function limiterAt(perMinute: number) {
  let now = 1_000_000;
  const limiter = new TriggerRateLimiter(perMinute, () => now);
  return {
    limiter,
    advance: (ms: number) => {
      now += ms;
    },
  };
}

function refusal(take: () => unknown): AppError {
  try {
    take();
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error("the start was allowed");
}

describe("trigger rate limiter", () => {
  it("allows the limit in any minute, then refuses with the seconds until the oldest start leaves", () => {
    const { limiter, advance } = limiterAt(3);
    limiter.take("alice");
    advance(10_000);
    limiter.take("alice");
    advance(10_000);
    limiter.take("alice");
    advance(5_000);
    const refused = refusal(() => limiter.take("alice"));
    expect(refused.code).toBe("RATE_LIMITED");
    // The first start (25 s ago) leaves the window in 35 s.
    expect(refused.details).toEqual({ retry_after_seconds: 35, limit_per_minute: 3 });
    advance(34_999);
    expect(refusal(() => limiter.take("alice")).details).toMatchObject({ retry_after_seconds: 1 });
    advance(1);
    expect(() => limiter.take("alice")).not.toThrow();
    expect(refusal(() => limiter.take("alice")).code).toBe("RATE_LIMITED");
  });

  it("never allows more than the limit within any 60-second span", () => {
    const { limiter, advance } = limiterAt(5);
    const allowed: number[] = [];
    let clock = 0;
    for (let step = 0; step < 600; step++) {
      try {
        limiter.take("alice");
        allowed.push(clock);
      } catch {}
      advance(700);
      clock += 700;
    }
    for (const start of allowed) {
      expect(allowed.filter((t) => t >= start && t < start + 60_000).length).toBeLessThanOrEqual(5);
    }
    // And it does let that many through over time: 420 s → 7 windows of 5.
    expect(allowed.length).toBeGreaterThanOrEqual(35);
  });

  it("keeps each user's allowance apart", () => {
    const { limiter } = limiterAt(1);
    limiter.take("alice");
    expect(() => limiter.take("bob")).not.toThrow();
    expect(refusal(() => limiter.take("alice")).code).toBe("RATE_LIMITED");
  });

  it("gives back a start that did not happen", () => {
    const { limiter } = limiterAt(1);
    const undo = limiter.take("alice");
    undo();
    expect(() => limiter.take("alice")).not.toThrow();
  });

  it("forgets users whose window has emptied", () => {
    const { limiter, advance } = limiterAt(2);
    for (let i = 0; i < 50; i++) limiter.take(`user-${i}`);
    expect(limiter.tracked()).toBe(50);
    advance(60_000);
    expect(limiter.tracked()).toBe(0);
  });
});
