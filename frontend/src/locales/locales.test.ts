// Both languages say everything: the same keys, no empty text, and every error code the API can
// answer with has a message in each.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import en from "./en.json";
import vi from "./vi.json";

type Tree = { [key: string]: string | Tree };

function keys(tree: Tree, prefix = ""): string[] {
  return Object.entries(tree).flatMap(([key, value]) =>
    typeof value === "string" ? [`${prefix}${key}`] : keys(value, `${prefix}${key}.`),
  );
}

function leaves(tree: Tree): string[] {
  return Object.values(tree).flatMap((value) => (typeof value === "string" ? [value] : leaves(value)));
}

/** The codes of the backend's error catalog, read from its source. */
function catalogCodes(): string[] {
  const source = readFileSync(new URL("../../../backend/src/core/errors.ts", import.meta.url), "utf8");
  const catalog = source.slice(source.indexOf("CATALOG"), source.indexOf("} as const"));
  return [...catalog.matchAll(/^\s{2}([A-Z][A-Z0-9_]+): \{/gm)].map((match) => match[1] as string);
}

describe("locales", () => {
  it("have the same keys in English and Vietnamese", () => {
    expect(keys(vi as Tree).sort()).toEqual(keys(en as Tree).sort());
  });

  it("have no empty text", () => {
    for (const text of [...leaves(en as Tree), ...leaves(vi as Tree)]) expect(text.trim()).not.toBe("");
  });

  it("translate every error code of the backend's catalog in both languages", () => {
    const codes = catalogCodes();
    expect(codes.length).toBeGreaterThan(50);
    const missing = (tree: Tree) => codes.filter((code) => typeof (tree.errors as Tree)?.[code] !== "string");
    expect(missing(en as Tree)).toEqual([]);
    expect(missing(vi as Tree)).toEqual([]);
  });
});
