// The checks the form makes before sending, mirroring the server's (engine/repo_import/
// github-source.ts) so a typo is caught at once. Each answers with the server's own error code,
// so the person reads the same translated message whether the browser or the server refused.
// The server checks again: this is a convenience, never the guard.

export type SourceErrorCode =
  | "IMPORT_SOURCE_MISSING"
  | "IMPORT_URL_INVALID"
  | "IMPORT_BRANCH_INVALID"
  | "IMPORT_SUBDIR_INVALID"
  | "IMPORT_ZIP_INVALID";

const OWNER = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})$/;
const REPO = /^[A-Za-z0-9._-]{1,100}$/;

/** null when `raw` is https://github.com/<owner>/<repo> (optional .git or trailing /). */
export function githubUrlError(raw: string): SourceErrorCode | null {
  const text = raw.trim();
  if (text === "") return "IMPORT_SOURCE_MISSING";
  if (text.startsWith("-") || /^[a-z][a-z0-9+.-]*::/i.test(text) || !URL.canParse(text)) return "IMPORT_URL_INVALID";
  const url = new URL(text);
  if (url.protocol !== "https:" || url.username !== "" || url.password !== "") return "IMPORT_URL_INVALID";
  if (url.hostname !== "github.com" || url.port !== "" || url.search !== "" || url.hash !== "")
    return "IMPORT_URL_INVALID";
  if (!/^https:\/\/github\.com\//i.test(text)) return "IMPORT_URL_INVALID";
  const parts = text.slice("https://github.com".length).replace(/\/$/, "").split("/").slice(1);
  if (parts.length !== 2) return "IMPORT_URL_INVALID";
  const [owner, repoWithSuffix] = parts as [string, string];
  const repo = repoWithSuffix.replace(/\.git$/, "");
  if (!OWNER.test(owner) || !REPO.test(repo) || repo === "." || repo === "..") return "IMPORT_URL_INVALID";
  return null;
}

/** null for an empty branch (the default one) or a name git accepts that cannot read as an option. */
export function branchError(raw: string): SourceErrorCode | null {
  const branch = raw.trim();
  if (branch === "") return null;
  const bad =
    branch.length > 255 ||
    !/^[A-Za-z0-9._/-]+$/.test(branch) ||
    /^[-./]/.test(branch) ||
    /[/.]$/.test(branch) ||
    branch.includes("..") ||
    branch.includes("//") ||
    branch.includes("/.") ||
    branch.endsWith(".lock");
  return bad ? "IMPORT_BRANCH_INVALID" : null;
}

/** null for an empty sub-directory (the root) or a relative path that stays inside the repository. */
export function subdirError(raw: string): SourceErrorCode | null {
  const text = raw.trim();
  if (text === "") return null;
  if (text.includes("\0") || text.includes("\\") || text.startsWith("/") || /^[A-Za-z]:/.test(text))
    return "IMPORT_SUBDIR_INVALID";
  const parts = text.split("/").filter((part) => part !== "" && part !== ".");
  if (parts.includes("..") || parts.includes(".git")) return "IMPORT_SUBDIR_INVALID";
  return null;
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
