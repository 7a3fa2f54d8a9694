// The liveness answer of `superstep worker`: GET /health on a port of its own (no Fastify: a worker
// serves nothing else). 200 with the same view as the API's /api/health while the database answers
// (Redis away is `degraded`, not dead: restarting the worker would not bring Redis back), 503 when
// the database does not answer.
import { createServer, type Server } from "node:http";
import type { Container } from "../api/deps.js";
import { errorBody, errorHeaders, toAppError } from "../api/error-handlers.js";
import { AppError } from "../core/errors.js";

export async function startWorkerHealth(
  container: Pick<Container, "health" | "runs">,
  host: string,
  port: number,
): Promise<{ server: Server; port: number }> {
  const server = createServer((request, response) => {
    const reply = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      response.writeHead(status, { ...headers, "content-type": "application/json; charset=utf-8" });
      response.end(JSON.stringify(body));
    };
    // Errors take the API's shape and headers (error-handlers.ts), as /api/health's do.
    const fail = (error: unknown) => {
      const known = toAppError(error);
      reply(known.status, errorBody(known), errorHeaders(known));
    };
    if (request.method !== "GET" || (request.url ?? "").split("?")[0] !== "/health") {
      fail(new AppError("NOT_FOUND"));
      return;
    }
    container.health
      .health()
      .then(
        (view) => reply(200, { data: { ...view, role: "worker", executing: container.runs.held().executing } }),
        fail,
      );
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  return { server, port: (server.address() as { port: number }).port };
}
