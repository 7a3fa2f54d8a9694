// Finds the graphs of a LangGraph Python project by reading its files, never by running them:
// langgraph.json's `graphs` map when there is one, else a scan of the .py files for StateGraph
// and `x = ….compile(…)`. Also reads what the install step needs (the project kind) and the
// environment names the project declares. Symlinks are never followed.
import { lstat, readdir, readFile } from "node:fs/promises";
import { join, posix } from "node:path";
import { AppError } from "../../core/errors.js";

export interface DiscoveredGraph {
  /** The graph id: langgraph.json's key (spaces allowed), or the scanned variable's name. */
  id: string;
  /** As langgraph.json writes it: `./path.py:var` or `pkg.mod:var`. */
  spec: string;
  /** The .py file relative to the project root, when it is in the source; null for a module not found here. */
  file: string | null;
  /** A module path (`pkg.mod`) when the spec names one, else null. */
  module: string | null;
  variable: string;
  /** 1-based line of the assignment, when scanned. */
  line: number | null;
  origin: "langgraph.json" | "scan";
}

export type ProjectKind = "pyproject" | "setup.py" | "requirements" | "none";

export interface Discovery {
  graphs: DiscoveredGraph[];
  /** Names declared in .env.example, .env.template or .env.sample. */
  envNames: string[];
  /** How the install step installs the project: pip install -e . (pyproject, setup.py), -r requirements.txt, or nothing. */
  project: { kind: ProjectKind; files: string[] };
}

const JS_FILE = /\.(ts|mts|cts|tsx|js|mjs|cjs|jsx)$/i;
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;
const MODULE = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/;
const ENV_FILES = [".env.example", ".env.template", ".env.sample"];
const SKIPPED_DIRS = new Set([
  ".git",
  ".venv",
  "venv",
  "env",
  "node_modules",
  "__pycache__",
  "site-packages",
  ".tox",
  ".mypy_cache",
  ".pytest_cache",
  "build",
  "dist",
]);
const MAX_SCANNED_FILES = 5000;
const MAX_READ_BYTES = 1024 * 1024;

/** The file's text, or null when it is absent, not a plain file (a symlink, a directory) or too large. */
async function readPlain(path: string): Promise<string | null> {
  try {
    const info = await lstat(path);
    if (!info.isFile() || info.size > MAX_READ_BYTES) return null;
    return await readFile(path, "utf8");
  } catch {
    return null;
  }
}

function invalidConfig(reason: string, details: Record<string, unknown> = {}) {
  return new AppError("IMPORT_LANGGRAPH_INVALID", { reason, ...details }, `langgraph.json cannot be used: ${reason}.`);
}

/** A path inside the project, `/`-separated, or null when it climbs out or is absolute. */
export function insidePath(path: string): string | null {
  if (path.includes("\\") || path.includes("\0") || path.startsWith("/") || /^[A-Za-z]:/.test(path)) return null;
  const normal = posix.normalize(path);
  if (normal === ".." || normal.startsWith("../")) return null;
  return normal.replace(/^\.\//, "");
}

/** One entry of langgraph.json's graphs map: a "spec" string or an object with a `path`. */
export function parseGraphSpec(id: string, value: unknown): Omit<DiscoveredGraph, "file"> & { path: string | null } {
  const spec = typeof value === "string" ? value : (value as { path?: unknown } | null)?.path;
  if (typeof spec !== "string" || spec.trim() === "")
    throw invalidConfig(`the graph ${JSON.stringify(id)} is neither "path:variable" nor an object with a path`, {
      graph: id,
    });
  const text = spec.trim();
  const colon = text.lastIndexOf(":");
  const target = colon > 0 ? text.slice(0, colon) : text;
  const variable = colon > 0 ? text.slice(colon + 1) : "";
  if (JS_FILE.test(target))
    throw new AppError(
      "IMPORT_GRAPH_JAVASCRIPT",
      { graph: id, spec: text },
      `langgraph.json names a JavaScript graph (${text}); only Python graphs can be imported.`,
    );
  if (!IDENTIFIER.test(variable))
    throw invalidConfig(`the graph ${JSON.stringify(id)} (${text}) does not end in :variable`, { graph: id });
  const isFile = target.endsWith(".py") || target.includes("/");
  if (isFile) {
    const path = insidePath(target);
    if (path === null || !path.endsWith(".py"))
      throw invalidConfig(
        `the graph ${JSON.stringify(id)} names ${target}, which is not a .py file inside the project`,
        {
          graph: id,
        },
      );
    return { id, spec: text, module: null, variable, line: null, origin: "langgraph.json", path };
  }
  if (!MODULE.test(target))
    throw invalidConfig(`the graph ${JSON.stringify(id)} names ${target}, which is neither a file nor a module`, {
      graph: id,
    });
  return { id, spec: text, module: target, variable, line: null, origin: "langgraph.json", path: null };
}

async function isPlainFile(path: string): Promise<boolean> {
  try {
    return (await lstat(path)).isFile();
  } catch {
    return false;
  }
}

/** Where a module lives in the source, looked for at the root and under src/ (the two usual layouts). */
async function moduleFile(root: string, module: string): Promise<string | null> {
  const base = module.split(".").join("/");
  for (const candidate of [`${base}.py`, `${base}/__init__.py`, `src/${base}.py`, `src/${base}/__init__.py`]) {
    if (await isPlainFile(join(root, candidate))) return candidate;
  }
  return null;
}

async function fromLanggraphJson(root: string, text: string): Promise<DiscoveredGraph[]> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw invalidConfig(`it is not valid JSON (${(error as Error).message})`);
  }
  const graphs = (parsed as { graphs?: unknown } | null)?.graphs;
  if (typeof graphs !== "object" || graphs === null || Array.isArray(graphs))
    throw invalidConfig("it has no graphs map");
  const found: DiscoveredGraph[] = [];
  for (const [id, value] of Object.entries(graphs)) {
    if (id.trim() === "" || id.length > 200) throw invalidConfig("a graph id is empty or longer than 200 characters");
    const { path, ...graph } = parseGraphSpec(id, value);
    if (path !== null) {
      if (!(await isPlainFile(join(root, path))))
        throw invalidConfig(`the graph ${JSON.stringify(id)} names ${path}, which is not in the source`, { graph: id });
      found.push({ ...graph, file: path });
    } else {
      found.push({ ...graph, file: await moduleFile(root, graph.module as string) });
    }
  }
  return found;
}

