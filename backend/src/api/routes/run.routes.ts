import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { RUN_STATUSES } from "../../engine/runtime/events.js";
import { dataEnvelope, errorResponse, pageEnvelope } from "../../schemas/common.schema.js";
import { runCompareQuery, runCompareView, runListFilters, runListItem } from "../../schemas/run-list.schema.js";
import type { Container } from "../deps.js";
import { streamFailure } from "../error-handlers.js";
import { actorOf } from "../request-context.js";
import { pageResponse } from "./page-response.js";

const security = [{ bearer: [] }];
const idParams = z.strictObject({ id: z.string().min(1).max(100) });
const runView = z.record(z.string(), z.unknown());
const notFound = { 404: errorResponse, 409: errorResponse };
const runListQuery = runListFilters.extend({ status: z.enum(RUN_STATUSES).optional() });

export const runRoutes =
  (c: Container): FastifyPluginAsyncZod =>
  async (app) => {
    app.get(
      "/api/runs",
      {
        schema: {
          tags: ["runs"],
          summary: "Your runs, newest first, filtered by workflow, status, trigger, schedule, time range or id",
          security,
          querystring: runListQuery,
          response: { 200: pageEnvelope(runListItem), 422: errorResponse },
        },
      },
      async (request) => {
        const { workflow_id, status, trigger, schedule_id, from, to, q, limit, offset } = request.query;
        return pageResponse(
          await c.runs.list(
            actorOf(request),
            { workflowId: workflow_id, status, trigger, scheduleId: schedule_id, from, to, idPart: q },
            { limit, offset },
          ),
        );
      },
    );

    app.get(
      "/api/runs/compare",
      {
        schema: {
          tags: ["runs"],
          summary:
            "Two runs of one workflow side by side: state field by field, and each node's status, time and output",
          security,
          querystring: runCompareQuery,
          response: { 200: dataEnvelope(runCompareView), 404: errorResponse, 422: errorResponse },
        },
      },
      async (request) => ({
        data: await c.runCompare.compare(actorOf(request), request.query.a, request.query.b),
      }),
    );

    app.get(
      "/api/runs/:id",
      {
        schema: {
          tags: ["runs"],
          summary: "One run with its state, output, error and metrics",
          security,
          params: idParams,
          response: { 200: dataEnvelope(runView), ...notFound },
        },
      },
      async (request) => ({ data: await c.runs.get(actorOf(request), request.params.id) }),
    );

    app.get(
      "/api/runs/:id/events",
      {
        schema: {
          tags: ["runs"],
          summary: "The run's events after a seq (to catch up after a reconnect)",
          security,
          params: idParams,
          querystring: z.strictObject({
            after: z.coerce.number().int().min(0).default(0),
            limit: z.coerce.number().int().min(1).max(1000).default(500),
          }),
        },
      },
      async (request) => ({
        data: await c.runs.events(actorOf(request), request.params.id, request.query.after, request.query.limit),
      }),
    );

    app.get(
      "/api/runs/:id/stream",
      {
        schema: {
          tags: ["runs"],
          summary: "Live events as Server-Sent Events, resuming after a seq (?after= or Last-Event-ID)",
          security,
          params: idParams,
          querystring: z.strictObject({ after: z.coerce.number().int().min(0).optional() }),
          headers: z.object({ "last-event-id": z.string().regex(/^\d+$/).optional() }),
        },
      },
      async (request, reply) => {
        const after = request.query.after ?? Number(request.headers["last-event-id"] ?? 0);
        const actor = actorOf(request);
        const run = await c.runs.get(actor, request.params.id);
        reply.hijack();
        const raw = reply.raw;
        raw.writeHead(200, {
          "content-type": "text/event-stream; charset=utf-8",
          "cache-control": "no-cache",
          connection: "keep-alive",
          "x-request-id": request.id,
        });
        let unsubscribe: (() => void) | null = null;
        const end = () => {
          unsubscribe?.();
          clearInterval(keepAlive);
          if (!raw.writableEnded) raw.end();
        };
        // Comments keep proxies from closing an idle stream.
        const keepAlive = setInterval(() => raw.write(": keep-alive\n\n"), 15_000);
        raw.on("close", end);
        let following: Awaited<ReturnType<typeof c.runs.followTurn>>;
        try {
          following = await c.runs.followTurn(actor, run.id, after, (event) => {
            raw.write(`id: ${event.seq}\nevent: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`);
          });
        } catch (error) {
          // The 200 and its headers are out: the failure is the stream's last message, not a hang.
          if (!raw.writableEnded) raw.write(`event: stream_failed\ndata: ${streamFailure(request.log, error)}\n\n`);
          end();
          return;
        }
        unsubscribe = following.stop;
        // Closed by the client during the catch-up, or ended with the run's turn.
        if (raw.writableEnded) unsubscribe();
        else void following.ended.then(end);
      },
    );

    app.post(
      "/api/runs/:id/resume",
      {
        schema: {
          tags: ["runs"],
          summary: "Answer a waiting run's Human form",
          security,
          params: idParams,
          body: z.strictObject({ input: z.record(z.string(), z.unknown()) }),
          response: { 200: dataEnvelope(runView), 422: errorResponse, ...notFound },
        },
      },
      async (request) => ({ data: await c.runs.resume(actorOf(request), request.params.id, request.body.input) }),
    );

    app.post(
      "/api/runs/:id/continue",
      {
        schema: {
          tags: ["runs"],
          summary: "Run the next superstep of a paused run",
          security,
          params: idParams,
          response: { 200: dataEnvelope(runView), ...notFound },
        },
      },
      async (request) => ({ data: await c.runs.continue(actorOf(request), request.params.id) }),
    );

    app.post(
      "/api/runs/:id/cancel",
      {
        schema: {
          tags: ["runs"],
          summary: "Cancel a run that has not ended",
          security,
          params: idParams,
          response: { 200: dataEnvelope(runView), ...notFound },
        },
      },
      async (request) => ({ data: await c.runs.cancel(actorOf(request), request.params.id) }),
    );
  };

