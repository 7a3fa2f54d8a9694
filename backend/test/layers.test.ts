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
      exclude: { path: "(^|/)dist/" },
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
    expect([...rules].sort()).toEqual(
      [
        "core-imports-only-core",
        "engine-no-web-or-db",
        "engine-not-persistence-or-web",
        "models-not-upper-layers",
        "schemas-import-only-schemas",
        "services-not-api",
      ].sort(),
    );
  });
});
