// The `docker create` arguments of one sandboxed command, built without touching Docker: every
// control of the import sandbox (docs/en/import.md, "Sandbox") is one of these flags.
import { isAbsolute, join, relative, resolve, sep } from "node:path";
import type { ImportConfig } from "../../../core/config.js";
import type { SandboxPhase } from "../import-sandbox.js";

/** Where things are inside the container. */
export const CONTAINER_PATHS = {
  job: "/job",
  runnerDir: "/opt/studio-runner",
  runner: "/opt/studio-runner/runner.py",
  pipCache: "/pip-cache",
  wheels: "/wheels",
} as const;

/**
 * What of a job's directory the container sees: the source, the venv, a home, read-write; the
 * run files the server writes for it, read-only. Not the directory itself: job.json and
 * inspect.json beside them are the server's records, which the repository's code (run by pip
 * at install, by the graph at run) must not be able to rewrite.
 */
/** How long after its time limit a container whose server is gone ends itself. */
export const BACKSTOP_SECONDS = 30;

export const JOB_MOUNTS = [
  { dir: "src", mode: "rw" },
  { dir: "venv", mode: "rw" },
  { dir: "home", mode: "rw" },
  { dir: "runs", mode: "ro" },
] as const;

export interface DockerCreateInput {
  config: Pick<ImportConfig, "dir" | "hostDir" | "image" | "memory" | "cpus" | "pids" | "network" | "wheelsDir">;
  /** The container's name (`superstep-import-…`): a time limit or a cancel removes it by name. */
  name: string;
  phase: SandboxPhase;
  /** Paths on this machine; those under `config.dir` are given to Docker as `config.hostDir` sees them. */
  jobDir: string;
  runnerDir: string;
  pipCacheDir: string;
  /** Working directory inside the container (default /job). */
  cwd?: string;
  /** The command's user: the server's own uid and gid, so that what it writes in the job dir stays the server's. */
  user: { uid: number; gid: number };
  /** Names only: their values reach the container through the CLI's environment, never its command line. */
  envNames: readonly string[];
  argv: readonly string[];
  /** The command's time limit: the container also ends itself a little after it (see below). */
  timeoutMs: number;
}

/**
 * The network of a phase: install `bridge` (pip needs an index), inspect `none`, run the configured
 * one. With a wheel directory an install needs no index at all (`--no-index --find-links`), so it
 * gets `none` too.
 */
export function phaseNetwork(
  config: Pick<ImportConfig, "network" | "wheelsDir">,
  phase: SandboxPhase,
): "bridge" | "none" {
  if (phase === "inspect") return "none";
  if (phase === "run") return config.network;
  return config.wheelsDir === null ? "bridge" : "none";
}

/**
 * A path on this machine as the Docker host sees it. Under Compose the server runs in a container
 * whose import dir is a bind mount of `hostDir`: the daemon resolves mount sources on the host, so
 * paths under `dir` are rewritten; other paths are given unchanged.
 */
export function hostPath(config: Pick<ImportConfig, "dir" | "hostDir">, path: string): string {
  const absolute = resolve(path);
  if (config.hostDir === null) return absolute;
  const inside = relative(resolve(config.dir), absolute);
  if (inside === "") return config.hostDir;
  if (inside.startsWith(`..${sep}`) || inside === ".." || isAbsolute(inside)) return absolute;
  return `${config.hostDir.replace(/\/+$/, "")}/${inside.split(sep).join("/")}`;
}

export function dockerCreateArgs(input: DockerCreateInput): string[] {
  const { config } = input;
  const mount = (source: string, target: string, mode: "rw" | "ro") => [
    "-v",
    `${hostPath(config, source)}:${target}:${mode}`,
  ];
  return [
    "create",
    // The daemon removes the container when it ends, also when this server is gone by then.
    "--rm",
    // The image is checked before; a job never waits on a download.
    "--pull",
    "never",
    "--name",
    input.name,
    "--read-only",
    // exec: pip's source builds run what they compile from /tmp; /job is writable and executable
    // anyway, so noexec here would stop builds without closing anything.
    "--tmpfs",
    "/tmp:rw,exec,nosuid,nodev,size=256m",
    "--cap-drop",
    "ALL",
    "--security-opt",
    "no-new-privileges",
    "--memory",
    config.memory,
    // Equal to --memory: no swap on top of it.
    "--memory-swap",
    config.memory,
    "--cpus",
    String(config.cpus),
    "--pids-limit",
    String(config.pids),
    "--network",
    phaseNetwork(config, input.phase),
    // Output is read through the attached CLI; the daemon keeps no log file of it on the host.
    "--log-driver",
    "none",
    ...JOB_MOUNTS.flatMap(({ dir, mode }) => mount(join(input.jobDir, dir), `${CONTAINER_PATHS.job}/${dir}`, mode)),
    ...mount(input.runnerDir, CONTAINER_PATHS.runnerDir, "ro"),
    ...mount(input.pipCacheDir, CONTAINER_PATHS.pipCache, "rw"),
    ...(config.wheelsDir === null ? [] : mount(config.wheelsDir, CONTAINER_PATHS.wheels, "ro")),
    "-w",
    input.cwd ?? CONTAINER_PATHS.job,
    "--user",
    `${input.user.uid}:${input.user.gid}`,
    ...input.envNames.flatMap((name) => ["-e", name]),
    config.image,
    // A backstop for a server that is gone (crashed, killed) and so never removes the container:
    // coreutils' timeout, the container's first process, kills the command itself a while after
    // the server's own limit would have.
    "timeout",
    "--signal=KILL",
    `${Math.ceil(input.timeoutMs / 1000) + BACKSTOP_SECONDS}s`,
    ...input.argv,
  ];
}
