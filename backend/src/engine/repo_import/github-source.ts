// What a request may name as a repository to import: a public GitHub repository over https, with
// an optional branch and sub-directory. Checked before anything runs, so that nothing a person
// typed reaches git as an option (`--upload-pack=…`), a transport (`ext::`, `file::`, ssh) or
// a credential.
import { AppError } from "../../core/errors.js";

export interface GithubSource {
  owner: string;
  repo: string;
  /** What git is given: always https://github.com/<owner>/<repo>.git. */
  cloneUrl: string;
  branch: string | null;
  /** A relative path inside the repository, `/`-separated, without `.` or `..`; null: the root. */
  subdir: string | null;
}

const OWNER = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})$/;
const REPO = /^[A-Za-z0-9._-]{1,100}$/;

function refuse(code: "IMPORT_URL_INVALID" | "IMPORT_BRANCH_INVALID" | "IMPORT_SUBDIR_INVALID", reason: string) {
  return new AppError(code, { reason });
}

export function parseGithubUrl(raw: string): Pick<GithubSource, "owner" | "repo" | "cloneUrl"> {
  const text = raw.trim();
  if (text.startsWith("-")) throw refuse("IMPORT_URL_INVALID", "looks like a command-line option");
  if (/^[a-z][a-z0-9+.-]*::/i.test(text)) throw refuse("IMPORT_URL_INVALID", "names a git transport (such as ext::)");
  if (!URL.canParse(text)) throw refuse("IMPORT_URL_INVALID", "is not a URL");
  const url = new URL(text);
  if (url.protocol !== "https:") throw refuse("IMPORT_URL_INVALID", `uses ${url.protocol} instead of https:`);
  if (url.username !== "" || url.password !== "") throw refuse("IMPORT_URL_INVALID", "contains credentials");
  if (url.hostname !== "github.com" || url.port !== "") throw refuse("IMPORT_URL_INVALID", "is not on github.com");
  if (url.search !== "" || url.hash !== "") throw refuse("IMPORT_URL_INVALID", "has a query or a fragment");
  // The text itself, not the URL's normalised path: `%2e%2e`, `//` and `\` are refused as typed.
  if (!/^https:\/\/github\.com\//i.test(text))
    throw refuse("IMPORT_URL_INVALID", "is not https://github.com/<owner>/<repository>");
  const path = text.slice("https://github.com".length).replace(/\/$/, "");
  const parts = path.split("/").slice(1);
  if (parts.length !== 2) throw refuse("IMPORT_URL_INVALID", "is not https://github.com/<owner>/<repository>");
  const owner = parts[0] as string;
  const repo = (parts[1] as string).replace(/\.git$/, "");
  if (!OWNER.test(owner) || !REPO.test(repo) || repo === "." || repo === "..")
    throw refuse("IMPORT_URL_INVALID", "has an owner or repository name GitHub does not allow");
  return { owner, repo, cloneUrl: `https://github.com/${owner}/${repo}.git` };
}

/** A branch or tag name git would accept, that can never be read as an option or a revision range. */
export function parseBranch(raw: string | null | undefined): string | null {
  if (raw === undefined || raw === null || raw.trim() === "") return null;
  const branch = raw.trim();
  const bad =
    branch.length > 255 ||
    !/^[A-Za-z0-9._/-]+$/.test(branch) ||
    /^[-./]/.test(branch) ||
    /[/.]$/.test(branch) ||
    branch.includes("..") ||
    branch.includes("//") ||
    branch.includes("/.") ||
    branch.endsWith(".lock");
  if (bad) throw refuse("IMPORT_BRANCH_INVALID", "is not a branch name git accepts");
  return branch;
}

/** A sub-directory that stays inside the repository, as a `/`-separated relative path. */
export function parseSubdir(raw: string | null | undefined): string | null {
  if (raw === undefined || raw === null || raw.trim() === "") return null;
  const text = raw.trim();
  if (text.includes("\0") || text.includes("\\")) throw refuse("IMPORT_SUBDIR_INVALID", "contains \\ or NUL");
  if (text.startsWith("/") || /^[A-Za-z]:/.test(text)) throw refuse("IMPORT_SUBDIR_INVALID", "is an absolute path");
  const parts = text.split("/").filter((part) => part !== "" && part !== ".");
  if (parts.includes("..")) throw refuse("IMPORT_SUBDIR_INVALID", "leaves the repository (..)");
  if (parts.length === 0) return null;
  if (parts.some((part) => part === ".git")) throw refuse("IMPORT_SUBDIR_INVALID", "names .git");
  return parts.join("/");
}

export function parseGithubSource(input: {
  url: string;
  branch?: string | null;
  subdir?: string | null;
}): GithubSource {
  return { ...parseGithubUrl(input.url), branch: parseBranch(input.branch), subdir: parseSubdir(input.subdir) };
}
