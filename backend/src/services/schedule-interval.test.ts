import { describe, expect, it } from "vitest";
import { AppError } from "../core/errors.js";
import { checkInterval } from "./schedule.service.js";

function gapOf(cron: string, minSeconds: number, from: string): number | null {
  try {
    checkInterval(cron, "UTC", minSeconds, new Date(from));
    return null;
  } catch (error) {
    if (!(error instanceof AppError) || error.code !== "SCHEDULE_INTERVAL_TOO_SHORT") throw error;
    return (error.details as { interval_seconds: number }).interval_seconds;
  }
}

describe("schedule interval check", () => {
  it("names the shortest gap, wherever in the pattern the check starts", () => {
    // Fires at :00 and :10 of every minute: gaps of 10 and 50 seconds.
    expect(gapOf("0,10 * * * * *", 60, "2030-01-01T12:00:05Z")).toBe(10);
    expect(gapOf("0,10 * * * * *", 60, "2030-01-01T12:00:15Z")).toBe(10);
  });

  it("finds a short gap that only shows later in the day", () => {
    // Once an hour, except two fires a minute apart at 23:00 and 23:01.
    expect(gapOf("0 0-22 * * *", 3600, "2030-01-01T00:30:00Z")).toBeNull();
    expect(gapOf("0 0,1 23 * * *", 3600, "2030-01-01T00:30:00Z")).toBe(60);
  });

  it("accepts crons exactly at the minimum or sparser, including very sparse ones", () => {
    expect(gapOf("* * * * *", 60, "2030-01-01T00:00:30Z")).toBeNull();
    expect(gapOf("0 9 * * 1-5", 60, "2030-01-01T00:00:00Z")).toBeNull();
    expect(gapOf("0 0 1 1 *", 3600, "2030-01-01T00:00:00Z")).toBeNull();
    expect(gapOf("0 0 29 2 *", 86_400, "2030-01-01T00:00:00Z")).toBeNull();
  });

  it("refuses a yearly cron under a minimum longer than a year", () => {
    expect(gapOf("0 0 1 1 *", 366 * 86_400, "2030-06-01T00:00:00Z")).toBe(365 * 86_400);
  });
});
