import { describe, expect, it } from "vitest";
import { filtersFrom, filtersToParams, runsQuery } from "./run-filters";

describe("runs page filters", () => {
  it("round-trips through the address and leaves out empty filters", () => {
    const params = new URLSearchParams("status=error&trigger=api&q=ab12");
    const filters = filtersFrom(params);
    expect(filters).toEqual({
      workflow: "",
      status: "error",
      trigger: "api",
      from: "",
      to: "",
      q: "ab12",
      schedule: "",
    });
    expect(filtersToParams(filters).toString()).toBe("status=error&trigger=api&q=ab12");
  });

  it("asks the API for instants with a zone, and a trimmed lower-case id", () => {
    const query = new URLSearchParams(
      runsQuery({
        workflow: "w1",
        status: "",
        trigger: "",
        from: "2030-01-02T07:00",
        to: "",
        q: "  AB12 ",
        schedule: "s1",
      }),
    );
    expect(query.get("workflow_id")).toBe("w1");
    expect(query.get("from")).toBe(new Date("2030-01-02T07:00").toISOString());
    expect(query.get("q")).toBe("ab12");
    expect(query.get("schedule_id")).toBe("s1");
    expect(query.has("status")).toBe(false);
  });

  it("drops a time that is not one instead of sending it", () => {
    expect(runsQuery({ workflow: "", status: "", trigger: "", from: "yesterday", to: "", q: "", schedule: "" })).toBe(
      "",
    );
  });
});
