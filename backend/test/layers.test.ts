import { fileURLToPath } from "node:url";
import { cruise, type IConfiguration, type IViolation } from "dependency-cruiser";
import { describe, expect, it } from "vitest";

const repoRoot = fileURLToPath(new URL("../../", import.meta.url));

async function violations(path: string): Promise<IViolation[]> {
  const { createRequire } = await import("node:module");
  const config = createRequire(import.meta.url)(`${repoRoot}.dependency-cruiser.cjs`) as IConfiguration;
  const cwd = process.cwd();
  process.chdir(repoRoot);
  try {
    const result = await cruise([path], {
      ...config.options,
      ruleSet: { forbidden: config.forbidden ?? [] },
      validate: true,
      exclude: { path: "^(backend|frontend)/dist/" },
    });
    if (typeof result.output === "string") throw new Error(result.output);
    return result.output.summary.violations;
  } finally {
    process.chdir(cwd);
  }
}

describe("layer rules", () => {
  it("holds for the backend source", async () => {
    const found = await violations("backend/src");
    expect(found.map((v) => `${v.rule.name}: ${v.from} → ${v.to}`)).toEqual([]);
  });

  it("catches each kind of violation in a deliberately broken tree", async () => {
    const found = await violations("backend/test/fixtures/bad-layers/src");
    const rules = new Set(found.map((v) => v.rule.name));
    // Every rule of the configuration fires on the tree that breaks it.
    const { createRequire } = await import("node:module");
    const config = createRequire(import.meta.url)(`${repoRoot}.dependency-cruiser.cjs`) as IConfiguration;
    const all = (config.forbidden ?? []).map((rule) => rule.name as string);
    expect(all).toHaveLength(12);
    expect([...rules].sort()).toEqual(all.sort());
  });
});
