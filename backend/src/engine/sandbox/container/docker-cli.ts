// Finding the Docker CLI and running it for a short answer (image inspect, rm -f). The sandbox
// never falls back to anything else: no CLI, no daemon or no image is IMPORT_SANDBOX_UNAVAILABLE.
import { spawn } from "node:child_process";
import { constants } from "node:fs";
import { access } from "node:fs/promises";
import { delimiter, join } from "node:path";
import { AppError } from "../../../core/errors.js";

/** Docker Desktop on macOS does not always put its CLI on the PATH of a service. */
export const DOCKER_DESKTOP_CLI = "/Applications/Docker.app/Contents/Resources/bin/docker";

async function isExecutable(path: string): Promise<boolean> {
  try {
    await access(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The given CLI, else `docker` on PATH, else Docker Desktop's. */
export async function findDockerCli(options: {
  explicit?: string;
  path?: string;
  desktopCli?: string;
}): Promise<string> {
  if (options.explicit !== undefined) {
    if (await isExecutable(options.explicit)) return options.explicit;
    throw new AppError("IMPORT_SANDBOX_UNAVAILABLE", { reason: `The Docker CLI ${options.explicit} cannot be run.` });
  }
  for (const dir of (options.path ?? "").split(delimiter)) {
    if (dir === "") continue;
    const candidate = join(dir, "docker");
    if (await isExecutable(candidate)) return candidate;
  }
  const desktop = options.desktopCli ?? DOCKER_DESKTOP_CLI;
  if (await isExecutable(desktop)) return desktop;
  throw new AppError("IMPORT_SANDBOX_UNAVAILABLE", {
    reason: `No Docker CLI: docker is not on the PATH and ${desktop} does not exist.`,
  });
}

export interface CliOutput {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the CLI to its end and collects what it printed (short commands only). */
export function runDocker(cli: string, args: readonly string[], env: NodeJS.ProcessEnv): Promise<CliOutput> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(cli, args, { env, stdio: ["ignore", "pipe", "pipe"] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on("data", (chunk: Buffer) => out.push(chunk));
    child.stderr.on("data", (chunk: Buffer) => err.push(chunk));
    child.once("error", (error) =>
      reject(
        new AppError("IMPORT_SANDBOX_UNAVAILABLE", {
          reason: `The Docker CLI ${cli} failed to start: ${error.message}`,
        }),
      ),
    );
    child.once("close", (code) =>
      resolvePromise({
        code,
        stdout: Buffer.concat(out).toString("utf8"),
        stderr: Buffer.concat(err).toString("utf8"),
      }),
    );
  });
}

/** The CLI's own settings from the server's environment: which daemon, and where its config is. */
export function dockerClientEnv(hostEnv: NodeJS.ProcessEnv, homeDir: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const name of ["DOCKER_HOST", "DOCKER_CONTEXT", "DOCKER_CERT_PATH", "DOCKER_TLS_VERIFY", "DOCKER_API_VERSION"]) {
    const value = hostEnv[name];
    if (value !== undefined) env[name] = value;
  }
  // Given explicitly: HOME may be the sandbox's (/tmp) in the CLI's environment.
  env.DOCKER_CONFIG = hostEnv.DOCKER_CONFIG ?? join(homeDir, ".docker");
  if (hostEnv.PATH !== undefined) env.PATH = hostEnv.PATH;
  return env;
}

/** Checks that the daemon answers and has the image; the reason names which of them failed. */
export async function checkImage(cli: string, image: string, env: NodeJS.ProcessEnv): Promise<void> {
  const result = await runDocker(cli, ["image", "inspect", "--format", "{{.Id}}", image], env);
  if (result.code === 0) return;
  const message = result.stderr.trim();
  if (/no such image/i.test(message))
    throw new AppError("IMPORT_SANDBOX_UNAVAILABLE", {
      reason: `The image ${image} (STUDIO_IMPORT_IMAGE) is not on the Docker engine; build or pull it first.`,
      image,
    });
  throw new AppError("IMPORT_SANDBOX_UNAVAILABLE", { reason: `Docker did not answer: ${message}`, image });
}
