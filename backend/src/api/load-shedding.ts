// Load shedding at the door: while STUDIO_MAX_IN_FLIGHT requests are being handled, one more is
// answered 503 SERVER_BUSY with Retry-After at once, before any work (authentication, parsing, the
// database) is done for it. A burst then costs the server a cheap refusal per request beyond the
// bound instead of a queue that grows until every client times out (and the server acts later on
// requests whose clients have given up).
//
// Each counted request first lets the event loop go round once. Without that, a request on the
// embedded database (whose calls are synchronous) runs from start to answer without yielding, so
// the requests behind it wait unseen in the kernel's socket queues and are never counted; with
// it, every request that has arrived is counted before the work of the first one starts.
//
// The health check, sockets and event streams are not counted: a monitor must still see the
// server, and a socket or a stream of a run's events stays open for as long as its reader does.
// A hook that waits for its run stops counting once its run is accepted (`release`): waiting
// costs a socket and a listener, not work.
import { setImmediate as nextTurn } from "node:timers/promises";
import type { FastifyInstance, FastifyRequest } from "fastify";
import { AppError } from "../core/errors.js";

declare module "fastify" {
  interface FastifyInstance {
    /** The requests in flight (tests read it). */
    requestLoad: RequestLoad;
  }
}

// A polling hint, not a promise: the requests in flight are usually answered within a second or two.
const IN_FLIGHT_RETRY_SECONDS = 2;

export class RequestLoad {
  readonly max: number;
  #inFlight = 0;
  /** The counted requests' way of stopping to count, once (at release or at their answer). */
  readonly #releases = new WeakMap<FastifyRequest, () => void>();

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
      let counted = true;
      const release = () => {
        if (!counted) return;
        counted = false;
        this.#inFlight--;
      };
      this.#releases.set(request, release);
      // `close` comes once per response: when it has been sent, or when the client went away.
      reply.raw.once("close", release);
      await nextTurn();
    });
  }

  /** Stops counting a request before its answer (a hook that waits for its run, once the run is accepted). */
  release(request: FastifyRequest): void {
    this.#releases.get(request)?.();
  }
}

// Routes whose answer lasts as long as the client wants it, or that a monitor calls.
const NOT_COUNTED = new Set(["/api/health", "/api/runs/:id/stream"]);

function exempt(request: FastifyRequest): boolean {
  return request.headers.upgrade !== undefined || NOT_COUNTED.has(request.routeOptions.url ?? "");
}
