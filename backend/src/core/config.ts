// Every environment variable the product reads is parsed here, once, into a typed object.
// docs/en/configuration.md lists the same names with the same defaults; keep them in step.
import { availableParallelism, homedir } from "node:os";
import { isAbsolute, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { type EgressRule, parseEgressAllow } from "./egress/egress-policy.js";
import { AppError } from "./errors.js";
import { decodeKey } from "./secret-box.js";

export type LogLevel = "fatal" | "error" | "warn" | "info" | "debug" | "trace" | "silent";
export type LogFormat = "json" | "pretty";

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  databaseUrl: string | null;
  /** Redis for the queue and run bus of several processes (REDIS_URL); null: the embedded queue and bus. */
  redisUrl: string | null;
  /**
   * Whether this process executes queued runs (STUDIO_RUN_JOBS): always without Redis; with Redis,
   * only when set (API processes queue, `superstep worker` processes execute).
   */
  runJobs: boolean;
  /** Where `superstep worker` answers its liveness check (STUDIO_WORKER_HEALTH_PORT; 0: any free port). */
  workerHealthPort: number;
  jwtSecret: string | null;
  jwtTtlSeconds: number;
  allowSignup: boolean;
  enableImport: boolean;
  /** Repo import (docs/en/import.md); read whether or not STUDIO_ENABLE_IMPORT is on. */
  imports: ImportConfig;
  logLevel: LogLevel;
  logFormat: LogFormat;
  maxBodyBytes: number;
  authRateLimitPerMinute: number;
  hookRateLimitPerMinute: number;
  uiDir: string;
  workerConcurrency: number;
  /**
   * Threads that execute queued runs (STUDIO_RUN_THREADS), so that answering requests never waits
   * behind run work or its garbage collections; 0: runs execute on the thread that answers.
   */
  runThreads: number;
  /**
   * How much lower the run threads' CPU priority is than the process's (STUDIO_RUN_THREAD_NICE, a
   * nice increment, 0 to 19): when the cores are busy, the thread that answers requests goes first.
   */
  runThreadNice: number;
  /** How long a worker's hold on a run lasts without renewal; a run whose worker died is taken over after it. */
  runLeaseTtlMs: number;
  /** Runs of one user executing at once; the queue holds the rest. */
  userMaxRuns: number;
  /** Queued + running runs one user may have before new triggers are refused. */
  userMaxQueued: number;
  /** Runs one user may start per minute (hooks, editor, schedules together; not the CLI). */
  userRunRatePerMinute: number;
  /** Runs queued and running in this server process, all users together, before new runs get SERVER_BUSY. */
  maxQueuedRuns: number;
  /** Requests handled at once (health and sockets aside) before more get SERVER_BUSY. */
  maxInFlight: number;
  /** How long a statement waits for a lock another connection holds before DATABASE_BUSY. */
  dbBusyTimeoutMs: number;
  /**
   * Whether the fixed query shapes run as named prepared statements on PostgreSQL
   * (STUDIO_PG_PREPARED_STATEMENTS); off behind a pooler that does not keep them per client.
   */
  pgPreparedStatements: boolean;
  scheduleMinIntervalSeconds: number;
  callbackRetryBaseMs: number;
  /** Base64 or hex of 32 bytes; null: a key file generated in the data dir. */
  encryptionKey: string | null;
  /** Earlier keys, still read while credentials are re-encrypted (`superstep rotate-key`). */
  encryptionKeysPrevious: string[];
  /**
   * How far V8 lets the heap grow past what a full collection left alive before it collects again
   * (V8's --heap-growing-percent); 0 leaves it to V8. Set by `superstep start` (decisions 0016, 0030).
   */
  heapGrowthPercent: number;
  engine: EngineConfig;
}

