// Keeps the Pyodide memory snapshot on disk between starts of the server, so that the first
// Python call after a restart starts a child from it (a few hundred milliseconds) instead of
// loading Pyodide from its package and taking the snapshot again (seconds).
//
// A stored snapshot is `python-<key>-<sha256 of its bytes>.snapshot` in the store's directory:
// - the key names what the snapshot depends on (Pyodide's version, the child's own scripts, Node's
//   version and the CPU), so an upgrade never starts a child from a snapshot of another build;
// - the hash in the name is checked against the bytes before they are used, so a file cut short
//   or changed on disk is refused (and removed), never loaded into an interpreter;
// - a file is written under a temporary name and renamed, so a reader never sees half of one.
// The snapshot is taken before any user code runs (pyodide-runner.mjs), so what it holds is the
// same for every user. The store is a cache: any failure to read or write it leaves the pool to
// take a snapshot as it did without one.

import { createHash, randomBytes, webcrypto } from "node:crypto";
import { closeSync, open, readFile } from "node:fs";
import { mkdir, readdir, rename, stat, unlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";

const PREFIX = "python-";
const SUFFIX = ".snapshot";
const TEMPORARY = /^\.python-.*\.tmp$/;
// A temporary file older than this was left by a writer that died.
const ABANDONED_MS = 10 * 60_000;

/** A key for what a snapshot depends on: the same inputs give the same key. */
export function snapshotKey(parts: readonly string[]): string {
  const hash = createHash("sha256");
  for (const part of parts) hash.update(`${part.length}:${part}`);
  return hash.digest("hex").slice(0, 24);
}

// Hashed off this thread: tens of megabytes would hold up the runs sharing it.
const sha256 = async (bytes: Uint8Array) =>
  Buffer.from(await webcrypto.subtle.digest("SHA-256", bytes)).toString("hex");

function parse(name: string): { key: string; hash: string } | null {
  const match = /^python-([0-9a-f]{24})-([0-9a-f]{64})\.snapshot$/.exec(name);
  return match ? { key: match[1] as string, hash: match[2] as string } : null;
}

export interface StoredSnapshot {
  /** An open descriptor of the file, read from the start by each child; the caller closes it. */
  fd: number;
  /** The file's path, to remove it should Pyodide refuse what it holds. */
  path: string;
}

const openFile = promisify(open);
const readWhole = promisify(readFile) as (fd: number) => Promise<Buffer>;

/**
 * Opens the stored snapshot for `key` whose bytes match its name, newest first; null when there is
 * none. The bytes checked are the ones read through the descriptor returned: a newer file renamed
 * over the name meanwhile does not change them. A file of that key whose bytes do not match its
 * name is removed.
 */
export async function openStoredSnapshot(dir: string, key: string): Promise<StoredSnapshot | null> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return null;
  }
  const candidates: { name: string; hash: string; mtimeMs: number }[] = [];
  for (const name of names) {
    const parsed = parse(name);
    if (parsed?.key !== key) continue;
    try {
      candidates.push({ name, hash: parsed.hash, mtimeMs: (await stat(join(dir, name))).mtimeMs });
    } catch {
      // Removed meanwhile (another process stored a newer one).
    }
  }
  candidates.sort((a, b) => b.mtimeMs - a.mtimeMs);
  for (const candidate of candidates) {
    const path = join(dir, candidate.name);
    let fd: number;
    try {
      fd = await openFile(path, "r");
    } catch {
      continue;
    }
    let matches = false;
    try {
      const bytes = await readWhole(fd);
      matches = bytes.length > 0 && (await sha256(bytes)) === candidate.hash;
    } catch {
      // Unreadable: as good as changed.
    }
    if (matches) return { fd, path };
    closeSync(fd);
    await unlink(path).catch(() => {});
  }
  return null;
}

/**
 * Stores a snapshot for `key` (readable by this user only) and removes the other snapshots kept
 * there, of any key: one snapshot is all a server starts from. Resolves with the file's name.
 */
export async function storeSnapshot(dir: string, key: string, bytes: Uint8Array): Promise<string> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const name = `${PREFIX}${key}-${await sha256(bytes)}${SUFFIX}`;
  const temporary = join(dir, `.${PREFIX}${process.pid}-${randomBytes(6).toString("hex")}.tmp`);
  try {
    await writeFile(temporary, bytes, { mode: 0o600, flag: "wx" });
    await rename(temporary, join(dir, name));
  } catch (error) {
    await unlink(temporary).catch(() => {});
    throw error;
  }
  for (const other of await readdir(dir)) {
    if (other === name) continue;
    if (parse(other)) {
      await unlink(join(dir, other)).catch(() => {});
    } else if (TEMPORARY.test(other)) {
      const left = await stat(join(dir, other)).catch(() => null);
      if (left && Date.now() - left.mtimeMs > ABANDONED_MS) await unlink(join(dir, other)).catch(() => {});
    }
  }
  return name;
}
