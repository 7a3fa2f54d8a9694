// Bare git repositories on this machine, laid out as <mirror>/<owner>/<repo>.git, that import
// tests clone from instead of github.com (STUDIO_TEST_IMPORT_GIT_MIRROR).
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

const GIT_ENV = {
  PATH: process.env.PATH ?? "/usr/bin:/bin",
  HOME: tmpdir(),
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_CONFIG_GLOBAL: "/dev/null",
  GIT_AUTHOR_NAME: "Test",
  GIT_AUTHOR_EMAIL: "test@example.com",
  GIT_COMMITTER_NAME: "Test",
  GIT_COMMITTER_EMAIL: "test@example.com",
};

function git(cwd: string, ...args: string[]) {
  execFileSync("git", args, { cwd, env: GIT_ENV, stdio: "pipe" });
}

export interface RepoSpec {
  files: Record<string, string>;
  /** Symlinks to create: path → target. */
  links?: Record<string, string>;
  /** Another branch with these files added. */
  branch?: { name: string; files: Record<string, string> };
}

/** Creates <mirror>/<owner>/<repo>.git from `spec`. */
export function addBareRepo(mirror: string, owner: string, repo: string, spec: RepoSpec): void {
  const work = mkdtempSync(join(tmpdir(), "superstep-git-work-"));
  try {
    git(work, "init", "-q", "-b", "main");
    const put = (files: Record<string, string>) => {
      for (const [path, text] of Object.entries(files)) {
        mkdirSync(dirname(join(work, path)), { recursive: true });
        writeFileSync(join(work, path), text);
      }
    };
    put(spec.files);
    for (const [path, target] of Object.entries(spec.links ?? {})) symlinkSync(target, join(work, path));
    git(work, "add", "-A");
    git(work, "commit", "-q", "-m", "first");
    if (spec.branch) {
      git(work, "checkout", "-q", "-b", spec.branch.name);
      put(spec.branch.files);
      git(work, "add", "-A");
      git(work, "commit", "-q", "-m", "branch");
      git(work, "checkout", "-q", "main");
    }
    const bare = join(mirror, owner, `${repo}.git`);
    mkdirSync(dirname(bare), { recursive: true });
    git(work, "clone", "-q", "--bare", work, bare);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