export interface EngineConfig {
  codeMode: "wasm" | "off";
  codeTimeoutMs: number;
  codeMemoryMb: number;
  /** Sandbox children per language kept ready once that language has run (STUDIO_CODE_WARM). */
  codeWarm: number;
  /** What that may grow to while Code nodes find no child ready (STUDIO_CODE_WARM_MAX). */
  codeWarmMax: number;
  /** Where the Python sandbox's memory snapshot is kept between starts (STUDIO_DATA_DIR/cache). */
  codeSnapshotDir?: string;
  runTimeoutMs: number;
  maxSupersteps: number;
  maxEventBytes: number;
  maxStateBytes: number;
  maxSubgraphDepth: number;
  smtpUrl: string | null;
  smtpFrom: string;
  openai: { apiKey: string | null; baseUrl: string | null };
  anthropic: { apiKey: string | null; baseUrl: string | null };
  /** Hosts and networks outbound requests from workflows may reach besides public addresses. */
  egressAllow: readonly EgressRule[];
  /** Other endpoints (origins) the server's provider keys may be sent to. */
  serverKeyEndpoints: readonly string[];
  /** A testing aid (STUDIO_TEST_PAUSE_AT): where runs stop for good, for crash tests; null in production. */
  testPauseAt: TestPauseAt | null;
}

export interface ImportConfig {
  /** Where each import job keeps its job.json and source (STUDIO_IMPORT_DIR). */
  dir: string;
  /** The largest source accepted, `.git` not counted, and the largest zip upload. */
  maxBytes: number;
  /** Job directories older than this are deleted when the next import starts; 0: never. */
  maxAgeHours: number;
  /** The Docker image installs and runs happen in. */
  image: string;
  /** Docker's --memory (and --memory-swap, the same): a number with b, k, m or g. */
  memory: string;
  /** Docker's --cpus. */
  cpus: number;
  /** Docker's --pids-limit. */
  pids: number;
  /** The network of imported runs (installs use bridge, inspection none). */
  network: "bridge" | "none";
  /** Server environment names passed into the sandbox besides those a repo's .env.example declares. */
  secrets: readonly string[];
  /** docker: the sandbox; subprocess: tests and Docker-less machines, no sandbox at all. */
  runtime: "docker" | "subprocess";
  installTimeoutMs: number;
  inspectTimeoutMs: number;
  /** One turn of an imported run: STUDIO_RUN_TIMEOUT when set, else 300 seconds. */
  runTimeoutMs: number;
  /** The import dir as the Docker host sees it (Compose); null: the same path as here. */
  hostDir: string | null;
  /** The group id of the Docker socket for the Compose image's user; null: unchanged. */
  dockerGid: number | null;
  /** A directory of wheels installs take packages from, without any index (STUDIO_IMPORT_WHEELS); null: none. */
  wheelsDir: string | null;
  /** The package index installs use (STUDIO_IMPORT_INDEX_URL); null: pip's own default. */
  indexUrl: string | null;
  /** The interpreter the subprocess runtime makes venvs with (STUDIO_IMPORT_PYTHON); Docker uses the image's python3. */
  python: string;
  /**
   * A testing aid (STUDIO_TEST_IMPORT_GIT_MIRROR): a directory of bare repositories <owner>/<repo>.git
   * that GitHub URLs are cloned from instead of github.com; null in production. Requests still
   * name only https://github.com/… URLs.
   */
  testGitMirror: string | null;
}

/** A point of a run where crash tests stop the process: after a node's ledger row, or after the checkpoint of its superstep. */
export interface TestPauseAt {
  point: "ledger" | "checkpoint";
  /** The node's id as in events ("sub/node" inside the Subgraph node `sub`). */
  nodeId: string;
}

type Env = Record<string, string | undefined>;

/**
 * One run thread per core but the one that answers requests, at least one and at most four: each
 * thread costs memory, and on two cores a second one cost more CPU per run than it gained (0017).
 */
export function defaultRunThreads(): number {
  return Math.max(1, Math.min(availableParallelism() - 1, 4));
}

const LOG_LEVELS: readonly LogLevel[] = ["fatal", "error", "warn", "info", "debug", "trace", "silent"];
// frontend/dist seen from backend/{src,dist}/core/
const DEFAULT_UI_DIR = fileURLToPath(new URL("../../../frontend/dist", import.meta.url));

function invalid(name: string, value: string, expected: string): AppError {
  return new AppError(
    "CONFIG_INVALID",
    { variable: name, value, expected },
    `${name}=${JSON.stringify(value)} is not valid: expected ${expected}.`,
  );
}

