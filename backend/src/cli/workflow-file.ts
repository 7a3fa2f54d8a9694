// Reads a workflow document or a JSON value given on the command line.
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { UsageError } from "./exit-codes.js";

export async function readJsonFile(path: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    throw new UsageError(`cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  return parseJson(text, path);
}

export function parseJson(text: string, what: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new UsageError(`${what} is not valid JSON: ${(error as Error).message}`);
  }
}

/** A workflow file in `dir` named by a Subgraph's workflow_id; undefined when there is none. */
export async function readWorkflowFile(dir: string, id: string): Promise<unknown | undefined> {
  if (!/^[A-Za-z0-9_-]+$/.test(id)) return undefined;
  try {
    return JSON.parse(await readFile(join(dir, `${id}.json`), "utf8"));
  } catch {
    return undefined;
  }
}
