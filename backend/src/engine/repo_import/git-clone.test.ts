import { existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addBareRepo } from "../../../test/git-fixture.js";
import { NEW_PROJECT_FILES } from "../../../test/zip-fixture.js";
import { AppError } from "../../core/errors.js";
import { cloneArguments, cloneEnvironment, cloneRepository } from "./git-clone.js";
import { parseGithubSource } from "./github-source.js";

let work: string;
let mirror: string;
beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), "superstep-clone-"));
  mirror = join(work, "mirror");
  addBareRepo(mirror, "acme", "agent", {
    files: { ...NEW_PROJECT_FILES, ".gitmodules": '[submodule "x"]\n\tpath = x\n\turl = https://github.com/acme/x\n' },
    links: { "passwd.py": "/etc/passwd" },
    branch: { name: "dev", files: { "DEV.md": "dev branch" } },
  });
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

async function clone(url: string, branch?: string) {
  const dest = join(work, `dest-${Math.random().toString(16).slice(2)}`);
  const home = join(work, `home-${Math.random().toString(16).slice(2)}`);
  mkdirSync(home);
  const lines: string[] = [];
  await cloneRepository({
    source: parseGithubSource({ url, branch }),
    dest,
    home,
    timeoutMs: 60_000,
    maxDiskBytes: 64 * 1024 * 1024,
    onLine: (line) => lines.push(line),
    mirror,
  });
  return { dest, lines };
}

describe("cloning a GitHub source", () => {
  it("runs git with hooks off, no submodules, no symlinks, https only, and -- before the URL", () => {
    const source = parseGithubSource({ url: "https://github.com/a/b", branch: "dev" });
    const args = cloneArguments(source, source.cloneUrl, "/x/src", false);
    expect(args).toEqual([
      "-c",
      "core.hooksPath=/dev/null",
      "-c",
      "core.symlinks=false",
      "-c",
      "protocol.allow=never",
      "-c",
      "protocol.https.allow=always",
      "-c",
      "credential.helper=",
      "-c",
      "http.followRedirects=initial",
      "clone",
      "--depth",
      "1",
      "--no-recurse-submodules",
      "--single-branch",
      "--no-tags",
      "--branch",
      "dev",
      "--",
      "https://github.com/a/b.git",
      "/x/src",
    ]);
  });

  it("gives git an environment with none of the server's variables and no prompt", () => {
    const env = cloneEnvironment("/x/home", false);
    expect(Object.keys(env).sort()).toEqual(
      [
        "PATH",
        "HOME",
        "LANG",
        "LC_ALL",
        "GIT_TERMINAL_PROMPT",
        "GIT_ASKPASS",
        "SSH_ASKPASS",
        "GIT_CONFIG_NOSYSTEM",
        "GIT_CONFIG_GLOBAL",
        "GIT_ALLOW_PROTOCOL",
      ].sort(),
    );
    expect(env).toMatchObject({ HOME: "/x/home", GIT_TERMINAL_PROMPT: "0", GIT_ALLOW_PROTOCOL: "https" });
  });

  it("clones one shallow branch for real, symlinks as plain files, submodules left out", async () => {
    const { dest, lines } = await clone("https://github.com/acme/agent.git");
    expect(readFileSync(join(dest, "src/agent/graph.py"), "utf8")).toContain("StateGraph");
    expect(lstatSync(join(dest, "passwd.py")).isSymbolicLink()).toBe(false);
    expect(readFileSync(join(dest, "passwd.py"), "utf8")).toBe("/etc/passwd");
    expect(existsSync(join(dest, "x"))).toBe(false);
    expect(existsSync(join(dest, "DEV.md"))).toBe(false);
    expect(readFileSync(join(dest, ".git/shallow"), "utf8").trim()).toMatch(/^[0-9a-f]{40}$/);
    expect(lines[0]).toBe("git clone --depth 1 https://github.com/acme/agent.git");
    expect(lines.join("\n")).not.toContain(mirror);
  });

  it("clones the branch asked for", async () => {
    const { dest } = await clone("https://github.com/acme/agent", "dev");
    expect(readFileSync(join(dest, "DEV.md"), "utf8")).toBe("dev branch");
  });

  it("fails with IMPORT_CLONE_FAILED and git's words for a missing repository or branch", async () => {
    for (const [url, branch] of [
      ["https://github.com/acme/missing", undefined],
      ["https://github.com/acme/agent", "no-such-branch"],
    ] as const) {
      const error = await clone(url, branch).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(AppError);
      expect((error as AppError).code).toBe("IMPORT_CLONE_FAILED");
      expect(JSON.stringify((error as AppError).details)).toMatch(/fatal|not found|Could not/i);
      expect(JSON.stringify((error as AppError).details)).not.toContain(mirror);
    }
  });
});