function text(env: Env, name: string): string | null {
  const value = env[name];
  return value === undefined || value.trim() === "" ? null : value.trim();
}

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = text(env, name);
  if (raw === null) return fallback;
  if (!/^\d+$/.test(raw)) throw invalid(name, raw, `a whole number from ${min} to ${max}`);
  const value = Number(raw);
  if (value < min || value > max) throw invalid(name, raw, `a whole number from ${min} to ${max}`);
  return value;
}

function flag(env: Env, name: string, fallback = false): boolean {
  const raw = text(env, name);
  if (raw === null) return fallback;
  const lower = raw.toLowerCase();
  if (["1", "true", "yes", "on"].includes(lower)) return true;
  if (["0", "false", "no", "off"].includes(lower)) return false;
  throw invalid(name, raw, "1 or 0 (true/false, yes/no, on/off)");
}

function directory(env: Env, name: string, fallback: string): string {
  const raw = text(env, name);
  if (raw === null) return fallback;
  const expanded = raw === "~" || raw.startsWith("~/") ? homedir() + raw.slice(1) : raw;
  return isAbsolute(expanded) ? expanded : resolve(expanded);
}

function databaseUrl(env: Env): string | null {
  const raw = text(env, "DATABASE_URL");
  if (raw === null) return null;
  if (!/^postgres(ql)?:\/\//.test(raw)) throw invalid("DATABASE_URL", "(hidden)", "a postgres:// or postgresql:// URL");
  return raw;
}

function logLevel(env: Env): LogLevel {
  const raw = text(env, "STUDIO_LOG_LEVEL") ?? "info";
  const level = LOG_LEVELS.find((l) => l === raw.toLowerCase());
  if (!level) throw invalid("STUDIO_LOG_LEVEL", raw, LOG_LEVELS.join(", "));
  return level;
}

// Readable lines for a person at a terminal, JSON lines for log collectors.
function logFormat(env: Env, isTerminal: boolean): LogFormat {
  const raw = text(env, "STUDIO_LOG_FORMAT");
  if (raw === null) return isTerminal ? "pretty" : "json";
  if (raw === "json" || raw === "pretty") return raw;
  throw invalid("STUDIO_LOG_FORMAT", raw, "json or pretty");
}

function oneOf<T extends string>(env: Env, name: string, values: readonly T[], fallback: T): T {
  const raw = text(env, name);
  if (raw === null) return fallback;
  const value = values.find((v) => v === raw.toLowerCase());
  if (!value) throw invalid(name, raw, values.join(" or "));
  return value;
}

function url(env: Env, name: string, protocols: RegExp, hidden = false): string | null {
  const raw = text(env, name);
  if (raw === null) return null;
  if (!protocols.test(raw) || !URL.canParse(raw))
    throw invalid(name, hidden ? "(hidden)" : raw, `a URL (${protocols.source})`);
  return raw;
}

function egressAllow(env: Env): EgressRule[] {
  const raw = text(env, "STUDIO_EGRESS_ALLOW");
  if (raw === null) return [];
  try {
    return parseEgressAllow(raw);
  } catch (error) {
    throw invalid(
      "STUDIO_EGRESS_ALLOW",
      raw,
      `hosts, host:port, addresses or CIDR networks (${(error as Error).message})`,
    );
  }
}

function origins(env: Env, name: string): string[] {
  const raw = text(env, name);
  if (raw === null) return [];
  return raw
    .split(/[\s,]+/)
    .filter(Boolean)
    .map((entry) => {
      if (!/^https?:\/\//.test(entry) || !URL.canParse(entry)) throw invalid(name, entry, "http(s) URLs");
      return new URL(entry).origin;
    });
}

function encryptionKey(env: Env): string | null {
  const raw = text(env, "STUDIO_ENCRYPTION_KEY");
  if (raw !== null && decodeKey(raw) === null)
    throw invalid("STUDIO_ENCRYPTION_KEY", "(hidden)", "32 bytes as base64 (44 characters) or hex (64 characters)");
  return raw;
}

function previousKeys(env: Env): string[] {
  const raw = text(env, "STUDIO_ENCRYPTION_KEY_PREVIOUS");
  const keys = raw === null ? [] : raw.split(/[\s,]+/).filter(Boolean);
  if (keys.some((key) => decodeKey(key) === null))
    throw invalid("STUDIO_ENCRYPTION_KEY_PREVIOUS", "(hidden)", "keys of 32 bytes as base64 or hex, comma-separated");
  return keys;
}

// Names the sandbox must never receive, whatever STUDIO_IMPORT_SECRETS or a repo's .env.example says (the seed's table).
const NEVER_PASSED = /^(JWT_SECRET|DATABASE_URL|REDIS_URL|STUDIO_.*)$/;

/** True for a server variable that never goes into the import sandbox. */
export function neverPassedToSandbox(name: string): boolean {
  return NEVER_PASSED.test(name);
}

function secretNames(env: Env): string[] {
  const raw = text(env, "STUDIO_IMPORT_SECRETS");
  if (raw === null) return [];
  const names = raw.split(/[\s,]+/).filter(Boolean);
  for (const name of names) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name))
      throw invalid("STUDIO_IMPORT_SECRETS", name, "environment variable names, comma-separated");
    if (NEVER_PASSED.test(name))
      throw invalid("STUDIO_IMPORT_SECRETS", name, "names other than JWT_SECRET, DATABASE_URL, REDIS_URL and STUDIO_*");
  }
  return names;
}

