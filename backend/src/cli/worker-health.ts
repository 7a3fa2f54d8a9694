// The liveness answer of `superstep worker`: GET /health on a port of its own (no Fastify: a worker
// serves nothing else). 200 with the same view as the API's /api/health while the database answers
// (Redis away is `degraded`, not dead: restarting the worker would not bring Redis back), 503 when
// the database does not answer.
import { createServer, type Server } from "node:http";
import type { Container } from "../api/deps.js";
import { AppError } from "../core/errors.js";

export async function startWorkerHealth(
  container: Pick<Container, "health" | "runs">,
  host: string,
  port: number,
): Promise<{ server: Server; port: number }> {
  const server = createServer((request, response) => {
    const reply = (status: number, body: unknown) => {
      response.writeHead(status, { "content-type": "application/json" });
      response.end(JSON.stringify(body));
    };
    if (request.method !== "GET" || (request.url ?? "").split("?")[0] !== "/health") {
      reply(404, { error: { code: "NOT_FOUND", message: new AppError("NOT_FOUND").message } });
      return;
    }
    container.health.health().then(
      (view) => reply(200, { data: { ...view, role: "worker", executing: container.runs.held().executing } }),
      (error: unknown) => {
        const known = error instanceof AppError ? error : new AppError("INTERNAL");
        reply(known.status, { error: { code: known.code, message: known.message } });
      },
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
