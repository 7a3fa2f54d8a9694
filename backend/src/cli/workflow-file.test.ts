import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { readWorkflowFile } from "./workflow-file.js";

describe("subgraph files for the CLI", () => {
  it("reads DIR/<id>.json and refuses ids that would leave the folder", async () => {
    const outer = mkdtempSync(join(tmpdir(), "superstep-wf-"));
    onTestFinished(() => rmSync(outer, { recursive: true, force: true }));
    const dir = join(outer, "workflows");
    mkdirSync(dir);
    writeFileSync(join(dir, "child.json"), JSON.stringify({ name: "child" }));
    writeFileSync(join(outer, "secret.json"), JSON.stringify({ name: "outside" }));
    expect(await readWorkflowFile(dir, "child")).toEqual({ name: "child" });
    for (const id of ["../secret", "..", "/etc/passwd", "child.json", "a/b"]) {
      expect(await readWorkflowFile(dir, id), id).toBeUndefined();
    }
    expect(await readWorkflowFile(dir, "missing")).toBeUndefined();
  });
});