function dockerMemory(env: Env): string {
  const raw = text(env, "STUDIO_IMPORT_MEMORY") ?? "1g";
  if (!/^[1-9]\d*[bkmg]?$/i.test(raw)) throw invalid("STUDIO_IMPORT_MEMORY", raw, "a size such as 512m or 2g");
  return raw.toLowerCase();
}

function dockerCpus(env: Env): number {
  const raw = text(env, "STUDIO_IMPORT_CPUS") ?? "1";
  const value = Number(raw);
  if (!/^\d+(\.\d+)?$/.test(raw) || value <= 0 || value > 256)
    throw invalid("STUDIO_IMPORT_CPUS", raw, "a number of CPUs above 0, such as 1 or 0.5");
  return value;
}

function imageName(env: Env): string {
  const raw = text(env, "STUDIO_IMPORT_IMAGE") ?? "python:3.12-slim";
  // Handed to the Docker CLI as one argument: never something it would read as an option.
  if (!/^[a-z0-9][a-z0-9._\-/:@]*$/i.test(raw) || raw.length > 255)
    throw invalid("STUDIO_IMPORT_IMAGE", raw, "a Docker image reference such as python:3.12-slim");
  return raw;
}

function indexUrl(env: Env): string | null {
  const raw = text(env, "STUDIO_IMPORT_INDEX_URL");
  if (raw === null) return null;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw invalid("STUDIO_IMPORT_INDEX_URL", raw, "an http or https URL of a package index");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw invalid("STUDIO_IMPORT_INDEX_URL", raw, "an http or https URL of a package index");
  return url.toString();
}

