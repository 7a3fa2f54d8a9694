// Time travel and fork: a run's supersteps, and a new run started from one of them.
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { dataEnvelope, errorResponse, pageEnvelope, paginationQuery } from "../../schemas/common.schema.js";
import { forkPreviewView, forkRequest, stepView } from "../../schemas/run-fork.schema.js";
import type { Container } from "../deps.js";
import { actorOf } from "../request-context.js";
import { pageResponse } from "./page-response.js";

const security = [{ bearer: [] }];
const idParams = z.strictObject({ id: z.string().min(1).max(100) });
const refused = { 404: errorResponse, 409: errorResponse, 422: errorResponse };

export const runForkRoutes =
  (c: Container): FastifyPluginAsyncZod =>
  async (app) => {
    app.get(
      "/api/runs/:id/steps",
      {
        schema: {
          tags: ["runs"],
          summary: "The run's supersteps, oldest first: checkpoint, nodes that ran, state after it",
          security,
          params: idParams,
          querystring: paginationQuery,
          response: { 200: pageEnvelope(stepView), 404: errorResponse },
        },
      },
      async (request) => pageResponse(await c.runForks.steps(actorOf(request), request.params.id, request.query)),
    );

    app.post(
      "/api/runs/:id/fork/preview",
      {
        schema: {
          tags: ["runs"],
          summary: "What a fork would run next, and which side effects it would reuse or run again",
          security,
          params: idParams,
          body: forkRequest,
          response: { 200: dataEnvelope(forkPreviewView), ...refused },
        },
      },
      async (request) => ({ data: await c.runForks.preview(actorOf(request), request.params.id, request.body) }),
    );

    app.post(
      "/api/runs/:id/fork",
      {
        schema: {
          tags: ["runs"],
          summary: "Start a new run from a superstep of this one, with an edited state (202)",
          security,
          params: idParams,
          body: forkRequest,
          response: { 202: dataEnvelope(z.record(z.string(), z.unknown())), 429: errorResponse, ...refused },
        },
      },
      async (request, reply) =>
        reply.code(202).send({ data: await c.runForks.fork(actorOf(request), request.params.id, request.body) }),
    );
  };
