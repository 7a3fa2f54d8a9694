// The image's HEALTHCHECK for both roles. The container's command line (process 1, or the process
// after an init such as `docker run --init`) says the role: `worker` answers on its liveness port
// (GET /health), anything else serves the API (GET /api/health). Exit 0 healthy, 1 not.
import { readFileSync } from "node:fs";

function commandLine() {
  try {
    return readFileSync("/proc/1/cmdline", "utf8").split("\0");
  } catch {
    return [];
  }
}

const worker = commandLine().includes("worker");
const port = worker ? (process.env.STUDIO_WORKER_HEALTH_PORT ?? "8081") : (process.env.STUDIO_PORT ?? "8080");
const url = `http://127.0.0.1:${port}${worker ? "/health" : "/api/health"}`;
try {
  const response = await fetch(url, { signal: AbortSignal.timeout(4000) });
  process.exit(response.ok ? 0 : 1);
} catch {
  process.exit(1);
}
