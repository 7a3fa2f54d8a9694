// Run one node of a workflow on a chosen state (the editor's "run this node").
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { dataEnvelope, errorResponse } from "../../schemas/common.schema.js";
import { nodeRunRequest, nodeRunView } from "../../schemas/node-run.schema.js";
import type { Container } from "../deps.js";
import { actorOf } from "../request-context.js";

export const nodeRunRoutes =
  (c: Container): FastifyPluginAsyncZod =>
  async (app) => {
    app.post(
      "/api/node-runs",
      {
        schema: {
          tags: ["runs"],
          summary:
            "Run one node on a state from a past run's superstep or typed as JSON: its output, the state it would write, its duration",
          security: [{ bearer: [] }],
          body: nodeRunRequest,
          response: { 200: dataEnvelope(nodeRunView), 404: errorResponse, 422: errorResponse },
        },
      },
      async (request) => ({ data: await c.nodeRuns.run(actorOf(request), request.body) }),
    );
  };
