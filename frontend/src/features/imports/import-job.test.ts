import { describe, expect, it } from "vitest";
import type { ImportJob } from "@/lib/api";
import { graphLocation, isJobActive, jobRefetchInterval, sourceLabel, stepViews } from "./import-job";

type Steps = ImportJob["steps"];
const step = (name: Steps[number]["name"], status: Steps[number]["status"]): Steps[number] => ({
  name,
  status,
  started_at: null,
  finished_at: null,
});

describe("stepViews", () => {
  it("lists download → install → check → ready with each step's own log lines", () => {
    const views = stepViews({
      status: "succeeded",
      // Listed out of order on purpose: the view's order is the pipeline's.
      steps: [step("ready", "skipped"), step("download", "done"), step("check", "skipped"), step("install", "skipped")],
      logs: [
        { ts: "t1", step: "download", line: "unpacking" },
        { ts: "t2", step: "install", line: "not run" },
        { ts: "t3", step: "download", line: "found 1 graph" },
      ],
    });
    expect(views).toEqual([
      { name: "download", state: "done", logs: ["unpacking", "found 1 graph"] },
      { name: "install", state: "skipped", logs: ["not run"] },
      { name: "check", state: "skipped", logs: [] },
      { name: "ready", state: "skipped", logs: [] },
    ]);
  });

  it("shows pending steps as waiting while the job runs and as stopped once it failed", () => {
    const steps = [step("download", "running"), step("install", "pending"), step("check", "pending")];
    expect(stepViews({ status: "running", steps, logs: [] }).map((view) => view.state)).toEqual([
      "running",
      "waiting",
      "waiting",
      "waiting",
    ]);
    const failed = [step("download", "failed"), step("install", "pending"), step("check", "pending")];
    expect(stepViews({ status: "failed", steps: failed, logs: [] }).map((view) => view.state)).toEqual([
      "failed",
      "stopped",
      "stopped",
      "stopped",
    ]);
  });
});

describe("polling", () => {
  it("polls while the job runs (and before it is known) and stops once it has ended", () => {
    expect(jobRefetchInterval(undefined)).toBe(1000);
    expect(jobRefetchInterval({ status: "running" }, 500)).toBe(500);
    for (const status of ["succeeded", "failed", "interrupted"] as const) {
      expect(jobRefetchInterval({ status })).toBe(false);
      expect(isJobActive({ status })).toBe(false);
    }
    expect(isJobActive({ status: "running" })).toBe(true);
  });
});

describe("sourceLabel and graphLocation", () => {
  it("names a GitHub source by owner/repo with its branch and sub-directory", () => {
    expect(sourceLabel({ kind: "github", url: "https://github.com/a/b", branch: null, subdir: null })).toBe("a/b");
    expect(sourceLabel({ kind: "github", url: "https://github.com/a/b", branch: "dev", subdir: "apps/x" })).toBe(
      "a/b (dev, apps/x)",
    );
    expect(sourceLabel({ kind: "zip", file_name: "repo-main.zip", bytes: 10 })).toBe("repo-main.zip");
  });

  it("writes a graph's place as file:variable, or module:variable", () => {
    const base = {
      id: "agent",
      spec: "",
      line: 3,
      origin: "langgraph.json" as const,
      variable: "graph",
      inspected: null,
    };
    expect(graphLocation({ ...base, file: "src/agent/graph.py", module: null })).toBe("src/agent/graph.py:graph");
    expect(graphLocation({ ...base, file: null, module: "agent.graph" })).toBe("agent.graph:graph");
  });
});