function importConfig(env: Env, dataDir: string): ImportConfig {
  const hostDir = text(env, "STUDIO_IMPORT_HOST_DIR");
  if (hostDir !== null && !isAbsolute(hostDir))
    throw invalid("STUDIO_IMPORT_HOST_DIR", hostDir, "an absolute path on the Docker host");
  const gid = text(env, "STUDIO_DOCKER_GID");
  return {
    dir: directory(env, "STUDIO_IMPORT_DIR", resolve(dataDir, "imports")),
    maxBytes: integer(env, "STUDIO_IMPORT_MAX_BYTES", 200 * 1024 * 1024, 1024, 64 * 1024 * 1024 * 1024),
    maxAgeHours: integer(env, "STUDIO_IMPORT_MAX_AGE_HOURS", 72, 0, 100 * 365 * 24),
    image: imageName(env),
    memory: dockerMemory(env),
    cpus: dockerCpus(env),
    pids: integer(env, "STUDIO_IMPORT_PIDS", 256, 16, 1_000_000),
    network: oneOf(env, "STUDIO_IMPORT_NETWORK", ["bridge", "none"] as const, "bridge"),
    secrets: secretNames(env),
    runtime: oneOf(env, "STUDIO_IMPORT_RUNTIME", ["docker", "subprocess"] as const, "docker"),
    installTimeoutMs: integer(env, "STUDIO_IMPORT_INSTALL_TIMEOUT", 15 * 60, 1, 24 * 3600) * 1000,
    inspectTimeoutMs: integer(env, "STUDIO_INSPECT_TIMEOUT", 120, 1, 3600) * 1000,
    // Imported code is someone else's: a shorter default than a workflow's turn.
    runTimeoutMs: integer(env, "STUDIO_RUN_TIMEOUT", 300, 1, 30 * 24 * 3600) * 1000,
    hostDir,
    dockerGid: gid === null ? null : integer(env, "STUDIO_DOCKER_GID", 0, 0, 4_294_967_294),
    wheelsDir: text(env, "STUDIO_IMPORT_WHEELS") === null ? null : directory(env, "STUDIO_IMPORT_WHEELS", ""),
    indexUrl: indexUrl(env),
    python: text(env, "STUDIO_IMPORT_PYTHON") ?? "python3",
    testGitMirror:
      text(env, "STUDIO_TEST_IMPORT_GIT_MIRROR") === null ? null : directory(env, "STUDIO_TEST_IMPORT_GIT_MIRROR", ""),
  };
}

function testPauseAt(env: Env): TestPauseAt | null {
  const raw = text(env, "STUDIO_TEST_PAUSE_AT");
  if (raw === null) return null;
  const match = /^(ledger|checkpoint):(\S+)$/.exec(raw);
  if (!match) throw invalid("STUDIO_TEST_PAUSE_AT", raw, "ledger:<node id> or checkpoint:<node id>");
  return { point: match[1] as TestPauseAt["point"], nodeId: match[2] as string };
}

