import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { dataEnvelope, errorResponse } from "../../schemas/common.schema.js";
import { healthView } from "../../schemas/health.schema.js";
import type { Container } from "../deps.js";

export const healthRoutes =
  (c: Container): FastifyPluginAsyncZod =>
  async (app) => {
    app.get(
      "/api/health",
      {
        schema: {
          tags: ["health"],
          summary: "Server, database and queue status",
          response: { 200: dataEnvelope(healthView), 503: errorResponse },
        },
      },
      async () => ({ data: await c.health.health() }),
    );
  };
