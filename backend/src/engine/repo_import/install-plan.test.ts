import { describe, expect, it } from "vitest";
import type { SandboxPaths } from "../sandbox/import-sandbox.js";
import {
  dependenciesInstallCommand,
  isPackagingFailure,
  missingRequirement,
  projectInstallCommand,
  venvCommand,
  venvPython,
} from "./install-plan.js";

const paths: SandboxPaths = {
  job: "/job",
  runner: "/opt/studio-runner/runner.py",
  pipCache: "/cache",
  wheels: null,
  basePython: "python3",
};
const source = { paths, root: "/job/src/repo-main", indexUrl: null };
const PIP = ["/job/venv/bin/python", "-m", "pip", "install"];

describe("install plan", () => {
  it("makes the venv in the job directory with the sandbox's base interpreter", () => {
    expect(venvCommand(paths)).toEqual(["python3", "-m", "venv", "/job/venv"]);
    expect(venvPython(paths)).toBe("/job/venv/bin/python");
  });

  it("installs a pyproject or setup.py project editable, requirements.txt with -r, always with langgraph and python-dotenv", () => {
    for (const kind of ["pyproject", "setup.py"] as const)
      expect(projectInstallCommand({ ...source, kind })).toEqual([
        ...PIP,
        "-e",
        "/job/src/repo-main",
        "langgraph",
        "python-dotenv",
      ]);
    expect(projectInstallCommand({ ...source, kind: "requirements" })).toEqual([
      ...PIP,
      "-r",
      "/job/src/repo-main/requirements.txt",
      "langgraph",
      "python-dotenv",
    ]);
    expect(projectInstallCommand({ ...source, kind: "none" })).toEqual([...PIP, "langgraph", "python-dotenv"]);
  });

  it("installs offline from the wheel directory when there is one, else from the configured index", () => {
    const wheels = { ...source, paths: { ...paths, wheels: "/wheels" }, indexUrl: "https://pypi.example/simple" };
    expect(projectInstallCommand({ ...wheels, kind: "none" })).toEqual([
      ...PIP,
      "--no-index",
      "--find-links",
      "/wheels",
      "langgraph",
      "python-dotenv",
    ]);
    expect(projectInstallCommand({ ...source, indexUrl: "https://pypi.example/simple", kind: "none" })).toEqual([
      ...PIP,
      "--index-url",
      "https://pypi.example/simple",
      "langgraph",
      "python-dotenv",
    ]);
  });

  it("installs a dependency list without anything that looks like an option", () => {
    expect(
      dependenciesInstallCommand({ ...source, kind: "pyproject" }, [
        "langgraph>=0.2",
        "--index-url=http://x",
        " ",
        "httpx",
      ]),
    ).toEqual([...PIP, "langgraph>=0.2", "httpx", "langgraph", "python-dotenv"]);
  });

  it("tells a packaging-only failure from others", () => {
    expect(
      isPackagingFailure([
        "      error: Multiple top-level packages discovered in a flat-layout: ['agent', 'helpers'].",
      ]),
    ).toBe(true);
    expect(isPackagingFailure(["error: metadata-generation-failed"])).toBe(true);
    expect(isPackagingFailure(["ERROR: No matching distribution found for foo==9.9.9"])).toBe(false);
  });

  it("names the requirement no index has, and its package", () => {
    expect(
      missingRequirement([
        "ERROR: Could not find a version that satisfies the requirement foo-bar==9.9.9 (from versions: none)",
        "ERROR: No matching distribution found for foo-bar==9.9.9",
      ]),
    ).toEqual({ package: "foo-bar", requirement: "foo-bar==9.9.9" });
    expect(missingRequirement(["ERROR: Could not find a version that satisfies the requirement baz>=2"])).toEqual({
      package: "baz",
      requirement: "baz>=2",
    });
    expect(missingRequirement(["Successfully installed langgraph"])).toBeNull();
  });
});
