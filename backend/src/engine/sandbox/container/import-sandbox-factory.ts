// Picks the import sandbox runtime from the configuration. With the Docker runtime there is never
// a fallback to a subprocess: Docker missing is the job's or the run's error.
import { fileURLToPath } from "node:url";
import type { ImportConfig } from "../../../core/config.js";
import type { ImportSandbox } from "../import-sandbox.js";
import { DockerSandbox } from "./docker-sandbox.js";
import { SubprocessSandbox } from "./subprocess-sandbox.js";

/** runner.py beside this module's directory (copied to dist by the backend build). */
export const RUNNER_PATH = fileURLToPath(new URL("../runner.py", import.meta.url));

export function createImportSandbox(config: ImportConfig, runnerPath = RUNNER_PATH): ImportSandbox {
  if (config.runtime === "subprocess")
    return new SubprocessSandbox({
      runnerPath,
      importDir: config.dir,
      wheelsDir: config.wheelsDir,
      python: config.python,
    });
  return new DockerSandbox({ config, runnerPath });
}
