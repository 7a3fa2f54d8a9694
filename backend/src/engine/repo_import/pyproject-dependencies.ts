// The `[project] dependencies` array of a pyproject.toml, for installing a project's requirements
// when the project itself cannot be packaged (setuptools' flat-layout refusal and its kin).
import { parse } from "smol-toml";

/**
 * The dependency strings, or null when the file is not TOML or has no such array of strings.
 * Optional dependencies and build requirements are not included.
 */
export function pyprojectDependencies(text: string): string[] | null {
  let parsed: unknown;
  try {
    parsed = parse(text);
  } catch {
    return null;
  }
  const project = (parsed as { project?: unknown }).project;
  if (typeof project !== "object" || project === null) return null;
  const dependencies = (project as { dependencies?: unknown }).dependencies;
  if (!Array.isArray(dependencies) || !dependencies.every((d) => typeof d === "string")) return null;
  return dependencies as string[];
}
