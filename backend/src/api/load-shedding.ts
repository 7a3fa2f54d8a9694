// Load shedding at the door: while STUDIO_MAX_IN_FLIGHT requests are being handled, one more is
// answered 503 SERVER_BUSY with Retry-After at once, before any work (authentication, parsing, the
// database) is done for it. A burst then costs the server a refusal per request instead of a
// queue that grows until every client times out. The health check and sockets are not counted:
// a monitor must still see the server, and a socket stays open for as long as the editor does.
import type { FastifyInstance, FastifyRequest } from "fastify";
import { AppError } from "../core/errors.js";

declare module "fastify" {
  interface FastifyInstance {
    /** The requests in flight (tests read it). */
    requestLoad: RequestLoad;
  }
}

// A request in flight usually ends within a second or two; a polling hint, not a promise.
const IN_FLIGHT_RETRY_SECONDS = 2;

export class RequestLoad {
  readonly max: number;
  #inFlight = 0;

  constructor(max: number) {
    this.max = max;
  }

  /** Requests being handled now (the counted ones). */
  get inFlight(): number {
    return this.#inFlight;
  }

  register(app: Pick<FastifyInstance, "addHook">): void {
    app.addHook("onRequest", async (request, reply) => {
      if (exempt(request)) return;
      if (this.#inFlight >= this.max) {
        throw new AppError("SERVER_BUSY", {
          reason: "too_many_requests",
          limit: this.max,
          retry_after_seconds: IN_FLIGHT_RETRY_SECONDS,
        });
      }
      this.#inFlight++;
      // `close` comes once per response: when it has been sent, or when the client went away.
      reply.raw.once("close", () => {
        this.#inFlight--;
      });
    });
  }
}

function exempt(request: FastifyRequest): boolean {
  if (request.headers.upgrade !== undefined) return true;
  const path = request.url.split("?")[0] ?? "";
  return path === "/api/health" || path.startsWith("/api/health/");
}
