// The checks the form makes before sending are the server's own (engine/repo_import/
// github-source.ts, pure), so a typo is caught at once and the person reads the same translated
// message whether the browser or the server refused. The server checks again: this is a
// convenience, never the guard.
import { AppError } from "../../../../backend/src/core/errors.js";
import { parseBranch, parseGithubUrl, parseSubdir } from "../../../../backend/src/engine/repo_import/github-source.js";

export type SourceErrorCode =
  | "IMPORT_SOURCE_MISSING"
  | "IMPORT_URL_INVALID"
  | "IMPORT_BRANCH_INVALID"
  | "IMPORT_SUBDIR_INVALID"
  | "IMPORT_ZIP_INVALID";

/** The code of the server's refusal of `raw`, or null when the server's check passes. */
function refusal(check: (raw: string) => unknown, raw: string): SourceErrorCode | null {
  try {
    check(raw);
    return null;
  } catch (error) {
    if (error instanceof AppError) return error.code as SourceErrorCode;
    throw error;
  }
}

/** null when `raw` is https://github.com/<owner>/<repo> (optional .git or trailing /). */
export function githubUrlError(raw: string): SourceErrorCode | null {
  return raw.trim() === "" ? "IMPORT_SOURCE_MISSING" : refusal(parseGithubUrl, raw);
}

/** null for an empty branch (the default one) or a name git accepts that cannot read as an option. */
export function branchError(raw: string): SourceErrorCode | null {
  return refusal(parseBranch, raw);
}

/** null for an empty sub-directory (the root) or a relative path that stays inside the repository. */
export function subdirError(raw: string): SourceErrorCode | null {
  return refusal(parseSubdir, raw);
}

/** A file that is plainly not a zip (by name and type) is refused before the upload; the server reads its bytes. */
export function zipFileError(file: { name: string; type: string }): SourceErrorCode | null {
  const zipType = file.type === "" || /zip|octet-stream/i.test(file.type);
  return /\.zip$/i.test(file.name) && zipType ? null : "IMPORT_ZIP_INVALID";
}

export interface GithubFields {
  url: string;
  branch: string;
  subdir: string;
}

/** The first problem of each field, for showing under it; empty when the form may be sent. */
export function githubFieldErrors(fields: GithubFields): Partial<Record<keyof GithubFields, SourceErrorCode>> {
  const errors: Partial<Record<keyof GithubFields, SourceErrorCode>> = {};
  const url = githubUrlError(fields.url);
  if (url) errors.url = url;
  const branch = branchError(fields.branch);
  if (branch) errors.branch = branch;
  const subdir = subdirError(fields.subdir);
  if (subdir) errors.subdir = subdir;
  return errors;
}

/** The JSON body for POST /api/imports: empty optional fields left out. */
export function githubBody(fields: GithubFields): { url: string; branch?: string; subdir?: string } {
  const branch = fields.branch.trim();
  const subdir = fields.subdir.trim();
  return { url: fields.url.trim(), ...(branch ? { branch } : {}), ...(subdir ? { subdir } : {}) };
}
