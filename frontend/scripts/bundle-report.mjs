// Prints what each page of the built UI downloads: the code every page needs (the entry and its
// static imports, CSS included) and what each code-split route adds on top, raw and gzipped.
// Run after `vite build` (npm run build -w frontend does both).
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";

const dist = fileURLToPath(new URL("../dist/", import.meta.url));
const manifest = JSON.parse(readFileSync(`${dist}.vite/manifest.json`, "utf8"));

function closure(key, seen = new Set()) {
  if (seen.has(key)) return seen;
  seen.add(key);
  for (const next of manifest[key]?.imports ?? []) closure(next, seen);
  return seen;
}

function files(keys) {
  const out = new Set();
  for (const key of keys) {
    const chunk = manifest[key];
    out.add(chunk.file);
    for (const css of chunk.css ?? []) out.add(css);
  }
  return out;
}

function measure(names) {
  let raw = 0;
  let gzip = 0;
  for (const name of names) {
    const bytes = readFileSync(dist + name);
    raw += bytes.length;
    gzip += gzipSync(bytes, { level: 9 }).length;
  }
  return { raw, gzip };
}

const kb = (bytes) => `${(bytes / 1024).toFixed(1)} kB`;
const entryKey = Object.keys(manifest).find((key) => manifest[key].isEntry);
const shared = files(closure(entryKey));
const rows = [["every page (shell, router, i18n, query, React)", measure(shared)]];
// Every chunk loaded on demand: the pages, the texts of each language, the examples' catalog.
const lazy = Object.keys(manifest).filter((key) => manifest[key].isDynamicEntry);
for (const key of lazy) {
  const own = [...files(closure(key))].filter((name) => !shared.has(name));
  const label = key.replace(/^src\//, "").replace(/\.(tsx?|json)$/, "");
  rows.push([`+ ${label}`, measure(own)]);
}

console.log("\nUI bundle (what a page downloads):");
console.log(`${"part".padEnd(58)}${"raw".padStart(10)}${"gzip".padStart(10)}`);
for (const [label, size] of rows)
  console.log(`${label.padEnd(58)}${kb(size.raw).padStart(10)}${kb(size.gzip).padStart(10)}`);