function engineConfig(env: Env, dataDir: string): EngineConfig {
  return {
    codeMode: oneOf(env, "STUDIO_CODE_MODE", ["wasm", "off"] as const, "wasm"),
    codeTimeoutMs: integer(env, "STUDIO_CODE_TIMEOUT", 10, 1, 3600) * 1000,
    codeMemoryMb: integer(env, "STUDIO_CODE_MEMORY", 256, 32, 16384),
    codeWarm: integer(env, "STUDIO_CODE_WARM", 1, 0, 16),
    codeWarmMax: integer(env, "STUDIO_CODE_WARM_MAX", 4, 0, 16),
    codeSnapshotDir: resolve(dataDir, "cache"),
    runTimeoutMs: integer(env, "STUDIO_RUN_TIMEOUT", 3600, 1, 30 * 24 * 3600) * 1000,
    maxSupersteps: integer(env, "STUDIO_MAX_SUPERSTEPS", 200, 1, 100_000),
    maxEventBytes: integer(env, "STUDIO_MAX_EVENT_BYTES", 64 * 1024, 1024, 64 * 1024 * 1024),
    maxStateBytes: integer(env, "STUDIO_MAX_STATE_BYTES", 5 * 1024 * 1024, 1024, 1024 * 1024 * 1024),
    maxSubgraphDepth: integer(env, "STUDIO_MAX_SUBGRAPH_DEPTH", 5, 0, 50),
    smtpUrl: url(env, "STUDIO_SMTP_URL", /^smtps?:\/\//, true),
    smtpFrom: text(env, "STUDIO_SMTP_FROM") ?? "Superstep <superstep@localhost>",
    openai: { apiKey: text(env, "OPENAI_API_KEY"), baseUrl: url(env, "OPENAI_BASE_URL", /^https?:\/\//) },
    anthropic: { apiKey: text(env, "ANTHROPIC_API_KEY"), baseUrl: url(env, "ANTHROPIC_BASE_URL", /^https?:\/\//) },
    egressAllow: egressAllow(env),
    serverKeyEndpoints: origins(env, "STUDIO_SERVER_KEY_ENDPOINTS"),
    testPauseAt: testPauseAt(env),
  };
}

/** STUDIO_RUN_JOBS: on by default only without Redis; off needs Redis (someone else must run the jobs). */
function runJobs(env: Env, redisUrl: string | null): boolean {
  if (text(env, "STUDIO_RUN_JOBS") === null) return redisUrl === null;
  const value = flag(env, "STUDIO_RUN_JOBS");
  if (!value && redisUrl === null)
    throw invalid("STUDIO_RUN_JOBS", "0", "1 without REDIS_URL (only worker processes on Redis can run the jobs then)");
  return value;
}

export function loadConfig(env: Env = process.env, isTerminal = Boolean(process.stdout.isTTY)): Config {
  const jwtSecret = text(env, "JWT_SECRET");
  const redisUrl = url(env, "REDIS_URL", /^rediss?:\/\//, true);
  if (jwtSecret !== null && jwtSecret.length < 32) {
    throw invalid("JWT_SECRET", "(hidden)", "at least 32 characters");
  }
  const dataDir = directory(env, "STUDIO_DATA_DIR", resolve(homedir(), ".superstep"));
  return {
    port: integer(env, "STUDIO_PORT", 8080, 0, 65535),
    host: text(env, "STUDIO_HOST") ?? "127.0.0.1",
    dataDir,
    databaseUrl: databaseUrl(env),
    redisUrl,
    runJobs: runJobs(env, redisUrl),
    workerHealthPort: integer(env, "STUDIO_WORKER_HEALTH_PORT", 8081, 0, 65535),
    jwtSecret,
    jwtTtlSeconds: integer(env, "STUDIO_JWT_TTL_SECONDS", 7 * 24 * 3600, 60, 365 * 24 * 3600),
    allowSignup: flag(env, "STUDIO_ALLOW_SIGNUP"),
    enableImport: flag(env, "STUDIO_ENABLE_IMPORT"),
    imports: importConfig(env, dataDir),
    logLevel: logLevel(env),
    logFormat: logFormat(env, isTerminal),
    maxBodyBytes: integer(env, "STUDIO_MAX_BODY_BYTES", 2 * 1024 * 1024, 1024, 256 * 1024 * 1024),
    authRateLimitPerMinute: integer(env, "STUDIO_AUTH_RATE_LIMIT", 20, 1, 100000),
    hookRateLimitPerMinute: integer(env, "STUDIO_HOOK_RATE_LIMIT", 600, 1, 1_000_000),
    uiDir: directory(env, "STUDIO_UI_DIR", DEFAULT_UI_DIR),
    workerConcurrency: integer(env, "STUDIO_WORKER_CONCURRENCY", 4, 1, 256),
    runThreads: integer(env, "STUDIO_RUN_THREADS", defaultRunThreads(), 0, 64),
    runThreadNice: integer(env, "STUDIO_RUN_THREAD_NICE", 10, 0, 19),
    runLeaseTtlMs: integer(env, "STUDIO_RUN_LEASE_TTL", 30, 1, 3600) * 1000,
    userMaxRuns: integer(env, "STUDIO_USER_MAX_RUNS", 2, 1, 256),
    userMaxQueued: integer(env, "STUDIO_USER_MAX_QUEUED", 100, 1, 1_000_000),
    userRunRatePerMinute: integer(env, "STUDIO_USER_RUN_RATE", 60, 1, 100_000),
    maxQueuedRuns: integer(env, "STUDIO_MAX_QUEUED", 10_000, 1, 10_000_000),
    maxInFlight: integer(env, "STUDIO_MAX_IN_FLIGHT", 256, 1, 1_000_000),
    dbBusyTimeoutMs: integer(env, "STUDIO_DB_BUSY_TIMEOUT_MS", 5000, 0, 600_000),
    pgPreparedStatements: flag(env, "STUDIO_PG_PREPARED_STATEMENTS", true),
    scheduleMinIntervalSeconds: integer(env, "STUDIO_SCHEDULE_MIN_INTERVAL", 60, 1, 366 * 24 * 3600),
    callbackRetryBaseMs: integer(env, "STUDIO_CALLBACK_RETRY_BASE_MS", 1000, 10, 3_600_000),
    encryptionKey: encryptionKey(env),
    encryptionKeysPrevious: previousKeys(env),
    heapGrowthPercent: integer(env, "STUDIO_HEAP_GROWTH_PERCENT", 50, 0, 400),
    engine: engineConfig(env, dataDir),
  };
}
