import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { workflowDocument } from "../src/schemas/workflow.schema.js";

const dir = new URL("../../examples/", import.meta.url);
const files = readdirSync(dir).filter((f) => f.endsWith(".json"));

describe("examples", () => {
  it("exist", () => {
    expect(files.length).toBeGreaterThan(0);
  });

  it.each(files)("%s is a valid workflow document", (file) => {
    const result = workflowDocument.safeParse(JSON.parse(readFileSync(new URL(file, dir), "utf8")));
    expect(result.error?.issues ?? []).toEqual([]);
  });
});
