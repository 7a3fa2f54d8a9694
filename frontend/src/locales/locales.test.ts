// Both languages say everything: the same keys, no empty text, every error code the API can
// answer with has a message in each, no UI text is written into a component instead of the
// locale files, and every key the code names exists.
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import en from "./en.json";
import { findHardCodedText, translationKeyLiterals } from "./hard-coded-text";
import vi from "./vi.json";

const SRC = fileURLToPath(new URL("..", import.meta.url));
const EXAMPLES = fileURLToPath(new URL("../../../examples", import.meta.url));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name) ? [path] : [];
  });
}

/** The text at a dotted key, or the plural forms' (key_one, key_other) when the key has them. */
function lookup(tree: Tree, key: string): string | undefined {
  const parts = key.split(".");
  const last = parts.pop() as string;
  let node: Tree | string | undefined = tree;
  for (const part of parts) node = typeof node === "object" ? node[part] : undefined;
  if (typeof node !== "object") return undefined;
  const value = node[last] ?? node[`${last}_other`];
  return typeof value === "string" ? value : undefined;
}

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

  it("have a name and a description for every example workflow", () => {
    const examples = readdirSync(EXAMPLES)
      .filter((name) => name.endsWith(".json"))
      .map((name) => name.replace(/\.json$/, ""));
    expect(examples.length).toBeGreaterThan(5);
    for (const tree of [en, vi] as Tree[]) {
      const missing = examples.filter(
        (id) => !lookup(tree, `workflows.examples.${id}.name`) || !lookup(tree, `workflows.examples.${id}.description`),
      );
      expect(missing).toEqual([]);
    }
  });

  it("have every key the code names", () => {
    const roots = new Set(Object.keys(en));
    const missing = sourceFiles(SRC).flatMap((file) =>
      translationKeyLiterals(readFileSync(file, "utf8"), file)
        .filter((key) => roots.has(key.split(".")[0] as string) && lookup(en as Tree, key) === undefined)
        .map((key) => `${relative(SRC, file)}: ${key}`),
    );
    expect(missing).toEqual([]);
  });
});

describe("UI text in components", () => {
  it("comes from the locale files, never written into a .tsx file", () => {
    const files = sourceFiles(SRC).filter((file) => file.endsWith(".tsx"));
    expect(files.length).toBeGreaterThan(20);
    const found = files.flatMap((file) =>
      findHardCodedText(readFileSync(file, "utf8"), file).map(
        (hit) => `${relative(SRC, file)}:${hit.line} ${hit.where}: ${hit.text}`,
      ),
    );
    expect(found).toEqual([]);
  });

  it("is caught when written as JSX text, a rendered literal or a text prop", () => {
    const code = `
      export function Page({ name, done }: { name: string; done: boolean }) {
        return (
          <section aria-label="Workflows">
            <h1>Hello</h1>
            <input placeholder={"Search…"} title={\`Hi \${name}\`} />
            <p>{done ? "Yes" : t("common.no")}</p>
            <img alt="Tên quy trình" src="/x.png" />
            {done && "Saved"}
          </section>
        );
      }`;
    expect(findHardCodedText(code)).toEqual([
      { line: 4, text: "Workflows", where: "prop aria-label" },
      { line: 5, text: "Hello", where: "text" },
      { line: 6, text: "Search…", where: "prop placeholder" },
      { line: 6, text: "Hi", where: "prop title" },
      { line: 7, text: "Yes", where: "child" },
      { line: 8, text: "Tên quy trình", where: "prop alt" },
      { line: 9, text: "Saved", where: "child" },
    ]);
  });

  it("leaves alone what is not text: translations, class names, conditions, punctuation, data", () => {
    const code = `
      export function Row({ workflow, action }: Props) {
        return (
          <div className="flex gap-2" data-testid="row" aria-label={t("workflows.actions.menu", { name: workflow.name })}>
            {action === "rename" && <b title={workflow.name}>{t("workflows.actions.rename")}</b>}
            {" "}—{" "}
            {cn("truncate", action === "delete" && "text-destructive")}
            {workflow.name}: {workflow.version}
            <Icon aria-hidden />
          </div>
        );
      }`;
    expect(findHardCodedText(code)).toEqual([]);
  });
});