/** The longest a hook may wait for its run (`?wait=`), in seconds. */
const HOOK_WAIT_MAX_SECONDS = 300;

/**
 * Run triggers for other systems: an API key, not a session, and an optional Idempotency-Key.
 * Rate limited per client address before anything else (STUDIO_HOOK_RATE_LIMIT); each run is
 * then admitted against its owner's limits. With `?wait=N` the answer waits up to N seconds for
 * the run's turn to end and says how (200); past that, or if the server stops meanwhile, it is the
 * usual 202 and the run goes on.
 */
export const hookRoutes =
  (c: Container): FastifyPluginAsyncZod =>
  async (app) => {
    /** Hooks waiting for their runs: a server that stops answers them at once (202) instead of waiting. */
    const waiting = new Set<AbortController>();
    app.addHook("preClose", async () => {
      for (const wait of waiting) wait.abort();
    });

    app.post(
      "/api/hooks/workflows/:wid/runs",
      {
        config: {
          rateLimit: { max: c.config.hookRateLimitPerMinute, timeWindow: "1 minute" },
          // The answer is the run this call created (on disk once created) or the one an earlier
          // call with the same key created: no need to wait for other runs' writes to reach the disk.
          ownWritesOnly: true,
        },
        schema: {
          tags: ["hooks"],
          summary:
            "Start a run of a saved workflow (202), or with ?wait=N wait up to N seconds for it to finish, wait or pause (200); a retried request with the same Idempotency-Key returns the same run",
          security,
          params: z.strictObject({ wid: z.string().min(1).max(100) }),
          querystring: z.object({
            wait: z.coerce.number().int().min(0).max(HOOK_WAIT_MAX_SECONDS).optional(),
          }),
          headers: z.object({ "idempotency-key": z.string().min(1).max(200).optional() }),
          body: z
            .strictObject({
              input: z.record(z.string(), z.unknown()).optional(),
              context: z.record(z.string(), z.unknown()).optional(),
              version: z.number().int().min(1).optional(),
              mode: z.enum(["full", "step"]).optional(),
              callback_url: z.string().max(2000).optional(),
            })
            .default({}),
          response: {
            200: dataEnvelope(
              z.object({
                run_id: z.string(),
                status: z.string(),
                output: z.unknown(),
                error: z.unknown(),
                waiting: z.unknown(),
                next: z.unknown(),
              }),
            ),
            202: dataEnvelope(z.object({ run_id: z.string(), status: z.string() })),
            422: errorResponse,
            404: errorResponse,
            429: errorResponse,
            503: errorResponse,
            507: errorResponse,
          },
        },
      },
      async (request, reply) => {
        // Not awaited here: the run service reads the workflow while the key is being checked.
        const caller = c.auth.authenticateApiKey(request.headers.authorization);
        const meta = { trigger: "api", idempotencyKey: request.headers["idempotency-key"], keepApiKey: true };
        // At most as many hooks wait at once as requests are handled at once; past that, 202 at once.
        const waitSeconds = waiting.size < c.config.maxInFlight ? (request.query.wait ?? 0) : 0;
        if (waitSeconds === 0) {
          const { run } = await c.runs.trigger(caller, request.params.wid, request.body, meta);
          return reply.code(202).send({ data: { run_id: run.id, status: run.status } });
        }
        const wait = new AbortController();
        // The caller went away: nobody is left to tell.
        const gone = () => wait.abort();
        reply.raw.once("close", gone);
        waiting.add(wait);
        try {
          const { run, ended } = await c.runs.triggerAndWait(caller, request.params.wid, request.body, meta, {
            ms: waitSeconds * 1000,
            signal: wait.signal,
            accepted: () => app.requestLoad.release(request),
          });
          if (!ended) return reply.code(202).send({ data: { run_id: run.id, status: run.status } });
          return reply.code(200).send({ data: { run_id: run.id, ...ended } });
        } finally {
          waiting.delete(wait);
          reply.raw.off("close", gone);
        }
      },
    );
  };
