import { describe, expect, it } from "vitest";
import { pyprojectDependencies } from "./pyproject-dependencies.js";

describe("pyproject dependencies", () => {
  it("reads [project] dependencies over several lines, with comments, both quote kinds and a trailing comma", () => {
    const text = [
      "[build-system]",
      'requires = ["setuptools"]',
      "",
      "[project]",
      'name = "agent"',
      "dependencies = [",
      '  "langgraph>=0.2",  # the graph',
      "  'python-dotenv',",
      '  "httpx[http2] ; python_version >= \\"3.9\\"",',
      "]",
      "",
      "[project.optional-dependencies]",
      'dev = ["pytest"]',
    ].join("\n");
    expect(pyprojectDependencies(text)).toEqual([
      "langgraph>=0.2",
      "python-dotenv",
      'httpx[http2] ; python_version >= "3.9"',
    ]);
  });

  it("answers null for text that is not TOML, no [project] table, or no list of strings", () => {
    expect(pyprojectDependencies("[project\nname=")).toBeNull();
    expect(pyprojectDependencies('[tool.poetry]\nname = "x"\n')).toBeNull();
    expect(pyprojectDependencies('[project]\nname = "x"\n')).toBeNull();
    expect(pyprojectDependencies("[project]\ndependencies = [1, 2]\n")).toBeNull();
    expect(pyprojectDependencies("[project]\ndependencies = []\n")).toEqual([]);
  });
});
