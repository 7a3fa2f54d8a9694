import { describe, expect, it } from "vitest";
import { branchError, githubBody, githubFieldErrors, githubUrlError, subdirError, zipFileError } from "./import-source";

describe("githubUrlError", () => {
  it("accepts https://github.com/owner/repo, with .git or a trailing slash", () => {
    for (const url of [
      "https://github.com/langchain-ai/new-langgraph-project",
      "https://github.com/langchain-ai/react-agent.git",
      "https://github.com/a/b/",
      "  https://github.com/owner-1/repo.name_x  ",
    ])
      expect(githubUrlError(url), url).toBeNull();
  });

  it("answers IMPORT_SOURCE_MISSING for an empty field", () => {
    expect(githubUrlError("   ")).toBe("IMPORT_SOURCE_MISSING");
  });

  it("refuses what the server refuses, with the server's code", () => {
    for (const url of [
      "http://github.com/a/b",
      "ssh://git@github.com/a/b",
      "git@github.com:a/b.git",
      "file:///etc/passwd",
      "ext::sh -c touch% /tmp/pwned",
      "--upload-pack=touch /tmp/x",
      "https://user:pass@github.com/a/b",
      "https://gitlab.com/a/b",
      "https://github.com:444/a/b",
      "https://github.com/a/b?x=1",
      "https://github.com/a/b#readme",
      "https://github.com/a",
      "https://github.com/a/b/tree/main",
      "https://github.com/-a/b",
      "https://github.com/a/..",
      "https://github.com//a/b",
      "not a url",
    ])
      expect(githubUrlError(url), url).toBe("IMPORT_URL_INVALID");
  });
});

describe("branchError and subdirError", () => {
  it("accept empty fields (the default branch, the root)", () => {
    expect(branchError("")).toBeNull();
    expect(subdirError("  ")).toBeNull();
  });

  it("accept ordinary branch names and relative paths", () => {
    for (const branch of ["main", "release/1.2", "feature_x-y"]) expect(branchError(branch), branch).toBeNull();
    for (const subdir of ["apps/agent", "./apps/agent/", "a/./b"]) expect(subdirError(subdir), subdir).toBeNull();
  });

  it("refuse branches that read as options or that git refuses", () => {
    for (const branch of ["-x", "--upload-pack=y", "a..b", "a b", "a/", ".hidden", "x.lock", "a//b", "a/.b"])
      expect(branchError(branch), branch).toBe("IMPORT_BRANCH_INVALID");
  });

  it("refuse sub-directories that leave the repository or are absolute", () => {
    for (const subdir of ["../x", "a/../../x", "/etc", "C:/x", "a\\b", ".git", "a/.git/hooks"])
      expect(subdirError(subdir), subdir).toBe("IMPORT_SUBDIR_INVALID");
  });
});

describe("githubFieldErrors and githubBody", () => {
  it("name the first problem of each field", () => {
    expect(githubFieldErrors({ url: "http://github.com/a/b", branch: "-x", subdir: "../y" })).toEqual({
      url: "IMPORT_URL_INVALID",
      branch: "IMPORT_BRANCH_INVALID",
      subdir: "IMPORT_SUBDIR_INVALID",
    });
    expect(githubFieldErrors({ url: "https://github.com/a/b", branch: "", subdir: "" })).toEqual({});
  });

  it("leave empty optional fields out of the body and trim the rest", () => {
    expect(githubBody({ url: " https://github.com/a/b ", branch: " ", subdir: "" })).toEqual({
      url: "https://github.com/a/b",
    });
    expect(githubBody({ url: "https://github.com/a/b", branch: "dev", subdir: "apps/x" })).toEqual({
      url: "https://github.com/a/b",
      branch: "dev",
      subdir: "apps/x",
    });
  });
});

describe("zipFileError", () => {
  it("accepts .zip files with a zip type or none", () => {
    for (const type of ["application/zip", "application/x-zip-compressed", "application/octet-stream", ""])
      expect(zipFileError({ name: "repo-main.ZIP", type }), type).toBeNull();
  });

  it("refuses other files before uploading them", () => {
    expect(zipFileError({ name: "notes.txt", type: "text/plain" })).toBe("IMPORT_ZIP_INVALID");
    expect(zipFileError({ name: "photo.zip", type: "image/png" })).toBe("IMPORT_ZIP_INVALID");
  });
});
