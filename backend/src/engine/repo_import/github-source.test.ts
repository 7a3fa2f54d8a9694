import { describe, expect, it } from "vitest";
import { AppError } from "../../core/errors.js";
import { parseBranch, parseGithubSource, parseGithubUrl, parseSubdir } from "./github-source.js";

function codeOf(action: () => unknown): string | null {
  try {
    action();
    return null;
  } catch (error) {
    return error instanceof AppError ? error.code : "not an AppError";
  }
}

describe("GitHub sources", () => {
  it("takes https://github.com/owner/repo with or without .git and always clones the https URL", () => {
    for (const url of [
      "https://github.com/langchain-ai/react-agent",
      "https://github.com/langchain-ai/react-agent.git",
      "https://github.com/langchain-ai/react-agent/",
      "  https://github.com/langchain-ai/react-agent  ",
    ])
      expect(parseGithubUrl(url)).toEqual({
        owner: "langchain-ai",
        repo: "react-agent",
        cloneUrl: "https://github.com/langchain-ai/react-agent.git",
      });
  });

  it.each([
    ["http://github.com/a/b", "uses http:"],
    ["ssh://git@github.com/a/b.git", "uses ssh:"],
    ["git@github.com:a/b.git", "is not a URL"],
    ["file:///etc/passwd", "uses file:"],
    ["ext::sh -c touch% /tmp/pwned", "transport"],
    ["file::/tmp/x", "transport"],
    ["--upload-pack=touch /tmp/pwned", "option"],
    ["-u touch", "option"],
    ["https://user:token@github.com/a/b", "credentials"],
    ["https://token@github.com/a/b", "credentials"],
    ["https://gitlab.com/a/b", "not on github.com"],
    ["https://github.com.evil.example/a/b", "not on github.com"],
    ["https://github.com:8443/a/b", "not on github.com"],
    ["https://github.com/a", "owner>/<repository"],
    ["https://github.com/a/b/tree/main", "owner>/<repository"],
    ["https://github.com/a/b?x=1", "query"],
    ["https://github.com/a/..", "name"],
    ["https://github.com/a/%2e%2e", "name"],
    ["https://github.com/-a/b", "name"],
  ])("refuses %s (%s)", (url, reason) => {
    let caught: unknown;
    try {
      parseGithubUrl(url);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(AppError);
    expect((caught as AppError).code).toBe("IMPORT_URL_INVALID");
    expect(JSON.stringify((caught as AppError).details)).toContain(reason);
  });

  it("takes branch names git accepts and refuses option-like or odd ones", () => {
    expect(parseBranch("main")).toBe("main");
    expect(parseBranch("release/1.2")).toBe("release/1.2");
    expect(parseBranch("")).toBeNull();
    expect(parseBranch(undefined)).toBeNull();
    for (const bad of ["--upload-pack=x", "-b", "a..b", "a b", "a;b", "/x", "x/", "x.lock", "a//b", "$(id)", "a\nb"])
      expect(codeOf(() => parseBranch(bad))).toBe("IMPORT_BRANCH_INVALID");
  });

  it("takes relative sub-directories and refuses ones that leave the repository", () => {
    expect(parseSubdir("examples/agent")).toBe("examples/agent");
    expect(parseSubdir("./examples//agent/")).toBe("examples/agent");
    expect(parseSubdir(".")).toBeNull();
    expect(parseSubdir(null)).toBeNull();
    for (const bad of ["../x", "a/../../x", "/etc", "C:/x", "a\\..\\x", ".git/hooks", "a\0b"])
      expect(codeOf(() => parseSubdir(bad))).toBe("IMPORT_SUBDIR_INVALID");
  });

  it("puts the three together", () => {
    expect(parseGithubSource({ url: "https://github.com/o/r", branch: "dev", subdir: "apps/x" })).toEqual({
      owner: "o",
      repo: "r",
      cloneUrl: "https://github.com/o/r.git",
      branch: "dev",
      subdir: "apps/x",
    });
  });
});