/** Top-level assignments whose value ends in a `.compile(…)` call, in a file that mentions StateGraph. */
export function scanPython(text: string): { variable: string; line: number }[] {
  if (!text.includes("StateGraph")) return [];
  const found: { variable: string; line: number }[] = [];
  const lines = text.split(/\r?\n/);
  lines.forEach((line, index) => {
    const match = /^([A-Za-z_][A-Za-z0-9_]*)\s*(?::[^=]*)?=\s*[^#]*\.compile\s*\(/.exec(line);
    if (match) found.push({ variable: match[1] as string, line: index + 1 });
  });
  return found;
}

async function pythonFiles(root: string): Promise<string[]> {
  const files: string[] = [];
  const stack = [""];
  while (stack.length > 0 && files.length < MAX_SCANNED_FILES) {
    const current = stack.pop() as string;
    const entries = await readdir(join(root, current), { withFileTypes: true });
    entries.sort((a, b) => a.name.localeCompare(b.name));
    for (const entry of entries) {
      const rel = current === "" ? entry.name : `${current}/${entry.name}`;
      if (entry.isDirectory() && !SKIPPED_DIRS.has(entry.name)) stack.push(rel);
      else if (entry.isFile() && entry.name.endsWith(".py")) files.push(rel);
    }
  }
  return files.sort();
}

async function fromScan(root: string): Promise<DiscoveredGraph[]> {
  const found: DiscoveredGraph[] = [];
  for (const file of await pythonFiles(root)) {
    const text = await readPlain(join(root, file));
    if (text === null) continue;
    for (const { variable, line } of scanPython(text)) {
      found.push({ id: variable, spec: `./${file}:${variable}`, file, module: null, variable, line, origin: "scan" });
    }
  }
  // The same variable name in two files: both stay, told apart by their file.
  const counts = new Map<string, number>();
  for (const graph of found) counts.set(graph.id, (counts.get(graph.id) ?? 0) + 1);
  return found.map((graph) =>
    (counts.get(graph.id) ?? 0) > 1
      ? { ...graph, id: `${(graph.file as string).replace(/\.py$/, "")}:${graph.variable}` }
      : graph,
  );
}

/** NAME=… and `export NAME=…` lines; comments and blank lines skipped. */
export function envNamesIn(text: string): string[] {
  const names: string[] = [];
  for (const line of text.split(/\r?\n/)) {
    const match = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=/.exec(line);
    if (match) names.push(match[1] as string);
  }
  return names;
}

async function projectKind(root: string): Promise<Discovery["project"]> {
  const files: string[] = [];
  for (const name of ["pyproject.toml", "setup.py", "requirements.txt"]) {
    if (await isPlainFile(join(root, name))) files.push(name);
  }
  const kind: ProjectKind = files.includes("pyproject.toml")
    ? "pyproject"
    : files.includes("setup.py")
      ? "setup.py"
      : files.includes("requirements.txt")
        ? "requirements"
        : "none";
  return { kind, files };
}

export async function discoverGraphs(root: string): Promise<Discovery> {
  const config = await readPlain(join(root, "langgraph.json"));
  const graphs = config !== null ? await fromLanggraphJson(root, config) : await fromScan(root);
  if (graphs.length === 0)
    throw new AppError("IMPORT_NO_GRAPH", {
      looked_for: config !== null ? "langgraph.json graphs" : "StateGraph and x = ….compile(…) in .py files",
    });
  const envNames = new Set<string>();
  for (const name of ENV_FILES) {
    const text = await readPlain(join(root, name));
    if (text !== null) for (const envName of envNamesIn(text)) envNames.add(envName);
  }
  return { graphs, envNames: [...envNames].sort(), project: await projectKind(root) };
}
