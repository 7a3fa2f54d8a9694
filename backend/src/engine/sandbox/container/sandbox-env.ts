// The environment an import sandbox command gets, built in one place: the names the repository
// declares (.env.example and its kin) that the server has, plus STUDIO_IMPORT_SECRETS, never
// JWT_SECRET, DATABASE_URL, REDIS_URL or STUDIO_*, and the few settings Python and pip need.
// Nothing else of the server's environment goes in.
import { neverPassedToSandbox } from "../../../core/config.js";
import type { SandboxPaths } from "../import-sandbox.js";

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

export interface SandboxEnvInput {
  paths: SandboxPaths;
  /** Names the repository declares (job.env_names). */
  declared: readonly string[];
  /** STUDIO_IMPORT_SECRETS. */
  secrets: readonly string[];
  /** Where the values come from (the server's environment). */
  serverEnv: NodeJS.ProcessEnv;
}

/** The passed names and their values (only those the server has a value for). */
export function passedVariables(input: Omit<SandboxEnvInput, "paths">): Record<string, string> {
  const passed: Record<string, string> = {};
  for (const name of [...input.declared, ...input.secrets]) {
    if (!NAME.test(name) || neverPassedToSandbox(name)) continue;
    const value = input.serverEnv[name];
    if (value !== undefined && value !== "") passed[name] = value;
  }
  return passed;
}

/** The whole environment of a command in the sandbox. */
export function sandboxEnvironment(input: SandboxEnvInput): Record<string, string> {
  return {
    ...passedVariables(input),
    HOME: `${input.paths.job}/home`,
    LANG: "C.UTF-8",
    PYTHONUNBUFFERED: "1",
    PIP_CACHE_DIR: input.paths.pipCache,
    PIP_DISABLE_PIP_VERSION_CHECK: "1",
    PIP_NO_INPUT: "1",
  };
}
