// The import sandbox on Docker (decision 0028): each command is one container with the seed's
// controls (docker-args.ts), created, then started attached so its output streams here. A time
// limit or a cancel removes the container by name (`docker rm -f`): ending the CLI alone would
// leave the container running. Docker missing, not answering or without the image is
// IMPORT_SANDBOX_UNAVAILABLE; there is never a fallback to a subprocess.
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { copyFile, mkdir, rename } from "node:fs/promises";
import { homedir } from "node:os";
import { join } from "node:path";
import type { ImportConfig } from "../../../core/config.js";
import { AppError } from "../../../core/errors.js";
import type { ImportSandbox, SandboxCommand, SandboxPaths, SandboxResult } from "../import-sandbox.js";
import { CONTAINER_PATHS, dockerCreateArgs, JOB_MOUNTS } from "./docker-args.js";
import { checkImage, dockerClientEnv, findDockerCli, runDocker } from "./docker-cli.js";
import { LineSplitter } from "./line-splitter.js";

export interface DockerSandboxOptions {
  config: ImportConfig;
  /** runner.py on this machine. */
  runnerPath: string;
  /** The Docker CLI; default `docker` on the PATH, else Docker Desktop's. */
  docker?: string;
  /** Where the CLI's own settings come from (DOCKER_HOST, DOCKER_CONFIG, PATH); default process.env. */
  hostEnv?: NodeJS.ProcessEnv;
  /** Container names start with it (default `superstep-import-`); tests find their own containers by it. */
  namePrefix?: string;
}

/** Where runner.py is copied under the import dir, so that the Docker host sees it also under Compose. */
const RUNNER_DIR = ".studio-runner";
const PIP_CACHE_DIR = ".pip-cache";

interface Ready {
  cli: string;
  clientEnv: NodeJS.ProcessEnv;
  runnerDir: string;
  pipCacheDir: string;
}

export class DockerSandbox implements ImportSandbox {
  readonly kind = "docker" as const;
  readonly #options: DockerSandboxOptions;
  #ready: Promise<Ready> | null = null;

  constructor(options: DockerSandboxOptions) {
    this.#options = options;
  }

  paths(_jobDir: string): SandboxPaths {
    return {
      job: CONTAINER_PATHS.job,
      runner: CONTAINER_PATHS.runner,
      pipCache: CONTAINER_PATHS.pipCache,
      wheels: this.#options.config.wheelsDir === null ? null : CONTAINER_PATHS.wheels,
      basePython: "python3",
    };
  }

