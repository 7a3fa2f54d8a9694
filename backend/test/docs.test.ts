// The docs move with the code: every error code and every setting is documented in both languages.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { EXIT } from "../src/cli/exit-codes.js";
import { CATALOG, VALIDATION_CATALOG } from "../src/core/errors.js";

const doc = (path: string) => readFileSync(new URL(`../../docs/${path}`, import.meta.url), "utf8");
const configSource = readFileSync(new URL("../src/core/config.ts", import.meta.url), "utf8");
const settings = [
  ...new Set(
    [...configSource.matchAll(/"((?:STUDIO|JWT|DATABASE|REDIS|OPENAI|ANTHROPIC)_[A-Z_]+)"/g)].map((m) => m[1]),
  ),
];

describe.each(["en", "vi"])("docs/%s", (lang) => {
  it("lists every error code of the catalog", () => {
    const text = doc(`${lang}/api.md`);
    const missing = Object.keys(CATALOG).filter((code) => !text.includes(`\`${code}\``));
    expect(missing).toEqual([]);
  });

  it("lists every validation code", () => {
    const text = doc(`${lang}/validation.md`);
    const missing = Object.keys(VALIDATION_CATALOG).filter((code) => !text.includes(`\`${code}\``));
    expect(missing).toEqual([]);
  });

  it("lists every environment variable the configuration reads", () => {
    expect(settings.length).toBeGreaterThan(10);
    const text = doc(`${lang}/configuration.md`);
    const missing = settings.filter((name) => !text.includes(`\`${name}\``));
    expect(missing).toEqual([]);
  });
});

describe.each(["README.md", "docs/en/runtime.md", "docs/vi/runtime.md"])("%s", (path) => {
  it("has the exit-code table of the superstep command, every code and no other", () => {
    const text = readFileSync(new URL(`../../${path}`, import.meta.url), "utf8");
    const rows = [...text.matchAll(/^\| `(\d+)` +\|/gm)].map((m) => Number(m[1]));
    expect(rows).toEqual(Object.values(EXIT));
  });
});
