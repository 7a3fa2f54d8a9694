import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { dataEnvelope, errorResponse } from "../../schemas/common.schema.js";
import { nodeStatsQuery, nodeStatsView } from "../../schemas/run-list.schema.js";
import type { Container } from "../deps.js";
import { actorOf } from "../request-context.js";

const security = [{ bearer: [] }];

export const nodeStatsRoutes =
  (c: Container): FastifyPluginAsyncZod =>
  async (app) => {
    app.get(
      "/api/workflows/:id/node-stats",
      {
        schema: {
          tags: ["runs"],
          summary: "Per node over the workflow's newest runs: runs, median and p95 time, error rate, LLM tokens",
          security,
          params: z.strictObject({ id: z.string().min(1).max(100) }),
          querystring: nodeStatsQuery,
          response: { 200: dataEnvelope(nodeStatsView), 404: errorResponse, 422: errorResponse },
        },
      },
      async (request) => ({
        data: await c.nodeStats.forWorkflow(actorOf(request), request.params.id, request.query.runs),
      }),
    );
  };