  async exec(command: SandboxCommand): Promise<SandboxResult> {
    const notStarted: SandboxResult = { exitCode: null, timedOut: false, aborted: false, outOfMemory: false };
    if (command.signal?.aborted) return { ...notStarted, aborted: true };
    const ready = await this.#prepare();
    const envNames = Object.keys(command.env);
    for (const name of envNames)
      if (name === "" || name.includes("=")) throw new RangeError(`not an environment variable name: ${name}`);
    // HOME: the server user has no home in the image; /tmp is the writable place.
    const env = { HOME: "/tmp", ...command.env };
    const cliEnv: NodeJS.ProcessEnv = { ...ready.clientEnv, ...env };
    // The mounted parts of the job dir exist before the daemon would make them (as root).
    for (const { dir } of JOB_MOUNTS) await mkdir(join(command.jobDir, dir), { recursive: true });
    const name = `${this.#options.namePrefix ?? "superstep-import-"}${randomBytes(8).toString("hex")}`;
    const stop = new Stop(command, () => this.#remove(ready, name));
    try {
      if (stop.requested) {
        await stop.removed;
        return { ...notStarted, timedOut: stop.timedOut, aborted: stop.aborted };
      }
      const created = await runDocker(
        ready.cli,
        dockerCreateArgs({
          config: this.#options.config,
          name,
          phase: command.phase,
          jobDir: command.jobDir,
          runnerDir: ready.runnerDir,
          pipCacheDir: ready.pipCacheDir,
          ...(command.cwd === undefined ? {} : { cwd: command.cwd }),
          user: currentUser(),
          envNames: Object.keys(env),
          argv: command.argv,
          timeoutMs: command.timeoutMs,
        }),
        cliEnv,
      );
      if (created.code !== 0)
        throw new AppError("IMPORT_SANDBOX_UNAVAILABLE", {
          reason: `Docker refused the container: ${created.stderr.trim()}`,
        });
      if (stop.requested) {
        // Its removal may have come before the container existed.
        await stop.removed;
        await this.#remove(ready, name);
        return { ...notStarted, timedOut: stop.timedOut, aborted: stop.aborted };
      }
      const exitCode = await this.#start(ready, name, command, stop);
      await stop.removed;
      const stopped = stop.timedOut || stop.aborted;
      // With --rm the container is gone when it ends, so State.OOMKilled cannot be read: exit 137
      // that we did not cause (SIGKILL) is taken as the out-of-memory killer's.
      return { exitCode, timedOut: stop.timedOut, aborted: stop.aborted, outOfMemory: exitCode === 137 && !stopped };
    } finally {
      stop.dispose();
    }
  }

  /** Once per sandbox: the CLI, the daemon and the image, runner.py staged, the pip cache made. */
  #prepare(): Promise<Ready> {
    if (this.#ready === null) {
      this.#ready = this.#prepareOnce();
      // A failure is not kept: the image may be built or the daemon started meanwhile.
      this.#ready.catch(() => {
        this.#ready = null;
      });
    }
    return this.#ready;
  }

  async #prepareOnce(): Promise<Ready> {
    const { config } = this.#options;
    const hostEnv = this.#options.hostEnv ?? process.env;
    const cli = await findDockerCli({
      ...(this.#options.docker === undefined ? {} : { explicit: this.#options.docker }),
      ...(hostEnv.PATH === undefined ? {} : { path: hostEnv.PATH }),
    });
    const clientEnv = dockerClientEnv(hostEnv, hostEnv.HOME ?? homedir());
    await checkImage(cli, config.image, clientEnv);
    const runnerDir = join(config.dir, RUNNER_DIR);
    const pipCacheDir = join(config.dir, PIP_CACHE_DIR);
    await mkdir(runnerDir, { recursive: true });
    await mkdir(pipCacheDir, { recursive: true });
    // A copy under the import dir: under Compose the daemon cannot see this container's own files.
    // Written aside and renamed, so that a container starting meanwhile never reads half of it.
    // (A random name: the api and the workers of one Compose stack share this directory.)
    const staged = join(runnerDir, `runner.py.${randomBytes(6).toString("hex")}.tmp`);
    await copyFile(this.#options.runnerPath, staged);
    await rename(staged, join(runnerDir, "runner.py"));
    return { cli, clientEnv, runnerDir, pipCacheDir };
  }

  /** Starts the created container attached; resolves with its exit code. */
  #start(ready: Ready, name: string, command: SandboxCommand, stop: Stop): Promise<number | null> {
    return new Promise((resolvePromise, reject) => {
      const child: ChildProcess = spawn(ready.cli, ["start", "--attach", name], {
        env: ready.clientEnv,
        stdio: ["ignore", "pipe", "pipe"],
      });
      stop.attach(child);
      const stdout = new LineSplitter((line) => command.onStdoutLine?.(line));
      const stderr = new LineSplitter((line) => command.onStderrLine?.(line));
      child.stdout?.on("data", (chunk: Buffer) => stdout.push(chunk));
      child.stderr?.on("data", (chunk: Buffer) => stderr.push(chunk));
      child.once("error", (error) =>
        reject(
          new AppError("IMPORT_SANDBOX_UNAVAILABLE", {
            reason: `The Docker CLI ${ready.cli} failed to start: ${error.message}`,
          }),
        ),
      );
      child.once("close", (code) => {
        stdout.end();
        stderr.end();
        resolvePromise(code);
      });
    });
  }

  async #remove(ready: Ready, name: string): Promise<boolean> {
    const result = await runDocker(ready.cli, ["rm", "--force", name], ready.clientEnv).catch(() => null);
    return result !== null && (result.code === 0 || /no such container/i.test(result.stderr));
  }
}

function currentUser(): { uid: number; gid: number } {
  // POSIX hosts; Windows has no uid, and Docker Desktop maps its own user there.
  return { uid: process.getuid?.() ?? 0, gid: process.getgid?.() ?? 0 };
}

/**
 * A command's end from outside: its time limit or its signal. Either removes the container once;
 * if that fails (the daemon gone), the attached CLI is killed so that exec still returns.
 */
class Stop {
  timedOut = false;
  aborted = false;
  removed: Promise<void> = Promise.resolve();
  readonly #timer: NodeJS.Timeout;
  readonly #signal: AbortSignal | undefined;
  readonly #onAbort = () => this.#request("aborted");
  readonly #remove: () => Promise<boolean>;
  #child: ChildProcess | null = null;

  constructor(command: SandboxCommand, remove: () => Promise<boolean>) {
    this.#remove = remove;
    this.#timer = setTimeout(() => this.#request("timedOut"), command.timeoutMs);
    this.#signal = command.signal;
    this.#signal?.addEventListener("abort", this.#onAbort, { once: true });
    // Aborted while the sandbox was being prepared: the event has been and gone.
    if (this.#signal?.aborted) this.#request("aborted");
  }

  get requested(): boolean {
    return this.timedOut || this.aborted;
  }

  attach(child: ChildProcess): void {
    this.#child = child;
  }

  dispose(): void {
    clearTimeout(this.#timer);
    this.#signal?.removeEventListener("abort", this.#onAbort);
  }

  #request(why: "timedOut" | "aborted"): void {
    if (this.requested) return;
    this[why] = true;
    this.removed = this.#remove().then((gone) => {
      if (!gone) this.#child?.kill("SIGKILL");
    });
  }
}
